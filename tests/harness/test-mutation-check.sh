#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unit test of scripts/mutation-check.sh's rules, run by scripts/check.sh:
# only a named test's "not ok" (or a kernel report) catches a mutation, a
# skip or a missing result leaves it unproven and fails the run apart from
# "not caught", and a mutation applies without fuzz (offsets allowed) or
# not at all.  The functions themselves are taken from the script, which
# builds kernels as it is run.
#
# Prints "PASS harness:mutation_<case>" or "FAIL harness:mutation_<case>:
# why" per case; exits non-zero if any failed.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
script=${MUTATION_CHECK_SH:-$TOP/scripts/mutation-check.sh}	# MUTATION_CHECK_SH: to test the test
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

for f in apply_mutation outcome sort_outcomes judge; do
	sed -n "/^$f() {\$/,/^}\$/p" "$script" >> "$tmp/rules.sh"
	if ! grep -q "^$f() {\$" "$tmp/rules.sh"; then
		echo "FAIL harness:mutation_rules_found: no $f() in scripts/mutation-check.sh"
		exit 1
	fi
done
# shellcheck source=/dev/null
. "$tmp/rules.sh"

ok() { echo "PASS harness:mutation_$1"; }
bad() { echo "FAIL harness:mutation_$1: $2"; failures=$((failures + 1)); }

# check_outcome CASE TAP WANT: outcome of test_x in TAP (printf format).
check_outcome() {
	local got
	# shellcheck disable=SC2059 # the TAP text is the format
	printf "$2" > "$tmp/$1.tap"
	got=$(outcome "$tmp/$1.tap" test_x)
	if [ "$got" = "$3" ]; then ok "outcome_$1"; else bad "outcome_$1" "'$got', want '$3'"; fi
}
check_outcome not_ok_caught '1..2\nok 1 test_w\nnot ok 2 test_x\n' caught
check_outcome ok_passed '1..1\nok 1 test_x\n' passed
check_outcome skip_not_caught '1..1\nok 1 # SKIP test_x\n' skipped
check_outcome skip_with_reason_not_caught '1..1\nok 1 # SKIP test_x: no THP\n' skipped
check_outcome trailing_skip_not_caught '1..1\nok 1 test_x # SKIP no THP\n' skipped
check_outcome no_result_missing '1..2\nok 1 test_w\n' missing
check_outcome whole_skip_missing '1..0 # SKIP tracefs is not mounted\n' missing
check_outcome longer_name_not_ours '1..1\nnot ok 1 test_x_more\n' missing
check_outcome console_cr_caught '1..1\r\nnot ok 1 test_x\r\n' caught
check_outcome console_cr_skipped '1..1\r\nok 1 # SKIP test_x\r\n' skipped

# check_sort CASE RC TAP WANT-HIT WANT-UNPROVEN: sort_outcomes of test_x and
# test_y in TAP (printf format) with guest exit RC.
check_sort() {
	local hit='' unproven=''
	# shellcheck disable=SC2059
	printf "$3" > "$tmp/$1.tap"
	sort_outcomes bin "$tmp/$1.tap" "$2" test_x test_y
	if [ "$hit" = "$4" ] && [ "$unproven" = "$5" ]; then
		ok "sort_$1"
	else
		bad "sort_$1" "hit '$hit' unproven '$unproven', want '$4' and '$5'"
	fi
}
check_sort caught_and_passed 0 '1..2\nnot ok 1 test_x\nok 2 test_y\n' ' bin:test_x' ''
check_sort skipped_is_unproven 0 '1..2\nnot ok 1 test_x\nok 2 # SKIP test_y\n' \
	' bin:test_x' ' bin:test_y (skipped)'
check_sort missing_is_unproven 139 '1..2\nnot ok 1 test_x\n' ' bin:test_x' ' bin:test_y (no result, exit 139)'
check_sort kernel_report_explains_missing 125 '1..2\nok 1 test_x\n' ' bin:(kernel report)' ''
check_sort kernel_report_not_a_skip 125 '1..2\nok 1 # SKIP test_x\n' \
	' bin:(kernel report)' ' bin:test_x (skipped)'

