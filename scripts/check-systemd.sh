#!/bin/bash
# systemd's MemoryReapOnKill= and libcgroup's tools on the patched kernel:
# fetch and build the patched systemd if needed, boot it as PID 1 in the
# guest and run there systemd's own unit tests that cover the change and the
# integration test, run it on the stock kernel (no
# memory.reap_on_kill) if one is built, and run the cgroup-tools tests.
#
# Prints one line per test, "PASS name", "FAIL name: reason" or
# "SKIP name: reason", then "COUNTS <passed> <failed> <skipped>"; progress
# and timings go to stderr.  Exits 0 even when tests fail.
. "$(dirname "$0")/lib.sh"

SD=$BUILD/systemd
kernel=${KERNEL:-$OBJ/arch/x86/boot/bzImage}
stock_kernel=$STOCK_OBJ/arch/x86/boot/bzImage
passed=0 failed=0 skipped=0

# Counts and prints one result line; anything else is ignored.
emit() {
	local line
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"PASS "*) passed=$((passed + 1)) ;;
		"FAIL "*) failed=$((failed + 1)) ;;
		"SKIP "*) skipped=$((skipped + 1)) ;;
		*) continue ;;
		esac
		printf '%s\n' "$line"
	done
}
finish() {
	echo "COUNTS $passed $failed $skipped"
	exit 0
}
skip_all() {	# skip_all REASON NAME...
	local why=$1 t
	shift
	for t; do emit <<< "SKIP $t: $why"; done
}
timed() {	# timed LABEL: the seconds since the last call
	local now=$SECONDS
	say "time: $1 $((now - ${last:-0})) s"
	echo "$1 $((now - ${last:-0}))" >> "$SD/times"
	last=$now
}

mkdir -p "$SD"
: > "$SD/times"
last=$SECONDS
INTEGRATION="systemd:pid1_is_patched_systemd systemd:integration"
LIBCGROUP="libcgroup:tests"

# Build dependencies, the tree, the build.
if ! "$TOP/scripts/deps.sh" systemd >&2; then
	emit <<< "FAIL systemd:deps: scripts/deps.sh systemd failed"
	finish
fi
if ! "$TOP/scripts/systemd-build.sh" tests > "$SD/check-build.log" 2>&1; then
	tail -15 "$SD/check-build.log" >&2
	emit <<< "FAIL systemd:build: $(grep -m1 '^error:' "$SD/check-build.log" || echo 'see build/systemd/check-build.log')"
	skip_all "systemd was not built" systemd-unit:tests $INTEGRATION
	skip_all "systemd was not built" $LIBCGROUP
	finish
fi
say "systemd: $(cat "$SD/built-version") ($(ls "$TOP"/patches/systemd/*.patch | wc -l) patches)"
emit <<< "PASS systemd:build"
timed build

# systemd's own unit tests that cover the change run in the guest below,
# under our systemd as PID 1 (some need a booted systemd).
SD_UNIT_TESTS=$(sed -n 's/^SD_UNIT_TESTS=${SD_UNIT_TESTS:-"\(.*\)"}$/\1/p' "$TOP/scripts/systemd-build.sh")

if [ ! -f "$kernel" ]; then
	"$TOP/scripts/build-kernel.sh" >&2 || true
fi
if [ ! -f "$kernel" ]; then
	skip_all "no kernel at ${kernel#"$TOP"/}" $INTEGRATION $LIBCGROUP
	finish
fi

# Our systemd as PID 1 on the patched kernel.
run_guest() {	# run_guest NAME LOG GUEST-RUN-ARGS... -- CMD...
	local name=$1 log=$2 rc out=$SD/guest-out
	shift 2
	rm -rf "$out"
	set +e
	GUEST_OUT=$out "$TOP/scripts/guest-run.sh" "$@" > "$log" 2>&1
	rc=$?
	set -e
	if [ -s "$out/results" ]; then
		emit < "$out/results"
	else
		emit <<< "FAIL $name: no results (guest-run exit $rc; console: ${log#"$TOP"/})"
		return 0
	fi
	if [ "$rc" != 0 ]; then
		emit <<< "FAIL $name:guest_run: guest-run exit $rc (124 timeout, 125 kernel report, 123 no status); console: ${log#"$TOP"/}"
	fi
}
results() { printf '%s 2>&1 | tee /job/out/results' "$*"; }

step "booting our systemd as PID 1 for the integration test"
run_guest systemd "$SD/guest-integration.log" --systemd --kernel "$kernel" --timeout 600 -- \
	bash -c "{ $TOP/tests/systemd/run-unit-tests.sh $SD/obj-tests $SD_UNIT_TESTS; $TOP/tests/systemd/test-memory-reap-on-kill.sh patched; } 2>&1 | tee /job/out/results"
timed integration
boot=$(grep -ao 'Startup finished in [^.]*\.[0-9]*s' "$SD/guest-integration.log" | head -1 || true)
[ -n "$boot" ] && say "systemd as PID 1: $boot (kernel + userspace, with the test job)"

if [ -f "$stock_kernel" ]; then
	step "our systemd on the stock kernel (no memory.reap_on_kill)"
	run_guest systemd-stock "$SD/guest-stock.log" --systemd --kernel "$stock_kernel" --timeout 600 -- \
		bash -c "$(results "$TOP/tests/systemd/test-memory-reap-on-kill.sh" stock)"
	timed stock
else
	skip_all "no stock kernel built (make baseline builds ${STOCK_OBJ#"$TOP"/})" systemd:stock_kernel
fi

step "libcgroup's tools on the patched kernel"
run_guest libcgroup "$SD/guest-libcgroup.log" --kernel "$kernel" --timeout 300 -- \
	bash -c "$(results "$TOP/tests/systemd/test-libcgroup.sh")"
timed libcgroup
finish
