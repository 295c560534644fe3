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
# CPU once they hold their memory (on the last CPU beside a busy loop in
# oomtest-busy.slice at CPUWeight=10000: about 1% of that CPU), and a
# workload that allocates 80 MiB and reads a 64 MiB file over and over,
# which the hogs squeeze against MemoryHigh.  The slice's memory pressure
# climbs, and systemd-oomd kills one of the hogs (by reclaim scan rate, then memory use; the
# workload is ManagedOOMPreference=omit).  systemd-oomd acts on "full"
# pressure (all of the slice's non-idle tasks stalled at once), which is
# why the busy loop is not in the slice: a task that never stalls keeps a
# cgroup's full pressure low however hard the others stall.  A starved hog
# takes minutes to free its memory itself; with MemoryReapOnKill=yes the
# kernel frees it at the kill.  Each round starts with a new slice.
#
# Per setting it prints "# oomd MemoryReapOnKill=no|yes: ..." with the units
# oomd killed in the round (its journal) and, from its kill of a hog (timed
# by the hog cgroup's user.oomd_ooms xattr, which oomd raises as it kills):
# when the hog's cgroup had given back 90% of its charge, when the slice's
# "full avg10" fell below the limit, how long the slice's tasks were all
# stalled on memory in the first 10 s (PSI full total), and kill_reap's
# increase; then the same as "OOMD reap=... mem_ms=... psi_ms=...
# stall10_ms=... kills=... reaps=..." (-1: not within the OOMD_WINDOW
# seconds watched).  Test lines (PASS/FAIL/SKIP, names start with
# $SD_LABEL): oomd runs; in each setting it kills a hog; with the setting
# the kill is reaped (kill_reap rises) and the hog's memory is back within
# SLOW_MS; without it, kill_reap does not move and the hog's memory is
# not back within SLOW_MS (the hog was starved).  The other times are
# figures, never checked.  tests/lib.sh's expect declares the checks it
# must print (scripts/suite-results.sh).
set -u
RUNS=${1:-1}
WINDOW=${OOMD_WINDOW:-30}
P=${SD_LABEL:-systemd}-oomd
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
ETC=/etc/systemd/system
PY=/usr/bin/python3
MiB=$((1 << 20))
SLICE=oomtest.slice
LIMIT=20
# Without the setting, the killed (starved) hog must take at least this
# long to give its memory back, or the scenario proves nothing; measured:
# more than the 12 s window on both kernels.
SLOW_MS=${OOMD_SLOW_MS:-5000}
LAST_CPU=$(($(nproc) - 1))
DATA=${TMPDIR:-/tmp}/oomtest.data	# the workload's file: on the scratch disk in the guest


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
		${OOMD_DEBUG:+Environment=SYSTEMD_LOG_LEVEL=debug} \
		> /run/systemd/system/systemd-oomd.service.d/guest.conf
	systemctl daemon-reload
	systemctl start systemd-oomd.socket systemd-oomd.service
	if ! wait_for 300 systemctl is-active -q systemd-oomd.service; then
		fail oomd_runs "systemd-oomd.service is $(systemctl is-active systemd-oomd.service)"
		journalctl -b -u systemd-oomd.service --no-pager | grep -v 'restart\|repeated too quickly' | tail -4 | sed 's/^/# /'
		return 1
	fi
	pass oomd_runs
	# The hogs run at CPUWeight=1 on the last CPU, where a busy loop in a
	# sibling slice at CPUWeight=10000 starts once they hold their memory:
	# oomtest.slice gets 1% of that CPU, as a low-priority batch job does
	# beside busy work.  (Not cpu.max: on mainline a task in the kernel,
	# its exit path included, is no longer held by cpu.max.  Not SCHED_IDLE
	# either: it ranks a task only against the others of its own cgroup.)
	unit_file oomtest-hog1 200 CPUAffinity=$LAST_CPU CPUWeight=1
	unit_file oomtest-hog2 120 CPUAffinity=$LAST_CPU CPUWeight=1
	printf '[Slice]\nCPUWeight=10000\n' > "$ETC/oomtest-busy.slice"
	cat > "$ETC/oomtest-busy.service" <<-EOF
	[Unit]
	Description=oomd scenario: busy work beside the hogs
	DefaultDependencies=no
	[Service]
	Slice=oomtest-busy.slice
	CPUAffinity=$LAST_CPU
	ExecStart=/bin/sh -c 'while :; do :; done'
	EOF
	# The workload: 80 MiB allocated, every page written, a 64 MiB file
	# read, the 80 MiB dropped, again and again.  The file gives the slice
	# page cache to reclaim: without swap, reclaim can scan nothing else,
	# and systemd-oomd acts only on a cgroup whose pgscan rises ("with
	# reclaim activity").  The page cache must be the workload's own, not
	# that of some earlier test that read the same files (python's), so
	# the file is the scenario's, and each round starts with a dropped
	# page cache.
	dd if=/dev/zero of="$DATA" bs=1M count=64 status=none
	printf '%s\n' 'import sys' 'while True:' '    b = bytearray(80 << 20)' \
		'    b[::4096] = b"\1" * (len(b) // 4096)' \
		'    with open(sys.argv[1], "rb") as f:' '        while f.read(1 << 20):' '            pass' \
		'    del b' > /run/oomtest-work.py
	cat > "$ETC/oomtest-work.service" <<-EOF
	[Unit]
	Description=oomd scenario: workload
	DefaultDependencies=no
	[Service]
	Slice=$SLICE
	ManagedOOMPreference=omit
	ExecStart=$PY /run/oomtest-work.py $DATA
	EOF
}

