#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Renders the figures of README.md and docs/*.md from their one source:
# the result files make bench commits under docs/results/ (see
# docs/results/README.md), the test sources (for test counts) and
# docs/results/durations (for build and test times).
#
#   docs-figures.sh update        rewrite the generated parts of README.md
#                                 and docs/*.md in place
#   docs-figures.sh render FILE   print FILE with its generated parts
#                                 rendered again (scripts/check-docs.sh
#                                 compares the two)
#   docs-figures.sh value NAME    print one inline figure (count.tests,
#                                 dur.check, ...)
#
# Two kinds of generated parts:
#   <!-- BEGIN GENERATED: KIND [ARG] --> ... <!-- END GENERATED: KIND -->
#       whole lines between the markers; KIND is
#       why              the README's ratio table (mainline's matrix.csv)
#       matrix           both bases' matrix.csv, as ratios
#       file BASE/FILE   a result file as bench wrote it, in a code block
#   <!--fig:NAME-->VALUE<!--/fig-->
#       one figure inside a sentence: count.tests, count.stress,
#       count.mutations (counted in the test sources), dur.NAME (a line
#       of docs/results/durations, rounded and labelled "about"),
#       cost.kworker (the kworker CPU a covered kill adds, from
#       mainline/reap_cost.txt).
# When a result file is missing, its part says "no results yet: run
# make bench"; nothing else is ever invented.
#
# DOCS_TOP (default: the repository) is the tree to read and write, so that
# tests/harness/test-docs.sh can run this on a copy.
# shellcheck disable=SC2016 # backquotes are Markdown code, not expansions
set -euo pipefail

TOP=${DOCS_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
RESULTS=$TOP/docs/results

die() { printf 'docs-figures.sh: %s\n' "$*" >&2; exit 1; }

# Counts, from the sources they describe.
count_table() {	# count_table FILE: entries of its "} tests[] = {" table
	[ -r "$1" ] || die "${1#"$TOP"/}: not found"
	sed -n '/^} tests\[\] = {$/,/^};$/p' "$1" | grep -c '^[[:space:]]*T(' || true
}

# dur NAME: "about N min" from docs/results/durations (NAME SECONDS WHAT).
dur() {
	local s
	s=$(awk -v n="$1" '$1 == n { print $2; exit }' "$RESULTS/durations" 2>/dev/null)
	[ -n "$s" ] || die "dur.$1: no line '$1 SECONDS ...' in docs/results/durations"
	awk -v s="$s" 'BEGIN {
		if (s < 90) printf "about %d s\n", int((s + 5) / 10) * 10
		else if (s < 1200) printf "about %d min\n", int(s / 60 + 0.5)
		else if (s < 7200) printf "about %d min\n", int(s / 300 + 0.5) * 5
		else printf "about %d hours\n", int(s / 3600 + 0.5)
	}'
}

value() {	# value NAME
	case $1 in
	count.tests) count_table "$TOP/tools/testing/selftests/cgroup/test_reap_on_kill.c" ;;
	count.stress) count_table "$TOP/tools/testing/selftests/cgroup/test_reap_on_kill_stress.c" ;;
	count.mutations) find "$TOP/tests/mutations" -maxdepth 1 -name '*.patch' | wc -l | tr -d ' ' ;;
	dur.*) dur "${1#dur.}" ;;
	cost.kworker) cost_kworker ;;
	*) die "unknown figure '$1'" ;;
	esac
}

# cost.kworker: the kworker CPU a covered kill adds, from mainline's
# reap_cost.txt ("# on - off per kill: +N us of kworker CPU, ..."), in ms.
cost_kworker() {
	local f=$RESULTS/mainline/reap_cost.txt us
	us=$(sed -n 's/^# on - off per kill: +\{0,1\}\([-0-9.]*\) us of kworker CPU.*/\1/p' "$f" 2>/dev/null | head -1)
	if [ -z "$us" ]; then
		echo "(no result yet: run make bench)"
		return
	fi
	awk -v us="$us" 'BEGIN { printf "%.1f ms\n", us / 1000 }'
}

# meta FILE KEY: KEY's value in a .meta file (KEY=VALUE lines).
meta() { sed -n "s/^$2=//p" "$1" | head -1; }

# provenance META: one sentence saying where a table comes from.
accel_name() {	# accel_name META: how the guest ran, in words
	case $(meta "$1" accel) in
	tcg*) echo "QEMU TCG software emulation" ;;
	kvm*) echo "QEMU with KVM" ;;
	*) echo "QEMU ($(meta "$1" accel))" ;;
	esac
}

