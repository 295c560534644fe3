#!/bin/bash
# Write the systemd build tree's commits since Debian's base back into the
# series of SD_BASE (patches/systemd for 262, patches/systemd-257) as a git
# format-patch series.
. "$(dirname "$0")/lib.sh"
[ -r "$SD/base-version" ] || die "no systemd $SD_BASE tree: run SD_BASE=$SD_BASE scripts/systemd-source.sh first"
tree_export "$SD/src" "$SD_SERIES" "$(cat "$SD/base-version")"