# check_judge CASE WRONG HIT UNPROVEN WANT-RC WANT-REGEX
check_judge() {
	local out rc=0
	out=$(judge m "$2" "$3" "$4" "bin:test_x bin:test_y" logs) || rc=$?
	if [ "$rc" = "$5" ] && grep -qE -- "$6" <<<"$out"; then
		ok "judge_$1"
	else
		bad "judge_$1" "exit $rc, '$out'; want $5 and '$6'"
	fi
}
check_judge caught_passes '' ' bin:test_x' '' 0 '^PASS mutation:m \(caught by bin:test_x\)$'
check_judge unproven_fails_though_caught '' ' bin:test_x' ' bin:test_y (skipped)' 1 \
	'^FAIL mutation:m: unproven: bin:test_y \(skipped\) \(caught by bin:test_x\)'
check_judge unproven_is_not_not_caught '' '' ' bin:test_y (skipped)' 1 '^FAIL mutation:m: unproven: '
check_judge not_caught_fails '' '' '' 1 '^FAIL mutation:m: not caught: '
check_judge wrong_kernel_fails 'the guest did not boot the mutant' ' bin:test_x' '' 1 \
	'^FAIL mutation:m: the guest did not boot the mutant'

# Patches: a tree of two files, and mutations made against a copy of it.
mkdir -p "$tmp/orig/mm"
seq 1 40 > "$tmp/orig/mm/a.c"
seq 1 40 > "$tmp/orig/mm/b.c"
# mutation NAME SED-A SED-B: a patch changing a.c and b.c by the sed scripts.
mutation() {
	rm -rf "$tmp/new"
	cp -r "$tmp/orig" "$tmp/new"
	sed -i "$2" "$tmp/new/mm/a.c"
	sed -i "$3" "$tmp/new/mm/b.c"
	(cd "$tmp" && diff -ru orig new | sed -e 's|^--- orig/|--- a/|' -e 's|^+++ new/|+++ b/|' > "$1.patch") || true
}
mutation two_files 's/^20$/twenty/' 's/^30$/thirty/'
# check_apply CASE A-CONTENT B-CONTENT WANT WANT-REGEX: the tree with those
# files (commands that print them); WANT applied or refused; the output
# must match WANT-REGEX; a refused patch must leave both files as they were.
check_apply() {
	local out rc=0 got=applied
	rm -rf "$tmp/tree"
	mkdir -p "$tmp/tree/mm"
	eval "$2" > "$tmp/tree/mm/a.c"
	eval "$3" > "$tmp/tree/mm/b.c"
	cp -r "$tmp/tree" "$tmp/before"
	out=$(apply_mutation "$tmp/tree" "$tmp/two_files.patch" "$tmp/apply.log" 2>&1) || rc=$?
	[ "$rc" = 0 ] || got=refused
	if [ "$got" != "$4" ]; then
		bad "apply_$1" "$got (exit $rc), want $4: $out"
	elif ! grep -qE -- "$5" <<<"$out"; then
		bad "apply_$1" "printed '$out', want '$5'"
	elif [ "$got" = refused ] && ! diff -r "$tmp/before" "$tmp/tree" > /dev/null; then
		bad "apply_$1" "refused, but the tree changed"
	elif [ "$got" = applied ] && ! grep -q twenty "$tmp/tree/mm/a.c"; then
		bad "apply_$1" "applied, but mm/a.c is not mutated"
	else
		ok "apply_$1"
	fi
	rm -rf "$tmp/before"
}
check_apply exact 'seq 1 40' 'seq 1 40' applied '^$'
check_apply offset_allowed_and_shown '{ seq 101 105; seq 1 40; }' 'seq 1 40' applied \
	'^mm/a\.c: Hunk #1 succeeded at 22 \(offset 5 lines\)\.$'
check_apply fuzz_refused "seq 1 40 | sed 's/^18\$/eighteen/'" 'seq 1 40' refused \
	'^mm/a\.c: Hunk #1 FAILED'
check_apply half_applying_leaves_tree 'seq 1 40' "seq 1 40 | sed 's/^30\$/changed/'" refused \
	'^mm/b\.c: Hunk #1 FAILED'
[ "$failures" = 0 ]
