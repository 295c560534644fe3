#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kill-to-free benchmark in the guest.
#   bench.sh demo   short run (make demo) on the mainline kernel: 256 MiB,
#                   four conditions and 16 victims at once, 3 runs per figure
#   bench.sh full   the whole matrix (make bench) on both kernel bases, side
#                   by side; CSVs and PNGs under build/bench/; and the cost
#                   of the kill hook for processes outside covered cgroups,
#                   against a stock kernel of base $KBASE
#                   (BENCH_ARGS replaces the matrix's reap_bench options:
#                   256 MiB, 1 and 16 victims, every condition, REPS=3
#                   runs per figure, 30 s bound per run; about an hour)
#                   and reap_cost: kernel CPU per covered kill with 10000
#                   processes alive, own and shared address spaces; and
#                   systemd-oomd's scenario (OOMD_ROUNDS rounds, 3), table
#                   and chart (the demo runs one round)
#                   and the curves of "bench.sh curves" on both bases
#                   (BENCH_KBASES="mainline" or "6.12": on that base only)
#   bench.sh oomd   only systemd-oomd's scenario, OOMD_ROUNDS rounds, with
#                   its table and chart (build/bench/oomd*; the other
#                   results there are kept)
#   bench.sh curves the reap's own figures on base $KBASE (make
#                   bench-curves): one victim of 256 MiB, 1 GiB and 4 GiB
#                   at cpu.max 1% against the number of workers that
#                   unmap it, beside the same victim freeing itself
#                   unthrottled, and 1 GiB blocked in uninterruptible I/O;
#                   two victims of 512 MiB freeing themselves at once
#                   (what two CPUs free without a reap, a reference); 1 to
#                   64 victims through one cgroup.kill;
#                   the latency to the first pages and where the reap's
#                   time goes (tracepoints, and perf's profile of a
#                   reap), next to process_mrelease (CURVE_REPS runs per
#                   figure, 3; about 25 minutes per base)
#   bench.sh overhead  only the cost of the kill hook (make bench-overhead):
#                   the patched and the stock kernel of base $KBASE, two
#                   boots each, alternating, then one each counting
#                   instructions (a few minutes)
# Each prints what it measured (checkout, kernel build, guest) with the
# figures, so that a quoted table says where it comes from, and all but
# the demo copy their result tables to docs/results/BASE/ with a .meta file
# of the same provenance, and render them into README.md and docs/
# (scripts/docs-figures.sh): the only source of the documents' figures.
. "$(dirname "$0")/lib.sh"

mode=${1:-demo}
case $mode in
demo | full | oomd | curves | overhead) ;;
*) die "usage: bench.sh demo|full|oomd|curves|overhead" ;;
esac
out=$BUILD/bench
# The checkout the kernels and tools are built from, taken now: the
# figures are published an hour later, when HEAD may have moved on.
checkout=$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)
stock_kernel=$STOCK_OBJ/arch/x86/boot/bzImage

# perf, for the profile in the curves (full and curves)
case $mode in
full | curves) "$TOP/scripts/deps.sh" bench ;;
*) "$TOP/scripts/deps.sh" ;;
esac
if [ "$mode" = oomd ]; then
	rm -f "$out"/oomd* "$out/console.log"
elif [ "$mode" = curves ]; then
	rm -f "$out"/curve-*-"$KBASE".* "$out/console.log"
elif [ "$mode" = overhead ]; then
	rm -f "$out"/overhead-* "$out/console.log"
else
	rm -rf "$out"
fi
mkdir -p "$out"

