#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the cgroup kselftests, ours included, against the patched tree's
# UAPI headers, for base $KBASE.  Output: build/tests-$KBASE/cgroup/.
. "$(dirname "$0")/lib.sh"

out=${TESTS_OUT_DIR:-$TESTS_OUT}
log=$BUILD/logs/selftests-$KBASE.log
# KHDR: the UAPI headers to build against (make-deb.sh passes the packaged ones).
khdr=${KHDR:-$OBJ/usr/include}
[ -d "$khdr" ] || die "no kernel headers in ${khdr#"$TOP"/}: build the kernel first"
includes="-isystem $khdr"
# A Debian linux-libc-dev keeps asm/ under the multiarch directory.
[ -d "$khdr/x86_64-linux-gnu" ] && includes="$includes -isystem $khdr/x86_64-linux-gnu"
mkdir -p "$out" "$BUILD/logs"
step "building the $KBASE cgroup selftests (log: ${log#"$TOP"/})"
if ! make -C "$TREE/tools/testing/selftests/cgroup" OUTPUT="$out" \
	KHDR_INCLUDES="$includes" -j"$(make_jobs)" \
	>"$log" 2>&1; then
	grep -E 'error|warning' "$log" | head -20 >&2
	die "selftest build failed; full log: ${log#"$TOP"/}"
fi
if grep -q 'warning:' "$log"; then
	grep 'warning:' "$log" >&2
fi
