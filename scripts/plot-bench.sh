#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Chart reap_bench's CSV: median kill-to-free time per victim condition and
# method (log scale); a figure whose every run failed ("err") has no bar.
#   plot-bench.sh CSV PNG
. "$(dirname "$0")/lib.sh"
csv=$1 png=$2
command -v gnuplot >/dev/null || die "gnuplot missing: install Debian package gnuplot-nox"
dat=$(mktemp)
trap 'rm -f "$dat"' EXIT
# One row per (size, condition, victims), one column per method; no header
# line, which gnuplot would count as an empty cluster.
awk -F, 'NR > 1 && $6 != "err" {
	row = $3 " MiB x" $4 " " $1 ($2 ? " file" : "")
	if (!(row in seen)) { seen[row] = 1; rows[++n] = row }
	v[row, $5] = $6
} END {
	for (i = 1; i <= n; i++) {
		r = rows[i]; gsub(/ /, "_", r); printf "%s", r
		split("plain mrelease reap_on_kill", m, " ")
		for (j = 1; j <= 3; j++) printf " %s", (rows[i], m[j]) in v ? v[rows[i], m[j]] : "NaN"
		print ""
	}
}' "$csv" > "$dat"
gnuplot <<GP
set terminal pngcairo size 1400,700 noenhanced
set output "$png"
set title "ms from SIGKILL until the victims' cgroup gave back 90% of their memory (median, log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set ylabel "ms"
set xtics rotate by -35 font ",9"
set key top left
set grid ytics
plot "$dat" using 2:xtic(1) title "plain SIGKILL", "" using 3 title "SIGKILL + process_mrelease", "" using 4 title "SIGKILL, memory.reap_on_kill=1"
GP