# build BASE: the patched kernel of BASE and its reap_bench.
build() {
	KBASE=$1 "$TOP/scripts/build-kernel.sh"
	KBASE=$1 "$TOP/scripts/build-tests.sh"
	[ -x "$BUILD/tests-$1/cgroup/reap_bench" ] || die "reap_bench was not built for $1"
	[ -x "$BUILD/tests-$1/cgroup/reap_cost" ] || die "reap_cost was not built for $1"
}
kernel_of() { echo "$BUILD/obj/linux-$1/arch/x86/boot/bzImage"; }
release_of() { sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$BUILD/obj/linux-$1/include/generated/utsrelease.h"; }

# Where the figures come from: the checkout, the kernel build (its build ID,
# which the guest's reap_bench prints too), the guest.
provenance() {
	local obj=$1 id
	id=$(vmlinux_build_id "$obj")
	printf '# checkout %s (git describe --always --dirty), kernel build %s (vmlinux build ID %s), guest %s, 2 vCPUs, 3 GiB\n' \
		"$checkout" \
		"${obj#"$TOP"/}" "${id:-unknown}" "$(cat "$BUILD/guest/accel" 2>/dev/null || echo unknown)"
}

# publish BASE GROUP [COMMAND] -- FILE...: copies FILEs (under $out) to
# docs/results/BASE/ (renamed by SRC:DEST), with GROUP.meta saying where
# they come from, for scripts/docs-figures.sh, which renders them into
# README.md and docs/ (see docs/results/README.md).  Commit them.
publish() {
	local b=$1 group=$2 cmd=$3 dir=$TOP/docs/results/$1 f obj=$BUILD/obj/linux-$1
	shift 4
	mkdir -p "$dir"
	for f; do
		[ -s "$out/${f%%:*}" ] || { say "warning: no ${f%%:*}: not published"; return 0; }
	done
	for f; do
		tr -d '\r' < "$out/${f%%:*}" > "$dir/${f##*:}"
	done
	{
		echo "command=$cmd"
		echo "checkout=$checkout"
		echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "base=$b"
		echo "release=$(release_of "$b")"
		echo "build_id=$(vmlinux_build_id "$obj")"
		echo "accel=$(cat "$BUILD/guest/accel" 2>/dev/null || echo unknown)"
		echo "guest=2 vCPUs"
		echo "runs=${REPS:-3}"
		echo "bench_args=${BENCH_ARGS:-}"
	} > "$dir/$group.meta"
}

# Runs TOOL (reap_bench, reap_cost) of base $1 ARGS... in the guest booted
# from kernel $3, in the scratch disk's directory (the io.max condition
# needs a disk); its stdout is also kept in $out/$4.
guest_tool() {
	local tool=$BUILD/tests-$1/cgroup/$2 kernel=$3 txt=$4
	shift 4
	# shellcheck disable=SC2016 # $0 and $@ are for the guest's bash
	GUEST_OUT=$out "$TOP/scripts/guest-run.sh" --kernel "$kernel" --timeout "$timeout" -- \
		bash -c 'cd /scratch/tmp && "$0" "$@" | tee /job/out/'"$txt" "$tool" "$@"
}
guest_bench() { guest_tool "$1" reap_bench "${@:2}"; }

# systemd-oomd's scenario (tests/systemd/test-oomd.sh) with our systemd 262
# as PID 1 on the mainline kernel, ROUNDS rounds of "without, with"
# MemoryReapOnKill=: its lines in $out/oomd.txt, $out/oomd.csv
# (round,reap,mem_ms,psi_ms,stall10_ms,kills,reaps; -1: not within the 30 s
# watched) and a table of medians.
oomd_scenario() {	# oomd_scenario ROUNDS
	SD_BASE=262 "$TOP/scripts/deps.sh" systemd
	SD_BASE=262 "$TOP/scripts/systemd-build.sh"
	# shellcheck disable=SC2016 # $0 and $1 are for the guest's bash
	SYSTEMD_DEST=$BUILD/systemd-262/dest GUEST_OUT=$out "$TOP/scripts/guest-run.sh" --systemd \
		--kernel "$(kernel_of mainline)" --timeout $((300 + 150 * $1)) -- \
		bash -c '"$0" "$1" | tee /job/out/oomd.txt' "$TOP/tests/systemd/test-oomd.sh" "$1" >/dev/null ||
		say "warning: the oomd scenario's guest ended with an error; see ${out#"$TOP"/}/console.log"
	if [ ! -s "$out/oomd.txt" ]; then
		say "warning: no output from the oomd scenario; see ${out#"$TOP"/}/console.log"
		return 0
	fi
	grep -a '^\(# oomd\|PASS\|FAIL\|SKIP\)' "$out/oomd.txt" | tr -d '\r' || true
	{
		echo "round,reap,mem_ms,psi_ms,stall10_ms,kills,reaps"
		tr -d '\r' < "$out/oomd.txt" | awk '/^OOMD / {
			if ($2 == "reap=no") round++
			line = round; for (i = 2; i <= NF; i++) { split($i, kv, "="); line = line "," kv[2] }
			print line }'
	} > "$out/oomd.csv"
	echo "systemd-oomd kills a starved hog; medians of $1 round(s), ms after its kill (-1: not within 30 s):"
	# -1 (not within the window) sorts after every time, and a median
	# that lands on it prints as -1.
	awk -F, 'NR > 1 { n[$2]++; for (i = 3; i <= 7; i++) v[$2, i, n[$2]] = ($i < 0 ? 1e9 : $i) }
	function median(r, i,   a, k, m, t) {
		m = n[r]; for (k = 1; k <= m; k++) a[k] = v[r, i, k]
		for (k = 2; k <= m; k++) for (t = k; t > 1 && a[t - 1] > a[t]; t--) { x = a[t]; a[t] = a[t - 1]; a[t - 1] = x }
		x = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		return x >= 1e9 ? -1 : x
	}
	END {
		printf "%-22s %14s %20s %20s %6s %10s\n", "MemoryReapOnKill=", "memory back", "full avg10 < limit", "fully stalled 10 s", "kills", "kill_reap"
		for (r = 0; r < 2; r++) {
			k = r ? "yes" : "no"
			if (!n[k]) continue
			printf "%-22s %14s %20s %20s %6s %10s\n", k, median(k, 3), median(k, 4), median(k, 5), median(k, 6), median(k, 7)
		}
	}' "$out/oomd.csv" | tee "$out/oomd-table.txt"
}

