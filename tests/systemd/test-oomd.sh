#!/bin/bash
# systemd-oomd, end to end, with our systemd as PID 1 (guest-run --systemd):
# the killer most systemd machines run, acting on a slice with and without
# MemoryReapOnKill=.  systemd-oomd itself is unchanged.
#
#   test-oomd.sh [RUNS]      RUNS rounds of "without, with" (default 1);
#                            OOMD_WINDOW: seconds watched after the kill (30)
#
# The scenario, in oomtest.slice (MemoryHigh=360M, ManagedOOMMemoryPressure=
# kill at 20% for 2 s): two idle memory hogs, 200 and 120 MiB, starved of
# CPU once they hold their memory (CPUWeight=1 on the last CPU beside a busy
# loop at CPUWeight=10000 in the same slice: 0.01% of that CPU), and a
# workload that allocates 80 MiB over and over, which the hogs squeeze
# against MemoryHigh.  The slice's memory pressure climbs, and systemd-oomd
# kills a hog: the larger, since without swap neither is scanned and oomd
# then picks by memory use (the workload and the busy loop are
# ManagedOOMPreference=omit).  A starved hog takes minutes to free its
# memory itself; with MemoryReapOnKill=yes the kernel frees it at the kill.
# (oomd waits 15 s after a kill before it acts again, and then picks the
# same dying hog, still the largest, so it does not kill a second one
# here either way: the pressure just stays.)
#
# Per setting it prints "# oomd MemoryReapOnKill=no|yes: ..." with the units
# oomd killed in the OOMD_WINDOW seconds after its first kill (its journal
# message) and, from then: when the slice's memory.current had fallen by
# 90% of the killed hog's charge, when its "some avg10" fell below the
# limit, how long its tasks were stalled on memory in the first 10 s (PSI
# some total), and kill_reap's increase; then the same as "OOMD reap=...
# mem_ms=... psi_ms=... stall10_ms=... kills=... reaps=..." (-1: not within
# the window).  Test lines (PASS/FAIL/SKIP, names start with $SD_LABEL):
# oomd runs; in each setting it kills the larger hog first; with the
# setting the kill is reaped (kill_reap rises) and the hog's memory is back
# within the window; without it, kill_reap does not move.  Times are
# figures, never checked.
set -u
RUNS=${1:-1}
WINDOW=${OOMD_WINDOW:-30}
P=${SD_LABEL:-systemd}
CG=/sys/fs/cgroup
ETC=/etc/systemd/system
PY=/usr/bin/python3
MiB=$((1 << 20))
SLICE=oomtest.slice
LIMIT=20
LAST_CPU=$(($(nproc) - 1))

pass() { echo "PASS $P:$1"; }
fail() { echo "FAIL $P:$1: $2"; }
skip() { echo "SKIP $P:$1: $2"; }

wait_for() {	# wait_for TENTHS CMD...
	local n=$1
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}
mem_over() { [ "$(cat "$CG/$1/memory.current" 2>/dev/null || echo 0)" -gt "$2" ]; }
mem_under() { [ "$(cat "$CG/$1/memory.current" 2>/dev/null || echo 0)" -lt "$2" ]; }
kill_reap() { sed -n 's/^kill_reap //p' "$CG/$SLICE/memory.events" 2>/dev/null; }

unit_file() {	# unit_file NAME MiB [SETTINGS...]: a service that holds MiB
	local name=$1 mib=$2
	shift 2
	{
		printf '[Unit]\nDescription=oomd scenario: %s\nDefaultDependencies=no\n' "$name"
		printf '[Service]\nSlice=%s\n' "$SLICE"
		printf '%s\n' "$@"
		printf "ExecStart=%s -c 'import time; b = bytes(1) * (%d << 20); time.sleep(100000)'\n" "$PY" "$mib"
	} > "$ETC/$name.service"
}

