#!/bin/bash
# The reclaim benchmark in the guest.
#   bench.sh demo   short run (make demo): 256 MiB, three conditions and 16
#                   victims at once, 3 runs per figure
#   bench.sh full   the whole matrix (make bench), CSV and PNG under
#                   build/bench/, and the cost of the kill hook for processes
#                   outside covered cgroups, against a stock kernel
# Each prints what it measured (checkout, kernel build, guest) with the
# figures, so that a quoted table says where it comes from.
. "$(dirname "$0")/lib.sh"

mode=${1:-demo}
out=$BUILD/bench
bench=$TESTS_OUT/reap_bench
stock_kernel=$STOCK_OBJ/arch/x86/boot/bzImage

"$TOP/scripts/deps.sh"
"$TOP/scripts/build-kernel.sh"
"$TOP/scripts/build-tests.sh"
[ -x "$bench" ] || die "reap_bench was not built"
rm -rf "$out"
mkdir -p "$out"

# Where the figures come from: the checkout, the kernel build (its build ID,
# which the guest's reap_bench prints too), the guest.
provenance() {
	local obj=$1 id
	id=$(readelf -n "$obj/vmlinux" 2>/dev/null | sed -n 's/.*Build ID: //p' | head -1) || true
	printf '# checkout %s (git describe --always --dirty), kernel build %s (vmlinux build ID %s), guest %s, 2 vCPUs, 3 GiB\n' \
		"$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)" \
		"${obj#"$TOP"/}" "${id:-unknown}" "$(cat "$BUILD/guest/accel" 2>/dev/null || echo unknown)"
}

# Runs reap_bench ARGS... in the guest booted from kernel $1; its stdout is
# also kept in $out/$2.
guest_bench() {
	local kernel=$1 txt=$2
	shift 2
	# shellcheck disable=SC2016 # $0 and $@ are for the guest's bash
	GUEST_OUT=$out "$TOP/scripts/guest-run.sh" --kernel "$kernel" --timeout "$timeout" -- \
		bash -c '"$0" "$@" | tee /job/out/'"$txt" "$bench" "$@"
}

# The figures that say what the table means, from the CSV.
explain() {
	awk -F, '
	$6 == "err" && $5 != "mrelease" { next }
	$5 == "plain" && $1 == "unthrottled" && $4 == 1 && !$2 { base = $6; size = $3 }
	$5 == "plain" && $1 == "cpu.max 1%" && $4 == 1 && !$2 { slow = $6 }
	$5 == "reap_on_kill" && $1 == "cpu.max 1%" && $4 == 1 && !$2 { reap = $6 }
	$5 == "mrelease" && $1 == "cpu.max 1%" && $4 == 1 && !$2 { mrel = $6; mfail = $11; mruns = $10 }
	END {
		if (base == "" || slow == "" || reap == "") exit
		m = ""
		if (mrel == "err")
			m = sprintf(", process_mrelease from the killer failed in all %d runs", mruns)
		else if (mrel != "" && mfail)
			m = sprintf(", kill + process_mrelease from the killer: %.0f ms, the call failing in %d of %d runs", mrel, mfail, mruns)
		else if (mrel != "")
			m = sprintf(", kill + process_mrelease from the killer: %.0f ms", mrel)
		printf "In short: a %d MiB victim throttled to cpu.max 1%% took %.0f ms to give its memory back after SIGKILL; with memory.reap_on_kill it took %.0f ms (%.1fx the %.0f ms of an unthrottled plain kill%s).\n",
			size, slow, reap, reap / base, base, m
	}' "$1"
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

case $mode in
demo)
	step "reclaim demo: 256 MiB victims, 3 runs per figure (a few minutes under emulation)"
	timeout=1200
	start=$(date +%s)
	guest_bench "$OBJ/arch/x86/boot/bzImage" demo.txt \
		-s 256 -c none,cpumax1,busycpu -n 16 -r 3 --csv /job/out/demo.csv
	step "the figures above, with where they come from ($(($(date +%s) - start)) s in the guest)"
	provenance "$OBJ"
	cat "$out/demo.txt"
	explain "$out/demo.csv"
	;;
full)
	"$TOP/scripts/build-kernel.sh" stock
	step "full matrix on the patched kernel (long under emulation)"
	timeout=5400
	guest_bench "$OBJ/arch/x86/boot/bzImage" reap_bench.txt \
		-f -r "${REPS:-5}" --csv /job/out/reap_bench.csv
	# Two boots of each, alternating, so that boot-to-boot variation shows.
	step "cost of the kill hook: patched kernel (key on and off) and stock 6.12, same config, twice"
	timeout=900
	for i in 1 2; do
		guest_bench "$OBJ/arch/x86/boot/bzImage" "overhead-patched-$i.txt" \
			-o --csv "/job/out/overhead-patched-$i.csv"
		guest_bench "$stock_kernel" "overhead-stock-$i.txt" \
			-o --csv "/job/out/overhead-stock-$i.csv"
	done
	step "results"
	provenance "$OBJ"
	cat "$out/reap_bench.txt"
	explain "$out/reap_bench.csv"
	provenance "$STOCK_OBJ"
	for i in 1 2; do
		cat "$out/overhead-patched-$i.txt" "$out/overhead-stock-$i.txt"
		compare_overhead "$out/overhead-patched-$i.csv" "$out/overhead-stock-$i.csv"
	done
	# Only key_on against key_off, interleaved in one boot, is free of this.
	boot_spread stock "$out/overhead-stock-1.csv" "$out/overhead-stock-2.csv"
	boot_spread key_off "$out/overhead-patched-1.csv" "$out/overhead-patched-2.csv"
	"$TOP/scripts/plot-bench.sh" "$out/reap_bench.csv" "$out/reap_bench.png"
	say "CSV: ${out#"$TOP"/}/reap_bench.csv  chart: ${out#"$TOP"/}/reap_bench.png"
	;;
*)
	die "usage: bench.sh demo|full"
	;;
esac
