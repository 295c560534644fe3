#!/bin/bash
# Unit test of scripts/tap-summary.sh, run by scripts/check.sh: crafted TAP
# files and exit statuses, and the verdicts they must get.  Our binaries
# (OUR_TESTS) are held to the whole TAP contract; upstream ones keep the
# lenient rules; a test listed in tests/flaky passes on a later attempt and
# nothing else does.
#
# Prints "PASS harness:tap_<case>" or "FAIL harness:tap_<case>: <what the
# summarizer printed>" per case; exits non-zero if any failed.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
summary=${TAP_SUMMARY:-$TOP/scripts/tap-summary.sh}	# TAP_SUMMARY: to test the test
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
ours=test_reap_on_kill

# check CASE BINARY RC TAP WANT-COUNTS [WANT-LINE-REGEX]: the summary of TAP
# (printf format, no arguments) with exit status RC ("none": no status file)
# must end with "COUNTS WANT-COUNTS" and, if given, hold a line matching
# WANT-LINE-REGEX.
check() {
	local case=$1 bin=$2 rc=$3 tap=$4 want=$5 line=${6:-} out last
	rm -rf "${tmp:?}/$case"
	mkdir -p "$tmp/$case"
	# shellcheck disable=SC2059 # the TAP text is the format
	printf "$tap" > "$tmp/$case/t.tap"
	[ "$rc" = none ] || echo "$rc" > "$tmp/$case/t.rc"
	# shellcheck disable=SC2059
	[ -z "${RETRY_TAP:-}" ] || printf "$RETRY_TAP" > "$tmp/$case/t.tap.2"
	out=$("$summary" "$bin" "$tmp/$case/t.tap" "$tmp/$case/t.rc" /dev/null "${FLAKY_FILE:-/dev/null}" 2>&1) || true
	last=$(tail -1 <<<"$out")
	if [ "$last" != "COUNTS $want" ]; then
		echo "FAIL harness:tap_$case: last line '$last', want 'COUNTS $want'"
	elif [ -n "$line" ] && ! grep -qE -- "$line" <<<"$out"; then
		echo "FAIL harness:tap_$case: no line matching '$line'"
	else
		echo "PASS harness:tap_$case"
		return 0
	fi
	printf '%s\n' "$out" | sed 's/^/	summary: /'
	failures=$((failures + 1))
}

# Ours: a complete, clean run passes, with its skip.
check ours_complete_run_passes "$ours" 0 \
	'1..3\nok 1 test_a\nok 2 # SKIP test_b: no hugetlb\nok 3 test_c\n# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:1 error:0\n' \
	'2 0 1 0'
check ours_whole_skip_fails "$ours" 4 \
	"1..0 # SKIP cgroup v2 isn't mounted\n" \
	'0 2 0 0' "^FAIL $ours: skipped as a whole \(1\.\.0 # SKIP cgroup v2 isn't mounted\)"
check ours_missing_plan_fails "$ours" 0 \
	'ok 1 test_a\nok 2 test_b\n' \
	'2 1 0 0' "^FAIL $ours: no TAP plan line"
check ours_two_plans_fail "$ours" 0 \
	'1..1\nok 1 test_a\n1..1\n' \
	'1 1 0 0' "^FAIL $ours: 2 TAP plan lines"
check ours_fewer_results_fail "$ours" 0 \
	'1..3\nok 1 test_a\nok 2 test_b\n' \
	'2 1 0 0' "^FAIL $ours: 2 results for a plan of 3"
check ours_more_results_fail "$ours" 0 \
	'1..2\nok 1 test_a\nok 2 test_b\nok 3 test_c\n' \
	'3 1 0 0' "^FAIL $ours: 3 results for a plan of 2"
check ours_duplicate_number_fails "$ours" 0 \
	'1..2\nok 1 test_a\nok 1 test_b\n' \
	'2 1 0 0' "^FAIL $ours: test number 1 reported 2 times"
check ours_duplicate_name_fails "$ours" 0 \
	'1..2\nok 1 test_a\nok 2 test_a\n' \
	'2 1 0 0' "^FAIL $ours: test test_a reported 2 times"
check ours_duplicate_skipped_name_fails test_reap_on_kill_stress 0 \
	'1..2\nok 1 # SKIP test_a: why\nok 2 # SKIP test_a: why\n' \
	'0 1 2 0' "^FAIL test_reap_on_kill_stress: test test_a reported 2 times"
check ours_nonzero_exit_fails "$ours" 1 \
	'1..2\nok 1 test_a\nok 2 test_b\n' \
	'2 1 0 0' "^FAIL $ours: exit status 1, want 0"
check ours_no_exit_status_fails "$ours" none \
	'1..1\nok 1 test_a\n' \
	'1 1 0 0' "^FAIL $ours: no exit status recorded"
check ours_timeout_fails "$ours" 124 \
	'1..2\nok 1 test_a\n' \
	'1 2 0 0' "^FAIL $ours: timed out"
# A failed test is one FAIL; kselftest's exit status 1 that goes with it
# adds nothing, a crash does.
check ours_failed_test_fails "$ours" 1 \
	'1..2\nok 1 test_a\nnot ok 2 test_b\n' \
	'1 1 0 0' "^FAIL $ours:test_b$"
check ours_crash_after_failed_test_fails "$ours" 139 \
	'1..2\nok 1 test_a\nnot ok 2 test_b\n' \
	'1 2 0 0' "^FAIL $ours: exit status 139, want 0"

# Upstream: today's lenient rules.
check upstream_whole_skip_skips test_zswap 4 \
	"1..0 # SKIP zswap isn't configured\n" \
	'0 0 1 0' "^SKIP test_zswap: zswap isn't configured"
check upstream_nonzero_exit_with_results test_core 1 \
	'1..2\nok 1 test_a\nnot ok 2 test_b\n' \
	'1 1 0 0'
check upstream_missing_results_fail test_core 0 \
	'1..3\nok 1 test_a\n' \
	'1 1 0 0' '^FAIL test_core: 2 of 3 planned tests did not report'

# Flaky, with the real tests/flaky: a listed test passes on a later attempt,
# an unlisted one does not.
FLAKY_FILE=$TOP/tests/flaky RETRY_TAP='1..2\nok 1 test_cgfreezer_ptrace\nok 2 test_cgfreezer_simple\n' check flaky_retry_only_for_listed_tests test_freezer 1 \
	'1..2\nnot ok 1 test_cgfreezer_ptrace\nnot ok 2 test_cgfreezer_simple\n' \
	'1 1 0 0' '^PASS test_freezer:test_cgfreezer_ptrace \(flaky'
[ "$failures" = 0 ]
