#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest: record facts about the booted system for the
# harness self-tests, then run kselftest binaries, one TAP file each.
#   run-tests.sh OUTDIR TESTDIR TEST...
#
# A TEST named covered:BINARY runs BINARY again with memory.reap_on_kill=1
# on the root it sees (guest/covered-run.sh); its files are named
# covered:BINARY.tap and so on.
#
# The kernel log is taken, and cleared, before the first binary
# (OUTDIR/boot.dmesg), after each binary, attempts included
# (OUTDIR/TEST.dmesg), and at the end (OUTDIR/end.dmesg), so the host can
# scan each binary's own log and name the binary a report came from
# (scripts/check.sh), and no binary's messages can push another's out of
# the buffer.
out=$1 dir=$2
shift 2
FLAKY=${FLAKY:-$(dirname "$0")/../tests/flaky}
# KNOWN_FAILURES: a file in the format of tests/known-failures.*, optional.
mkdir -p "$out"

# take_log FILE: append the kernel log to FILE and clear it, in one
# syslog(2) call (busybox's dmesg -c: SYSLOG_ACTION_READ_CLEAR), so nothing
# printed in between is lost.  guest/init puts busybox in /run.
take_log() {
	local bb=/run/busybox
	[ -x "$bb" ] || bb=busybox
	"$bb" dmesg -c >> "$1" 2>&1 || echo "run-tests: could not read the kernel log" >> "$1"
}
take_log "$out/boot.dmesg"

{
	echo "version=$(cat /proc/version)"
	echo "build_id=$(od -An -v -tx1 /sys/kernel/notes | tr -d ' \n')"
	echo "controllers=$(cat /sys/fs/cgroup/cgroup.controllers)"
	echo "subtree_control=$(cat /sys/fs/cgroup/cgroup.subtree_control)"
	echo "scratch_fs=$(stat -f -c %T /scratch)"
	echo "cwd_fs=$(stat -f -c %T .)"
	echo "printk=$(cat /proc/sys/kernel/printk)"
	echo "tracefs=$(stat -f -c %T /sys/kernel/tracing 2>&1)"
	# What guest/init could not set up (one line each).
	echo "init_errors=$(paste -sd';' /run/reap-init.errors 2>/dev/null)"
} > "$out/facts"

# run_one TEST TAPFILE: run one kselftest binary, its exit status in $rc.
run_one() {
	local start
	echo "=== $1"
	start=$(date +%s)
	# Line-buffered: tests that fork would otherwise print buffered
	# lines twice into the pipe.
	local cmd=("$dir/$1")
	case $1 in
	covered:*) cmd=("$(dirname "$0")/covered-run.sh" "$dir/${1#covered:}") ;;
	esac
	timeout -k 10 "${TEST_TIMEOUT:-900}" stdbuf -oL -eL "${cmd[@]}" 2>&1 |
		tee "$2"
	rc=${PIPESTATUS[0]}
	take_log "$out/$1.dmesg"
	echo "=== $1: exit $rc in $(( $(date +%s) - start ))s"
}

# failed_flaky TEST TAPFILE: true if a test listed in $FLAKY failed, other
# than one listed in $KNOWN_FAILURES (this kernel's known failures, which
# another attempt would only fail again).
failed_flaky() {
	local name
	[ -r "${FLAKY:-}" ] || return 1
	# A here-string, not a process substitution: the guest has no /dev/fd.
	while read -r name; do
		[ -n "$name" ] || continue
		[ -r "${KNOWN_FAILURES:-}" ] &&
			grep -qE "^$1:${name}([[:space:]]|\$)" "$KNOWN_FAILURES" && continue
		grep -qE "^$1:${name}([[:space:]]|\$)" "$FLAKY" && return 0
	done <<<"$(sed -n 's/^not ok [0-9]* \([^ #]*\).*/\1/p' "$2")"
	return 1
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
	tee "$out/kmemleak" < /sys/kernel/debug/kmemleak
	echo "kmemleak: $(grep -c 'unreferenced object' "$out/kmemleak") unreferenced objects"
fi
take_log "$out/end.dmesg"
exit 0