provenance() {
	local m=$1 accel
	accel=$(accel_name "$m")
	printf 'Measured by `%s` under %s (%s): kernel %s, build ID `%s`, checkout `%s`, %s.\n' \
		"$(meta "$m" command)" "$accel" "$(meta "$m" guest)" "$(meta "$m" release)" \
		"$(meta "$m" build_id)" "$(meta "$m" checkout)" "$(meta "$m" date)"
}

no_results() {	# no_results WHAT
	printf '_No results yet: run `make bench`, which writes %s._\n' "$1"
}

# The CSV columns reap_bench writes (by name, so that new columns do not
# matter): condition,file,size_mib,victims,method,median_ms,...,
# median_timed_out,...; one line "COND|N|METHOD|MEDIAN|TIMED_OUT" per
# figure of the first size, single-victim rows and the N-victim rows.
csv_figures() {
	awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["file"] != 0 { next }
	size == "" { size = $col["size_mib"] }
	$col["size_mib"] != size { next }
	{ printf "%s|%s|%s|%s|%s\n", $col["condition"], $col["victims"], $col["method"],
		$col["median_ms"], $col["median_timed_out"] }' "$1"
}

# ratios CSV: "COND|N|SIZE|plain|mrelease|reap|UNIT" with each figure as a
# multiple of the unthrottled plain kill of one victim (UNIT, in ms).
ratios() {
	awk -F'|' -v size="$(awk -F, 'NR == 2 { print $3 }' "$1")" '
	{ k = $1 SUBSEP $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k; cond[n] = $1; vic[n] = $2 }
	  v[k, $3] = $4; t[k, $3] = $5 }
	$1 == "unthrottled" && $2 == 1 && $3 == "plain" { unit = $4 }
	function r(k, m,   x) {
		x = v[k, m]
		if (x == "") return "-"
		if (x == "err" || unit + 0 == 0) return "error"
		x = x / unit
		return (t[k, m] == 1 ? ">" : "") (x >= 10 ? sprintf("%.0fx", x) : sprintf("%.1fx", x))
	}
	END { for (i = 1; i <= n; i++) printf "%s|%s|%s|%s|%s|%s|%s\n", cond[i], vic[i], size,
		r(order[i], "plain"), r(order[i], "mrelease"), r(order[i], "reap_on_kill"), unit }
	' < <(csv_figures "$1")
}

# The README's table: the cases mainline still has, from mainline's matrix.
render_why() {
	local csv=$RESULTS/mainline/matrix.csv m=$RESULTS/mainline/matrix.meta
	if [ ! -r "$csv" ] || [ ! -r "$m" ]; then
		no_results "docs/results/mainline/matrix.csv"
		return
	fi
	local rows
	rows=$(ratios "$csv")
	echo "| Victim at the kill | Plain kill | With \`memory.reap_on_kill\` | Kill, then \`process_mrelease()\` |"
	echo "|---|---|---|---|"
	awk -F'|' '
	function row(c, n, label) { if ((c, n) in p) printf "| %s | %s | %s | %s |\n", label, p[c, n], r[c, n], m[c, n] }
	{ p[$1, $2] = $4; m[$1, $2] = $5; r[$1, $2] = $6; size = $3 }
	END {
		row("cpu.weight 1 vs 100", 1, "starved: `cpu.weight` 1 beside a busy task")
		row("cpu.weight 1 vs 10000", 1, "starved: `cpu.weight` 1 beside a busier task")
		row("io.max D state", 1, "blocked in direct I/O throttled by `io.max` (D state)")
		row("cpu.max 1%", 16, "16 victims of one cgroup at `cpu.max` 1%, one `cgroup.kill`")
		row("cpu.max 1%", 1, "one victim at `cpu.max` 1% (mainline already frees it at once)")
		row("unthrottled", 1, "running freely (the unit of this table)")
	}' <<<"$rows"
	echo
	printf 'Time from `SIGKILL` until %s MiB of anonymous memory was 90%% back, as a\n' \
		"$(cut -d'|' -f3 <<<"$rows" | head -1)"
	echo "multiple of the time the victim takes to free it itself when it runs freely"
	printf '(1.0x = %.0f ms here); median of %s runs; `>`: still waiting at the timeout.\n' \
		"$(cut -d'|' -f7 <<<"$rows" | head -1)" "$(meta "$m" runs)"
	why_errors "$csv"
	printf 'Kernel %s (mainline), under %s (%s): expect only the\n' \
		"$(meta "$m" release)" "$(accel_name "$m")" "$(meta "$m" guest)"
	echo "ratios, not the times, to carry over; nothing here ran on real hardware."
	if [ -r "$RESULTS/6.12/matrix.csv" ]; then
		printf "The Debian package's kernel, the 6.12 backport, has its own table in docs/benchmarks.md. "
	else
		printf "The Debian package's kernel is the 6.12 backport, whose figures are not published yet. "
	fi
	echo "Source: \`docs/results/mainline/matrix.csv\`."
}