# make bench's oomd rounds (OOMD_ROUNDS, 3): the scenario, its table and
# its chart.
oomd_rounds() {
	step "systemd-oomd under memory pressure, without and with MemoryReapOnKill= (${OOMD_ROUNDS:-3} rounds)"
	oomd_scenario "${OOMD_ROUNDS:-3}"
	"$TOP/scripts/plot-oomd.sh" "$out/oomd.csv" "$out/oomd.png"
	publish mainline oomd "make bench-oomd" -- oomd-table.txt oomd.csv
}

# The reap's own figures on base $1 (see the head of this file), into
# $out/curve-{sizes,victims}-BASE.{txt,csv} and curve-summary-BASE.txt.
# The 4 GiB victim needs a guest of 6 GiB.
curves() {
	local b=$1 k f reps=${CURVE_REPS:-3}
	k=$(kernel_of "$b")
	step "$b: one victim of 256 MiB and 1 GiB, unthrottled and at cpu.max 1%, against the workers that unmap it"
	guest_bench "$b" "$k" "curve-sizes-$b.txt" \
		-s 256 -s 1024 -n 1 -c none,cpumax1 -m plain,mrelease,reap \
		-w 1,2,4 -T -r "$reps" -t 20 --csv "/job/out/curve-sizes-$b.csv"
	step "$b: one victim of 4 GiB freeing itself unthrottled, and at cpu.max 1% with 1 and 2 workers (6 GiB guest)"
	GUEST_MEM=6G guest_bench "$b" "$k" "curve-4g-$b.txt" \
		-s 4096 -n 1 -c none -m plain -r "$reps" -t 30 --csv "/job/out/curve-4g-plain-$b.csv"
	GUEST_MEM=6G guest_bench "$b" "$k" "curve-4g-reap-$b.txt" \
		-s 4096 -n 1 -c cpumax1 -m mrelease,reap -w 1,2 -T -r "$reps" -t 30 \
		--csv "/job/out/curve-4g-reap-$b.csv"
	# On mainline a killed task runs its exit path at once even at cpu.max
	# 1% (task-based throttling parks it only on its way to user space), so
	# there the reap shares the CPUs with the victim's own exit.  A victim
	# blocked in uninterruptible I/O cannot run on either kernel.
	step "$b: one victim of 1 GiB blocked in uninterruptible I/O (io.max) at the kill, 1 and 2 workers"
	guest_bench "$b" "$k" "curve-dstate-$b.txt" \
		-s 1024 -n 1 -c iomax -m plain,mrelease,reap -w 1,2 -T -r "$reps" -t 20 \
		--csv "/job/out/curve-dstate-$b.csv"
	# What two CPUs free here without a reap: two processes of half the
	# size, each freeing itself at once, a reference for a reap with two
	# workers beside the one-CPU self-free.  Not a bound: they are killed
	# by cgroup.kill, the poller shares the CPUs with them (with one
	# victim it has a CPU of its own), and exit_mmap() also frees page
	# tables and VMAs, which a reap leaves to the exit.
	step "$b: two victims of 512 MiB freeing themselves at once, unthrottled (two CPUs, no reap)"
	guest_bench "$b" "$k" "curve-pair-$b.txt" \
		-s 1024 -n 2 -c none -m plain -r "$reps" -t 20 --csv "/job/out/curve-pair-$b.csv"
	# One table: the 4 GiB, D-state and pair rows after the others, without their headers.
	for f in 4g-plain 4g-reap dstate pair; do
		tail -n +2 "$out/curve-$f-$b.csv"
	done >> "$out/curve-sizes-$b.csv"
	step "$b: 1 to 64 victims of 32 MiB at cpu.max 1%, one cgroup.kill"
	GUEST_MEM=6G guest_bench "$b" "$k" "curve-victims-$b.txt" \
		-e 32 -n 1 -n 4 -n 16 -n 64 -c cpumax1 -m mrelease,reap -T \
		-r "$reps" -t 30 --csv "/job/out/curve-victims-$b.csv"
	step "$b: where a reap's time goes, function by function (perf in the guest, one worker)"
	GUEST_OUT=$out "$TOP/scripts/guest-run.sh" --kernel "$k" --timeout 600 -- \
		bash -c "bash $TOP/guest/profile-reap.sh 1 1024 | tee /job/out/curve-profile-$b.txt"
	step "$b: the curves' targets"
	curve_summary "$out/curve-sizes-$b.csv" "$out/curve-victims-$b.csv" |
		tee "$out/curve-summary-$b.txt"
	"$TOP/scripts/plot-curves.sh" "$out/curve-sizes-$b.csv" "$out/curve-victims-$b.csv" \
		"$out/curve-$b.png"
	publish "$b" curve "make bench-curves" -- "curve-summary-$b.txt:curve-summary.txt" \
		"curve-sizes-$b.csv:curve-sizes.csv" "curve-victims-$b.csv:curve-victims.csv"
}

