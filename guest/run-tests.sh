#!/bin/bash
# Runs inside the guest: record facts about the booted system for the
# harness self-tests, then run kselftest binaries, one TAP file each.
#   run-tests.sh OUTDIR TESTDIR TEST...
out=$1 dir=$2
shift 2
FLAKY=${FLAKY:-$(dirname "$0")/../tests/flaky}
mkdir -p "$out"

{
	echo "version=$(cat /proc/version)"
	echo "build_id=$(od -An -v -tx1 /sys/kernel/notes | tr -d ' \n')"
	echo "controllers=$(cat /sys/fs/cgroup/cgroup.controllers)"
	echo "subtree_control=$(cat /sys/fs/cgroup/cgroup.subtree_control)"
	echo "scratch_fs=$(stat -f -c %T /scratch)"
	echo "cwd_fs=$(stat -f -c %T .)"
} > "$out/facts"

# run_one TEST TAPFILE: run one kselftest binary, its exit status in $rc.
run_one() {
	local start
	echo "=== $1"
	start=$(date +%s)
	# Line-buffered: tests that fork would otherwise print buffered
	# lines twice into the pipe.
	timeout -k 10 "${TEST_TIMEOUT:-900}" stdbuf -oL -eL "$dir/$1" 2>&1 |
		tee "$2"
	rc=${PIPESTATUS[0]}
	echo "=== $1: exit $rc in $(( $(date +%s) - start ))s"
}

# failed_flaky TEST TAPFILE: true if a test listed in $FLAKY failed.
failed_flaky() {
	local name
	[ -r "${FLAKY:-}" ] || return 1
	sed -n 's/^not ok [0-9]* \([^ #]*\).*/\1/p' "$2" | while read -r name; do
		grep -q "^$1:$name[[:space:]]" "$FLAKY" && echo "$name"
	done | grep -q .
}

for t in "$@"; do
	run_one "$t" "$out/$t.tap"
	echo "$rc" > "$out/$t.rc"
	# Known-flaky upstream tests: up to two more attempts, kept apart.
	last=$out/$t.tap
	for attempt in 2 3; do
		failed_flaky "$t" "$last" || break
		echo "=== $t: a test listed in tests/flaky failed; attempt $attempt"
		last=$out/$t.tap.$attempt
		run_one "$t" "$last"
	done
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
