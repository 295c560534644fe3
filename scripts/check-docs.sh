#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Checks that every figure in README.md and docs/*.md comes from its source
# (scripts/docs-figures.sh says which), run by make check through
# tests/harness/test-docs.sh:
#
#   generated   each generated part (tables between BEGIN/END GENERATED
#               markers, <!--fig:...--> figures) is what docs-figures.sh
#               renders from the result files, test sources and
#               docs/results/durations today;
#   counts      each test count in the prose is the number of tests in
#               the source it counts (a part of "generated", reported on
#               its own so that a failure names the source);
#   figures     no other number stands in the prose: outside generated
#               parts, code and links, only the forms of ALLOWED below
#               (versions and names, not measurements).
#
# Prints "PASS docs:<check>" or "FAIL docs:<check>: why" lines; exits
# non-zero if any failed.  DOCS_TOP (default: the repository) is the tree
# to check.  The cover letters (patches/*/cover-letter) get a WARN line for
# a test count that differs from the source; they are not ours to fail.
set -uo pipefail

TOP=${DOCS_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
GEN=$(dirname "$0")/docs-figures.sh
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass() { echo "PASS docs:$1"; }
fail() { echo "FAIL docs:$1: $2"; failures=$((failures + 1)); }

# Numbers that are not figures, as Perl regexes, each with why.  Keep this
# short: a measurement belongs in a generated part, never here.
ALLOWED=(
	'\b(?:Linux |kernel |kernels )?7\.2(?:\.x)?\b'	# kernel version (mainline)
	'\b6\.12(?:\.x)?\b'				# kernel version (LTS backport)
	'\bsystemd (?:257|262|263)\b'			# systemd versions
	'\b(?:257|262|263)\b(?= (?:series|backport|and|or|\())'	# the same, "262 series"
	'\bDebian (?:12|13)\b'				# Debian releases
	'\b(?:runc|crun|podman) \d+(?:\.\d+)+'		# versions tested
	'\bcgroup[- ]?v2\b|\bcgroup2\b'			# the interface's name
	'\b(?:L?GPL)-\d\.\d(?:-only|-or-later)?\b'	# licences
	'\b(?:32|64)-bit\b'				# architectures
	'\b[A-Za-z][A-Za-z_]*[0-9]+[A-Za-z0-9_]*\b'	# names with digits: ext4, IPv6, x86_64
	'\b[a-z_]+\([1-8]\)'				# man page sections: kill(2)
	'\bPID 1\b'					# systemd as PID 1
	'\bissues? \d+\b'				# the project's issue numbers
)

# The prose of a document: generated parts, inline figures, fenced code,
# code spans, HTML comments and link targets removed; line numbers kept.
prose() {
	perl -ne '
		if (/^<!-- BEGIN GENERATED: /) { $gen = 1; print "\n"; next }
		if (/^<!-- END GENERATED: /) { $gen = 0; print "\n"; next }
		if ($gen) { print "\n"; next }
		if (/^\s*```/) { $code = !$code; print "\n"; next }
		if ($code) { print "\n"; next }
		s/<!--fig:[^>]*-->.*?<!--\/fig-->//g;
		s/<!--.*?-->//g;
		s/`[^`]*`//g;
		s/\]\([^)]*\)/]/g;
		s{https?://\S+}{}g;
		print;
	' "$1"
}

docs=("$TOP/README.md")
while IFS= read -r f; do docs+=("$f"); done < <(find "$TOP/docs" -maxdepth 1 -name '*.md' | sort)

# generated (and counts)
for f in "${docs[@]}"; do
	name=${f#"$TOP"/}
	if ! out=$(DOCS_TOP=$TOP "$GEN" render "$f" 2>&1); then
		fail "generated:$name" "$out"
		continue
	fi
	if diff -u "$f" - <<<"$out" > "$tmp/diff" 2>&1; then
		pass "generated:$name"
	else
		fail "generated:$name" "differs from what scripts/docs-figures.sh renders (run it with 'update'): $(grep '^[-+][^-+]' "$tmp/diff" | head -4 | tr '\n' ' ')"
	fi
done

for c in tests stress mutations; do
	want=$(DOCS_TOP=$TOP "$GEN" value "count.$c") || { fail "counts:$c" "cannot count"; continue; }
	bad=$(grep -Hno "<!--fig:count\.$c-->[^<]*<!--/fig-->" "${docs[@]}" |
		sed "s|^$TOP/||" | grep -v -- "-->$want<!--" | sed 's/<!--[^>]*-->//g')
	if [ -z "$bad" ]; then
		pass "counts:$c"
	else
		fail "counts:$c" "the source has $want; the prose says $(tr '\n' ' ' <<<"$bad")"
	fi
done

# figures
allowed=$(IFS='|'; echo "${ALLOWED[*]}")
for f in "${docs[@]}"; do
	name=${f#"$TOP"/}
	stray=$(prose "$f" | ALLOWED=$allowed perl -ne '
		s/$ENV{ALLOWED}//g;
		print "$.: $1\n" while /(\S*\d\S*)/g;' | head -5)
	if [ -z "$stray" ]; then
		pass "figures:$name"
	else
		fail "figures:$name" "number(s) outside generated parts (put the figure in a result file and a generated part, or spell it out): $(tr '\n' ' ' <<<"$stray")"
	fi
done

# The cover letters' test counts: a warning for their owner.
want=$(DOCS_TOP=$TOP "$GEN" value count.tests 2>/dev/null)
for cl in "$TOP"/patches/*/cover-letter; do
	[ -r "$cl" ] || continue
	# "test_reap_on_kill (patch 3), 35" at the end of a line
	grep -Eno 'test_reap_on_kill \(patch [0-9]+\), [0-9]+$' "$cl" | while IFS=: read -r n what; do
		[ "${what##* }" = "$want" ] || echo "WARN docs:cover_letter ${cl#"$TOP"/}:$n says ${what##* } tests; test_reap_on_kill.c has $want"
	done
done

[ "$failures" = 0 ]
