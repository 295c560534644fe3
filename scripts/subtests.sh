#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The subtests of one of our kselftest binaries, read from its source: the
# names in its tests[] table ("T(test_x),", one a line), in order, one a
# line on stdout.  What scripts/check.sh expects the binary to report, so a
# test added to the table is expected at once and one that does not report
# fails by name.  Fails if the file has no such table or an empty one: a
# table written another way must not make zero results the expectation.
#   subtests.sh SOURCE.c
set -euo pipefail
src=${1:?usage: subtests.sh SOURCE.c}
[ -r "$src" ] || { echo "subtests.sh: cannot read $src" >&2; exit 1; }
awk '
/\} tests\[\] = \{/ { in_table = 1; next }
in_table && /^\};/ { in_table = 0; done = 1; next }
in_table && /^[ \t]*T\([a-z_0-9]+\),/ {
	name = $0; sub(/^[ \t]*T\(/, "", name); sub(/\).*/, "", name)
	print name; n++
	next
}
# Anything else in the table (an #ifdef, another macro) would make the
# count a guess.
in_table && !/^[ \t]*$/ && !/^[ \t]*\/[*\/]/ { odd = odd "\n  " $0 }
END {
	if (odd != "") { printf "subtests.sh: %s: lines of tests[] that are not T(name),:%s\n", FILENAME, odd > "/dev/stderr"; exit 1 }
	if (!done || !n) { printf "subtests.sh: %s: no tests[] table of T(name), entries\n", FILENAME > "/dev/stderr"; exit 1 }
}' "$src"
