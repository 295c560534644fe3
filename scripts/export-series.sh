#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the build tree's commits since the pristine base back into the
# base's series directory (KBASE=mainline: patches/linux; KBASE=6.12:
# patches/linux-6.12) as a git format-patch series.
. "$(dirname "$0")/lib.sh"
[ -r "$SOURCE_INFO" ] || die "no build tree for $KBASE: run 'make tree KBASE=$KBASE' first"
read -r _ base_version _ < "$SOURCE_INFO"
tree_export "$TREE" "$SERIES" "$base_version"
