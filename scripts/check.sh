#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The test command (make check, .ci/run): install what is missing, build the
# patched kernels of both bases (mainline and the 6.12 backport, see lib.sh)
# and their selftests, boot the guest, run the harness self-tests (on
# mainline), our selftests and upstream's cgroup selftests on each kernel,
# then build the patched systemd, boot it as PID 1 and run its tests and
# libcgroup's (scripts/check-systemd.sh), and end with "N passed, N failed".
# Exits non-zero on any failure.  CHECK_KBASES="6.12" (or "mainline")
# checks one base only.
#
# Nothing of ours passes by not running: a subtest of ours that skips fails
# unless tests/allowed-skips allows it on that kernel, each of our binaries
# must report every test of its source's tests[] table (scripts/subtests.sh),
# and each binary and shell suite prints "RESULTS NAME: expected N, got M",
# repeated in short on the run's last lines.
#
# CHECK_FLAVOUR=debug (make check-debug) does the same on the debug kernel
# (KASAN, lockdep, DEBUG_VM, DEBUG_OBJECTS_WORK, KFENCE, kmemleak).
. "$(dirname "$0")/lib.sh"

flavour=${CHECK_FLAVOUR:-patched}
bases=${CHECK_KBASES:-$KBASES}
first_base=${bases%% *}

# kobj BASE: the objects of the kernel this run checks on BASE.
kobj() {
	if [ "$flavour" = debug ]; then
		echo "$BUILD/obj/linux-$1-debug"
	else
		echo "$BUILD/obj/linux-$1"
	fi
}
kernel=$(kobj "$first_base")/arch/x86/boot/bzImage


passed=0 failed=0 skipped=0 xfailed=0

# phase NAME: the time since the previous phase ended goes to NAME; the
# run ends with all of them on one line (CI keeps only the end of a log).
phases='' phase_start=$(date +%s)
phase() {
	local now
	now=$(date +%s)
	phases="$phases${phases:+, }$1 $((now - phase_start)) s"
	phase_start=$now
}
prefix=		# "BASE:" while a base's selftests are summarized
failures=	# the failed tests' names, repeated on the run's last lines
result() {	# result pass|fail NAME [DETAIL]
	if [ "$1" = pass ]; then
		passed=$((passed + 1))
		echo "PASS $prefix$2"
	else
		failed=$((failed + 1))
		failures="$failures $prefix$2"
		echo "FAIL $prefix$2${3:+: $3}"
	fi
}
# remember_failures: the names on the "FAIL NAME[: reason]" lines of stdin,
# and the counts on its "RESULTS NAME: expected N, got M" lines (tallies:
# the run's last lines repeat them, so a binary or suite that came short is
# seen at the end).
tallies=
remember_failures() {
	local line what
	while IFS= read -r line; do
		case $line in
		"FAIL "*) what=${line#FAIL }; failures="$failures ${what%%: *}" ;;
		"RESULTS "*) tallies="$tallies${tallies:+, }$(tally "${line#RESULTS }")" ;;
		esac
	done
}
# tally "NAME: expected N, got M": "NAME M/N", the short form of the end.
tally() {
	local name=${1%%: *} n m
	n=${1#*expected } n=${n%%[ ,]*}
	m=${1##*got } m=${m%%[ ,]*}
	echo "$name $m/$n"
}

"$TOP/scripts/deps.sh"
for b in $bases; do
	KBASE=$b "$TOP/scripts/build-kernel.sh" "$flavour"
	[ "$flavour" = patched ] || KBASE=$b "$TOP/scripts/build-kernel.sh"
	KBASE=$b "$TOP/scripts/build-tests.sh"
	say "$b: $(cat "$BUILD/linux-$b.base-version") + $(ls "$TOP/patches/linux$([ "$b" = mainline ] || echo "-$b")"/*.patch | wc -l) patches"
	phase "$b kernel+selftests build"
done
first_tests=$BUILD/tests-$first_base/cgroup

step "harness self-tests"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Unit tests of the harness's scripts (deps.sh with stub apt, the TAP
# summarizer's rules, the guest's rule for another attempt), before any
# guest: their PASS/FAIL lines count here.
unit() {	# unit SCRIPT
	local out rc line what
	set +e
	out=$("$1" 2>&1)
	rc=$?
	set -e
	while IFS= read -r line; do
		case $line in
		"PASS "*) result pass "${line#PASS }" ;;
		"FAIL "*) what=${line#FAIL }; result fail "${what%%: *}" "${what#*: }" ;;
		?*) printf '%s\n' "$line" ;;
		esac
	done <<<"$out"
	if [ "$rc" != 0 ] && ! grep -q '^FAIL ' <<<"$out"; then
		result fail "harness:$(basename "$1")" "exit $rc without a FAIL line"
	fi
}
unit "$TOP/tests/harness/test-deps.sh"
unit "$TOP/tests/harness/test-tap-summary.sh"
unit "$TOP/tests/harness/test-subtests.sh"
unit "$TOP/tests/harness/test-build-tests.sh"
unit "$TOP/tests/harness/test-suite-results.sh"
unit "$TOP/tests/harness/test-mutation-check.sh"
unit "$TOP/tests/harness/test-apt-update.sh"
unit "$TOP/tests/harness/test-retry.sh"
unit "$TOP/tests/harness/test-docs.sh"

