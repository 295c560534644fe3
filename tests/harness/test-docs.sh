#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unit test of the documents' figures, run by scripts/check.sh:
#
#   - scripts/check-docs.sh on the repository itself: its PASS/FAIL lines
#     (docs:generated, docs:counts, docs:figures) are passed on;
#   - the same checker on copies of the repository's documents, each
#     broken in one way, must fail with the check that names it:
#     a test count that differs from the source, a figure typed into the
#     prose, a generated table edited by hand (against a stand-in result
#     file that exists only in the copy), a generated part without its
#     end marker.
#
# Prints "PASS harness:docs_<case>" or "FAIL harness:docs_<case>: why" per
# case; exits non-zero if any failed.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CHECK=$TOP/scripts/check-docs.sh
GEN=$TOP/scripts/docs-figures.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

"$CHECK" || failures=$((failures + 1))

# copy DIR: the documents, their result files and the sources they count,
# with the generated parts rendered again, so that each case below starts
# from a copy that passes whatever state the repository is in.
copy() {
	mkdir -p "$1/tools/testing/selftests/cgroup" "$1/tests"
	cp -r "$TOP/README.md" "$TOP/docs" "$1/"
	cp "$TOP"/tools/testing/selftests/cgroup/test_reap_on_kill*.c "$1/tools/testing/selftests/cgroup/"
	cp -r "$TOP/tests/mutations" "$1/tests/"
	DOCS_TOP=$1 "$GEN" update >/dev/null
}

# expect CASE CHECK DIR: check-docs.sh on DIR must fail, with a FAIL line
# for CHECK (docs:CHECK...), and pass nothing it should not.
expect() {
	local case=$1 check=$2 dir=$3 out rc
	out=$(DOCS_TOP=$dir "$CHECK" 2>&1)
	rc=$?
	if [ "$rc" != 0 ] && grep -q "^FAIL docs:$check" <<<"$out"; then
		echo "PASS harness:docs_$case"
	else
		echo "FAIL harness:docs_$case: check-docs.sh exit $rc, want non-zero and 'FAIL docs:$check': $(grep '^FAIL' <<<"$out" | head -2 | tr '\n' ' ')"
		failures=$((failures + 1))
	fi
}

# The copy passes before it is broken, or the cases below prove nothing.
copy "$tmp/clean"
if out=$(DOCS_TOP=$tmp/clean "$CHECK" 2>&1); then
	echo "PASS harness:docs_copy_passes"
else
	echo "FAIL harness:docs_copy_passes: $(grep '^FAIL' <<<"$out" | head -2 | tr '\n' ' ')"
	failures=$((failures + 1))
fi

# A count that no longer matches its source: one test more in the source.
copy "$tmp/count"
sed -i 's/^\tT(test_interface),$/&\n\tT(test_interface_again),/' \
	"$tmp/count/tools/testing/selftests/cgroup/test_reap_on_kill.c"
if grep -q '<!--fig:count.tests-->' "$tmp/count/README.md" "$tmp/count"/docs/*.md; then
	expect count_differs_from_source counts:tests "$tmp/count"
else
	echo "FAIL harness:docs_count_differs_from_source: no <!--fig:count.tests--> in the documents"
	failures=$((failures + 1))
fi

# A figure typed into the prose.
copy "$tmp/stray"
printf '\nOn our machine the plain kill took 8135 ms.\n' >> "$tmp/stray/docs/benchmarks.md"
expect stray_figure figures:docs/benchmarks.md "$tmp/stray"

# A generated table edited by hand: a stand-in result in the copy, the
# table rendered from it, then one of its figures changed.
copy "$tmp/edited"
mkdir -p "$tmp/edited/docs/results/mainline"
cat > "$tmp/edited/docs/results/mainline/matrix.csv" <<'CSV'
condition,file,size_mib,victims,method,median_ms,min_ms,max_ms,mib_per_s,runs,errors,error,timeouts,median_timed_out,workers
unthrottled,0,256,1,plain,50.000,49,52,5120,3,0,,0,0,-1
unthrottled,0,256,1,reap_on_kill,25.000,24,26,10240,3,0,,0,0,-1
cpu.weight 1 vs 100,0,256,1,plain,8000.000,7000,9000,32,3,0,,0,0,-1
cpu.weight 1 vs 100,0,256,1,reap_on_kill,70.000,60,80,3657,3,0,,0,0,-1
CSV
printf 'command=make bench\ncheckout=test\ndate=test\nrelease=test\nbuild_id=test\naccel=tcg\nguest=2 vCPUs\nruns=3\n' \
	> "$tmp/edited/docs/results/mainline/matrix.meta"
DOCS_TOP=$tmp/edited "$GEN" update >/dev/null
if grep -q '| 160x |' "$tmp/edited/README.md"; then
	sed -i 's/| 160x |/| 115x |/' "$tmp/edited/README.md"
	expect table_edited_by_hand generated:README.md "$tmp/edited"
else
	echo "FAIL harness:docs_table_edited_by_hand: the stand-in's ratio (160x) is not in README.md's generated table"
	failures=$((failures + 1))
fi

# A generated part that lost its end marker.
copy "$tmp/unclosed"
sed -i '/^<!-- END GENERATED: why -->$/d' "$tmp/unclosed/README.md"
expect unclosed_part generated:README.md "$tmp/unclosed"

[ "$failures" = 0 ]