# The targets of the curves, as ratios from one run's CSVs (sizes,
# victims); the kernel's default number of workers is one per vCPU, 2.
curve_summary() {
	awk -F, -v dflt=2 '
	FNR == 1 { file++; next }
	file == 1 && $4 == 2 && $1 == "unthrottled" && $5 == "plain" { pair[$3] = $6; npair++ }
	file == 1 && $4 != 1 { next }
	file == 1 && $5 == "plain" { plain[$1, $3] = $6 }
	file == 1 && $5 == "mrelease" { mrel[$1, $3] = $6; mrelmax[$1, $3] = $8 }
	file == 1 && $5 == "reap_on_kill" {
		k = $1 SUBSEP $3 SUBSEP $15
		reap[k] = $6; reapmax[k] = $8; first[k] = $16
		wake[k] = $17; prep[k] = $18; unmap[k] = $19; ffree[k] = $20
		if (!($3 in seen)) { seen[$3] = 1; sizes[++ns] = $3 }
		if (!($15 in wseen)) { wseen[$15] = 1; ws[++nw] = $15 }
	}
	file == 1 && $1 == "io.max D state" && $5 == "plain" { dplain[$3] = $6 }
	file == 1 && $1 == "io.max D state" && $5 == "mrelease" { dmrel[$3] = $6 }
	file == 1 && $1 == "io.max D state" && $5 == "reap_on_kill" {
		dreap[$3, $15] = $6; dreapmax[$3, $15] = $8
		if (!($3 in dseen)) { dseen[$3] = 1; dsizes[++nd] = $3 }
	}
	file == 2 && $5 == "reap_on_kill" { vr[$4] = $6; vrmax[$4] = $8; vn[++nv] = $4 }
	file == 2 && $5 == "mrelease" { vm[$4] = $6 }
	function ratio(a, b) { return b + 0 && a != "" && a != "err" ? sprintf("%.2fx", a / b) : "-" }
	END {
		c = "cpu.max 1%"; u = "unthrottled"
		print "One victim killed at cpu.max 1%: median ms until 90% was back, and the ratio to the"
		print "same victim freeing itself unthrottled (plain kill, no cpu.max); w = workers."
		printf "%6s %12s %16s %16s", "MiB", "self-free", "plain cpu.max", "mrelease"
		for (j = 1; j <= nw; j++) printf " %16s", "reap w=" ws[j]
		print ""
		for (i = 1; i <= ns; i++) {
			z = sizes[i]; s = plain[u, z]
			printf "%6s %12s %9s %6s %9s %6s", z, s, plain[c, z], ratio(plain[c, z], s), mrel[c, z], ratio(mrel[c, z], s)
			for (j = 1; j <= nw; j++)
				printf " %9s %6s", reap[c, z, ws[j]], ratio(reap[c, z, ws[j]], s)
			print ""
		}
		print "Worst of the runs at cpu.max 1%, ms: mrelease, reap with w=" dflt " (the default here)"
		for (i = 1; i <= ns; i++)
			printf "%6s MiB: %s, %s\n", sizes[i], mrelmax[c, sizes[i]], reapmax[c, sizes[i], dflt]
		print "Unthrottled, the reap beside the victim'"'"'s own exit: plain, mrelease, reap per w, median ms"
		for (i = 1; i <= ns; i++) {
			z = sizes[i]
			printf "%6s MiB: %s, %s", z, plain[u, z], mrel[u, z]
			for (j = 1; j <= nw; j++) printf ", w=%s %s", ws[j], reap[u, z, ws[j]]
			print ""
		}
		print "Where the reap (w=" dflt ", cpu.max 1%) spends its time, median ms (tracepoints): queue->start,"
		print "start->unmap, unmapping; kill to the first pages freed; first 1% back as the poller saw it"
		for (i = 1; i <= ns; i++) {
			k = c SUBSEP sizes[i] SUBSEP dflt
			printf "%6s MiB: %s, %s, %s; first pages freed %s; first 1%% back %s\n", sizes[i], wake[k], prep[k], unmap[k], ffree[k], first[k]
		}
		if (nd) {
			print "One victim blocked in uninterruptible I/O (io.max) at the kill: median ms (worst),"
			print "and the ratio to the same victim freeing itself unthrottled"
			for (i = 1; i <= nd; i++) {
				z = dsizes[i]; s = plain[u, z]
				printf "%6s MiB: self-free %s, plain %s, mrelease %s %s", z, s, dplain[z], dmrel[z], ratio(dmrel[z], s)
				for (j = 1; j <= nw; j++)
					if ((z SUBSEP ws[j]) in dreap)
						printf ", reap w=%s %s (%s) %s", ws[j], dreap[z, ws[j]], dreapmax[z, ws[j]], ratio(dreap[z, ws[j]], s)
				print ""
			}
		}
		if (npair) {
			print "Two victims of half the size each freeing itself at once, unthrottled (one cgroup.kill;"
			print "the poller shares both CPUs with them; their exits also free page tables): what two"
			print "CPUs free here without a reap, median ms and ratio to one victim of the whole size;"
			print "the reap with w=" dflt " against it, at cpu.max 1% and blocked in I/O"
			for (z in pair) {
				s = plain[u, z]
				printf "%6s MiB: two halves %s %s; reap w=%s at cpu.max 1%% %s, blocked in I/O %s\n", z, pair[z], ratio(pair[z], s), dflt, ratio(reap[c, z, dflt], pair[z]), ratio(dreap[z, dflt], pair[z])
			}
		}
		if (!nv) exit
		print "Victims of 32 MiB killed by one cgroup.kill at cpu.max 1%: median ms, and reap against"
		print "one victim x ceil(N / 2 vCPUs)"
		for (i = 1; i <= nv; i++) {
			n = vn[i]; m = int((n + 1) / 2)
			printf "N=%-3s reap %8s (max %s), mrelease %8s; reap / (N=1 x %d) = %s\n", n, vr[n], vrmax[n], vm[n], m, ratio(vr[n], vr[1] * m)
		}
	}' "$@"
}

