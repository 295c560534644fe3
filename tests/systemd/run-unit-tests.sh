#!/bin/bash
# Run systemd's own unit tests from a meson build directory; in the guest
# under our systemd as PID 1, so that tests needing a booted systemd and a
# pure cgroup2 hierarchy run.  Prints "PASS/FAIL/SKIP systemd-unit:NAME".
#
#   run-unit-tests.sh BUILDDIR TEST...
set -u
dir=$1
shift
logs=${UNIT_TEST_LOGS:-/job/out}
mkdir -p "$logs"
for t; do
	log=$logs/unit-$t.log
	(cd "$dir" && timeout 300 "./$t") > "$log" 2>&1
	rc=$?
	if [ "$rc" = 77 ]; then
		echo "SKIP systemd-unit:$t: $(grep -m1 -i skip "$log" || echo skipped)"
	elif [ "$rc" != 0 ]; then
		echo "FAIL systemd-unit:$t: exit $rc; $(grep -m1 -E 'Assertion|failed' "$log" || tail -1 "$log")"
	elif grep -q 'systemd not booted, skipping' "$log"; then
		echo "SKIP systemd-unit:$t: $(grep -m1 'skipping' "$log")"
	elif [ "$t" = test-load-fragment ] &&
	     ! grep -q 'Failed to parse MemoryReapOnKill=maybe, ignoring' "$log"; then
		echo "FAIL systemd-unit:$t: the MemoryReapOnKill= test did not run"
	else
		echo "PASS systemd-unit:$t"
	fi
done
exit 0
