#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run upstream's cgroup selftests on the stock kernel of base $KBASE (same
# config, no series), to tell failures of this guest from failures we
# cause.  Prints what failed; tests/known-failures.$KBASE is maintained
# from this.
. "$(dirname "$0")/lib.sh"
"$TOP/scripts/deps.sh"
"$TOP/scripts/build-kernel.sh" stock
"$TOP/scripts/build-kernel.sh"
"$TOP/scripts/build-tests.sh"
res=$BUILD/results-$KBASE-stock
rm -rf "$res"
set +e
GUEST_OUT=$res "$TOP/scripts/guest-run.sh" --kernel "$STOCK_OBJ/arch/x86/boot/bzImage" \
	--timeout 2400 -- "$TOP/guest/run-tests.sh" /job/out "$TESTS_OUT" $UPSTREAM_TESTS
set -e
for t in $UPSTREAM_TESTS; do
	"$TOP/scripts/tap-summary.sh" "$t" "$res/$t.tap" "$res/$t.rc" /dev/null | grep -E '^(FAIL|SKIP)' || true
done