# The monitor: every 50 ms, one line of
#   wall-clock slice-memory.current full-avg10 full-total kill_reap
#   hog1-memory.current hog1-kills hog2-memory.current hog2-kills
# where a hog's kills are oomd's count in its cgroup's user.oomd_ooms
# xattr, which oomd raises just before it kills: that times the kill
# better than its journal message (journald may take its time), and a
# hog's memory after its cgroup is gone is 0.
monitor() {	# monitor LOG SECONDS
	$PY - "$CG/$SLICE" "$1" "$2" <<-'EOF' &
	import os, sys, time
	cg, log, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
	hogs = [cg + "/oomtest-hog1.service", cg + "/oomtest-hog2.service"]
	def hog(path):
	    try:
	        cur = int(open(path + "/memory.current").read())
	    except OSError:
	        return "0 -1"
	    try:
	        kills = int(os.getxattr(path, "user.oomd_ooms").rstrip(b"\0"))
	    except (OSError, ValueError):
	        kills = 0
	    return "%d %d" % (cur, kills)
	end = time.time() + secs
	with open(log, "w") as out:
	    while time.time() < end:
	        try:
	            cur = int(open(cg + "/memory.current").read())
	            full = open(cg + "/memory.pressure").readlines()[1].split()
	            reap = [l.split()[1] for l in open(cg + "/memory.events")
	                    if l.startswith("kill_reap ")]
	        except OSError:
	            break
	        out.write("%.3f %d %s %s %s %s %s\n" % (time.time(), cur,
	                  full[1].split("=")[1], full[4].split("=")[1],
	                  reap[0] if reap else "0", hog(hogs[0]), hog(hogs[1])))
	        out.flush()
	        time.sleep(0.05)
	EOF
	mon=$!
}

# Which hog oomd has killed, from the monitor's last line: "1", "2" or "".
killed_hog() {
	tail -1 "$1" 2>/dev/null | awk '$7 > 0 { print 1; exit } $9 > 0 { print 2 }'
}
hog_killed() { [ -n "$(killed_hog "$1")" ]; }

# oomd's kills (its journal's "Marked ... for killing") since unix time $1:
# "TIME UNIT" lines.
oomd_kills() {
	journalctl -u systemd-oomd.service -o short-unix --no-pager 2>/dev/null |
		sed -n 's/^\([0-9.]*\) .*Marked \([^ ]*\) for killing.*/\1 \2/p' |
		awk -v t="$1" '$1 >= t'
}

# What oomd monitors and what it last said, when it did not act.
oomd_state() {
	oomctl dump 2>&1 | head -40 | sed 's/^/# oomctl: /'
	journalctl -u systemd-oomd.service -o short-monotonic --no-pager 2>&1 |
		tail -"${OOMD_DEBUG:+40}8" | sed 's/^/# oomd journal: /'
}

# The end of a round: the busy loop stopped, so that the hogs can exit, and
# the slice stopped, so that the next round starts from a new cgroup with
# no pressure history.
teardown() {
	systemctl stop oomtest-work.service oomtest-busy.service oomtest-busy.slice 2>/dev/null
	systemctl kill -s SIGKILL oomtest-hog1.service oomtest-hog2.service 2>/dev/null
	systemctl stop "$SLICE" 2>/dev/null
	wait_for 600 test ! -d "$CG/$SLICE" ||
		echo "# oomd: $SLICE still there 60 s after it was stopped"
	systemctl reset-failed oomtest-hog1.service oomtest-hog2.service oomtest-work.service \
		oomtest-busy.service oomtest-busy.slice "$SLICE" 2>/dev/null
	[ -n "${mon:-}" ] && kill "$mon" 2>/dev/null && wait "$mon" 2>/dev/null
	mon=
}

