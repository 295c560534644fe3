#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unit test of the shell suites' declared checks, run by scripts/check.sh:
# stand-in suites that use tests/lib.sh (expect, pass, fail) run as the
# guest runs them, "{ ...; } 2>&1 | tee results", and scripts/suite-results.sh
# reads the results.  A suite that stops half way (set -u), one whose script
# is missing, a check reported twice or not declared: each must fail.
#
# Prints "PASS harness:suite_<case>" or "FAIL harness:suite_<case>: why"
# per case; exits non-zero if any failed.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
suite_results=${SUITE_RESULTS_SH:-$TOP/scripts/suite-results.sh}	# SUITE_RESULTS_SH: to test the test
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# suite NAME BODY: a stand-in suite script, tmp/NAME.sh, with P=NAME.
suite() {
	printf '#!/bin/bash\nset -u\n. "%s/tests/lib.sh"\nP=%s\n%s\n' "$TOP" "$1" "$2" > "$tmp/$1.sh"
}
suite whole 'expect a b c
pass a
fail b "it broke"
skip c "not here"'
# shellcheck disable=SC2016 # the variable is the suite's, unset on purpose
suite aborted 'expect a b c
pass a
echo "$no_such_variable"
pass b
pass c'
suite twice 'expect a
pass a
pass a'
suite undeclared 'expect a
pass a
pass extra'
suite none 'pass a'
suite redeclared 'expect a
expect a b
pass a
pass b'

# check CASE 'SUITE...' 'SCRIPT...' WANT-REGEX...: run the SCRIPTs (tmp/NAME.sh;
# a name with no script is a missing one) as the guest does, read the
# results with suite-results.sh expecting SUITEs; each WANT-REGEX must
# match a line, and a line "FAIL" matches only if it is wanted.
check() {
	local case=$1 suites=$2 scripts=$3 s cmd='' out re fails want_fails=0
	shift 3
	for s in $scripts; do cmd="$cmd bash $tmp/$s.sh;"; done
	bash -c "{ $cmd } 2>&1 | tee $tmp/results" > /dev/null 2>&1 || true
	# shellcheck disable=SC2086 # a list of names
	out=$("$suite_results" $suites < "$tmp/results" 2>&1) || { bad "$case" "exit $?: $out"; return; }
	for re; do
		grep -qE -- "$re" <<<"$out" || { bad "$case" "no line matching '$re'" "$out"; return; }
		case $re in '^FAIL '*) want_fails=$((want_fails + 1)) ;; esac
	done
	fails=$(grep -c '^FAIL ' <<<"$out" || true)
	if [ "$fails" != "$want_fails" ]; then
		bad "$case" "$fails FAIL lines, want $want_fails" "$out"
		return
	fi
	echo "PASS harness:suite_$case"
}
bad() {
	echo "FAIL harness:suite_$1: $2"
	[ -z "${3:-}" ] || printf '%s\n' "$3" | sed 's/^/	suite-results: /'
	failures=$((failures + 1))
}

check complete_suite_passes whole whole \
	'^PASS whole:a$' '^FAIL whole:b: it broke$' '^SKIP whole:c: not here$' \
	'^RESULTS whole: expected 3, got 3$'
check aborted_suite_fails_missing_checks aborted aborted \
	'^PASS aborted:a$' '^FAIL aborted:b: no result' '^FAIL aborted:c: no result' \
	'^RESULTS aborted: expected 3, got 1$'
check missing_script_fails 'whole gone' 'whole gone' \
	'^FAIL whole:b: it broke$' '^FAIL gone: declared no checks'
check twice_reported_fails twice twice \
	'^FAIL twice:a: reported 2 times$' '^RESULTS twice: expected 1, got 2$'
check undeclared_result_fails undeclared undeclared \
	'^FAIL undeclared:extra: not declared' '^RESULTS undeclared: expected 1, got 2$'
check declared_twice_counts_once redeclared redeclared \
	'^RESULTS redeclared: expected 2, got 2$'
check suite_without_expect_fails none none \
	'^PASS none:a$' '^FAIL none: declared no checks'
# The guest's console ends lines with CR LF.
printf 'EXPECT crlf:a\r\nEXPECT crlf:b\r\nPASS crlf:a\r\n' > "$tmp/crlf.out"
printf '#!/bin/bash\ncat %s\n' "$tmp/crlf.out" > "$tmp/crlf.sh"
check console_line_ends crlf crlf '^PASS crlf:a$' '^FAIL crlf:b: no result' \
	'^RESULTS crlf: expected 2, got 1$'
[ "$failures" = 0 ]
