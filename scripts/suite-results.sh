#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hold shell suites (tests/systemd, tests/containers, tests/distro: the
# checks that run as scripts in the guest) to the checks they declared.
#   suite-results.sh [SUITE...] < OUTPUT
# OUTPUT is what the suites printed (console line ends allowed): their
# "EXPECT P:NAME" lines (tests/lib.sh's expect) and their results,
# "PASS P:NAME", "FAIL P:NAME: why", "SKIP P:NAME: why".  Prints the result
# lines, then one "FAIL P:NAME: ..." for each declared check without a
# result, each result that P did not declare or that came more than once,
# a "FAIL SUITE: ..." for each SUITE (a P) given here that declared
# nothing, and "RESULTS P: expected N, got M" for each suite that declared.
# Other lines are dropped.  Exits 0: the verdicts are the lines.
# tests/harness/test-suite-results.sh checks each rule.
set -euo pipefail

awk -v suites="$*" '
{ sub(/\r$/, "") }
# The check a result line is about: "P:NAME" of "KIND P:NAME[: why]".
function key_of(line,	k) {
	k = line; sub(/^[A-Z]+ /, "", k); sub(/:? .*/, "", k); sub(/:$/, "", k)
	return k
}
function suite_of(k) { sub(/:.*/, "", k); return k }
/^EXPECT [^ :]+:[^ ]+$/ {
	k = substr($0, 8)
	if (!(k in declared)) { order[++n] = k; decl[suite_of(k)]++ }
	declared[k] = 1
	next
}
/^(PASS|FAIL|SKIP) [^ :]+:/ {
	print
	k = key_of($0)
	got[k]++
	got_suite[suite_of(k)]++
	if (!(k in seen)) seen_order[++m] = k
	seen[k] = 1
}
END {
	for (i = 1; i <= n; i++) {
		k = order[i]
		if (!(k in got))
			printf "FAIL %s: no result, though its suite declared it (the suite stopped early or never ran it)\n", k
	}
	for (i = 1; i <= m; i++) {
		k = seen_order[i]
		if (got[k] > 1)
			printf "FAIL %s: reported %d times\n", k, got[k]
		if (suite_of(k) in decl && !(k in declared))
			printf "FAIL %s: not declared by its suite (expect in tests/lib.sh)\n", k
	}
	ns = split(suites, want, " ")
	for (i = 1; i <= ns; i++)
		if (!(want[i] in decl))
			printf "FAIL %s: declared no checks (its script is missing, or stopped before expect)\n", want[i]
	for (i = 1; i <= n; i++) {
		s = suite_of(order[i])
		if (s in told) continue
		told[s] = 1
		printf "RESULTS %s: expected %d, got %d\n", s, decl[s], got_suite[s]
	}
}'
