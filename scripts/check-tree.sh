#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Refuse to go on when a patched tree holds edits that are not in its
# series: the next re-apply would lose them.  Checks $KBASE's kernel tree;
# "check-tree.sh all" checks every kernel base's and every systemd base's.
. "$(dirname "$0")/lib.sh"
if [ "${1:-}" = all ]; then
	for b in $KBASES; do
		KBASE=$b "$0"
	done
	for b in $SD_BASES; do
		tree_guard "$BUILD/systemd-$b/src" "$(sd_series "$b")" "make systemd-export-series SD_BASE=$b"
	done
else
	tree_guard "$TREE" "$SERIES" "make export-series KBASE=$KBASE"
fi
