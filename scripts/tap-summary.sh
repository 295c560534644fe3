#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Summarize kselftest TAP output.
#   tap-summary.sh [-a ALLOWED-SKIPS -b BASE [-f FLAVOUR]] [-e EXPECTED]
#                  NAME TAPFILE RCFILE KNOWN-FAILURES [FLAKY]
# Prints one line per test (PASS/FAIL/SKIP/XFAIL/XPASS), then
# "RESULTS NAME: expected N, got M" and, last,
# "COUNTS <passed> <failed> <skipped> <xfail>".  A test listed in FLAKY
# that failed passes if it passed in a later attempt (TAPFILE.2, TAPFILE.3,
# written by guest/run-tests.sh), and the line says which.
#
# Our own binaries (OUR_TESTS in lib.sh) are held to the whole TAP
# contract, each breach a "FAIL NAME: reason" line: skipping as a whole
# (1..0 # SKIP), no plan line or more than one, fewer or more results than
# planned, a test number or name reported twice, and an exit status other
# than 0 (or than 1 with a failed test: kselftest's "something failed").
# A skipped subtest of ours is a failure ("FAIL NAME:TEST: skipped ...")
# unless ALLOWED-SKIPS (tests/allowed-skips) lists it for the kernel the run
# is on: BASE (mainline or 6.12) and FLAVOUR (patched, the default, or
# debug); without -a no skip of ours is allowed.  EXPECTED lists the names
# that must report, one a line (scripts/subtests.sh reads them from the
# binary's source): a plan that shrank with the tests[] table's copy in the
# binary is still short of the source, and a test missing from the results
# fails by name.  Upstream binaries keep the lenient rules: a whole-binary
# skip is one SKIP, a skipped subtest is a SKIP, missing results fail, the
# exit status only matters when there are no results or it says timeout;
# their expected count is their plan.  tests/harness/test-tap-summary.sh
# checks each rule.
. "$(dirname "$0")/lib.sh"

allowed=/dev/null base='' flavour=patched expected=''
while getopts a:b:f:e: opt; do
	case $opt in
	a) allowed=$OPTARG ;;
	b) base=$OPTARG ;;
	f) flavour=$OPTARG ;;
	e) expected=$OPTARG ;;
	*) die "usage: tap-summary.sh [-a ALLOWED-SKIPS -b BASE [-f FLAVOUR]] [-e EXPECTED] NAME TAPFILE RCFILE KNOWN-FAILURES [FLAKY]" ;;
	esac
done
shift $((OPTIND - 1))
[ "$allowed" = /dev/null ] || [ -n "$base" ] || die "-a ALLOWED-SKIPS needs -b BASE"
[ -z "$expected" ] || [ -r "$expected" ] || die "no list of expected tests at $expected"
name=$1 tap=$2 rcfile=$3 known=$4 flaky=${5:-/dev/null}
if [ ! -f "$tap" ]; then
	n='?'
	[ -z "$expected" ] || n=$(grep -c '[^[:space:]]' "$expected" || true)
	echo "FAIL $name: no output (test not run)"
	echo "RESULTS $name: expected $n, got 0"
	echo "COUNTS 0 1 0 0"
	exit 0
fi
rc=$(cat "$rcfile" 2>/dev/null || echo missing)
strict=0
case " $OUR_TESTS " in
*" $name "*) strict=1 ;;
esac
awk -v name="$name" -v rc="$rc" -v known="$known" -v flaky="$flaky" -v tap="$tap" \
	-v strict="$strict" -v allowed="$allowed" -v base="$base" -v flavour="$flavour" \
	-v expected="$expected" '
