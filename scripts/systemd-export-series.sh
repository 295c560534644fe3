#!/bin/bash
# Write the systemd build tree's commits since Debian's base back into
# patches/systemd as a git format-patch series.
. "$(dirname "$0")/lib.sh"
[ -r "$BUILD/systemd/base-version" ] || die "no systemd tree: run scripts/systemd-source.sh first"
tree_export "$BUILD/systemd/src" "$TOP/patches/systemd" "$(cat "$BUILD/systemd/base-version")"
