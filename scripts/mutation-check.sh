#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that the tests guard the safety claims: for each mutation in
# tests/mutations/ (a patch that removes one protection from the kernel),
# build the mutated kernel, run the tests the mutation names in the guest,
# and require at least one of them to fail ("not ok") and none of them to
# skip or go without a result: a skip or a missing result proves nothing
# either way, and the run fails on it as "unproven", apart from "not
# caught" (every named test passed).  A mutation no test catches is a
# claim nothing proves.
#
#   mutation-check.sh [NAME...]     default: every tests/mutations/*.patch
#
# A mutation file starts with comment lines: what the protection is, and
# "# tests: BINARY:TEST ..." (the tests expected to catch it), then a
# unified diff against the composed kernel tree, which must apply as it is:
# no fuzz (a context line that is gone means the patch no longer says what
# it removes), offsets allowed and shown (the file moved on around an
# unchanged context).  tests/mutations/KBASE/NAME.patch, where it exists,
# replaces NAME.patch on that base.  The mutants of base
# $KBASE are built in a copy of its tree (build/mutant/linux-KBASE, our
# files copied, not linked) into build/obj/mutant-KBASE, so the patched
# kernel is never touched; each base has its own, as a tree switched to
# another base keeps generated files that do not build there.
# Not part of make check: each mutation costs a rebuild and a guest run.
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/deps.sh"
"$TOP/scripts/build-kernel.sh"
"$TOP/scripts/build-tests.sh"

src=$BUILD/mutant/linux-$KBASE
obj=$BUILD/obj/mutant-$KBASE
logs=$BUILD/logs/mutations-$KBASE
mkdir -p "$src" "$logs"
step "copying build/linux-$KBASE to ${src#"$TOP"/} (our files as real files)"
rsync -a --delete --exclude=/.git --copy-unsafe-links "$TREE/" "$src/"
"$TOP/scripts/kernel-config.sh" "$src" "$obj" $GUEST_CONFIGS ||
	die "kernel config failed for the mutants"

# Files a mutation patch changes.
patched_files() { sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"; }

# restore FILE...: the unmutated version, from the composed tree.
restore() {
	local f
	for f in "$@"; do
		cp -L "$TREE/$f" "$src/$f"
	done
}

# apply_mutation DIR PATCH LOG: apply PATCH to DIR without fuzz, after a
# dry run, so that one that does not apply leaves DIR as it was; prints
# "FILE: Hunk #N succeeded at L (offset K lines)." for each hunk that needed
# an offset, or, if it does not apply, "FILE: Hunk #N FAILED ..." (the
# first), and fails.
apply_mutation() {
	local dir=$1 mut=$2 log=$3 hunks='/^(checking|patching) file / { f = $3 } /^Hunk #/ { print f ": " $0 }'
	if ! patch --dry-run --fuzz=0 -p1 -d "$dir" < "$mut" > "$log" 2>&1; then
		awk "$hunks" "$log" | grep -m1 FAILED || tail -1 "$log"
		return 1
	fi
	patch --fuzz=0 --no-backup-if-mismatch -p1 -d "$dir" < "$mut" >> "$log" 2>&1 || return 1
	sed -n '/^patching file /,$p' "$log" | awk "$hunks" | grep offset || true
}

# outcome TAP TEST: what TEST's result line in TAP (a guest's output) says
# of the mutation: "caught" (not ok), "passed" (ok: not caught), "skipped"
# or "missing" (no result: the binary died, or skipped as a whole).  The
# console ends lines with CR LF: strip the CR, or no line matches.
outcome() {
	local tap
	tap=$(tr -d '\r' < "$1")
	if grep -qE "^not ok [0-9]+ $2( |\$)" <<<"$tap"; then
		echo caught
	elif grep -qE "^ok [0-9]+ (# SKIP $2(:| |\$)|$2 +# SKIP)" <<<"$tap"; then
		echo skipped
	elif grep -qE "^ok [0-9]+ $2( |\$)" <<<"$tap"; then
		echo passed
	else
		echo missing
	fi
}

# sort_outcomes BINARY TAP RC TEST...: add the TESTs of BINARY that caught
# the mutation in TAP (the guest's exit status RC) to hit, those that prove
# nothing to unproven.  A kernel report (RC 125) catches it, and explains
# the results the binary did not get to print; a skip it does not explain.
# The guest boots with oops=panic: an oops in a test that would then hang
# ends the guest, and is reported, instead of running into the timeout.
sort_outcomes() {
	local bin=$1 tap=$2 rc=$3 t
	shift 3
	[ "$rc" = 125 ] && hit="$hit $bin:(kernel report)"
	for t; do
		case $(outcome "$tap" "$t") in
		caught) hit="$hit $bin:$t" ;;
		skipped) unproven="$unproven $bin:$t (skipped)" ;;
		missing) [ "$rc" = 125 ] || unproven="$unproven $bin:$t (no result, exit $rc)" ;;
		esac
	done
}

