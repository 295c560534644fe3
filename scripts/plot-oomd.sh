#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Chart the oomd scenario's CSV (scripts/bench.sh): per round, ms from
# systemd-oomd's kill until the memory was back, until full avg10 fell
# below the limit, and the ms its tasks were all stalled in the 10 s after the kill;
# without and with MemoryReapOnKill=; each bar carries its figure, each
# round how many kills oomd made.  A figure not reached within the 30 s
# watched (-1) is drawn at 30000 ms, the window's end, and labelled ">30 s".
#   plot-oomd.sh CSV PNG
. "$(dirname "$0")/lib.sh"
csv=$1 png=$2
command -v gnuplot >/dev/null || die "gnuplot missing: install Debian package gnuplot-nox"
dat=$(mktemp)
trap 'rm -f "$dat"' EXIT
# Per line: "round N, setting (K kills)", the three figures + 1 for the log
# scale, and the three as printed above their bars.
awk -F, 'function shown(v) { return v < 0 ? ">30 s" : v }
NR > 1 {
	printf "\"round %s, %s (%s kill%s)\"", $1, $2, $6, $6 == 1 ? "" : "s"
	for (i = 3; i <= 5; i++) printf " %s", ($i < 0 ? 30000 : $i) + 1
	for (i = 3; i <= 5; i++) printf " \"%s\"", shown($i)
	printf "\n"
}' "$csv" > "$dat"
# Clustered histograms put a cluster's three bars at x - 0.25, x, x + 0.25.
gnuplot <<GP
set terminal pngcairo size 1200,650 noenhanced
set output "$png"
set title "systemd-oomd kills a starved 200 MiB hog: ms after the kill, without and with MemoryReapOnKill= (log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set yrange [1:100000]
set ylabel "ms (+1; a bar at 30000: not within the 30 s watched)"
set xtics rotate by -20 font ",9"
set key below center horizontal font ",9"
set grid ytics
plot "$dat" using 2:xtic(1) title "memory back (90% of the hog)", \
	"" using 3 title "full avg10 below the limit", \
	"" using 4 title "fully stalled on memory in the first 10 s", \
	"" using (\$0 - 0.25):2:5 with labels offset 0,0.8 font ",8" notitle, \
	"" using 0:3:6 with labels offset 0,0.8 font ",8" notitle, \
	"" using (\$0 + 0.25):4:7 with labels offset 0,0.8 font ",8" notitle
GP
