#!/bin/bash
# Prove that the tests guard the safety claims: for each mutation in
# tests/mutations/ (a patch that removes one protection from the kernel),
# build the mutated kernel, run the tests the mutation names in the guest,
# and require at least one of them to fail.  A mutation no test catches is
# a claim nothing proves.
#
#   mutation-check.sh [NAME...]     default: every tests/mutations/*.patch
#
# A mutation file starts with comment lines: what the protection is, and
# "# tests: BINARY:TEST ..." (the tests expected to catch it), then a
# unified diff against the composed kernel tree.  The mutants of base
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

# caught LOG BINARY TEST: did TEST of BINARY fail (or not report) in LOG?
# The console ends lines with CR LF: strip the CR, or no line matches and
# every test would look as if it had died.
caught() {
	local log=$1 bin=$2 test=$3 tap
	tap=$(tr -d '\r' < "$log.$bin")
	grep -qE "^not ok [0-9]+ $test( |\$)" <<<"$tap" && return 0
	grep -qE "^ok [0-9]+ $test( |\$)" <<<"$tap" && return 1
	return 0	# no result at all: the binary died on the way
}

passed=0 failed=0
want=${*:-$(cd "$TOP/tests/mutations" && ls ./*.patch | sed 's|^\./||; s|\.patch$||')}
for name in $want; do
	mut=$TOP/tests/mutations/$name.patch
	[ -f "$mut" ] || die "no mutation $name in tests/mutations"
	log=$logs/$name
	mapfile -t files < <(patched_files "$mut")
	restore "${files[@]}"
	step "mutation $name: $(sed -n '1s/^# //p' "$mut")"
	if ! patch -s -p1 -d "$src" < "$mut" >"$log.build" 2>&1; then
		echo "FAIL mutation:$name: the patch no longer applies (see ${log#"$TOP"/}.build)"
		failed=$((failed + 1))
		continue
	fi
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
	hit="" wrong=""
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
		"$TOP/scripts/guest-run.sh" --kernel "$obj/arch/x86/boot/bzImage" --timeout 1200 -- \
			bash -c 'echo "notes $(od -An -v -tx1 /sys/kernel/notes | tr -d " \n")"; exec "$0" "$@"' \
			"$TESTS_OUT/$bin" $args >"$log.$bin" 2>&1
		rc=$?
		set -e
		if [ -z "$build_id" ] || ! grep -a '^notes ' "$log.$bin" | grep -q "$build_id"; then
			wrong="the guest did not boot the mutant (build ID ${build_id:-unknown} not in its notes)"
			break
		fi
		[ "$rc" = 125 ] && hit="$hit $bin:(kernel report)"
		for t in $names; do
			caught "$log" "$bin" "$t" && hit="$hit $bin:$t"
		done
	done
	if [ -n "$wrong" ]; then
		echo "FAIL mutation:$name: $wrong; logs ${log#"$TOP"/}.*"
		failed=$((failed + 1))
	elif [ -n "$hit" ]; then
		echo "PASS mutation:$name (caught by$hit)"
		passed=$((passed + 1))
	else
		echo "FAIL mutation:$name: no test failed without the protection ($tests); logs ${log#"$TOP"/}.*"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
