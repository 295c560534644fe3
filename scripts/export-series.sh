#!/bin/bash
# Write the build tree's commits since the pristine base back into
# patches/linux as a git format-patch series.
. "$(dirname "$0")/lib.sh"
[ -d "$TREE/.git" ] || die "no build tree: run 'make tree' first"
if [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; then
	die "build/linux has uncommitted edits: commit them first"
fi
mkdir -p "$SERIES"
rm -f "$SERIES"/*.patch
git -C "$TREE" format-patch -q --no-signature --zero-commit -N \
	-o "$SERIES" base..HEAD
git -C "$TREE" tag -f applied >/dev/null
base_version=$(cat "$BUILD/linux-base-version")
series_id=$(series_id)
echo "$base_version $series_id" > "$TREE/.git/reap-on-kill-applied"
step "exported $(ls "$SERIES"/*.patch | wc -l) patches to patches/linux"
