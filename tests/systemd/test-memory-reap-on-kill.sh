#!/bin/bash
# Integration test of systemd's MemoryReapOnKill=, run in the guest with our
# systemd as PID 1 (scripts/guest-run.sh --systemd).  Prints one line per
# test: "PASS name", "FAIL name: reason" or "SKIP name: reason", after the
# "EXPECT" lines of tests/lib.sh's expect, which scripts/suite-results.sh
# holds it to.
#
#   test-memory-reap-on-kill.sh [patched|nofile]
#
# "nofile": the kernel has no memory.reap_on_kill (CONFIG_MEMCG_REAP_ON_KILL
# unset, or a stock kernel); check that units using the setting still
# start, and that with the documented drop-in for all slices a manager
# logs the missing attribute once, not once per unit or reload.  Test
# names start with $SD_LABEL (default "systemd"); $SD_BASE, if set, is the
# systemd version PID 1 must be.
set -u
kernel=${1:-patched}
P=${SD_LABEL:-systemd}
[ "$kernel" = nofile ] && P=$P-nofile
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
ETC=/etc/systemd/system
PY=/usr/bin/python3
MiB=$((1 << 20))

check() {	# check NAME REASON-IF-FALSE SHELL-CONDITION
	if eval "$3"; then pass "$1"; else fail "$1" "$2"; fi
}

# "name=value" of systemctl show, the value only.
prop() { systemctl show -P "$2" -- "$1" 2>/dev/null; }
file() { cat "$CG/$1/memory.reap_on_kill" 2>/dev/null || echo missing; }

# A service that touches 64 MiB of anonymous memory, then sleeps.
ALLOC="$PY -c 'import time; b = bytes(1) * (64 << 20); time.sleep(100000)'"
victim_unit() {	# victim_unit NAME SLICE
	cat > "$ETC/$1.service" <<-EOF
	[Unit]
	Description=reap-on-kill test victim
	DefaultDependencies=no
	[Service]
	Slice=$2
	ExecStart=$ALLOC
	EOF
}

# Starts service $1, waits until it holds its memory; kills its main process
# with SIGKILL; the kill_reap count of cgroup $2 before and after (the
# service's own cgroup goes away with it).
kill_victim() {	# kill_victim UNIT COUNTING-CGROUP WAIT-TENTHS -> sets before, after
	local unit=$1 cg=$2 ticks=$3 ucg
	before=x after=x
	systemctl start "$unit" || return 1
	ucg=$(prop "$unit" ControlGroup)
	wait_for 300 mem_over "$ucg" $((48 * MiB)) || { echo "# $unit never reached 48 MiB" >&2; return 1; }
	before=$(kill_reap "$cg")
	systemctl kill --kill-whom=main -s SIGKILL "$unit"
	wait_for "$ticks" reaped_since "$cg" "$before" || true
	after=$(kill_reap "$cg")
	systemctl reset-failed "$unit" 2>/dev/null
	return 0
}

# The checks each mode must print (check-systemd.sh fails on a missing one).
if [ "$kernel" = nofile ]; then
	expect pid1_is_patched_systemd kernel_lacks_memory_reap_on_kill units_start warns_once
else
	expect pid1_is_patched_systemd kernel_has_memory_reap_on_kill invalid_value_rejected \
		slice_dropin_sets_file show_property service_in_slice_sigkill_is_reaped analyze_dump \
		service_outside_not_covered unset_keeps_foreign_value set_property_runtime_flips \
		set_property_runtime_dropin set_property_persistent set_property_slice_off_on \
		systemd_run_property systemd_run_sigkill_is_reaped all_slices_dropin no_warning
fi

if [ "$(readlink /proc/1/exe)" = /usr/lib/systemd/systemd ] &&
   systemctl --version | head -1 | grep -q "^systemd ${SD_BASE:-[0-9]*} (.*reap-on-kill)"; then
	pass pid1_is_patched_systemd
else
	fail pid1_is_patched_systemd "PID 1 is $(readlink /proc/1/exe), $(systemctl --version | head -1)"
	exit 0
fi
# The manager's messages are read from the journal.
systemctl start systemd-journald.socket systemd-journald.service
# warnings_since CURSOR: how many "memory.reap_on_kill is not available"
# warnings (priority warning or higher: the repeats are logged at debug
# level, which the journal keeps while the manager logs at debug level)
# the journal holds after CURSOR.
cursor() { journalctl -q -n 0 --show-cursor | awk '{ print $3 }'; }
warnings_since() {
	journalctl --sync
	journalctl -q -p warning -o cat --after-cursor="$1" | grep -c 'memory.reap_on_kill is not available'
}
# The drop-in for all slices that the man page documents.
all_slices_dropin() {	# all_slices_dropin yes|no
	mkdir -p /run/systemd/system/slice.d
	printf '[Slice]\nMemoryReapOnKill=%s\n' "$1" > /run/systemd/system/slice.d/50-reap-on-kill.conf
}