function listed(file, arr,	line, f, reason) {
	while ((getline line < file) > 0) {
		if (line ~ /^#/ || line !~ /[^ \t]/) continue
		split(line, f, /[ \t]+/)
		reason = line; sub(/^[^ \t]+[ \t]+/, "", reason)
		arr[f[1]] = reason
	}
}
# Later attempts: the first one in which each test passed.
function retries(	a, file, line, d) {
	for (a = 2; a <= 3; a++) {
		file = tap "." a
		while ((getline line < file) > 0) {
			if (line !~ /^ok [0-9]+/ || line ~ /# *SKIP/) continue
			d = line; sub(/^ok [0-9]+ ?(- )?/, "", d); sub(/ *#.*/, "", d)
			if (!((name ":" d) in passed_in)) passed_in[name ":" d] = a
		}
	}
}
# The allow-list, "BINARY:TEST BASE REASON": the entries for this kernel
# in allow[], and for the other listed tests why theirs do not count.
function allow_list(file,	line, f, reason) {
	while ((getline line < file) > 0) {
		if (line ~ /^#/ || line !~ /[^ \t]/) continue
		split(line, f, /[ \t]+/)
		reason = line; sub(/^[^ \t]+[ \t]+[^ \t]*[ \t]*/, "", reason)
		if (f[2] !~ /^(mainline|6\.12|debug|\*)$/)
			not_here[f[1]] = "its entry names base \"" f[2] "\", not mainline, 6.12, debug or *"
		else if (reason == "")
			not_here[f[1]] = "its entry gives no reason"
		else if (f[2] == "*" || f[2] == base || (f[2] == "debug" && flavour == "debug"))
			allow[f[1]] = f[2] ": " reason
		else if (!(f[1] in not_here))
			not_here[f[1]] = "listed for " f[2] " only"
	}
}
# A skipped subtest of ours (D: what follows "# SKIP"): a SKIP if the
# allow-list has it for this kernel, else a failure with the last message
# of the binary before it, which usually says why it skipped.
function skipped_ours(t, d,	key, why, said) {
	key = name ":" t
	if (key in allow) {
		printf "SKIP %s:%s (allowed by tests/allowed-skips, %s)\n", name, d, allow[key]
		skip++
		return
	}
	why = (key in not_here) ? not_here[key] : "not listed"
	said = d; sub(/^[^ ]*:? */, "", said)
	if (said == "" && msg_line > prev_result) said = last_msg
	printf "FAIL %s:%s: skipped%s, not allowed on %s%s (tests/allowed-skips: %s)\n", name, t,
		said != "" ? " (" said ")" : "", base != "" ? base : "this kernel",
		flavour == "debug" ? " debug" : "", why
	fail++
}
# EXPECTED against the names that reported: the count, then one failure
# that names what is missing and what the source does not know.
function check_expected(	line, n, want, missing, extra, t) {
	while ((getline line < expected) > 0) {
		if (line !~ /[^ \t]/) continue
		n++
		want[line] = 1
		if (!(line in names)) missing = missing " " line
	}
	for (t in names)
		if (!(t in want)) extra = extra " " t
	printf "RESULTS %s: expected %d, got %d\n", name, n, seen
	if (n != seen || missing != "" || extra != "")
		bad("expected " n " results, got " seen (missing != "" ? "; missing:" missing : "") \
		    (extra != "" ? "; not in the source:" extra : ""))
}
function results() {
	if (expected != "") check_expected()
	else printf "RESULTS %s: expected %d, got %d\n", name, plan, seen
}
function bad(why) { printf "FAIL %s: %s\n", name, why; fail++ }
BEGIN {
	listed(known, xf)
	listed(flaky, fl)
	allow_list(allowed)
	retries()
}
/^# / && !/^# (Totals|Planned tests)/ { last_msg = substr($0, 3); msg_line = NR }
/^1\.\.[0-9]+/ {
	plans++
	plan = substr($1, 4) + 0
	if (plan == 0 && $0 ~ /# *SKIP/) {
		reason = $0; sub(/^1\.\.0 *# *SKIP */, "", reason)
		whole_skip = reason
		skipped_whole = 1
	}
}
/^(not )?ok [0-9]+/ {
	seen++
	prev_result = last_result
	last_result = NR
	notok = ($1 == "not")
	num = notok ? $3 : $2
	numbers[num + 0]++
	desc = $0; sub(/^(not )?ok [0-9]+ ?(- )?/, "", desc)
	if (desc ~ /# *SKIP/) {
		d = desc; sub(/^# *SKIP */, "", d); sub(/ *# *SKIP.*/, "", d)
		# "ok 3 # SKIP test_x: why": the name is the first word.
		t = d; sub(/:? .*/, "", t); sub(/:$/, "", t)
		if (t != "") names[t]++
		if (strict) { skipped_ours(t, d); next }
		printf "SKIP %s:%s\n", name, d; skip++; next
	}
	sub(/ *#.*/, "", desc)
	if (desc != "") names[desc]++
	key = name ":" desc
	if (key in xf) {
		if (notok) { printf "XFAIL %s (known: %s)\n", key, xf[key]; xfail++ }
		else { printf "XPASS %s (listed as known failure, passed)\n", key; pass++ }
		next
	}
	if (notok && (key in fl) && (key in passed_in)) {
		printf "PASS %s (flaky, tests/flaky: failed, then passed on attempt %d)\n", key, passed_in[key]
		pass++; next
	}
	if (notok) { printf "FAIL %s\n", key; fail++; failed_tests++ } else { printf "PASS %s\n", key; pass++ }
}
/^# (Totals|Planned tests)/ { next }
END {
	if (strict) {
		if (skipped_whole)
			bad("skipped as a whole (1..0 # SKIP " whole_skip "); our tests must run here")
		if (plans == 0)
			bad("no TAP plan line (1..N)")
		else if (plans > 1)
			bad(plans " TAP plan lines, want one")
		else if (seen != plan)
			bad(seen " results for a plan of " plan)
		for (n in numbers)
			if (numbers[n] > 1) bad("test number " n " reported " numbers[n] " times")
		for (t in names)
			if (names[t] > 1) bad("test " t " reported " names[t] " times")
		if (rc == 124 || rc == 137) bad("timed out (exit " rc ")")
		else if (rc == "missing") bad("no exit status recorded")
		# Exit status 1 is how kselftest says a test failed: no news if one did.
		else if (rc != 0 && !(rc == 1 && failed_tests)) bad("exit status " rc ", want 0")
		results()
		printf "COUNTS %d %d %d %d\n", pass, fail, skip, xfail
		exit
	}
	if (whole_skip != "") {
		printf "SKIP %s: %s\n", name, whole_skip
		printf "RESULTS %s: expected 0 (skipped as a whole), got 0\n", name
		printf "COUNTS 0 0 1 0\n"
		exit
	}
	if (plan > seen) { printf "FAIL %s: %d of %d planned tests did not report\n", name, plan - seen, plan; fail++ }
	if (seen == 0 && rc != 0) { printf "FAIL %s: exited %s without results\n", name, rc; fail++ }
	else if (rc == 124 || rc == 137) { printf "FAIL %s: timed out\n", name; fail++ }
	results()
	printf "COUNTS %d %d %d %d\n", pass, fail, skip, xfail
}' "$tap"