# What the table means for one kernel, from its CSV: the unthrottled plain
# kill, and the condition under which a plain kill was slowest, single
# victims of the first size.
explain() {	# explain CSV KERNEL
	awk -F, -v kernel="$2" '
	NR == 1 || $2 || $4 != 1 { next }
	size == "" { size = $3 }
	$3 != size { next }
	$5 == "plain" && $6 != "err" && $1 == "unthrottled" { base = $6 }
	$5 == "plain" && $6 != "err" && $6 + 0 > slow + 0 {
		slow = $6; cond = $1; more = $14 == 1 ? "over " : ""
	}
	{ v[$1, $5] = $6 }
	END {
		if (base == "" || cond == "" || v[cond, "reap_on_kill"] == "" ||
		    v[cond, "reap_on_kill"] == "err") exit
		reap = v[cond, "reap_on_kill"]; mrel = v[cond, "mrelease"]
		printf "In short, on %s: a %d MiB victim under \"%s\" took %s%.0f ms to give its memory back after SIGKILL; with memory.reap_on_kill %.0f ms (%s%.0fx faster; an unthrottled plain kill takes %.0f ms)", kernel, size, cond, more, slow, reap, more, slow / reap, base
		if (mrel != "" && mrel != "err")
			printf "; kill + process_mrelease from the killer: %.0f ms", mrel
		printf ".\n"
	}' "$1"
}

