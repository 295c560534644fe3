#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest's initramfs: Debian's static busybox and guest/init, nothing else.
. "$(dirname "$0")/lib.sh"

busybox=/bin/busybox
out=$BUILD/guest/initramfs.cpio.gz
dir=$BUILD/guest/initramfs
if ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is not static: install Debian package busybox-static"
fi
if [ -f "$out" ] && [ "$out" -nt "$TOP/guest/init" ] && [ "$out" -nt "$busybox" ]; then
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir/bin"
cp "$busybox" "$dir/bin/busybox"
install -m 0755 "$TOP/guest/init" "$dir/init"
(cd "$dir" && find . | cpio --quiet -o -H newc | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