# why_errors CSV: a note for the "error" cells of the README's table (the
# rows render_why shows): what failed, from the CSV's error column.
why_errors() {
	awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["file"] != 0 || $col["median_ms"] != "err" { next }
	$col["condition"] ~ /^(cpu\.weight 1 vs 100|cpu\.weight 1 vs 10000|io\.max D state|cpu\.max 1%|unthrottled)$/ {
		e = $col["error"]
		if (e in seen) next
		seen[e] = 1
		why = (e ~ /ESRCH/) ? ": the victim was already past `exit_mm()`" : ""
		printf "`error`: every run had a call fail (`%s`%s), so there is no time to show.\n", e, why
	}' "$1"
}

# Every condition, both bases, as ratios.
render_matrix() {
	local b csv m
	for b in mainline 6.12; do
		csv=$RESULTS/$b/matrix.csv m=$RESULTS/$b/matrix.meta
		if [ ! -r "$csv" ] || [ ! -r "$m" ]; then
			printf '**%s**: ' "$b"
			no_results "docs/results/$b/matrix.csv"
			echo
			continue
		fi
		echo "**$(meta "$m" release)** ($b), as multiples of the unthrottled plain kill:"
		echo
		echo "| Victim condition | MiB | Victims | Plain | mrelease | reap_on_kill |"
		echo "|---|---|---|---|---|---|"
		ratios "$csv" | awk -F'|' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $3, $2, $4, $5, $6 }'
		echo
		printf 'Unit: %.0f ms under emulation (median of %s runs). ' \
			"$(ratios "$csv" | head -1 | cut -d'|' -f7)" "$(meta "$m" runs)"
		provenance "$m"
		echo "Source: \`docs/results/$b/matrix.csv\`."
		echo
	done
}

render_file() {	# render_file BASE/FILE
	local f=$RESULTS/$1 group m
	group=$(basename "$1")
	group=${group%%[-.]*}
	m=$RESULTS/$(dirname "$1")/$group.meta
	if [ ! -r "$f" ] || [ ! -r "$m" ]; then
		no_results "docs/results/$1"
		return
	fi
	provenance "$m"
	echo "Source: \`docs/results/$1\`."
	echo
	echo '```'
	tr -d '\r' < "$f"
	echo '```'
}

render_block() {	# render_block KIND [ARG]
	case $1 in
	why) render_why ;;
	matrix) render_matrix ;;
	file) render_file "$2" ;;
	*) die "unknown generated part '$1'" ;;
	esac
}

# render FILE: FILE with every generated part rendered again.
render() {
	local f=$1 line kind arg in_block="" names
	while IFS= read -r line || [ -n "$line" ]; do
		if [ -n "$in_block" ]; then
			case $line in
			"<!-- END GENERATED: $in_block -->")
				printf '%s\n' "$line"
				in_block=
				;;
			esac
			continue
		fi
		case $line in
		"<!-- BEGIN GENERATED: "*" -->")
			printf '%s\n' "$line"
			read -r kind arg <<<"${line#<!-- BEGIN GENERATED: }"
			arg=${arg% -->}
			[ "$arg" = "-->" ] && arg=
			kind=${kind% -->}
			render_block "$kind" "$arg"
			in_block=$kind
			continue
			;;
		esac
		# Inline figures: <!--fig:NAME-->VALUE<!--/fig-->
		while [[ $line =~ \<!--fig:([a-z0-9._-]+)--\>([^<]*)\<!--/fig--\> ]]; do
			names=${BASH_REMATCH[1]}
			line=${line/"${BASH_REMATCH[0]}"/"<!--fig@$names-->$(value "$names")<!--/fig-->"}
		done
		printf '%s\n' "${line//<!--fig@/<!--fig:}"
	done < "$f"
	[ -z "$in_block" ] || die "${f#"$TOP"/}: no '<!-- END GENERATED: $in_block -->'"
}

# The documents with generated parts.
docs() {
	printf '%s\n' "$TOP/README.md"
	find "$TOP/docs" -maxdepth 1 -name '*.md' | sort
}

case ${1:-} in
update)
	for f in $(docs); do
		render "$f" > "$f.new"
		if cmp -s "$f" "$f.new"; then rm "$f.new"; else mv "$f.new" "$f"; echo "updated ${f#"$TOP"/}"; fi
	done
	;;
render) render "$2" ;;
value) value "$2" ;;
*) die "usage: docs-figures.sh update | render FILE | value NAME" ;;
esac
