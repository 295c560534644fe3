#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest: one upstream cgroup kselftest binary with
# memory.reap_on_kill=1 on the cgroup it takes for its root, so that every
# cgroup it creates is covered and every process it kills is reaped: the
# memory controller's accounting is then tested with the feature active,
# not only built in (guest/run-tests.sh's covered:BINARY).
#   covered-run.sh BINARY [ARG...]
#
# The binary finds its root in /proc/self/mounts.  It runs in a cgroup
# namespace rooted at a covered cgroup, with cgroup2 mounted again at
# /sys/fs/cgroup in a mount namespace of its own (the first mount taken
# away: the kernel refuses a superblock twice on one mount point), so that
# mount shows the covered cgroup as the root.  The binary itself sits in a
# child of it, "runner", as upstream's tests need the root free of
# processes to delegate controllers below it.  Its exit status is the
# script's.
set -eu
top=/sys/fs/cgroup/reap-covered

# Say how many of the run's kills were reaped (memory.events counts the
# subtree's, removed cgroups included), as a TAP comment that
# scripts/check.sh reads; then remove what the run left, deepest first (a
# test that failed may leave its cgroups behind, without processes).
cleanup() {
	[ -d "$top" ] || return 0
	echo "# covered-run: $(grep -m1 '^kill_reap ' "$top/memory.events")"
	find "$top" -depth -type d -exec rmdir {} + 2>/dev/null
	return 0
}
trap cleanup EXIT

mkdir "$top"
echo 1 > "$top/memory.reap_on_kill"
[ "$(cat "$top/memory.reap_on_kill")" = 1 ] || {
	echo "covered-run: memory.reap_on_kill did not take 1" >&2
	exit 1
}
controllers=$(sed 's/[^ ][^ ]*/+&/g' "$top/cgroup.controllers")

# The subshell alone moves into the covered cgroup, so that unshare's
# namespace is rooted there and this script stays where it was.
# shellcheck disable=SC2016 # $1 and $@ are for the inner bash
(
	echo "$BASHPID" > "$top/cgroup.procs"
	exec unshare --cgroup --mount bash -c '
		set -e
		umount /sys/fs/cgroup
		mount -t cgroup2 reap-covered /sys/fs/cgroup
		mkdir /sys/fs/cgroup/runner
		echo $$ > /sys/fs/cgroup/runner/cgroup.procs
		echo "$1" > /sys/fs/cgroup/cgroup.subtree_control
		shift
		exec "$@"' covered-run "$controllers" "$@"
)
