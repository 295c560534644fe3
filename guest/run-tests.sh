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
	# Line-buffered: tests that fork would otherwise print buffered
	# lines twice into the pipe.
	timeout -k 10 "${TEST_TIMEOUT:-900}" stdbuf -oL -eL "$dir/$t" 2>&1 |
		tee "$out/$t.tap"
	rc=${PIPESTATUS[0]}
	echo "=== $t: exit $rc in $(( $(date +%s) - start ))s"
	echo "$rc" > "$out/$t.rc"
done

# Debug kernels: report leaks now, into the console the host scans.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak | tee "$out/kmemleak"
	echo "kmemleak: $(grep -c 'unreferenced object' "$out/kmemleak") unreferenced objects"
fi
exit 0
