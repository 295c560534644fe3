#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unit test of scripts/subtests.sh, run by scripts/check.sh: the names in a
# source's tests[] table are what check.sh expects a binary of ours to
# report, so the reader must find every entry, and must fail rather than
# expect nothing when the table is missing or holds what it cannot count.
#
# Prints "PASS harness:subtests_<case>" or "FAIL harness:subtests_<case>:
# why" per case; exits non-zero if any failed.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
subtests=${SUBTESTS_SH:-$TOP/scripts/subtests.sh}	# SUBTESTS_SH: to test the test
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# check CASE SOURCE WANT: subtests.sh on SOURCE (printf format) prints WANT
# (names joined by spaces) and succeeds, or with WANT "error" fails.
check() {
	local case=$1 want=$3 out rc=0
	# shellcheck disable=SC2059 # the source text is the format
	printf "$2" > "$tmp/$case.c"
	out=$("$subtests" "$tmp/$case.c" 2>/dev/null) || rc=$?
	out=$(paste -sd" " <<<"$out")
	if [ "$want" = error ] && [ "$rc" != 0 ]; then
		echo "PASS harness:subtests_$case"
	elif [ "$want" != error ] && [ "$rc" = 0 ] && [ "$out" = "$want" ]; then
		echo "PASS harness:subtests_$case"
	else
		echo "FAIL harness:subtests_$case: exit $rc, printed '$out', want '$want'"
		failures=$((failures + 1))
	fi
}

head='#define T(x) { x, #x }\nstatic const struct reap_test {\n\tint (*fn)(const char *root);\n\tconst char *name;\n} tests[] = {\n'
check table_read "$head\tT(test_a),\n\tT(test_b),\n\t/* a comment */\n\tT(test_c),\n};\n#undef T\nstatic void f(void) { T(test_not_in_table); }\n" \
	'test_a test_b test_c'
check no_table_fails 'int main(void) { return 0; }\n' error
check empty_table_fails "$head};\n" error
check unterminated_table_fails "$head\tT(test_a),\n" error
check conditional_entry_fails "$head\tT(test_a),\n#ifdef __x86_64__\n\tT(test_b),\n#endif\n};\n" error
check other_entry_form_fails "$head\tT(test_a),\n\t{ test_b, \"test_b\" },\n};\n" error

# The real sources: as many names as T( lines in the table, all distinct.
for bin in test_reap_on_kill test_reap_on_kill_stress; do
	src=$TOP/tools/testing/selftests/cgroup/$bin.c
	names=$("$subtests" "$src" 2>&1) || true
	want=$(sed -n '/} tests\[\] = {/,/^};/p' "$src" | grep -c '^[[:space:]]*T(' || true)
	if [ "$(wc -l <<<"$names")" = "$want" ] && [ "$want" -gt 0 ] &&
	   [ -z "$(sort <<<"$names" | uniq -d)" ]; then
		echo "PASS harness:subtests_${bin}_source"
	else
		echo "FAIL harness:subtests_${bin}_source: $(wc -l <<<"$names") names, $want T( lines: $(head -3 <<<"$names" | paste -sd' ')"
		failures=$((failures + 1))
	fi
done
[ "$failures" = 0 ]