# side_by_side LABEL CSV...: the medians of each kernel's CSV (the labels
# name them, in order), one row per victim condition.
side_by_side() {
	awk -F, -v labels="$1" '
	BEGIN { nk = split(labels, k, " ") }
	FNR == 1 { f++; next }
	{
		row = sprintf("%-26s %5s %3s", $1 ($2 ? " (file)" : ""), $3, $4)
		if (!(row in seen)) { seen[row] = 1; rows[++n] = row }
		# $14: the median is a run that reached --timeout, a lower bound
		v[row, f, $5] = $6 == "err" ? "err" : sprintf("%s%.0f", $14 == 1 ? ">" : "", $6)
	}
	END {
		printf "%-26s %5s %3s", "victim condition", "MiB", "N"
		for (i = 1; i <= nk; i++) printf " | %-28s", k[i] ": plain mrelease reap"
		printf "\n"
		for (r = 1; r <= n; r++) {
			printf "%s", rows[r]
			for (i = 1; i <= nk; i++)
				printf " | %8s %8s %10s", v[rows[r], i, "plain"], v[rows[r], i, "mrelease"], v[rows[r], i, "reap_on_kill"]
			printf "\n"
		}
	}' "${@:2}"
}

# The patched kernel's kill(SIGKILL) / kill(pid, 0), key off and on, against
# stock's, from the CSVs of two --overhead runs (patched, stock).
compare_overhead() {
	awk -F, '
	FNR == 1 { file++ }
	file == 1 && ($1 == "key_on" || $1 == "key_off") { v[$1] = $8; h[$1] = ($10 - $9) / 2 }
	file == 2 && $1 == "stock" { s = $8; sh = ($10 - $9) / 2 }
	END {
		if (s == "" || v["key_on"] == "" || v["key_off"] == "") { print "overhead: figures missing"; exit 1 }
		printf "overhead, kill(SIGKILL) / kill(pid, 0) against stock (%.4f):", s
		split("key_off key_on", k, " ")
		for (i = 1; i <= 2; i++) {
			r = v[k[i]] / s
			e = r * sqrt((h[k[i]] / v[k[i]]) ^ 2 + (sh / s) ^ 2)
			printf " %s %.4f, %+.2f%% (95%% CI %+.2f..%+.2f%%)%s", k[i], v[k[i]],
				100 * (r - 1), 100 * (r - e - 1), 100 * (r + e - 1), i == 1 ? ";" : "\n"
		}
	}' "$1" "$2"
}

# The same ratio for state $1 in two boots of the same kernel ($2, $3): how
# far apart boots are, which no CI of a single boot includes.
boot_spread() {
	awk -F, -v state="$1" '
	FNR == 1 { file++ }
	$1 == state { v[file] = $8 }
	END {
		if (v[1] == "" || v[2] == "") exit
		printf "boot to boot, %s: %.4f and %.4f, %+.2f%%\n", state, v[1], v[2], 100 * (v[2] / v[1] - 1)
	}' "$2" "$3"
}

