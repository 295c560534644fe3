#!/bin/bash
# Summarize kselftest TAP output.
#   tap-summary.sh NAME TAPFILE RCFILE KNOWN-FAILURES [FLAKY]
# Prints one line per test (PASS/FAIL/SKIP/XFAIL/XPASS) and, last,
# "COUNTS <passed> <failed> <skipped> <xfail>".  A test listed in FLAKY
# that failed passes if it passed in a later attempt (TAPFILE.2, TAPFILE.3,
# written by guest/run-tests.sh), and the line says which.
#
# Our own binaries (OUR_TESTS in lib.sh) are held to the whole TAP
# contract, each breach a "FAIL NAME: reason" line: skipping as a whole
# (1..0 # SKIP), no plan line or more than one, fewer or more results than
# planned, a test number or name reported twice, and an exit status other
# than 0 (or than 1 with a failed test: kselftest's "something failed").
# Upstream binaries keep the lenient rules: a whole-binary skip is one SKIP,
# missing results fail, the exit status only matters when there are no
# results or it says timeout.  tests/harness/test-tap-summary.sh checks
# each rule.
. "$(dirname "$0")/lib.sh"

name=$1 tap=$2 rcfile=$3 known=$4 flaky=${5:-/dev/null}
[ -f "$tap" ] || { echo "FAIL $name: no output (test not run)"; echo "COUNTS 0 1 0 0"; exit 0; }
rc=$(cat "$rcfile" 2>/dev/null || echo missing)
strict=0
case " $OUR_TESTS " in
*" $name "*) strict=1 ;;
esac
awk -v name="$name" -v rc="$rc" -v known="$known" -v flaky="$flaky" -v tap="$tap" \
	-v strict="$strict" '
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
function bad(why) { printf "FAIL %s: %s\n", name, why; fail++ }
BEGIN {
	listed(known, xf)
	listed(flaky, fl)
	retries()
}
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
	notok = ($1 == "not")
	num = notok ? $3 : $2
	numbers[num + 0]++
	desc = $0; sub(/^(not )?ok [0-9]+ ?(- )?/, "", desc)
	if (desc ~ /# *SKIP/) {
		d = desc; sub(/^# *SKIP */, "", d); sub(/ *# *SKIP.*/, "", d)
		# "ok 3 # SKIP test_x: why": the name is the first word.
		t = d; sub(/:? .*/, "", t); sub(/:$/, "", t)
		if (t != "") names[t]++
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
		printf "COUNTS %d %d %d %d\n", pass, fail, skip, xfail
		exit
	}
	if (whole_skip != "") {
		printf "SKIP %s: %s\n", name, whole_skip
		printf "COUNTS 0 0 1 0\n"
		exit
	}
	if (plan > seen) { printf "FAIL %s: %d of %d planned tests did not report\n", name, plan - seen, plan; fail++ }
	if (seen == 0 && rc != 0) { printf "FAIL %s: exited %s without results\n", name, rc; fail++ }
	else if (rc == 124 || rc == 137) { printf "FAIL %s: timed out\n", name; fail++ }
	printf "COUNTS %d %d %d %d\n", pass, fail, skip, xfail
}' "$tap"
