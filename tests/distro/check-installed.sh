#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs at boot in make distro-check's Debian 13 image (scripts/distro-check.sh),
# as a unit of the image's own systemd: the README's install steps, checked
# the way a user would see them.
#
#   check-installed.sh debian|patched HOG
#
# debian:  Debian's systemd, which does not know MemoryReapOnKill=: the
#          README's "echo 1 > /sys/fs/cgroup/batch.slice/memory.reap_on_kill".
# patched: our systemd packages, with the README's drop-in on batch.slice
#          (put in the image by distro-check.sh).
# In both, a service in batch.slice that holds 64 MiB (HOG, tests/containers/
# hog.c) is killed with SIGKILL, and the kill must be reaped: batch.slice's
# memory.events:kill_reap rises by one (it counts reaps that freed memory).
#
# Prints "PASS distro-MODE:NAME" or "FAIL distro-MODE:NAME: why" lines, then
# "DONE".
set -u
mode=$1 hog=$2
P=distro-$mode
SLICE=batch.slice
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

check() {	# check NAME WHY CMD...: PASS if CMD succeeds, else FAIL NAME: WHY
	local name=$1 why=$2
	shift 2
	if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}
ends_with() { [ "${1%"$2"}" != "$1" ]; }

kernel=$(uname -r)
check kernel_is_the_package "running $kernel, from $(dpkg -S "/boot/vmlinuz-$kernel" 2>&1)" \
	eval 'ends_with "$kernel" -reap-on-kill && dpkg -S "/boot/vmlinuz-$kernel" | grep -q "^linux-image-$kernel:"'
check file_on_system_slice "$(cat "$CG/system.slice/memory.reap_on_kill" 2>&1)" \
	test "$(cat "$CG/system.slice/memory.reap_on_kill" 2>/dev/null)" = 0

systemctl start "$SLICE"
case $mode in
debian)
	echo 1 > "$CG/$SLICE/memory.reap_on_kill"
	check file_set_by_hand "reads $(cat "$CG/$SLICE/memory.reap_on_kill")" \
		test "$(cat "$CG/$SLICE/memory.reap_on_kill")" = 1
	;;
patched)
	version=$(dpkg-query -W -f '${Version}' systemd)
	check systemd_is_the_package "systemd $version" ends_with "$version" +reaponkill1
	check show_property "MemoryReapOnKill=$(systemctl show -P MemoryReapOnKill "$SLICE")" \
		test "$(systemctl show -P MemoryReapOnKill "$SLICE")" = yes
	;;
esac

systemd-run --quiet --unit=reap-victim --slice="$SLICE" "$hog" 64
cg=$(systemctl show -P ControlGroup reap-victim.service)
if ! wait_for 600 mem_over "$cg" $((64 << 20)); then
	fail victim_runs "reap-victim.service never held its 64 MiB ($(systemctl is-active reap-victim.service))"
	echo DONE
	exit 0
fi
[ "$mode" = patched ] &&
	check file_set_by_dropin "reads $(cat "$CG/$SLICE/memory.reap_on_kill")" \
		test "$(cat "$CG/$SLICE/memory.reap_on_kill")" = 1
before=$(kill_reap "$SLICE")
systemctl kill -s SIGKILL reap-victim.service
wait_for 100 reaped_since "$SLICE" "$before"
check killed_service_reaped "kill_reap $before -> $(kill_reap "$SLICE") in 10 s" \
	reaped_since "$SLICE" "$before"
echo DONE
