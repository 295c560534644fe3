#!/bin/bash
# Run systemd's own unit tests from a meson build directory; in the guest
# under our systemd as PID 1, so that tests needing a booted systemd and a
# pure cgroup2 hierarchy run.  Prints "PASS/FAIL/SKIP LABEL-unit:NAME"
# (LABEL: $SD_LABEL, default "systemd"), after the "EXPECT" lines of
# tests/lib.sh's expect (scripts/suite-results.sh).
#
#   run-unit-tests.sh BUILDDIR TEST...
set -u
dir=$1
shift
label=${SD_LABEL:-systemd}-unit
logs=${UNIT_TEST_LOGS:-/job/out}
mkdir -p "$logs"
# test-bus-unit-util builds messages on a bus it never sends on, and skips
# without one; the guest has no D-Bus broker, so give it PID 1's private
# socket.
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/systemd/private
P=$label
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
expect "$@"
for t; do
	log=$logs/unit-$t.log
	(cd "$dir" && timeout 300 "./$t") > "$log" 2>&1
	rc=$?
	if [ "$rc" = 77 ]; then
		echo "SKIP $label:$t: $(grep -m1 -i skip "$log" || echo skipped)"
	elif [ "$rc" != 0 ]; then
		echo "FAIL $label:$t: exit $rc; $(grep -m1 -E 'Assertion|failed' "$log" || tail -1 "$log")"
	elif grep -q 'systemd not booted, skipping' "$log"; then
		echo "SKIP $label:$t: $(grep -m1 'skipping' "$log")"
	elif [ "$t" = test-cgroup-mask ] &&
	     { ! grep -q '/\* test_memory_reap_on_kill_mask \*/' "$log" ||
	       ! grep -q 'Failed to parse MemoryReapOnKill=maybe, ignoring' "$log"; }; then
		echo "FAIL $label:$t: the MemoryReapOnKill= test did not run ($(grep -m1 -i 'skip' "$log" || echo 'no trace of it'))"
	elif [ "$t" = test-bus-unit-util ] &&
	     { grep -q 'no bus connection' "$log" || ! grep -q 'MemoryReapOnKill=maybe → -22/EINVAL' "$log"; }; then
		echo "FAIL $label:$t: the MemoryReapOnKill= cases did not run ($(grep -m1 'no bus connection' "$log" || echo 'no result line for them'))"
	else
		echo "PASS $label:$t"
	fi
done
exit 0
