#!/bin/bash
# Run one of systemd's integration subtests (test/units/TEST-*.sh, in the
# style of its mkosi test harness: exit 0 passed, 77 skipped) in the guest
# under our systemd as PID 1.  Prints "PASS/FAIL/SKIP LABEL:NAME" (LABEL:
# $SD_LABEL, default "systemd"); its trace goes to /job/out/NAME.log.
#
#   run-subtest.sh SCRIPT
set -u
script=$1
name=$(basename "$script" .sh)
label=${SD_LABEL:-systemd}
log=${SUBTEST_LOGS:-/job/out}/$name.log
mkdir -p "$(dirname "$log")"
timeout 600 "$script" > "$log" 2>&1
rc=$?
case $rc in
0) echo "PASS $label:$name" ;;
77) echo "SKIP $label:$name: $(grep -m1 '^Skipping' "$log" || echo 'exit 77')" ;;
*) echo "FAIL $label:$name: exit $rc; $(grep -m1 -E '^FAIL|failed' "$log" || tail -1 "$log")" ;;
esac
exit 0
