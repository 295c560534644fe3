#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The long stress run (make stress): test_reap_on_kill_stress with a larger
# time budget, for several seeds, in one boot.  Not part of make check, which
# runs the same binary once with its default budget.
#
#   STRESS_SECONDS=60      budget of each of its tests, per seed
#   STRESS_SEEDS="1 2 3"   seeds, each a full run
#   STRESS_KERNEL=debug    on the KASAN/lockdep kernel instead (slower)
#   KBASE=6.12             on the 6.12 backport instead of mainline
. "$(dirname "$0")/lib.sh"

seconds=${STRESS_SECONDS:-60}
seeds=${STRESS_SEEDS:-1 2 3}
flavour=${STRESS_KERNEL:-patched}
case $flavour in
patched) kobj=$OBJ ;;
debug) kobj=$DEBUG_OBJ ;;
*) die "STRESS_KERNEL must be patched or debug, not '$flavour'" ;;
esac
[[ $seconds =~ ^[1-9][0-9]*$ ]] || die "STRESS_SECONDS must be a positive number of seconds"

"$TOP/scripts/deps.sh"
"$TOP/scripts/build-kernel.sh" "$flavour"
[ "$flavour" = patched ] || "$TOP/scripts/build-kernel.sh"
"$TOP/scripts/build-tests.sh"

res=$BUILD/stress
rm -rf "$res"
per_seed=$(( 6 * seconds + 120 ))
step "stress: seeds $seeds, ${seconds}s per test, $flavour kernel"
set +e
GUEST_OUT=$res "$TOP/scripts/guest-run.sh" --kernel "$kobj/arch/x86/boot/bzImage" \
	--timeout $(( per_seed * $(wc -w <<<"$seeds") + 120 )) -- bash -c '
	for s in '"$seeds"'; do
		"$1" -s "$s" -t "$2" | tee "/job/out/seed-$s.tap"
	done' _ "$TESTS_OUT/test_reap_on_kill_stress" "$seconds"
rc=$?
set -e

passed=0 failed=0
for s in $seeds; do
	p=$(grep -c '^ok ' "$res/seed-$s.tap" 2>/dev/null || true)
	f=$(grep -c '^not ok ' "$res/seed-$s.tap" 2>/dev/null || true)
	[ "$p" = 6 ] || [ "$f" != 0 ] || f=$(( 6 - p ))	# a run cut short
	echo "seed $s: $p passed, $f failed"
	passed=$((passed + p)) failed=$((failed + f))
done
if [ "$rc" != 0 ]; then
	echo "the guest run failed: exit $rc (124 timeout, 125 kernel report)"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