# judge NAME WRONG HIT UNPROVEN TESTS: the mutation's line, and success if
# it is proven: booted (WRONG empty), caught by one of its TESTS (HIT),
# none of them unproven.
judge() {
	local name=$1 wrong=$2 hit=$3 unproven=$4 tests=$5 logs=$6
	if [ -n "$wrong" ]; then
		echo "FAIL mutation:$name: $wrong; logs $logs"
	elif [ -n "$unproven" ]; then
		echo "FAIL mutation:$name: unproven:$unproven${hit:+ (caught by$hit)}; logs $logs"
	elif [ -n "$hit" ]; then
		echo "PASS mutation:$name (caught by$hit)"
		return 0
	else
		echo "FAIL mutation:$name: not caught: no test failed without the protection ($tests); logs $logs"
	fi
	return 1
}

passed=0 failed=0
want=${*:-$(cd "$TOP/tests/mutations" && ls ./*.patch | sed 's|^\./||; s|\.patch$||')}
for name in $want; do
	# A base whose code differs where the protection sits has its own copy.
	mut=$TOP/tests/mutations/$KBASE/$name.patch
	[ -f "$mut" ] || mut=$TOP/tests/mutations/$name.patch
	[ -f "$mut" ] || die "no mutation $name in tests/mutations"
	log=$logs/$name
	mapfile -t files < <(patched_files "$mut")
	restore "${files[@]}"
	step "mutation $name: $(sed -n '1s/^# //p' "$mut")"
	if ! offsets=$(apply_mutation "$src" "$mut" "$log.build"); then
		echo "FAIL mutation:$name: tests/mutations/$name.patch does not apply without fuzz, refresh it: $offsets (${log#"$TOP"/}.build)"
		failed=$((failed + 1))
		continue
	fi
	[ -z "$offsets" ] || say "mutation $name applies with offsets: $(paste -sd';' <<<"$offsets")"
	if ! make -C "$src" O="$obj" CC="$TOP/scripts/ccache-gcc" -j"$(make_jobs)" bzImage \
		>>"$log.build" 2>&1; then
		restore "${files[@]}"
		echo "FAIL mutation:$name: the mutant does not build (see ${log#"$TOP"/}.build)"
		failed=$((failed + 1))
		continue
	fi
	restore "${files[@]}"
	build_id=$(vmlinux_build_id "$obj")

	# Group the named tests by binary: one boot per binary.
	tests=$(sed -n 's/^# tests: //p' "$mut")
	by=""
	for spec in $tests; do
		bin=${spec%%:*}
		case " $by " in *" $bin "*) ;; *) by="$by $bin" ;; esac
	done
	hit="" wrong="" unproven=""
	for bin in $by; do
		names=$(for spec in $tests; do
			if [ "${spec%%:*}" = "$bin" ]; then echo "${spec#*:}"; fi
		done)
		# Both binaries run only the tests named on their command line.
		args=$(echo $names)
		set +e
		# The guest first prints its kernel's notes (the build ID): a
		# test that fails on another kernel proves nothing.
		# shellcheck disable=SC2016,SC2086 # $0 and $@ are for the guest's bash
		GUEST_APPEND=oops=panic "$TOP/scripts/guest-run.sh" --kernel "$obj/arch/x86/boot/bzImage" --timeout 1200 -- \
			bash -c 'echo "notes $(od -An -v -tx1 /sys/kernel/notes | tr -d " \n")"; exec "$0" "$@"' \
			"$TESTS_OUT/$bin" $args >"$log.$bin" 2>&1
		rc=$?
		set -e
		if [ -z "$build_id" ] || ! grep -a '^notes ' "$log.$bin" | grep -q "$build_id"; then
			wrong="the guest did not boot the mutant (build ID ${build_id:-unknown} not in its notes)"
			break
		fi
		# shellcheck disable=SC2086 # a list of names
		sort_outcomes "$bin" "$log.$bin" "$rc" $names
	done
	if judge "$name" "$wrong" "$hit" "$unproven" "$tests" "${log#"$TOP"/}.*"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