# The cost of the kill hook: two boots of each kernel, alternating, so that
# boot-to-boot variation shows; then one boot of each counting
# instructions (guest-run.sh's GUEST_ICOUNT), where a guest nanosecond is
# one instruction and boots do not vary.
overhead_runs() {
	step "cost of the kill hook: patched kernel (key on and off) and stock $KBASE, same config, twice"
	timeout=900
	for i in 1 2; do
		guest_bench "$KBASE" "$OBJ/arch/x86/boot/bzImage" "overhead-patched-$i.txt" \
			-o --csv "/job/out/overhead-patched-$i.csv"
		guest_bench "$KBASE" "$stock_kernel" "overhead-stock-$i.txt" \
			-o --csv "/job/out/overhead-stock-$i.csv"
	done
	step "the same in instructions: both kernels under QEMU's icount (one instruction per guest ns)"
	GUEST_ICOUNT=0 guest_bench "$KBASE" "$OBJ/arch/x86/boot/bzImage" overhead-icount-patched.txt \
		-o --csv /job/out/overhead-icount-patched.csv
	GUEST_ICOUNT=0 guest_bench "$KBASE" "$stock_kernel" overhead-icount-stock.txt \
		-o --csv /job/out/overhead-icount-stock.csv
}

# Instructions per kill(SIGKILL) and kill(pid, 0), medians, of the patched
# kernel (key off, key on) against stock, from the icount runs' CSVs, if
# both guests kept time with the TSC (the clocksource that reap_bench's
# first line names): only the TSC counts instructions there.
compare_instructions() {	# compare_instructions PATCHED-CSV STOCK-CSV PATCHED-TXT STOCK-TXT
	local txt cs
	for txt in "$3" "$4"; do
		cs=$(tr -d '\r' < "$txt" | sed -n 's/^# .*, clocksource \([^ ]*\)$/\1/p' | head -1)
		case $cs in
		tsc*) ;;
		*) echo "instructions: the guest of ${txt##*/} kept time with '${cs:-?}', not the TSC: its figures are not instruction counts"
		   return 0 ;;
		esac
	done
	awk -F, '
	FNR == 1 { file++ }
	file == 1 && ($1 == "key_on" || $1 == "key_off") { k[$1] = $4; r[$1] = $7 }
	file == 2 && $1 == "stock" { k["stock"] = $4; r["stock"] = $7 }
	END {
		if (k["stock"] == "" || k["key_on"] == "" || k["key_off"] == "") {
			print "instructions: figures missing"; exit 1
		}
		printf "instructions per kill(SIGKILL), median: stock %d", k["stock"]
		split("key_off key_on", s, " ")
		for (i = 1; i <= 2; i++)
			printf ", %s %d (%+d, %+.2f%%)", s[i], k[s[i]], k[s[i]] - k["stock"],
				100 * (k[s[i]] / k["stock"] - 1)
		printf "\ninstructions per kill(pid, 0), median: stock %d, key_off %d, key_on %d\n",
			r["stock"], r["key_off"], r["key_on"]
	}' "$1" "$2"
}

overhead_report() {
	provenance "$OBJ"
	provenance "$STOCK_OBJ"
	for i in 1 2; do
		cat "$out/overhead-patched-$i.txt" "$out/overhead-stock-$i.txt"
		compare_overhead "$out/overhead-patched-$i.csv" "$out/overhead-stock-$i.csv"
	done
	# Only key_on against key_off, interleaved in one boot, is free of this.
	boot_spread stock "$out/overhead-stock-1.csv" "$out/overhead-stock-2.csv"
	boot_spread key_off "$out/overhead-patched-1.csv" "$out/overhead-patched-2.csv"
	# Instructions are, and they resolve one instruction in a thousand;
	# what they leave out is the time of the memory accesses.
	cat "$out/overhead-icount-patched.txt" "$out/overhead-icount-stock.txt"
	compare_instructions "$out/overhead-icount-patched.csv" "$out/overhead-icount-stock.csv" \
		"$out/overhead-icount-patched.txt" "$out/overhead-icount-stock.txt" |
		tee "$out/overhead-instructions.txt"
	publish "$KBASE" overhead "make bench-overhead" -- overhead-instructions.txt
}

