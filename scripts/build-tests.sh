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

# test_robust_futex_compat's victim is the 32-bit reap_robust32, which the
# selftests' Makefile leaves out, and the test then skips, where gcc cannot
# link static 32-bit programs.  Here that is a build failure: ask gcc the
# Makefile's question first, and build the helper anew each time, so that
# one left from an earlier build cannot stand in for it.
robust32_needs="install the Debian package gcc-multilib (it brings libc6-dev-i386)"
if ! said=$(printf 'int main(void) { return 0; }\n' |
	gcc -m32 -static -x c -o "$out/.trivial32" - 2>&1); then
	die "gcc cannot link a static 32-bit program, so reap_robust32 (test_robust_futex_compat) would not be built: $robust32_needs; gcc: $(head -2 <<<"$said" | tr '\n' ' ')"
fi
rm -f "$out/.trivial32" "$out/reap_robust32"
step "building the $KBASE cgroup selftests (log: ${log#"$TOP"/})"
if ! make -C "$TREE/tools/testing/selftests/cgroup" OUTPUT="$out" \
	KHDR_INCLUDES="$includes" -j"$(make_jobs)" \
	>"$log" 2>&1; then
	grep -E 'error|warning' "$log" | head -20 >&2
	die "selftest build failed; full log: ${log#"$TOP"/}"
fi
[ -x "$out/reap_robust32" ] ||
	die "the selftests' build did not make reap_robust32 (test_robust_futex_compat's 32-bit victim): $robust32_needs, or see ${log#"$TOP"/}"
if grep -q 'warning:' "$log"; then
	grep 'warning:' "$log" >&2
fi