# The series must compile with the feature, futexes or 32-bit compat off
# (on the first base: the objects it compiles are the same on the other).
phase "harness unit tests"
step "build matrix ($first_base)"
KBASE=$first_base unit "$TOP/scripts/build-matrix.sh"
phase "build matrix"

# kernel_reports DIR NAME...: "NAME<tab>first report" for every NAME whose
# kernel log, DIR/NAME.dmesg as guest/run-tests.sh saves it (or DIR/NAME),
# holds a kernel report.
kernel_reports() {
	local dir=$1 t f first
	shift
	for t; do
		f=$dir/$t.dmesg
		[ -f "$f" ] || f=$dir/$t
		[ -f "$f" ] || continue
		first=$("$TOP/scripts/scan-console.sh" "$f" | head -1 || true)
		[ -z "$first" ] || printf '%s\t%s\n' "$t" "$first"
	done
}

# A clean run: the guest's exit status and output reach the host unchanged
# (and the report scanner passes a clean boot).
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

# A real kernel report: guest/run-tests.sh runs two stand-in test binaries,
# one that provokes a WARNING through LKDTM, then one that does nothing.
# The WARNING (KERN_WARNING) must reach the console ("WARNING: CPU: 1 PID: 9
# at drivers/misc/lkdtm/..." on 6.12, "WARNING: drivers/misc/lkdtm/...:164
# at lkdtm_WARNING..., CPU#1: ..." on 7.2), land in the first
# binary's kernel log and not the second's, and make guest-run.sh exit 125.
set +e
out=$(GUEST_OUT=$tmp/report "$TOP/scripts/guest-run.sh" --kernel "$kernel" --timeout 300 -- \
	"$TOP/guest/run-tests.sh" /job/out "$TOP/tests/harness" guest-lkdtm-warning guest-quiet 2>&1)
rc=$?
set -e
if [ "$rc" = 125 ]; then
	result pass harness:guest_kernel_report_exits_125
else
	printf '%s\n' "$out" | tail -20
	result fail harness:guest_kernel_report_exits_125 "exit $rc after a WARNING, want 125"
fi
if grep -aq 'WARNING: .*drivers/misc/lkdtm' "$tmp/report/console.log" 2>/dev/null; then
	result pass harness:guest_warning_reaches_console
else
	result fail harness:guest_warning_reaches_console "no 'WARNING: ... drivers/misc/lkdtm/...' on the console; kernel.printk: $(sed -n 's/^printk=//p' "$tmp/report/facts" 2>/dev/null)"
fi
reports=$(kernel_reports "$tmp/report" boot guest-lkdtm-warning guest-quiet end)
if [ "$(cut -f1 <<<"$reports")" = guest-lkdtm-warning ] &&
   grep -q 'WARNING: .*drivers/misc/lkdtm' <<<"$reports"; then
	result pass harness:guest_report_names_binary
else
	result fail harness:guest_report_names_binary "reports per binary: '$(tr '\t\n' ': ' <<<"$reports")', want one, for guest-lkdtm-warning"
fi