case $mode in
demo)
	build mainline
	step "kill-to-free demo: 256 MiB victims, 3 runs per figure (a few minutes under emulation)"
	timeout=1200
	start=$(date +%s)
	guest_bench mainline "$(kernel_of mainline)" demo.txt \
		-s 256 -c none,cpumax1,weight1,iomax -n 16 -r 3 -t 30 --csv /job/out/demo.csv
	step "the figures above, with where they come from ($(($(date +%s) - start)) s in the guest)"
	provenance "$BUILD/obj/linux-mainline"
	cat "$out/demo.txt"
	explain "$out/demo.csv" "$(release_of mainline)"
	step "systemd-oomd under memory pressure, without and with MemoryReapOnKill= (one round, about 3 minutes)"
	oomd_scenario 1
	;;
full)
	bases=${BENCH_KBASES:-$KBASES}
	labels=""
	for b in $bases; do
		build "$b"
		labels="$labels $(release_of "$b")"
	done
	"$TOP/scripts/build-kernel.sh" stock
	timeout=7200
	for b in $bases; do
		step "full matrix on the patched $b kernel (long under emulation)"
		# shellcheck disable=SC2086 # BENCH_ARGS is a list of options
		guest_bench "$b" "$(kernel_of "$b")" "reap_bench-$b.txt" \
			${BENCH_ARGS:--s 256 -n 1 -n 16 -r "${REPS:-3}" -t 30 -T} --csv "/job/out/reap_bench-$b.csv"
	done
	overhead_runs
	step "kernel CPU per covered kill, 10000 idle processes alive (reap_cost)"
	for b in $bases; do
		for shared in "" --shared; do
			guest_tool "$b" reap_cost "$(kernel_of "$b")" "reap_cost$shared-$b.txt" \
				-p 10000 -r 5 -t 2 $shared
		done
	done
	step "results"
	for b in $bases; do
		provenance "$BUILD/obj/linux-$b"
		cat "$out/reap_bench-$b.txt"
		explain "$out/reap_bench-$b.csv" "$(release_of "$b")"
	done
	step "side by side, median ms"
	# shellcheck disable=SC2046 # one CSV per base
	side_by_side "$labels" $(for b in $bases; do echo "$out/reap_bench-$b.csv"; done) |
		tee "$out/side-by-side.txt"
	for b in $bases; do
		publish "$b" matrix "make bench" -- "reap_bench-$b.csv:matrix.csv" "reap_bench-$b.txt:matrix.txt"
		publish "$b" reap_cost "make bench" -- "reap_cost-$b.txt:reap_cost.txt" \
			"reap_cost--shared-$b.txt:reap_cost-shared.txt"
	done
	overhead_report
	for b in $bases; do
		provenance "$BUILD/obj/linux-$b"
		cat "$out/reap_cost-$b.txt" "$out/reap_cost--shared-$b.txt"
	done
	for b in $bases; do
		"$TOP/scripts/plot-bench.sh" "$out/reap_bench-$b.csv" "$out/reap_bench-$b.png"
	done
	timeout=5400
	for b in $bases; do
		provenance "$BUILD/obj/linux-$b"
		curves "$b"
	done
	oomd_rounds
	"$TOP/scripts/docs-figures.sh" update
	say "CSVs, charts and the side-by-side table: ${out#"$TOP"/}/"
	say "the result files for the documents: docs/results/ (commit them with README.md and docs/)"
	;;
overhead)
	build "$KBASE"
	"$TOP/scripts/build-kernel.sh" stock
	overhead_runs
	overhead_report
	"$TOP/scripts/docs-figures.sh" update
	;;
curves)
	build "$KBASE"
	provenance "$OBJ"
	timeout=5400
	curves "$KBASE"
	say "tables and chart: ${out#"$TOP"/}/curve-*"
	"$TOP/scripts/docs-figures.sh" update
	;;
oomd)
	KBASE=mainline "$TOP/scripts/build-kernel.sh"
	provenance "$BUILD/obj/linux-mainline"
	oomd_rounds
	say "the table and chart: ${out#"$TOP"/}/oomd-table.txt, oomd.png"
	"$TOP/scripts/docs-figures.sh" update
	;;
esac