setup() {
	# The unit runs oomd as User=systemd-oom, which Debian's systemd-oomd
	# package would create; the guest's root is the host's.
	getent passwd systemd-oom >/dev/null ||
		useradd --system --no-create-home --home-dir / --shell /usr/sbin/nologin systemd-oom
	if [ ! -x /usr/lib/systemd/systemd-oomd ]; then
		skip oomd_runs "no systemd-oomd in this systemd build"
		return 1
	fi
	# The guest boots to its job alone: oomd's kills are read from the
	# journal, so start journald.  The guest's root (an overlay on 9p)
	# cannot be remounted the way the mount namespace of oomd's sandbox
	# needs (EOPNOTSUPP); the sandbox is not what is tested here.
	systemctl start systemd-journald.socket systemd-journald.service
	mkdir -p /run/systemd/system/systemd-oomd.service.d
	printf '%s\n' '[Service]' PrivateTmp=no PrivateDevices=no ProtectSystem=no \
		ProtectHome=no ProtectKernelTunables=no ProtectKernelModules=no \
		ProtectKernelLogs=no ProtectClock=no \
		> /run/systemd/system/systemd-oomd.service.d/guest.conf
	systemctl daemon-reload
	systemctl start systemd-oomd.socket systemd-oomd.service
	if ! wait_for 300 systemctl is-active -q systemd-oomd.service; then
		fail oomd_runs "systemd-oomd.service is $(systemctl is-active systemd-oomd.service)"
		journalctl -b -u systemd-oomd.service --no-pager | grep "(systemd-oomd)" | tail -3 | sed 's/^/# /'
		return 1
	fi
	pass oomd_runs
	# The hogs run at CPUWeight=1 on the last CPU, where a busy loop in the
	# same slice at CPUWeight=10000 starts once they hold their memory:
	# starved to 0.01% of that CPU, as a low-priority batch job is beside
	# busy work.  (Not cpu.max: on mainline a task in the kernel, its exit
	# path included, is no longer held by cpu.max.  Not SCHED_IDLE either:
	# it ranks a task only against the others of its own cgroup.)
	unit_file oomtest-hog1 200 CPUAffinity=$LAST_CPU CPUWeight=1
	unit_file oomtest-hog2 120 CPUAffinity=$LAST_CPU CPUWeight=1
	cat > "$ETC/oomtest-busy.service" <<-EOF
	[Unit]
	Description=oomd scenario: busy work beside the hogs
	DefaultDependencies=no
	[Service]
	Slice=$SLICE
	ManagedOOMPreference=omit
	CPUAffinity=$LAST_CPU
	CPUWeight=10000
	ExecStart=/bin/sh -c 'while :; do :; done'
	EOF
	# The workload: 80 MiB allocated, every page written, dropped, again
	# and again.
	printf '%s\n' 'while True:' '    b = bytearray(80 << 20)' \
		'    b[::4096] = b"\1" * (len(b) // 4096)' '    del b' > /run/oomtest-work.py
	cat > "$ETC/oomtest-work.service" <<-EOF
	[Unit]
	Description=oomd scenario: workload
	DefaultDependencies=no
	[Service]
	Slice=$SLICE
	ManagedOOMPreference=omit
	ExecStart=$PY /run/oomtest-work.py
	EOF
}

# The monitor: every 50 ms, the wall clock, the slice's memory.current,
# some avg10, some total and kill_reap, and how many times oomd has killed
# in hog1's cgroup: oomd counts that in its user.oomd_ooms xattr just before
# it kills, which times the kill better than its journal message (journald
# may take its time to receive it).
monitor() {	# monitor LOG SECONDS
	$PY - "$CG/$SLICE" "$CG/$SLICE/oomtest-hog1.service" "$1" "$2" <<-'EOF' &
	import os, sys, time
	cg, hog, log, secs = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
	end = time.time() + secs
	with open(log, "w") as out:
	    while time.time() < end:
	        try:
	            cur = int(open(cg + "/memory.current").read())
	            some = open(cg + "/memory.pressure").readline().split()
	            reap = [l.split()[1] for l in open(cg + "/memory.events")
	                    if l.startswith("kill_reap ")]
	        except OSError:
	            break
	        try:
	            ooms = int(os.getxattr(hog, "user.oomd_ooms").rstrip(b"\0"))
	        except (OSError, ValueError):
	            ooms = 0
	        out.write("%.3f %d %s %s %s %d\n" % (time.time(), cur,
	                  some[1].split("=")[1], some[4].split("=")[1],
	                  reap[0] if reap else "0", ooms))
	        out.flush()
	        time.sleep(0.05)
	EOF
	mon=$!
}

# oomd's kills since $1 (unix time): "TIME UNIT" lines.
oomd_kills() {
	journalctl -u systemd-oomd.service -o short-unix --no-pager 2>/dev/null |
		sed -n 's/^\([0-9.]*\) .*Marked \([^ ]*\) for killing.*/\1 \2/p' |
		awk -v t="$1" '$1 >= t'
}

killed_since() { [ -n "$(oomd_kills "$1")" ]; }

# The end of a round: every hog back at full speed, killed, and gone.
teardown() {
	systemctl stop oomtest-work.service oomtest-busy.service 2>/dev/null
	systemctl kill -s SIGKILL oomtest-hog1.service oomtest-hog2.service 2>/dev/null
	systemctl stop oomtest-hog1.service oomtest-hog2.service 2>/dev/null
	wait_for 600 mem_under "$SLICE" $((16 * MiB))
	systemctl reset-failed oomtest-hog1.service oomtest-hog2.service oomtest-work.service \
		oomtest-busy.service 2>/dev/null
	[ -n "${mon:-}" ] && kill "$mon" 2>/dev/null && wait "$mon" 2>/dev/null
	mon=
}

