#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unit test of guest/run-tests.sh's rule for another attempt, run by
# scripts/check.sh: a binary runs again when a test listed in tests/flaky
# failed, unless the kernel's known failures (KNOWN_FAILURES) list it too,
# in which case another attempt would only fail again.
#
# Prints "PASS harness:retry_<case>" or "FAIL harness:retry_<case>: why"
# per case; exits non-zero if any failed.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# The function itself, not a copy: run-tests.sh does its work as it is
# sourced, so only failed_flaky() is taken from it.
sed -n '/^failed_flaky() {$/,/^}$/p' "$TOP/guest/run-tests.sh" > "$tmp/rule.sh"
if ! grep -q '^failed_flaky() {$' "$tmp/rule.sh"; then
	echo "FAIL harness:retry_rule_found: no failed_flaky() in guest/run-tests.sh"
	exit 1
fi
# shellcheck source=/dev/null
. "$tmp/rule.sh"

printf 'test_cpu:test_cpucg_stats\tflaky\ntest_cpu:test_cpucg_max\tflaky\n' > "$tmp/flaky"
printf 'test_cpu:test_cpucg_max\tknown failure\n' > "$tmp/known"

# check CASE TAP KNOWN yes|no: whether failed_flaky asks for another attempt
# after TAP (printf format) with KNOWN_FAILURES=KNOWN.
check() {
	local case=$1 want=$4 got=no
	# shellcheck disable=SC2059 # the TAP text is the format
	printf "$2" > "$tmp/$case.tap"
	FLAKY=$tmp/flaky KNOWN_FAILURES=$3 failed_flaky test_cpu "$tmp/$case.tap" && got=yes
	if [ "$got" = "$want" ]; then
		echo "PASS harness:retry_$case"
	else
		echo "FAIL harness:retry_$case: another attempt: $got, want $want"
		failures=$((failures + 1))
	fi
}
check flaky_failed 'ok 1 test_cpucg_max\nnot ok 2 test_cpucg_stats\n' "" yes
check known_failure_only 'not ok 1 test_cpucg_max\nok 2 test_cpucg_stats\n' "$tmp/known" no
check known_failure_without_list 'not ok 1 test_cpucg_max\nok 2 test_cpucg_stats\n' "" yes
check known_and_flaky_failed 'not ok 1 test_cpucg_max\nnot ok 2 test_cpucg_stats\n' "$tmp/known" yes
check unlisted_failed 'not ok 1 test_cpucg_weight\n' "$tmp/known" no
[ "$failures" = 0 ]
