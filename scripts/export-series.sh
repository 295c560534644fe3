#!/bin/bash
# Write the build tree's commits since the pristine base back into the
# base's series directory (KBASE=mainline: patches/linux; KBASE=6.12:
# patches/linux-6.12) as a git format-patch series.
. "$(dirname "$0")/lib.sh"
[ -d "$TREE/.git" ] || die "no build tree for $KBASE: run 'make tree' first"
if [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; then
	die "${TREE#"$TOP"/} has uncommitted edits: commit them first"
fi
read -r _ base_version _ < "$SOURCE_INFO"
mkdir -p "$SERIES"
rm -f "$SERIES"/*.patch
git -C "$TREE" format-patch -q --no-signature --zero-commit -N \
	-o "$SERIES" base..HEAD
git -C "$TREE" tag -f applied >/dev/null
series_id=$(series_id)
echo "$base_version $series_id" > "$TREE/.git/reap-on-kill-applied"
step "exported $(ls "$SERIES"/*.patch | wc -l) patches to ${SERIES#"$TOP"/}"
