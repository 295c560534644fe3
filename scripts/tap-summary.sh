#!/bin/bash
# Summarize kselftest TAP output.
#   tap-summary.sh NAME TAPFILE RCFILE KNOWN-FAILURES [FLAKY]
# Prints one line per test (PASS/FAIL/SKIP/XFAIL/XPASS) and, last,
# "COUNTS <passed> <failed> <skipped> <xfail>".  A test listed in FLAKY
# that failed passes if it passed in a later attempt (TAPFILE.2, TAPFILE.3,
# written by guest/run-tests.sh), and the line says which.
name=$1 tap=$2 rcfile=$3 known=$4 flaky=${5:-/dev/null}
[ -f "$tap" ] || { echo "FAIL $name: no output (test not run)"; echo "COUNTS 0 1 0 0"; exit 0; }
rc=$(cat "$rcfile" 2>/dev/null || echo missing)
awk -v name="$name" -v rc="$rc" -v known="$known" -v flaky="$flaky" -v tap="$tap" '
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
BEGIN {
	listed(known, xf)
	listed(flaky, fl)
	retries()
}
/^1\.\.[0-9]+/ {
	plan = substr($1, 4) + 0
	if (plan == 0 && $0 ~ /# *SKIP/) {
		reason = $0; sub(/^1\.\.0 *# *SKIP */, "", reason)
		whole_skip = reason
	}
}
/^(not )?ok [0-9]+/ {
	seen++
	notok = ($1 == "not")
	desc = $0; sub(/^(not )?ok [0-9]+ ?(- )?/, "", desc)
	if (desc ~ /# *SKIP/) {
		d = desc; sub(/^# *SKIP */, "", d); sub(/ *# *SKIP.*/, "", d)
		printf "SKIP %s:%s\n", name, d; skip++; next
	}
	sub(/ *#.*/, "", desc)
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
	if (notok) { printf "FAIL %s\n", key; fail++ } else { printf "PASS %s\n", key; pass++ }
}
/^# (Totals|Planned tests)/ { next }
END {
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
