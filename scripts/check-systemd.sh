#!/bin/bash
# systemd's MemoryReapOnKill=, libcgroup's tools and the container runtimes
# on the patched kernel.
# For each systemd base (SD_BASES in lib.sh: 262, the upstream target, and
# the 257 backport): fetch and build the patched systemd if needed, boot it
# as PID 1 in the guest and run there systemd's own unit tests that cover
# the change, its TEST-19-CGROUP.reap-on-kill integration subtest and our
# integration test, and on 262 systemd-oomd's scenario (tests/systemd/
# test-oomd.sh); run our integration test on the stock kernel (no
# memory.reap_on_kill) if one is built.  The man pages that document the
# setting are rendered and read on the host (tests/systemd/check-man.sh).
# Then, on the patched kernel without systemd, the cgroup-tools tests and
# the container runtimes' (runc, crun, podman: tests/containers/).
#
# Prints one line per test, "PASS name", "FAIL name: reason" or
# "SKIP name: reason", then "COUNTS <passed> <failed> <skipped>"; progress
# and timings go to stderr.  Exits 0 even when tests fail.
. "$(dirname "$0")/lib.sh"

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
	echo "$1 $((now - ${last:-0}))" >> "$BUILD/systemd-times"
	last=$now
}

# Our systemd as PID 1 on a kernel; the guest writes its result lines to
# /job/out/results.
run_guest() {	# run_guest NAME LOG GUEST-RUN-ARGS... -- CMD...
	local name=$1 log=$2 rc out=$BUILD/systemd-guest-out
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

# check_base BASE: build systemd BASE, and its tests on both kernels.
check_base() {
	local b=$1 sd label unit_tests integration
	sd=$BUILD/systemd-$b
	label=systemd-$b
	integration="$label:pid1_is_patched_systemd $label:TEST-19-CGROUP.reap-on-kill $label:integration"
	mkdir -p "$sd"
	if ! SD_BASE=$b "$TOP/scripts/systemd-build.sh" tests > "$sd/check-build.log" 2>&1; then
		tail -15 "$sd/check-build.log" >&2
		emit <<< "FAIL $label:build: $(grep -m1 '^error:' "$sd/check-build.log" || echo "see ${sd#"$TOP"/}/check-build.log")"
		skip_all "systemd $b was not built" "$label-unit:tests" "$label:man_rendered" $integration
		return 0
	fi
	say "$label: $(cat "$sd/built-version") ($(ls "$(sd_series "$b")"/*.patch | wc -l) patches)"
	emit <<< "PASS $label:build"
	timed "$label build"
	emit < <("$TOP/tests/systemd/check-man.sh" "$sd/obj" "$b")

	# systemd's own unit tests that cover the change run in the guest, under
	# our systemd as PID 1 (some need a booted systemd).
	unit_tests=$(sd_unit_tests "$b")
	if [ ! -f "$kernel" ]; then
		skip_all "no kernel at ${kernel#"$TOP"/}" $integration
		return 0
	fi
	export SYSTEMD_DEST=$sd/dest
	# systemd-oomd's scenario on the upstream target only: the kernel path
	# is the same under 257, and it costs about 90 s of guest time.
	oomd=
	[ "$b" = "${SD_BASES%% *}" ] && oomd="OOMD_WINDOW=12 SD_LABEL=$label $TOP/tests/systemd/test-oomd.sh;"
	step "booting systemd $b as PID 1 for its tests"
	run_guest "$label" "$sd/guest-integration.log" --systemd --kernel "$kernel" --timeout 900 -- \
		bash -c "{ SD_LABEL=$label $TOP/tests/systemd/run-unit-tests.sh $sd/obj $unit_tests;
			   SD_LABEL=$label $TOP/tests/systemd/run-subtest.sh $sd/src/test/units/TEST-19-CGROUP.reap-on-kill.sh;
			   SD_LABEL=$label SD_BASE=$b $TOP/tests/systemd/test-memory-reap-on-kill.sh patched;
			   $oomd } 2>&1 | tee /job/out/results"
	grep -a '^# oomd ' "$sd/guest-integration.log" | tr -d '\r' >&2 || true
	timed "$label integration"
	boot=$(grep -ao 'Startup finished in [^.]*\.[0-9]*s' "$sd/guest-integration.log" | head -1 || true)
	[ -n "$boot" ] && say "systemd $b as PID 1: $boot (kernel + userspace, with the test job)"

	if [ -f "$stock_kernel" ]; then
		step "systemd $b on the stock kernel (no memory.reap_on_kill)"
		run_guest "$label-stock" "$sd/guest-stock.log" --systemd --kernel "$stock_kernel" --timeout 600 -- \
			bash -c "$(results "SD_LABEL=$label SD_BASE=$b $TOP/tests/systemd/test-memory-reap-on-kill.sh" stock)"
		timed "$label stock"
	else
		skip_all "no stock kernel built (make baseline builds ${STOCK_OBJ#"$TOP"/})" "$label-stock:stock_kernel"
	fi
}

: > "$BUILD/systemd-times"
last=$SECONDS
if ! "$TOP/scripts/deps.sh" systemd >&2; then
	emit <<< "FAIL systemd:deps: scripts/deps.sh systemd failed"
	finish
fi
timed "systemd deps"
if [ ! -f "$kernel" ]; then
	"$TOP/scripts/build-kernel.sh" >&2 || true
fi
for b in $SD_BASES; do
	check_base "$b"
done

step "libcgroup's tools and the container runtimes on the patched kernel"
hog=$BUILD/containers/hog
mkdir -p "$BUILD/containers"
if ! gcc -static -O2 -Wall -o "$hog" "$TOP/tests/containers/hog.c" 2>"$BUILD/containers/hog.log"; then
	emit <<< "FAIL containers:hog: cannot link tests/containers/hog.c statically; see build/containers/hog.log"
	hog=/nonexistent
fi
if [ -f "$kernel" ]; then
	run_guest libcgroup "$BUILD/systemd-libcgroup.log" --kernel "$kernel" --timeout 400 -- \
		bash -c "{ $TOP/tests/systemd/test-libcgroup.sh; $TOP/tests/containers/test-runtimes.sh $hog; } 2>&1 | tee /job/out/results"
	timed "libcgroup+containers"
else
	skip_all "no kernel at ${kernel#"$TOP"/}" libcgroup:tests containers:tests
fi
finish
