#!/bin/bash
# Refuse to go on when the systemd build tree holds edits that are not in
# patches/systemd: they would be lost by the next re-apply.
. "$(dirname "$0")/lib.sh"
SD_TREE=$BUILD/systemd/src
[ -d "$SD_TREE/.git" ] || exit 0
if [ -n "$(git -C "$SD_TREE" status --porcelain --untracked-files=no)" ]; then
	git -C "$SD_TREE" status --short --untracked-files=no >&2
	die "build/systemd/src has uncommitted edits: commit them there, then run scripts/systemd-export-series.sh"
fi
if git -C "$SD_TREE" rev-parse -q --verify applied >/dev/null &&
   [ "$(git -C "$SD_TREE" rev-parse HEAD)" != "$(git -C "$SD_TREE" rev-parse applied)" ]; then
	die "build/systemd/src has commits not exported to patches/systemd: run scripts/systemd-export-series.sh"
fi