round() {	# round yes|no
	local reap=$1 u mib cg t0 first kills n hog1 log=/tmp/oomd-$1.log
	printf '[Slice]\nMemoryHigh=360M\nManagedOOMMemoryPressure=kill\nManagedOOMMemoryPressureLimit=%d%%\nManagedOOMMemoryPressureDurationSec=2s\nMemoryReapOnKill=%s\n' \
		"$LIMIT" "$reap" > "$ETC/$SLICE"
	systemctl daemon-reload
	for u in oomtest-hog1:200 oomtest-hog2:120; do
		mib=${u#*:} u=${u%:*}
		systemctl start "$u.service"
		cg=$(systemctl show -P ControlGroup "$u.service")
		# All of it, before the throttle.
		if ! wait_for 300 mem_over "$cg" $((mib * MiB)); then
			fail "oomd_scenario_$reap" "$u never got its memory"
			teardown
			return
		fi
	done
	systemctl start oomtest-busy.service
	hog1=$(cat "$CG/$SLICE/oomtest-hog1.service/memory.current")
	t0=$(date +%s)
	monitor "$log" $((WINDOW + 90))
	systemctl start oomtest-work.service
	if ! wait_for 900 killed_since "$t0"; then
		fail "oomd_kills_larger_hog_$reap" "no kill by systemd-oomd in 90 s; pressure: $(head -1 "$CG/$SLICE/memory.pressure")"
		[ -n "${OOMD_DEBUG:-}" ] && awk 'NR % 10 == 1' "$log" | sed 's/^/# mon /' 
		teardown
		return
	fi
	first=$(oomd_kills "$t0" | head -1)
	sleep "$WINDOW"
	kills=$(oomd_kills "$t0" | awk -v t="${first%% *}" -v w="$WINDOW" '$1 <= t + w { print $2 }')
	n=$(wc -l <<<"$kills")
	teardown
	# From the monitor's log, from the first sample that saw oomd's kill of
	# hog1 (or, if hog1 was not its first, from its journal message): the
	# first sample at which the memory was down by 90% of hog1's charge,
	# and at which avg10 < LIMIT; and the time the slice's tasks spent
	# stalled on memory in the 10 s after the kill (some total, in us): the
	# pressure itself, where avg10 only follows it with a lag.
	read -r mem_ms psi_ms stall_ms reaps < <(awk -v t="${first%% *}" -v w="$WINDOW" \
		-v drop=$((hog1 * 9 / 10)) -v lim="$LIMIT" '
		!t0 && ($6 > 0 || $1 >= t) { t0 = 1; t = $1 }
		!t0 { at = $2; r0 = $5; s0 = $4; next }
		$1 > t + w { exit }
		mem < 0 && at - $2 >= drop { mem = int(($1 - t) * 1000) }
		psi < 0 && $3 < lim { psi = int(($1 - t) * 1000) }
		$1 <= t + 10 { s10 = $4 }
		{ r1 = $5 }
		BEGIN { mem = -1; psi = -1 }
		END { print mem, psi, int((s10 - s0) / 1000), r1 - r0 }' "$log")
	echo "# oomd MemoryReapOnKill=$reap: killed $(tr '\n' ' ' <<<"$kills" | sed 's|/oomtest.slice/||g')in ${WINDOW} s;" \
		"after the first kill: memory back in $mem_ms ms, some avg10 < $LIMIT% in $psi_ms ms," \
		"$stall_ms ms stalled in 10 s (-1: not within ${WINDOW} s); kill_reap +$reaps"
	echo "OOMD reap=$reap mem_ms=$mem_ms psi_ms=$psi_ms stall10_ms=$stall_ms kills=$n reaps=$reaps"
	[ -n "${OOMD_DEBUG:-}" ] && awk 'NR % 10 == 1' "$log" | sed 's/^/# mon /' 
	if [ "${first#* }" = /$SLICE/oomtest-hog1.service ]; then
		pass "oomd_kills_larger_hog_$reap"
	else
		fail "oomd_kills_larger_hog_$reap" "first kill: '${first#* }', want /$SLICE/oomtest-hog1.service"
	fi
	if [ "$reap" = yes ]; then
		if [ "$reaps" -ge 1 ] && [ "$mem_ms" -ge 0 ]; then
			pass oomd_kill_reaped
		else
			fail oomd_kill_reaped "kill_reap +$reaps, memory back: $mem_ms ms (-1: not in ${WINDOW} s)"
		fi
	elif [ "$reaps" = 0 ]; then
		pass oomd_kill_not_reaped_without_setting
	else
		fail oomd_kill_not_reaped_without_setting "kill_reap +$reaps with MemoryReapOnKill=no"
	fi
}

setup || exit 0
for ((i = 0; i < RUNS; i++)); do
	round no
	round yes
done
