#!/bin/bash
# systemd's MemoryReapOnKill=, libcgroup's tools and the container runtimes
# on the patched kernel.
# For each systemd base (SD_BASES in lib.sh: 262, the upstream target, and
# the 257 backport): fetch and build the patched systemd if needed, boot it
# as PID 1 in the guest and run there systemd's own unit tests that cover
# the change, its TEST-19-CGROUP.reap-on-kill integration subtest (through
# TEST-19-CGROUP.sh, as upstream runs it) and our integration test, and on
# 262 systemd-oomd's scenario (tests/systemd/test-oomd.sh).  The man pages
# that document the setting are rendered and read on the host
# (tests/systemd/check-man.sh).  Then, on the patched kernel without
# systemd, the cgroup-tools tests and the container runtimes'
# (tests/containers/).
#
# Each base's systemd also boots on a kernel without memory.reap_on_kill:
# Debian's own (scripts/debian-kernel.sh; NOFILE_KERNEL, with NOFILE_MODULES
# if it needs any, names another), and runs there the kernel-independent
# half of TEST-19 and our test's "nofile" checks (a manager logs the missing
# attribute once).  A kernel that cannot be fetched fails that half.
#
# Prints one line per test, "PASS name", "FAIL name: reason" or
# "SKIP name: reason", then "COUNTS <passed> <failed> <skipped>"; progress
# and timings go to stderr.  Exits 0 even when tests fail.  Each suite
# declares the checks it must print (tests/lib.sh's expect) under a prefix
# of its own, and its output goes through scripts/suite-results.sh, told
# which prefixes to expect: a declared check without a result (a suite
# aborted by set -u, a timeout, the guest's end) and a suite that declared
# nothing (a missing script) fail.
. "$(dirname "$0")/lib.sh"

kernel=${KERNEL:-$OBJ/arch/x86/boot/bzImage}
nofile_kernel=${NOFILE_KERNEL:-}
nofile_modules=${NOFILE_MODULES:-}
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
		"RESULTS "*) say "$line"; continue ;;
		*) continue ;;
		esac
		printf '%s\n' "$line"
	done
}
# suites PREFIX... < OUTPUT: the suites' results, held to what they declared.
suites() { "$TOP/scripts/suite-results.sh" "$@"; }
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
run_guest() {	# run_guest NAME LOG "SUITE..." GUEST-RUN-ARGS... -- CMD...
	local name=$1 log=$2 want=$3 rc out=$BUILD/systemd-guest-out/$1
	shift 3
	# Each run's /job/out (the suites' logs) is kept until the next check.
	rm -rf "$out"
	mkdir -p "$(dirname "$out")"
	set +e
	GUEST_OUT=$out "$TOP/scripts/guest-run.sh" "$@" > "$log" 2>&1
	rc=$?
	set -e
	if [ -s "$out/results" ]; then
		# shellcheck disable=SC2086
		emit < <(suites $want < "$out/results")
	else
		emit <<< "FAIL $name: no results (guest-run exit $rc; console: ${log#"$TOP"/}; logs: ${out#"$TOP"/})"
		return 0
	fi
	if [ "$rc" != 0 ]; then
		emit <<< "FAIL $name:guest_run: guest-run exit $rc (124 timeout, 125 kernel report, 123 no status); console: ${log#"$TOP"/}"
	fi
}
# The guest's command: the suites' output to /job/out/results and the
# console (a suite that dies is caught by its missing END).
results() { printf 'set -o pipefail; { %s; } 2>&1 | tee /job/out/results' "$*"; }

