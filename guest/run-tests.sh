#!/bin/bash
# Runs inside the guest: record facts about the booted system for the
# harness self-tests, then run kselftest binaries, one TAP file each.
#   run-tests.sh OUTDIR TESTDIR TEST...
out=$1 dir=$2
shift 2
mkdir -p "$out"

{
	echo "version=$(cat /proc/version)"
	echo "build_id=$(od -An -v -tx1 /sys/kernel/notes | tr -d ' \n')"
	echo "controllers=$(cat /sys/fs/cgroup/cgroup.controllers)"
	echo "subtree_control=$(cat /sys/fs/cgroup/cgroup.subtree_control)"
	echo "scratch_fs=$(stat -f -c %T /scratch)"
	echo "cwd_fs=$(stat -f -c %T .)"
} > "$out/facts"

for t in "$@"; do
	echo "=== $t"
	start=$(date +%s)
	timeout -k 10 "${TEST_TIMEOUT:-900}" "$dir/$t" 2>&1 | tee "$out/$t.tap"
	rc=${PIPESTATUS[0]}
	echo "=== $t: exit $rc in $(( $(date +%s) - start ))s"
	echo "$rc" > "$out/$t.rc"
done
exit 0
