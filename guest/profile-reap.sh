#!/bin/bash
# Runs inside the guest: where a reap's time goes, function by function.
#   profile-reap.sh WORKERS MIB
# A victim of MIB of base pages (THP off) in a covered cgroup is throttled
# to cpu.max 1% and killed while perf samples every CPU (cpu-clock); the
# kernel functions the kworkers ran meanwhile are listed with their share
# of the kworkers' samples.  Under emulation the timer that drives the
# samples fires only where interrupts are on, so time spent with them off
# shows up in the function that turned them back on
# (_raw_spin_unlock_irqrestore: the page allocator's and the LRU's locks,
# the memcg uncharge batch).  Other kworkers (vmstat, writeback) add a few
# samples; the reap's own are those under __zap_vma_range() and the
# freeing of its mmu_gather.
set -eu
workers=${1:-1} mib=${2:-1024}
cg=/sys/fs/cgroup/reap_profile
command -v perf >/dev/null || { echo "perf missing: install Debian package linux-perf"; exit 2; }
command -v python3 >/dev/null || { echo "python3 missing: install Debian package python3"; exit 2; }
echo never > /sys/kernel/mm/transparent_hugepage/enabled
echo "+memory +cpu" > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p "$cg"
echo 1 > "$cg/memory.reap_on_kill"
echo "$workers" > /sys/module/oom_kill/parameters/reap_workers
# shellcheck disable=SC2016 # $$ is the victim's own
sh -c 'echo $$ > "$0/cgroup.procs"; exec python3 -c "import time; b = b\"\\x01\" * ($1 << 20); time.sleep(1e6)"' "$cg" "$mib" &
victim=$!
until [ "$(cat "$cg/memory.current")" -gt $(((mib - 8) << 20)) ]; do sleep 0.2; done
echo "1000 100000" > "$cg/cpu.max"
# perf takes seconds to start under emulation: kill well inside its window.
perf record -q -e cpu-clock -F 2000 -a -o /tmp/reap.perf -- sleep 10 &
rec=$!
sleep 4
kill -9 "$victim"
wait "$rec"
echo max > "$cg/cpu.max"
wait "$victim" 2>/dev/null || true
echo "# $mib MiB victim at cpu.max 1%, oom_kill.reap_workers=$workers; memory.events: $(grep kill_reap "$cg/memory.events")"
echo "# kernel functions in kworkers, share of the kworkers' samples (over 1%)"
perf report -i /tmp/reap.perf --no-children --sort comm,sym --stdio --percent-limit 0 2>/dev/null |
	awk '$2 ~ /^kworker/ && $3 == "[k]" { sub("%", "", $1); s[$4] += $1; t += $1 }
	END {
		for (k in s) if (t && 100 * s[k] / t >= 1) printf "%6.1f%%  %s\n", 100 * s[k] / t, k
	}' | sort -rn
rmdir "$cg"
echo 0 > /sys/module/oom_kill/parameters/reap_workers