round() {	# round yes|no
	local reap=$1 log=/tmp/oomd-$1.log u mib cg t0 which kills n
	local mem_ms=-1 psi_ms=-1 stall_ms=-1 reaps=-1 seen=0
	printf '[Slice]\nMemoryHigh=360M\nManagedOOMMemoryPressure=kill\nManagedOOMMemoryPressureLimit=%d%%\nManagedOOMMemoryPressureDurationSec=2s\nMemoryReapOnKill=%s\n' \
		"$LIMIT" "$reap" > "$ETC/$SLICE"
	systemctl daemon-reload
	sync
	echo 1 > /proc/sys/vm/drop_caches
	t0=$(date +%s)
	for u in oomtest-hog1:200 oomtest-hog2:120; do
		mib=${u#*:} u=${u%:*}
		systemctl start "$u.service"
		cg=$(systemctl show -P ControlGroup "$u.service")
		# All of it, before it is starved.
		if ! wait_for 300 mem_over "$cg" $((mib * MiB)); then
			fail "oomd_scenario_$reap" "$u never got its memory"
			teardown
			return
		fi
	done
	if [ "$(cat "$CG/$SLICE/memory.reap_on_kill")" != "$([ "$reap" = yes ] && echo 1 || echo 0)" ]; then
		fail "oomd_scenario_$reap" "$SLICE/memory.reap_on_kill is $(cat "$CG/$SLICE/memory.reap_on_kill") with MemoryReapOnKill=$reap"
		teardown
		return
	fi
	systemctl start oomtest-busy.service
	monitor "$log" $((WINDOW + 90))
	systemctl start oomtest-work.service
	if ! wait_for 900 hog_killed "$log"; then
		fail "oomd_kills_a_hog_$reap" "no hog killed by systemd-oomd in 90 s; pressure: $(tr '\n' ' ' < "$CG/$SLICE/memory.pressure")"
		oomd_state
		[ -n "${OOMD_DEBUG:-}" ] && awk 'NR % 10 == 1' "$log" | sed 's/^/# mon /'
		teardown
		return
	fi
	which=$(killed_hog "$log")
	sleep "$WINDOW"
	kills=$(oomd_kills "$t0" | awk '{ print $2 }' | sed "s|/$SLICE/||")
	n=$(grep -c . <<<"$kills")
	teardown
	# From the monitor's log, from the first sample that saw the kill: the
	# first at which the killed hog's cgroup had given back 90% of its
	# charge, and at which the slice's avg10 < LIMIT; the time the slice's
	# tasks spent all stalled on memory in the 10 s after the kill (full
	# total, in us: the pressure itself, which avg10 follows with a lag);
	# kill_reap's increase; and whether the samples reach 10 s after the
	# kill (if not, the figures mean nothing).
	read -r mem_ms psi_ms stall_ms reaps seen < <(awk -v h="$which" -v w="$WINDOW" -v lim="$LIMIT" '
		BEGIN { mem = -1; psi = -1; c = 4 + 2 * h }	# the hog: memory $c, kills $(c + 1)
		!t && $(c + 1) <= 0 { held = $c; r0 = $5; s0 = $4; next }
		!t { t = $1 }
		$1 > t + w { exit }
		mem < 0 && $c <= held / 10 { mem = int(($1 - t) * 1000) }
		psi < 0 && $3 < lim { psi = int(($1 - t) * 1000) }
		$1 <= t + 10 { s10 = $4 }
		{ r1 = $5; last = $1 }
		END { print mem, psi, int((s10 - s0) / 1000), r1 - r0, (t && last >= t + 10) }' "$log")
	echo "# oomd MemoryReapOnKill=$reap: killed $(tr '\n' ' ' <<<"$kills")in the round;" \
		"after the kill of oomtest-hog$which: memory back in $mem_ms ms, full avg10 < $LIMIT% in $psi_ms ms," \
		"$stall_ms ms stalled in 10 s (-1: not within ${WINDOW} s); kill_reap +$reaps"
	echo "OOMD reap=$reap mem_ms=$mem_ms psi_ms=$psi_ms stall10_ms=$stall_ms kills=$n reaps=$reaps"
	[ -n "${OOMD_DEBUG:-}" ] && awk 'NR % 10 == 1' "$log" | sed 's/^/# mon /'
	if [ "$seen" != 1 ]; then
		fail "oomd_kills_a_hog_$reap" "the monitor stopped before 10 s after the kill; no figures"
		return
	fi
	pass "oomd_kills_a_hog_$reap"
	if [ "$reap" = yes ]; then
		# Faster than the starved hog's own exit could have freed it.
		if [ "$reaps" -ge 1 ] && [ "$mem_ms" -ge 0 ] && [ "$mem_ms" -lt "$SLOW_MS" ]; then
			pass oomd_kill_reaped
		else
			fail oomd_kill_reaped "kill_reap +$reaps, memory back: $mem_ms ms (want < $SLOW_MS ms; -1: not in ${WINDOW} s)"
		fi
	else
		if [ "$reaps" = 0 ]; then
			pass oomd_kill_not_reaped_without_setting
		else
			fail oomd_kill_not_reaped_without_setting "kill_reap +$reaps with MemoryReapOnKill=no"
		fi
		# The scenario holds only if the starved hog is slow to free its
		# memory itself: otherwise the "yes" round proves nothing.
		if [ "$mem_ms" = -1 ] || [ "$mem_ms" -ge "$SLOW_MS" ]; then
			pass oomd_starved_hog_slow_without_setting
		else
			fail oomd_starved_hog_slow_without_setting "without the setting the killed hog's memory was back in $mem_ms ms (want >= $SLOW_MS ms or not within ${WINDOW} s): the hog was not starved"
		fi
	fi
}

expect oomd_runs oomd_kills_a_hog_no oomd_kill_not_reaped_without_setting \
	oomd_starved_hog_slow_without_setting oomd_kills_a_hog_yes oomd_kill_reaped
setup || exit 0
for ((i = 0; i < RUNS; i++)); do
	round no
	round yes
done
