#!/bin/bash
# The reclaim benchmark in the guest.
#   bench.sh demo   short run (make demo): 256 MiB, three conditions, 3 runs
#   bench.sh full   the whole matrix (make bench), CSV and PNG under
#                   build/bench/, and kill() overhead against a stock kernel
. "$(dirname "$0")/lib.sh"

mode=${1:-demo}
out=$BUILD/bench
bench=$BUILD/tests/cgroup/reap_bench

"$TOP/scripts/deps.sh"
"$TOP/scripts/build-kernel.sh"
"$TOP/scripts/build-tests.sh"
[ -x "$bench" ] || die "reap_bench was not built"
rm -rf "$out"
mkdir -p "$out"

# The figures that say what the table means, from the CSV.
explain() {
	awk -F, '
	$5 == "plain" && $1 == "unthrottled" && $4 == 1 && !$2 { base = $6; size = $3 }
	$5 == "plain" && $1 == "cpu.max 1%" && $4 == 1 && !$2 { slow = $6 }
	$5 == "reap_on_kill" && $1 == "cpu.max 1%" && $4 == 1 && !$2 { reap = $6 }
	$5 == "mrelease" && $1 == "cpu.max 1%" && $4 == 1 && !$2 { mrel = $6 }
	END {
		if (base == "" || slow == "" || reap == "") exit
		printf "In short: a %d MiB victim throttled to cpu.max 1%% took %.0f ms to give its memory back after SIGKILL; with memory.reap_on_kill it took %.0f ms (%.1fx the %.0f ms of an unthrottled kill%s).\n",
			size, slow, reap, reap / base, base,
			mrel != "" ? sprintf(", process_mrelease from the killer: %.0f ms", mrel) : ""
	}' "$1"
}

case $mode in
demo)
	step "reclaim demo: 256 MiB victims, 3 runs per figure (a few minutes under emulation)"
	GUEST_OUT=$out "$TOP/scripts/guest-run.sh" --timeout 1200 -- \
		"$bench" -s 256 -c none,cpumax1,busycpu -n 16 -r 3 --csv /job/out/demo.csv
	explain "$out/demo.csv"
	;;
full)
	"$TOP/scripts/build-kernel.sh" stock
	step "full matrix on the patched kernel (long under emulation)"
	GUEST_OUT=$out "$TOP/scripts/guest-run.sh" --timeout 5400 -- \
		"$bench" -f -r "${REPS:-5}" --csv /job/out/reap_bench.csv
	step "kill()+waitpid() overhead: patched kernel, then stock 6.12, same config"
	GUEST_OUT=$out "$TOP/scripts/guest-run.sh" --timeout 600 -- \
		"$bench" -o -r 500 --csv /job/out/overhead-patched.csv
	GUEST_OUT=$out "$TOP/scripts/guest-run.sh" --timeout 600 \
		--kernel "$BUILD/obj/linux-stock/arch/x86/boot/bzImage" -- \
		"$bench" -o -r 500 --csv /job/out/overhead-stock.csv
	p=$(awk -F, '$5 == "kill_wait" { print $6 }' "$out/overhead-patched.csv")
	s=$(awk -F, '$5 == "kill_wait" { print $6 }' "$out/overhead-stock.csv")
	[ -n "$p" ] && [ -n "$s" ] &&
		awk -v p="$p" -v s="$s" 'BEGIN { printf "overhead: patched/stock median kill()+waitpid() = %.3f (%.1f us vs %.1f us)\n", p / s, p * 1000, s * 1000 }'
	explain "$out/reap_bench.csv"
	"$TOP/scripts/plot-bench.sh" "$out/reap_bench.csv" "$out/reap_bench.png"
	say "CSV: ${out#"$TOP"/}/reap_bench.csv  chart: ${out#"$TOP"/}/reap_bench.png"
	;;
*)
	die "usage: bench.sh demo|full"
	;;
esac
