#!/bin/bash
# Write the systemd build tree's commits since Debian's base back into
# patches/systemd as a git format-patch series.
. "$(dirname "$0")/lib.sh"
SD_TREE=$BUILD/systemd/src
SD_SERIES=$TOP/patches/systemd
[ -d "$SD_TREE/.git" ] || die "no systemd tree: run scripts/systemd-source.sh first"
if [ -n "$(git -C "$SD_TREE" status --porcelain --untracked-files=no)" ]; then
	die "build/systemd/src has uncommitted edits: commit them first"
fi
mkdir -p "$SD_SERIES"
rm -f "$SD_SERIES"/*.patch
git -C "$SD_TREE" format-patch -q --no-signature --zero-commit -N \
	-o "$SD_SERIES" base..HEAD
git -C "$SD_TREE" tag -f applied >/dev/null
sd_series_id=$(find "$SD_SERIES" -name '*.patch' -type f | sort | xargs -r cat | sha1sum | cut -c1-12)
echo "$(cat "$BUILD/systemd/base-version") $sd_series_id" > "$SD_TREE/.git/reap-on-kill-applied"
step "exported $(ls "$SD_SERIES"/*.patch | wc -l) patches to patches/systemd"
