#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unit test of scripts/build-tests.sh's rule for reap_robust32, run by
# scripts/check.sh: the selftests' Makefile leaves the 32-bit helper out
# where gcc cannot link static 32-bit programs, and test_robust_futex_compat
# then skips; build-tests.sh must fail instead, naming the Debian package.
# It runs against a stand-in tree whose Makefile makes the helper or not,
# with a gcc stub that can or cannot link 32-bit programs, in a BUILD of
# its own: no kernel, no real build.
#
# Prints "PASS harness:build_tests_<case>" or "FAIL harness:build_tests_<case>:
# why" per case; exits non-zero if any failed.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
build_tests=${BUILD_TESTS_SH:-$TOP/scripts/build-tests.sh}	# BUILD_TESTS_SH: to test the test
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

mkdir -p "$tmp/build/obj/linux-mainline/usr/include" "$tmp/bin" \
	"$tmp/build/linux-mainline/tools/testing/selftests/cgroup"
# The stand-in Makefile: a test binary always, the helper if ROBUST32=1.
cat > "$tmp/build/linux-mainline/tools/testing/selftests/cgroup/Makefile" <<'MK'
all:
	touch $(OUTPUT)/test_reap_on_kill
	if [ "$(ROBUST32)" = 1 ]; then touch $(OUTPUT)/reap_robust32 && chmod +x $(OUTPUT)/reap_robust32; fi
MK
# gcc: fails for -m32 if STUB_M32=no, as gcc without gcc-multilib does.
cat > "$tmp/bin/gcc" <<'SH'
#!/bin/bash
for a; do
	if [ "$a" = -m32 ] && [ "$STUB_M32" = no ]; then
		echo "/usr/bin/ld: cannot find -lc: No such file or directory" >&2
		exit 1
	fi
done
cat > /dev/null
SH
chmod +x "$tmp/bin/gcc"

# check CASE M32 ROBUST32 STALE WANT: build-tests.sh with the stub's
# 32-bit answer M32 (yes/no), the Makefile making the helper or not
# (ROBUST32 1/0), a helper left from before (STALE yes/no), must succeed
# (WANT ok) or fail saying WANT (a regex); "no-make" in WANT also wants the
# Makefile not run.
check() {
	local case=$1 out=$tmp/out-$1 rc=0 err
	mkdir -p "$out"
	[ "$4" = no ] || { touch "$out/reap_robust32"; chmod +x "$out/reap_robust32"; }
	err=$(PATH="$tmp/bin:$PATH" STUB_M32=$2 ROBUST32=$3 BUILD=$tmp/build KBASE=mainline \
		TESTS_OUT_DIR=$out "$build_tests" 2>&1) || rc=$?
	if [ "$5" = ok ]; then
		if [ "$rc" = 0 ]; then pass "$case"; else fail "$case" "exit $rc, want 0: $err"; fi
	elif [ "$rc" != 0 ] && grep -qE "${5#no-make:}" <<<"$err" &&
	     { [ "${5#no-make:}" = "$5" ] || [ ! -e "$out/test_reap_on_kill" ]; }; then
		pass "$case"
	else
		fail "$case" "exit $rc, want a failure saying '${5#no-make:}'$([ "${5#no-make:}" = "$5" ] || echo ' before the build'): $err"
	fi
}
pass() { echo "PASS harness:build_tests_$1"; }
fail() { echo "FAIL harness:build_tests_$1: $2"; failures=$((failures + 1)); }

check no_32bit_gcc_fails_before_build no 1 no 'no-make:gcc-multilib.*libc6-dev-i386'
check helper_not_built_fails yes 0 no 'did not make reap_robust32.*gcc-multilib'
check stale_helper_does_not_count yes 0 yes 'did not make reap_robust32'
check helper_built_passes yes 1 no ok
[ "$failures" = 0 ]