# check_base BASE: build systemd BASE, and its tests on both kernels.
check_base() {
	local b=$1 sd label unit_tests subtest oomd want
	sd=$BUILD/systemd-$b
	label=systemd-$b
	mkdir -p "$sd"
	if ! SD_BASE=$b "$TOP/scripts/systemd-build.sh" tests > "$sd/check-build.log" 2>&1; then
		tail -15 "$sd/check-build.log" >&2
		emit <<< "FAIL $label:build: $(grep -m1 '^error:' "$sd/check-build.log" || echo "see ${sd#"$TOP"/}/check-build.log")"
		return 0
	fi
	say "$label: $(cat "$sd/built-version") ($(ls "$(sd_series "$b")"/*.patch | wc -l) patches)"
	emit <<< "PASS $label:build"
	timed "$label build"
	emit < <("$TOP/tests/systemd/check-man.sh" "$sd/obj" "$b" | suites "$label-man")

	# systemd's own unit tests that cover the change run in the guest, under
	# our systemd as PID 1 (some need a booted systemd).
	unit_tests=$(sd_unit_tests "$b")
	if [ ! -f "$kernel" ]; then
		emit <<< "FAIL $label:kernel: no kernel at ${kernel#"$TOP"/}"
		return 0
	fi
	export SYSTEMD_DEST=$sd/dest
	subtest="SD_LABEL=$label $TOP/tests/systemd/run-subtest.sh $sd/src/test/units TEST-19-CGROUP reap-on-kill"
	# systemd-oomd's scenario on the upstream target only: the kernel path
	# is the same under 257, and it costs about 90 s of guest time.
	oomd=: want="$label-unit $label-subtest $label"
	if [ "$b" = "${SD_BASES%% *}" ]; then
		oomd="OOMD_WINDOW=12 SD_LABEL=$label $TOP/tests/systemd/test-oomd.sh"
		want="$want $label-oomd"
	fi
	step "booting systemd $b as PID 1 for its tests"
	run_guest "$label" "$sd/guest-integration.log" "$want" --systemd --kernel "$kernel" --timeout 900 -- \
		bash -c "$(results "SD_LABEL=$label $TOP/tests/systemd/run-unit-tests.sh $sd/obj $unit_tests;
			   $subtest;
			   SD_LABEL=$label SD_BASE=$b $TOP/tests/systemd/test-memory-reap-on-kill.sh patched;
			   $oomd")"
	grep -a '^# oomd ' "$sd/guest-integration.log" | tr -d '\r' >&2 || true
	timed "$label integration"
	boot=$(grep -ao 'Startup finished in [^.]*\.[0-9]*s' "$sd/guest-integration.log" | head -1 || true)
	[ -n "$boot" ] && say "systemd $b as PID 1: $boot (kernel + userspace, with the test job)"

	if [ -z "$nofile_kernel" ]; then
		emit <<< "FAIL $label-nofile: no kernel without memory.reap_on_kill (scripts/debian-kernel.sh failed; see above)"
		return 0
	fi
	step "systemd $b on a kernel without memory.reap_on_kill (${nofile_kernel#"$TOP"/})"
	run_guest "$label-nofile" "$sd/guest-nofile.log" "$label-nofile-subtest $label-nofile" --systemd \
		--kernel "$nofile_kernel" ${nofile_modules:+--modules "$nofile_modules"} --timeout 600 -- \
		bash -c "$(results "SD_LABEL=$label-nofile $TOP/tests/systemd/run-subtest.sh $sd/src/test/units TEST-19-CGROUP reap-on-kill;
			   SD_LABEL=$label SD_BASE=$b $TOP/tests/systemd/test-memory-reap-on-kill.sh nofile")"
	timed "$label nofile"
}

: > "$BUILD/systemd-times"
last=$SECONDS
if ! "$TOP/scripts/deps.sh" systemd >&2; then
	emit <<< "FAIL systemd:deps: scripts/deps.sh systemd failed"
	finish
fi
timed "systemd deps"
if [ -z "$nofile_kernel" ] && dk=$("$TOP/scripts/debian-kernel.sh"); then
	nofile_kernel=$dk/vmlinuz nofile_modules=$dk/modules.cpio.gz
fi
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
	run_guest libcgroup "$BUILD/systemd-libcgroup.log" "libcgroup containers" --kernel "$kernel" --timeout 400 -- \
		bash -c "$(results "$TOP/tests/systemd/test-libcgroup.sh; $TOP/tests/containers/test-runtimes.sh $hog")"
	timed "libcgroup+containers"
else
	skip_all "no kernel at ${kernel#"$TOP"/}" libcgroup:tests containers:tests
fi
finish