phase "harness guest runs"
# One boot for both smoke runs: the benchmark (tiny; figures are not
# checked) and the cost tool (figures are not checked either, only that
# covered kills were reaped: kill_reap counts reaps that freed memory, and a
# victim whose own exit got there first is not one).  Each one's exit
# status follows its output as "=== rc N".
step "benchmark and cost smoke runs (tiny; one boot)"
set +e
# shellcheck disable=SC2016 # $0 and $1 are for the guest's bash
both=$("$TOP/scripts/guest-run.sh" --kernel "$kernel" --timeout 900 -- bash -c '
	"$0" -s 32 -c none,cpumax1 -n 4 -r 1; echo "=== rc $?"
	"$1" -p 200 -r 1 -t 1; echo "=== rc $?"' "$first_tests/reap_bench" "$first_tests/reap_cost" 2>&1)
guest_rc=$?
set -e
# Keep what follows the progress line's last carriage return or erase; the
# console ends lines with CR LF.
both=$(sed -e 's/.*\x1b\[K//' -e 's/\r//g' <<<"$both")
out=$(awk '/^=== rc / { exit } { print }' <<<"$both")
rc=$(grep -m1 '^=== rc ' <<<"$both" | cut -d' ' -f3)
printf '%s\n' "$out" | grep -E '^(unthrottled|cpu.max)' || true
if [ "${rc:-none}" = 0 ] && [ "$(grep -cE '^(unthrottled|cpu.max 1%) +32 +[14] +[0-9]' <<<"$out")" = 3 ]; then
	result pass harness:benchmark_runs
else
	printf '%s\n' "$out" | tail -20
	result fail harness:benchmark_runs "exit ${rc:-none} (guest $guest_rc), or the table is incomplete"
fi

out=$(awk 'n == 1 && !/^=== rc / { print } /^=== rc / { n++ }' <<<"$both")
rc=$(grep '^=== rc ' <<<"$both" | sed -n 2p | cut -d' ' -f3)
printf '%s\n' "$out" | grep -E '^(setting|off|on) ' || true
# "on": kills/s, kworker_us, cpu_us, reaps per kill; "off" reaps none.
if [ "${rc:-none}" = 0 ] &&
   awk '$1 == "off" && $5 == 0 { off = 1 } $1 == "on" && $2 > 0 && $5 > 0 { on = 1 }
	END { exit !(off && on) }' <<<"$out"; then
	result pass harness:cost_benchmark_runs
else
	printf '%s\n' "$out" | tail -20
	result fail harness:cost_benchmark_runs "exit ${rc:-none} (guest $guest_rc), or covered kills were not reaped (reaps per kill)"
fi

# summary_opts BASE BINARY: tap-summary.sh's options for BINARY's results
# on BASE's kernel, in opts: which skips of ours are allowed there, and the
# tests the binary's source lists (in BASE's tree, which the binary was
# built from), each of which must report.  For ours, a source whose table
# cannot be read is a failure of its own, and the binary is then held to
# its plan.  An upstream binary whose source has no tests[] table of
# T(name) entries (test_hugetlb_memcg) is held to its plan; 6.12's older
# kselftest prints none, which is why the source counts.
summary_opts() {
	local b=$1 t=$2 src list ours=0
	opts=(-a "$TOP/tests/allowed-skips" -b "$b" -f "$flavour")
	case " $OUR_TESTS " in *" $t "*) ours=1 ;; esac
	src=$BUILD/linux-$b/tools/testing/selftests/cgroup/${t#covered:}.c
	list=$tmp/$b-$t.expected
	if "$TOP/scripts/subtests.sh" "$src" > "$list" 2> "$list.err"; then
		opts+=(-e "$list")
	elif [ "$ours" = 1 ]; then
		result fail "$t:expected_results" "$(head -1 "$list.err")"
	fi
}

# with_covered FILE...: the FILEs, then their test_* lines again for the
# covered:test_* runs.
with_covered() {
	cat "$@"
	sed -n 's/^test_/covered:test_/p' "$@"
}

# check_base BASE: our and upstream's selftests on BASE's kernel; every
# result line names the base.
check_base() {
	local b=$1 res rc build_id missing c known lists flaky n t summary lines p f s x first opts
	step "booting the $flavour $b kernel for the selftests"
	res=$BUILD/results-$b
	rm -rf "$res"
	# This kernel's known failures: the guest does not retry a flaky test
	# that is one of them, and the summary counts them as XFAIL.  In
	# build/, which the guest sees at the same path.
	# The covered runs (COVERED_TESTS) inherit the lists of their binaries.
	known=$BUILD/known-failures-$flavour-$b
	lists=("$TOP/tests/known-failures.$b")
	[ "$flavour" = debug ] && lists+=("$TOP/tests/known-failures.debug")
	with_covered "${lists[@]}" > "$known"
	flaky=$BUILD/flaky-$b
	with_covered "$TOP/tests/flaky" > "$flaky"
	set +e
	GUEST_OUT=$res "$TOP/scripts/guest-run.sh" --kernel "$(kobj "$b")/arch/x86/boot/bzImage" \
		--timeout "${CHECK_TIMEOUT:-2400}" -- \
		env KNOWN_FAILURES="$known" FLAKY="$flaky" \
		"$TOP/guest/run-tests.sh" /job/out "$BUILD/tests-$b/cgroup" $OUR_TESTS $UPSTREAM_TESTS $COVERED_TESTS
	rc=$?
	set -e
	if [ "$rc" = 0 ]; then
		result pass harness:guest_clean_run
	else
		result fail harness:guest_clean_run "guest-run exit $rc (124 timeout, 125 kernel report, 123 no status)"
	fi

	fact() { sed -n "s/^$1=//p" "$res/facts" 2>/dev/null; }
	build_id=$(vmlinux_build_id "$(kobj "$b")")
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
	# Without the trace our tests cannot tell a reap from an exit.
	if [ "$(fact tracefs)" = tracefs ]; then
		result pass harness:tracefs_mounted
	else
		result fail harness:tracefs_mounted "/sys/kernel/tracing is '$(fact tracefs)'; guest/init: $(fact init_errors)"
	fi

	step "selftest results ($b)"
	for t in $OUR_TESTS $UPSTREAM_TESTS $COVERED_TESTS; do
		summary_opts "$b" "$t"
		summary=$("$TOP/scripts/tap-summary.sh" "${opts[@]}" \
			"$t" "$res/$t.tap" "$res/$t.rc" "$known" "$flaky")
		lines=$(grep -v '^COUNTS' <<<"$summary" | sed -E "s/^(PASS|FAIL|SKIP|XFAIL|XPASS|RESULTS) /\1 $prefix/")
		[ -n "$lines" ] && printf '%s\n' "$lines"
		remember_failures <<<"$lines"
		read -r _ p f s x < <(grep '^COUNTS' <<<"$summary")
		passed=$((passed + p)) failed=$((failed + f))
		skipped=$((skipped + s)) xfailed=$((xfailed + x))
	done
	# The covered runs of binaries that kill must have been reaped, or
	# they tested nothing the feature does.
	for t in $COVERED_TESTS; do
		case $t in covered:test_kill | covered:test_memcontrol) ;; *) continue ;; esac
		n=$(tr -d '\r' < "$res/$t.tap" 2>/dev/null | sed -n 's/^# covered-run: kill_reap //p')
		if [ "${n:-0}" -gt 0 ]; then
			result pass "$t:kills_reaped"
		else
			result fail "$t:kills_reaped" "kill_reap ${n:-missing} in the covered root's memory.events"
		fi
	done
	# A kernel report fails the binary in whose kernel log it is.
	# shellcheck disable=SC2086 # lists of names
	while IFS=$'\t' read -r t first; do
		result fail "$t" "kernel report: $first"
	done < <(kernel_reports "$res" boot $OUR_TESTS $UPSTREAM_TESTS $COVERED_TESTS kmemleak end)
	grep -h '^# kill-to-free\|^# readers:' "$res"/test_reap_on_kill.tap 2>/dev/null || true
}

phase "benchmark and cost smoke runs"
for b in $bases; do
	prefix="$b:"
	check_base "$b"
	phase "$b guest"
done
prefix=
if [ "$flavour" = patched ]; then
	step "systemd MemoryReapOnKill= and libcgroup's tools"
	sd_out=$("$TOP/scripts/check-systemd.sh")
	grep -v '^COUNTS' <<<"$sd_out"
	remember_failures <<<"$sd_out"
	read -r _ p f s < <(grep '^COUNTS' <<<"$sd_out")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	phase "systemd+libcgroup"
	# How that phase was spent (scripts/check-systemd.sh's timed steps).
	[ -s "$BUILD/systemd-times" ] &&
		phases="$phases ($(paste -sd, "$BUILD/systemd-times" | sed 's/,/ s, /g') s)"
fi

echo "time: $phases; total $(($(date +%s) - REAP_T0)) s"
[ -n "$failures" ] && echo "failed:$failures"
echo "results (got/expected): $tallies"
echo "$skipped skipped (reasons above), $xfailed known failures (tests/known-failures)"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
