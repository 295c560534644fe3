#!/bin/bash
# The test command (make check, .ci/run): install what is missing, build the
# patched kernel and the selftests, boot the guest, run the harness
# self-tests, our selftests and upstream's cgroup selftests, then build the
# patched systemd, boot it as PID 1 and run its tests and libcgroup's
# (scripts/check-systemd.sh), and end with "N passed, N failed".  Exits
# non-zero on any failure.
#
# CHECK_FLAVOUR=debug (make check-debug) does the same on the debug kernel
# (KASAN, lockdep, DEBUG_VM, DEBUG_OBJECTS_WORK, KFENCE, kmemleak).
. "$(dirname "$0")/lib.sh"

flavour=${CHECK_FLAVOUR:-patched}
kobj=$OBJ
[ "$flavour" = debug ] && kobj=$BUILD/obj/linux-debug
kernel=$kobj/arch/x86/boot/bzImage


passed=0 failed=0 skipped=0 xfailed=0
result() {	# result pass|fail NAME [DETAIL]
	if [ "$1" = pass ]; then
		passed=$((passed + 1))
		echo "PASS $2"
	else
		failed=$((failed + 1))
		echo "FAIL $2${3:+: $3}"
	fi
}

"$TOP/scripts/deps.sh"
"$TOP/scripts/build-kernel.sh" "$flavour"
[ "$flavour" = patched ] || "$TOP/scripts/build-kernel.sh"
"$TOP/scripts/build-tests.sh"
say "base: linux-source-6.12 $(cat "$BUILD/linux-base-version"), series: $(ls "$SERIES"/*.patch | wc -l) patches"

step "harness self-tests"
# The report scanner must catch a WARNING and pass a clean boot.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '[    1.0] Run /init as init process\n' > "$tmp/clean.log"
printf '[    2.0] ------------[ cut here ]------------\n[    2.0] WARNING: CPU: 1 PID: 42 at mm/reap_on_kill.c:10\n' > "$tmp/warn.log"
if "$TOP/scripts/scan-console.sh" "$tmp/clean.log" >/dev/null &&
   ! "$TOP/scripts/scan-console.sh" "$tmp/warn.log" >/dev/null; then
	result pass harness:scan_console_detects_reports
else
	result fail harness:scan_console_detects_reports
fi

# A test listed in tests/flaky passes on a later attempt; nothing else does.
printf '1..2\nnot ok 1 test_cgfreezer_ptrace\nnot ok 2 test_cgfreezer_simple\n' > "$tmp/f.tap"
printf '1..2\nok 1 test_cgfreezer_ptrace\nok 2 test_cgfreezer_simple\n' > "$tmp/f.tap.2"
echo 1 > "$tmp/f.rc"
if [ "$("$TOP/scripts/tap-summary.sh" test_freezer "$tmp/f.tap" "$tmp/f.rc" /dev/null \
	"$TOP/tests/flaky" | tail -1)" = "COUNTS 1 1 0 0" ]; then
	result pass harness:flaky_retry_only_for_listed_tests
else
	result fail harness:flaky_retry_only_for_listed_tests
fi

# The guest's exit status and output reach the host unchanged.
set +e
out=$("$TOP/scripts/guest-run.sh" --kernel "$kernel" --timeout 180 -- bash -c 'echo guest-says-hello; exit 7' 2>&1)
rc=$?
set -e
if [ "$rc" = 7 ] && grep -q guest-says-hello <<<"$out"; then
	result pass harness:guest_exit_status
else
	printf '%s\n' "$out" | tail -20
	result fail harness:guest_exit_status "exit $rc, want 7 and the guest's output"
fi

step "benchmark smoke run (tiny; figures are not checked)"
set +e
out=$("$TOP/scripts/guest-run.sh" --kernel "$kernel" --timeout 600 -- "$BUILD/tests/cgroup/reap_bench" \
	-s 32 -c none,cpumax1 -n 4 -r 1 2>&1)
rc=$?
# Keep what follows the progress line's last carriage return or erase.
out=$(sed -e 's/.*\x1b\[K//' -e 's/\r//g' <<<"$out")
set -e
printf '%s\n' "$out" | grep -E '^(unthrottled|cpu.max)' || true
if [ "$rc" = 0 ] && [ "$(grep -cE '^(unthrottled|cpu.max 1%) +32 +[14] +[0-9]' <<<"$out")" = 3 ]; then
	result pass harness:benchmark_runs
else
	printf '%s\n' "$out" | tail -20
	result fail harness:benchmark_runs "exit $rc, or the table is incomplete"
fi

step "booting the patched kernel for the selftests"
res=$BUILD/results
rm -rf "$res"
set +e
GUEST_OUT=$res "$TOP/scripts/guest-run.sh" --kernel "$kernel" --timeout "${CHECK_TIMEOUT:-2400}" -- \
	"$TOP/guest/run-tests.sh" /job/out "$BUILD/tests/cgroup" $OUR_TESTS $UPSTREAM_TESTS
rc=$?
set -e
if [ "$rc" = 0 ]; then
	result pass harness:guest_clean_run
else
	result fail harness:guest_clean_run "guest-run exit $rc (124 timeout, 125 kernel report, 123 no status)"
fi

fact() { sed -n "s/^$1=//p" "$res/facts" 2>/dev/null; }
build_id=$(readelf -n "$kobj/vmlinux" 2>/dev/null | sed -n 's/.*Build ID: //p' | head -1)
if [ -n "$build_id" ] && fact build_id | grep -q "$build_id"; then
	result pass harness:booted_kernel_is_the_one_built
else
	result fail harness:booted_kernel_is_the_one_built "build ID ${build_id:-?} not in the guest's /sys/kernel/notes"
fi
missing=""
for c in cpuset cpu io memory pids; do
	fact controllers | grep -qw "$c" && fact subtree_control | grep -qw "$c" || missing="$missing $c"
done
if [ -z "$missing" ]; then
	result pass harness:cgroup2_controllers_delegated
else
	result fail harness:cgroup2_controllers_delegated "missing:$missing"
fi
if [ "$(fact cwd_fs)" = ext2/ext3 ]; then
	result pass harness:tests_run_on_ext4_scratch
else
	result fail harness:tests_run_on_ext4_scratch "tests ran on '$(fact cwd_fs)'"
fi

step "selftest results"
known=$tmp/known-failures
cat "$TOP/tests/known-failures" > "$known"
[ "$flavour" = debug ] && cat "$TOP/tests/known-failures.debug" >> "$known"
for t in $OUR_TESTS $UPSTREAM_TESTS; do
	summary=$("$TOP/scripts/tap-summary.sh" "$t" "$res/$t.tap" "$res/$t.rc" "$known" "$TOP/tests/flaky")
	grep -v '^COUNTS' <<<"$summary"
	read -r _ p f s x < <(grep '^COUNTS' <<<"$summary")
	passed=$((passed + p)) failed=$((failed + f))
	skipped=$((skipped + s)) xfailed=$((xfailed + x))
done
grep -h '^# kill-to-free\|^# readers:' "$res"/test_reap_on_kill.tap 2>/dev/null || true

if [ "$flavour" = patched ]; then
	step "systemd MemoryReapOnKill= and libcgroup's tools"
	sd_out=$("$TOP/scripts/check-systemd.sh")
	grep -v '^COUNTS' <<<"$sd_out"
	read -r _ p f s < <(grep '^COUNTS' <<<"$sd_out")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
fi

echo "$skipped skipped (reasons above), $xfailed known failures (tests/known-failures)"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