if [ "$kernel" = nofile ]; then
	if [ -e "$CG/system.slice/memory.reap_on_kill" ]; then
		fail kernel_lacks_memory_reap_on_kill "this kernel has memory.reap_on_kill"
		exit 0
	fi
	pass kernel_lacks_memory_reap_on_kill
	# As at boot: a manager executed afresh, with every slice set by the
	# drop-in, two services that set it, and a reload.
	all_slices_dropin yes
	mkdir -p "$ETC"
	printf '[Service]\nMemoryReapOnKill=yes\nExecStart=/bin/sleep 1000\n' > "$ETC/reap-nofile.service"
	c=$(cursor)
	systemctl daemon-reexec
	systemd-run -q -p MemoryReapOnKill=yes --unit=reap-nofile-run /bin/sleep 1000
	systemctl start reap-nofile.service
	systemctl daemon-reload
	check units_start "a unit with MemoryReapOnKill=yes did not start" \
		'systemctl is-active -q reap-nofile.service reap-nofile-run.service'
	n=$(warnings_since "$c")
	check warns_once "$n warnings since the re-execution, want 1: $(journalctl -q -p warning -o cat --after-cursor="$c" | grep -m1 'memory.reap_on_kill')" \
		'[ "$n" = 1 ]'
	exit 0
fi

if [ ! -e "$CG/system.slice/memory.reap_on_kill" ]; then
	fail kernel_has_memory_reap_on_kill "no memory.reap_on_kill in $CG/system.slice"
	exit 0
fi
pass kernel_has_memory_reap_on_kill
c0=$(cursor)

mkdir -p "$ETC/reaptest.slice.d"
cat > "$ETC/reaptest.slice.d/reap.conf" <<-EOF
[Slice]
MemoryReapOnKill=yes
EOF
victim_unit reap-victim reaptest.slice
victim_unit reap-outside system.slice
cat > "$ETC/reap-bad.service" <<-EOF
[Service]
ExecStart=/bin/sleep 1000
MemoryReapOnKill=maybe
EOF
cat > "$ETC/reap-sp.service" <<-EOF
[Unit]
DefaultDependencies=no
[Service]
ExecStart=/bin/sleep 100000
EOF
systemctl daemon-reload

# An invalid value is rejected with the parser's message (not as an unknown
# key); the unit still loads.
check invalid_value_rejected "LoadState=$(prop reap-bad.service LoadState) MemoryReapOnKill=$(prop reap-bad.service MemoryReapOnKill), or no 'Failed to parse' in the log" \
	'[ "$(prop reap-bad.service LoadState)" = loaded ] && [ "$(prop reap-bad.service MemoryReapOnKill)" = no ] &&
	 journalctl -q -b -o cat | grep -q "reap-bad.service:3: Failed to parse MemoryReapOnKill=maybe, ignoring"'

# A drop-in on a slice sets the slice's file; a service in it is covered.
# (Up to 60 s for the reap: the host may be loaded, the guest is emulated.)
if kill_victim reap-victim.service reaptest.slice 600; then
	check slice_dropin_sets_file "reaptest.slice/memory.reap_on_kill is $(file reaptest.slice)" \
		'[ "$(file reaptest.slice)" = 1 ]'
	check show_property "systemctl show -P MemoryReapOnKill reaptest.slice: $(prop reaptest.slice MemoryReapOnKill)" \
		'[ "$(prop reaptest.slice MemoryReapOnKill)" = yes ]'
	check service_in_slice_sigkill_is_reaped "kill_reap of reaptest.slice $before -> $after, want an increment" \
		'[ "$after" -gt "$before" ]'
else
	fail slice_dropin_sets_file "the victim service did not start or allocate"
	fail show_property "the victim service did not start or allocate"
	fail service_in_slice_sigkill_is_reaped "the victim service did not start or allocate"
fi

# systemd-analyze dump shows the setting.
check analyze_dump "systemd-analyze dump reaptest.slice has no 'MemoryReapOnKill: yes'" \
	'systemd-analyze dump reaptest.slice | grep -q "MemoryReapOnKill: yes"'

# A service outside the slice is not covered.
systemctl start reap-outside.service
sleep 0.5
outside_file=$(file "$(prop reap-outside.service ControlGroup)")
if kill_victim reap-outside.service system.slice 50; then
	check service_outside_not_covered "its file is $outside_file, system.slice's $(file system.slice), kill_reap $before -> $after" \
		'[ "$outside_file" = 0 ] && [ "$(file system.slice)" = 0 ] && [ "$after" = "$before" ]'
else
	fail service_outside_not_covered "the service did not start or allocate"
fi

# Unset leaves the attribute alone: a value written by someone else (a
# container runtime's systemd cgroup driver writes linux.resources.unified
# into the scope it asked for) survives a reload and a re-application of
# the memory attributes (seen in memory.high).
systemd-run -q --scope --unit=reap-foreign -p MemoryAccounting=yes /bin/sleep 100000 &
wait_for 100 systemctl is-active -q reap-foreign.scope
fcg=$(prop reap-foreign.scope ControlGroup)
echo 1 > "$CG/$fcg/memory.reap_on_kill"
systemctl daemon-reload
systemctl set-property --runtime reap-foreign.scope MemoryHigh=64M
wait_for 100 grep -qx $((64 * MiB)) "$CG/$fcg/memory.high"
check unset_keeps_foreign_value "file $(file "$fcg") after daemon-reload and set-property MemoryHigh=64M (memory.high $(cat "$CG/$fcg/memory.high")), want 1" \
	'[ "$(file "$fcg")" = 1 ] && [ "$(cat "$CG/$fcg/memory.high")" = $((64 * MiB)) ]'
