#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Chart the reap's curves (bench.sh curves): left, one victim at cpu.max 1%,
# its kill-to-free time over the same victim's unthrottled self-free time,
# against the workers that unmap it, one line per size, with
# process_mrelease's ratio as dashes; right, N victims of one cgroup.kill,
# median ms against N, with one victim's time x ceil(N / 2 CPUs).
#   plot-curves.sh SIZES_CSV VICTIMS_CSV PNG
. "$(dirname "$0")/lib.sh"
sizes=$1 victims=$2 png=$3
command -v gnuplot >/dev/null || die "gnuplot missing: install Debian package gnuplot-nox"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# $dir/size-MIB.dat: workers ratio; $dir/mrelease.dat: MIB ratio.
awk -F, -v dir="$dir" '
NR == 1 || $4 != 1 { next }
$1 == "unthrottled" && $5 == "plain" && $6 != "err" { self[$3] = $6 }
$1 == "cpu.max 1%" && $6 != "err" { v[$3, $5, $15] = $6; sz[$3] = 1; if ($5 == "reap_on_kill") w[$15] = 1 }
END {
	for (z in sz) {
		if (!self[z]) continue
		f = dir "/size-" z ".dat"
		# workers 0, the default (one per online CPU), is w=2 here: not drawn
		for (k = 1; k <= 4; k++) if ((z, "reap_on_kill", k) in v)
			printf "%d %f\n", k, v[z, "reap_on_kill", k] / self[z] > f
		close(f)
		if ((z, "mrelease", -1) in v)
			printf "%s %f\n", z, v[z, "mrelease", -1] / self[z] > dir "/mrelease-" z ".dat"
	}
}' "$sizes"
awk -F, 'NR > 1 { n[$4] = 1 } NR > 1 && $6 != "err" { v[$4, $5] = $6 }
function val(k, m) { return (k, m) in v ? v[k, m] : "NaN" }
END {
	for (k in n) printf "%d %s %s %s\n", k, val(k, "reap_on_kill"), val(k, "mrelease"),
		(1, "reap_on_kill") in v ? v[1, "reap_on_kill"] * int((k + 1) / 2) : "NaN"
}' "$victims" | sort -n > "$dir/victims.dat"
plots=""
for f in "$dir"/size-*.dat; do
	[ -s "$f" ] || continue
	z=${f##*/size-}; z=${z%.dat}
	plots="$plots${plots:+, }\"$f\" using 1:2 with linespoints lw 2 title \"$z MiB, reap_on_kill\""
	[ -s "$dir/mrelease-$z.dat" ] &&
		plots="$plots, $(awk '{ print $2 }' "$dir/mrelease-$z.dat") with lines dt 2 title \"$z MiB, process_mrelease\""
done
[ -n "$plots" ] || die "no figures in $sizes"
gnuplot <<GP
set terminal pngcairo size 1400,600 noenhanced
set output "$png"
set multiplot layout 1,2
set title "one victim at cpu.max 1%: time to 90% back / same victim unthrottled"
set xlabel "workers unmapping it (oom_kill.reap_workers; 2 vCPUs)"
set ylabel "ratio (below 1: faster than it frees itself)"
set xtics 1
set grid
set key top right
plot [0.5:4.5] [0:] $plots, 0.6 with lines lc rgb "gray" title "0.6"
set title "N victims of 32 MiB, one cgroup.kill, cpu.max 1%: ms to 90% back"
set xlabel "N"
set ylabel "ms"
set logscale x 2
set xtics (1, 4, 16, 64)
plot [0.8:90] "$dir/victims.dat" using 1:2 with linespoints lw 2 title "reap_on_kill", "" using 1:3 with linespoints title "process_mrelease", "" using 1:4 with lines dt 2 title "one victim x ceil(N/2)"
unset multiplot
GP
