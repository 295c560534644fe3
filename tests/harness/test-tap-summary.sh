#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unit test of scripts/tap-summary.sh, run by scripts/check.sh: crafted TAP
# files and exit statuses, and the verdicts they must get.  Our binaries
# (OUR_TESTS) are held to the whole TAP contract, a skipped subtest of ours
# fails unless the allow-list has it for the kernel, and a test of the
# source's list that did not report fails; upstream ones keep the lenient
# rules; a test listed in tests/flaky passes on a later attempt and nothing
# else does.
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
# (printf format, no arguments; "none": no TAP file) with exit status RC
# ("none": no status file) must end with "COUNTS WANT-COUNTS" and, if
# given, hold a line matching WANT-LINE-REGEX.  With ALLOW set (printf
# format, may be empty), that is the allow-list and the run is on BASE
# (default mainline) and FLAVOUR (default patched); EXPECT (printf format)
# is the list of names the source has.
check() {
	local case=$1 bin=$2 rc=$3 tap=$4 want=$5 line=${6:-} out last opts=()
	rm -rf "${tmp:?}/$case"
	mkdir -p "$tmp/$case"
	# shellcheck disable=SC2059 # the TAP text is the format
	[ "$tap" = none ] || printf "$tap" > "$tmp/$case/t.tap"
	[ "$rc" = none ] || echo "$rc" > "$tmp/$case/t.rc"
	# shellcheck disable=SC2059
	[ -z "${RETRY_TAP:-}" ] || printf "$RETRY_TAP" > "$tmp/$case/t.tap.2"
	if [ -n "${ALLOW+set}" ]; then
		# shellcheck disable=SC2059
		printf "$ALLOW" > "$tmp/$case/allowed"
		opts+=(-a "$tmp/$case/allowed" -b "${BASE:-mainline}" -f "${FLAVOUR:-patched}")
	fi
	if [ -n "${EXPECT:-}" ]; then
		# shellcheck disable=SC2059
		printf "$EXPECT" > "$tmp/$case/expected"
		opts+=(-e "$tmp/$case/expected")
	fi
	out=$("$summary" "${opts[@]}" "$bin" "$tmp/$case/t.tap" "$tmp/$case/t.rc" /dev/null "${FLAKY_FILE:-/dev/null}" 2>&1) || true
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

# Ours: a complete, clean run passes, with the count of its results.
EXPECT='test_a\ntest_b\ntest_c\n' check ours_complete_run_passes "$ours" 0 \
	'1..3\nok 1 test_a\nok 2 test_b\nok 3 test_c\n# Totals: pass:3 fail:0 xfail:0 xpass:0 skip:0 error:0\n' \
	'3 0 0 0' "^RESULTS $ours: expected 3, got 3$"

# Ours: a skipped subtest fails unless the allow-list has it, with a reason,
# for this binary and this kernel; the failure carries the binary's own
# reason for skipping.
skip_tap='1..3\nok 1 test_a\n# no huge page for the victim\nok 2 # SKIP test_b\nok 3 test_c\n'
check ours_skip_fails_without_allow_list "$ours" 0 "$skip_tap" \
	'2 1 0 0' "^FAIL $ours:test_b: skipped \(no huge page for the victim\), not allowed"
ALLOW='' check ours_skip_fails_unlisted "$ours" 0 "$skip_tap" \
	'2 1 0 0' "^FAIL $ours:test_b: skipped .*not listed"
ALLOW="$ours:test_b\tmainline\tno THP here (measured)\n" check ours_skip_allowed_on_its_base "$ours" 0 "$skip_tap" \
	'2 0 1 0' "^SKIP $ours:test_b \(allowed by tests/allowed-skips, mainline: no THP here"
ALLOW="$ours:test_b\tmainline\tno THP here (measured)\n" BASE=6.12 check ours_skip_fails_on_another_base "$ours" 0 "$skip_tap" \
	'2 1 0 0' "^FAIL $ours:test_b: skipped .*listed for mainline only"
ALLOW="$ours:test_b\tdebug\tslow under KASAN\n" check ours_debug_skip_fails_on_patched "$ours" 0 "$skip_tap" \
	'2 1 0 0' "^FAIL $ours:test_b: skipped .*listed for debug only"
ALLOW="$ours:test_b\tdebug\tslow under KASAN\n" BASE=6.12 FLAVOUR=debug check ours_debug_skip_allowed_on_debug "$ours" 0 "$skip_tap" \
	'2 0 1 0' "^SKIP $ours:test_b \(allowed"
ALLOW="$ours:test_b\t*\tno THP in this guest\n" BASE=6.12 check ours_any_base_skip_allowed "$ours" 0 "$skip_tap" \
	'2 0 1 0' "^SKIP $ours:test_b \(allowed"
ALLOW="$ours:test_b\tmainline\n" check ours_skip_entry_without_reason_fails "$ours" 0 "$skip_tap" \
	'2 1 0 0' "^FAIL $ours:test_b: skipped .*gives no reason"
ALLOW="$ours:test_b\tstable\tno THP\n" check ours_skip_entry_unknown_base_fails "$ours" 0 "$skip_tap" \
	'2 1 0 0' "^FAIL $ours:test_b: skipped .*base \"stable\""
ALLOW="test_reap_on_kill_stress:test_b\t*\tno THP\n" check ours_skip_entry_of_other_binary_fails "$ours" 0 "$skip_tap" \
	'2 1 0 0' "^FAIL $ours:test_b: skipped"

# Ours: the names of the source's tests[] table must all report, once; a
# plan that shrank with the table the binary was built from is still short.
EXPECT='test_a\ntest_b\ntest_c\n' check ours_missing_from_source_list_fails "$ours" 0 \
	'1..2\nok 1 test_a\nok 2 test_b\n' \
	'2 1 0 0' "^FAIL $ours: expected 3 results, got 2; missing: test_c$"
EXPECT='test_a\ntest_b\n' check ours_name_not_in_source_fails "$ours" 0 \
	'1..2\nok 1 test_a\nok 2 test_x\n' \
	'2 1 0 0' "^FAIL $ours: expected 2 results, got 2; missing: test_b; not in the source: test_x$"
EXPECT='test_a\ntest_b\n' check ours_result_without_name_fails "$ours" 0 \
	'1..3\nok 1 test_a\nok 2 test_b\nok 3\n' \
	'3 1 0 0' "^FAIL $ours: expected 2 results, got 3$"
EXPECT='test_a\ntest_b\n' check ours_not_run_prints_expected "$ours" none none \
	'0 1 0 0' "^RESULTS $ours: expected 2, got 0$"
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
ALLOW='test_reap_on_kill_stress:test_a\t*\twhy\n' check ours_duplicate_skipped_name_fails test_reap_on_kill_stress 0 \
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

# Upstream: today's lenient rules, whatever the allow-list says; the
# expected count is the plan.
ALLOW='' check upstream_skip_skips test_core 0 \
	'1..2\nok 1 test_a\nok 2 # SKIP test_b: no hugetlb\n' \
	'1 0 1 0' '^RESULTS test_core: expected 2, got 2$'
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
# The real allow-list: every entry names one of our binaries, a test of its
# source's tests[] table, a base the summarizer knows and a reason.
allow_list_errors() {
	local entry base reason bin our_tests
	# shellcheck disable=SC2016 # $1 is for that bash
	our_tests=$(bash -c '. "$1/scripts/lib.sh" && echo "$OUR_TESTS"' _ "$TOP")
	# shellcheck disable=SC2034 # reason: read only to see it is there
	while read -r entry base reason; do
		case $entry in '#'* | '') continue ;; esac
		bin=${entry%%:*}
		case " $our_tests " in
		*" $bin "*) ;;
		*) echo "$entry: $bin is not one of our binaries"; continue ;;
		esac
		"$TOP/scripts/subtests.sh" "$TOP/tools/testing/selftests/cgroup/$bin.c" 2>&1 |
			grep -qx "${entry#*:}" || echo "$entry: not in the tests[] table of $bin.c"
		case $base in mainline | 6.12 | debug | '*') ;; *) echo "$entry: base '$base'" ;; esac
		[ -n "$reason" ] || echo "$entry: no reason"
	done < "${ALLOWED_SKIPS:-$TOP/tests/allowed-skips}"
}
errors=$(allow_list_errors)
if [ -z "$errors" ]; then
	echo "PASS harness:tap_allowed_skips_well_formed"
else
	echo "FAIL harness:tap_allowed_skips_well_formed: $(paste -sd';' <<<"$errors")"
	failures=$((failures + 1))
fi
[ "$failures" = 0 ]
