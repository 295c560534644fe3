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
