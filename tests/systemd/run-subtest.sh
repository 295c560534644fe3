#!/bin/bash
# Run one of systemd's integration subtests the way its test harness does:
# through the parent test (test/units/TEST-NN-NAME.sh), whose run_subtests
# picks it by TEST_MATCH_SUBTEST; the parent exits 0 when a subtest passed,
# 77 when every subtest it ran skipped, anything else on a failure.  In
# the guest under our systemd as PID 1.  Prints "PASS/FAIL/SKIP
# LABEL-subtest:NAME" (LABEL: $SD_LABEL, default "systemd") after its
# EXPECT line (tests/lib.sh's expect); the trace goes to
# /job/out/NAME.log.
#
#   run-subtest.sh UNITS-DIR TEST-NN-NAME SUBTEST
#
# What upstream's test images provide and our guest lacks is set up first:
# journald running (the subtests read the journal), the system bus and
# logind (the subtests reach testuser's user manager with "systemd-run
# --machine=testuser@ --user", whose PAM session logind opens), and the
# unprivileged "testuser" account, as upstream's images define it
# (mkosi/mkosi.credentials/userdb.user.testuser: UID 4711, /bin/bash).
set -u
dir=$1 parent=$2 subtest=$3
name=$parent.$subtest
P=${SD_LABEL:-systemd}-subtest
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
expect "$name"
log=${SUBTEST_LOGS:-/job/out}/$name.log
mkdir -p "$(dirname "$log")"
if [ ! -x "$dir/$name.sh" ]; then
	fail "$name" "no executable $name.sh in the build tree"
	exit 0
fi
{
	systemctl start systemd-journald.socket systemd-journald.service
	getent passwd testuser >/dev/null ||
		useradd --uid 4711 --user-group --create-home --shell /bin/bash testuser
	systemctl start dbus.socket systemd-logind.service
} > "$log" 2>&1
(cd "$dir" && TEST_MATCH_SUBTEST="\.$subtest\.sh$" timeout 900 "./$parent.sh") >> "$log" 2>&1
rc=$?
# The subtest's test cases, as run_testcases traced them.
cases=$(grep -c '^+ : '\''+++ testcase_.* END +++'\' "$log")
case $rc in
0) if grep -q "^Skipping .*$name" "$log" || ! grep -q "PASSED TESTS: *1:" "$log"; then
	fail "$name" "$parent.sh passed without running the subtest"
   else
	pass "$name ($cases test cases)"
   fi ;;
77) skip "$name" "$(grep -m1 '^Skipping' "$log" || echo 'exit 77')" ;;
*) fail "$name" "exit $rc; $(grep -m1 '^FAIL' "$log" || grep -m1 '^Subtest .* failed' "$log" || tail -1 "$log")" ;;
esac
exit 0
