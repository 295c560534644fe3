#!/bin/bash
# Chart the oomd scenario's CSV (scripts/bench.sh): per round, ms from
# systemd-oomd's kill until the memory was back, until full avg10 fell
# below the limit, and the ms its tasks were all stalled in the 10 s after the kill;
# without and with MemoryReapOnKill=.  A figure not reached within the 30 s
# watched (-1) is drawn at 30000 ms, the window's end.
#   plot-oomd.sh CSV PNG
. "$(dirname "$0")/lib.sh"
csv=$1 png=$2
command -v gnuplot >/dev/null || die "gnuplot missing: install Debian package gnuplot-nox"
dat=$(mktemp)
trap 'rm -f "$dat"' EXIT
awk -F, 'NR > 1 {
	for (i = 3; i <= 5; i++) if ($i < 0) $i = 30000
	printf "round_%s_MemoryReapOnKill=%s %s %s %s\n", $1, $2, $3 + 1, $4 + 1, $5 + 1
}' "$csv" > "$dat"
gnuplot <<GP
set terminal pngcairo size 1200,600 noenhanced
set output "$png"
set title "systemd-oomd kills a starved 200 MiB hog: ms after the kill (log scale; 30000 = not within 30 s)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set ylabel "ms (+1)"
set xtics rotate by -25 font ",9"
set key top right
set grid ytics
plot "$dat" using 2:xtic(1) title "memory back (90% of the hog)", "" using 3 title "full avg10 below the limit", "" using 4 title "fully stalled on memory in the first 10 s"
GP