systemctl stop reap-foreign.scope
wait

# systemctl set-property flips it at runtime: --runtime and persistent.
systemctl start reap-sp.service
spcg=$(prop reap-sp.service ControlGroup)
systemctl set-property --runtime reap-sp.service MemoryReapOnKill=yes
r1=$(file "$spcg") p1=$(prop reap-sp.service MemoryReapOnKill)
systemctl set-property --runtime reap-sp.service MemoryReapOnKill=no
r0=$(file "$spcg") p0=$(prop reap-sp.service MemoryReapOnKill)
check set_property_runtime_flips "file $r1 then $r0, property $p1 then $p0" \
	'[ "$r1$r0$p1$p0" = 10yesno ]'
check set_property_runtime_dropin "no drop-in under /run/systemd/system.control" \
	'grep -qx MemoryReapOnKill=no /run/systemd/system.control/reap-sp.service.d/50-MemoryReapOnKill.conf'
systemctl set-property reap-sp.service MemoryReapOnKill=yes
# The runtime drop-in sorts after the persistent one: drop it to see the latter.
rm -f /run/systemd/system.control/reap-sp.service.d/50-MemoryReapOnKill.conf
systemctl daemon-reload
check set_property_persistent "file $(file "$spcg"), property $(prop reap-sp.service MemoryReapOnKill) after daemon-reload, want 1 and yes; drop-in in /etc/systemd/system.control" \
	'[ "$(file "$spcg")" = 1 ] && [ "$(prop reap-sp.service MemoryReapOnKill)" = yes ] &&
	 grep -qx MemoryReapOnKill=yes /etc/systemd/system.control/reap-sp.service.d/50-MemoryReapOnKill.conf'
systemctl stop reap-sp.service

# Switching the slice off writes 0, on again writes 1.
systemctl set-property --runtime reaptest.slice MemoryReapOnKill=no
s0=$(file reaptest.slice)
systemctl set-property --runtime reaptest.slice MemoryReapOnKill=yes
s1=$(file reaptest.slice)
check set_property_slice_off_on "reaptest.slice file $s0 then $s1" '[ "$s0$s1" = 01 ]'

# systemd-run -p MemoryReapOnKill=yes, and a SIGKILL is reaped.
before=$(kill_reap system.slice)
# (DefaultDependencies=no: do not pull in the rest of the boot.)
systemd-run -q -p MemoryReapOnKill=yes -p DefaultDependencies=no --unit=reap-run -- /bin/sh -c "exec $ALLOC"
runcg=$(prop reap-run.service ControlGroup)
check systemd_run_property "reap-run.service: property $(prop reap-run.service MemoryReapOnKill), file $(file "$runcg")" \
	'[ "$(prop reap-run.service MemoryReapOnKill)" = yes ] && [ "$(file "$runcg")" = 1 ]'
if wait_for 300 mem_over "$runcg" $((48 * MiB)); then
	systemctl kill --kill-whom=main -s SIGKILL reap-run.service
	wait_for 600 reaped_since system.slice "$before"
	after=$(kill_reap system.slice)
	check systemd_run_sigkill_is_reaped "kill_reap of system.slice $before -> $after" '[ "$after" -gt "$before" ]'
else
	fail systemd_run_sigkill_is_reaped "reap-run.service never reached 48 MiB"
fi

# The drop-in for all slices covers every slice (a slice started after it)
# but the root; without it, a new slice is not covered.  (A reload applies
# a changed drop-in to running slices on 262, not on 257; slices realized
# meanwhile keep their 1 either way, so reset them by hand.)
printf '[Slice]\n' > "$ETC/reaptest2.slice"
all_slices_dropin yes
systemctl daemon-reload
systemctl start reaptest2.slice
d1="$(file reaptest2.slice)$(prop -.slice MemoryReapOnKill)"
systemctl stop reaptest2.slice
rm -f /run/systemd/system/slice.d/50-reap-on-kill.conf
systemctl daemon-reload
systemctl start reaptest2.slice
d0="$(file reaptest2.slice)"
systemctl stop reaptest2.slice
for f in "$CG"/*.slice/memory.reap_on_kill; do echo 0 > "$f"; done
check all_slices_dropin "reaptest2.slice, -.slice: $d1 with the drop-in (want 1yes), $d0 without (want 0)" \
	'[ "$d1$d0" = 1yes0 ]'

n=$(warnings_since "$c0")
check no_warning "$n 'memory.reap_on_kill is not available' messages on a kernel that has it" '[ "$n" = 0 ]'

exit 0
