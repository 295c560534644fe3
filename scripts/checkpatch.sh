#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict over the patch series and our new kernel files.
. "$(dirname "$0")/lib.sh"
# spdxcheck.py needs python3-ply: use Debian's python3.
export PATH=/usr/bin:$PATH
cp=$TREE/scripts/checkpatch.pl
[ -x "$cp" ] || die "no build tree: run 'make tree'"
status=0
for p in "$SERIES"/*.patch; do
	if ! out=$(cd "$TREE" && "$cp" --strict --no-signoff --quiet "$p" 2>&1); then
		echo "== $(basename "$p")"; echo "$out"; status=1
	fi
done
while IFS= read -r f; do
	case $f in *.c|*.h) ;; *) continue ;; esac
	if ! out=$(cd "$TREE" && "$cp" --strict --quiet -f "$f" 2>&1); then
		echo "== $f"; echo "$out"; status=1
	fi
done < <(our_kernel_files)
[ $status = 0 ] && echo "checkpatch --strict: clean ($(ls "$SERIES"/*.patch | wc -l) patches, our files)"
exit $status
