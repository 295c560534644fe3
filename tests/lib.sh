# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers of the checks that run as shell scripts in the guest
# (tests/systemd, tests/containers, tests/distro); sourced, never run.
#
# Results are TAP-like lines that make check counts: "PASS $P:NAME",
# "FAIL $P:NAME: WHY", "SKIP $P:NAME: WHY", with $P set by the script.
# A cgroup is named by its path under /sys/fs/cgroup.  The conditions are
# written for wait_for, which evaluates them again at every try.

CG=/sys/fs/cgroup

pass() { echo "PASS $P:$1"; }
fail() { echo "FAIL $P:$1: $2"; }
skip() { echo "SKIP $P:$1: $2"; }

# expect NAME...: the checks this suite must print a result for, declared
# before it runs any, as "EXPECT $P:NAME" lines.  The host reads the
# output with scripts/suite-results.sh, which fails each declared check
# that printed no PASS, FAIL or SKIP line (the suite stopped: set -u, a
# command not found, a timeout), each result that was not declared or came
# twice, and each suite it is told to expect that declared nothing (its
# script is missing or died before expect).  $P must not contain ":".
expect() {
	local name
	for name; do echo "EXPECT $P:$name"; done
}

# wait_for TENTHS CMD...: runs CMD every tenth of a second until it
# succeeds; fails once it has failed TENTHS times.
wait_for() {
	local n=$1
	shift
	until "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# kill_reap CGROUP: memory.events' count of the kills reaped in CGROUP's
# subtree; empty if the cgroup or the counter is missing.
kill_reap() { awk '$1 == "kill_reap" { print $2 }' "$CG/$1/memory.events" 2>/dev/null; }

# reaped_since CGROUP N: CGROUP's kill_reap is over N.
reaped_since() { [ "$(kill_reap "$1")" -gt "$2" ] 2>/dev/null; }

# mem_over CGROUP BYTES, mem_under CGROUP BYTES: its memory.current
# (0 if the cgroup is gone) is over, under BYTES.
mem_over() { [ "$(cat "$CG/$1/memory.current" 2>/dev/null || echo 0)" -gt "$2" ]; }
mem_under() { [ "$(cat "$CG/$1/memory.current" 2>/dev/null || echo 0)" -lt "$2" ]; }
