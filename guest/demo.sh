#!/bin/bash
# Runs inside the guest: kill a 256 MiB process throttled to cpu.max 1%,
# with memory.reap_on_kill off and on, and time until its memory is back.
set -eu
cg=/sys/fs/cgroup/reap-demo
size_mib=${1:-256}

now_ms() { local t=${EPOCHREALTIME/./}; echo $(( t / 1000 )); }

kill_to_free() {	# kill_to_free REAP THROTTLE -> ms
	local reap=$1 throttle=$2 pid limit start cur
	mkdir -p "$cg"
	echo "$reap" > "$cg/memory.reap_on_kill"
	# The victim joins the cgroup before it allocates, so it is charged there.
	sh -c "echo \$\$ > $cg/cgroup.procs; exec python3 -c '
import os, signal, sys
b = b\"Z\" * ($size_mib << 20)
sys.stdout.write(\"ready\\n\"); sys.stdout.flush()
signal.pause()'" > /tmp/victim.out &
	pid=$!
	until grep -q ready /tmp/victim.out 2>/dev/null; do sleep 0.05; done
	[ "$throttle" = 1 ] && echo "1000 100000" > "$cg/cpu.max"
	sleep 0.2
	limit=$(( size_mib * 1024 * 1024 / 10 ))
	start=$(now_ms)
	kill -KILL "$pid"
	while cur=$(<"$cg/memory.current"); [ "$cur" -ge "$limit" ]; do :; done
	echo $(( $(now_ms) - start ))
	echo max > "$cg/cpu.max"
	wait "$pid" 2>/dev/null || true
	rmdir "$cg"
}

echo "kernel: $(uname -r) ($(uname -v))"
echo "victim: ${size_mib} MiB of anonymous memory; time from SIGKILL until its cgroup's memory.current < 10%"
printf '%-26s %18s %18s\n' "victim" "reap_on_kill=0" "reap_on_kill=1"
for throttle in 0 1; do
	label=unthrottled
	[ "$throttle" = 1 ] && label="cpu.max 1% (after alloc)"
	off=$(kill_to_free 0 "$throttle")
	on=$(kill_to_free 1 "$throttle")
	printf '%-26s %15s ms %15s ms\n' "$label" "$off" "$on"
done
