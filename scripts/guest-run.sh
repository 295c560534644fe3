#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the built kernel in QEMU and run one command in the guest.
#
#   guest-run.sh [--kernel BZIMAGE] [--modules CPIO] [--timeout SECONDS] [--shell] [--systemd] [--] CMD...
#
# The command runs as root under bash in the guest's root (the host's root,
# read-only, with a tmpfs overlay) with its working directory on a fresh
# ext4 scratch disk.  Its output streams to the terminal; the whole console
# is kept under build/guest/logs.  --modules appends an initramfs of kernel
# modules for guest/init to load (a distribution's kernel:
# scripts/debian-kernel.sh).  What the command writes to /job/out in
# the guest is copied to $GUEST_OUT, if set, with the console as
# console.log.  With --systemd, the systemd built by
# scripts/systemd-build.sh (build/systemd-SD_BASE/dest, or $SYSTEMD_DEST) is
# overlaid on the root and boots as PID 1, and the command runs as its
# service reap-job.service.  Exit status: the command's own, or
#   124  the guest timed out        123  the guest did not report a status
#   125  the kernel reported a problem (panic, Oops, BUG, WARNING, ...) on
#        the console, in the kernel log at the end, or in a test binary's
#        kernel log (/job/out/*.dmesg, from guest/run-tests.sh)
# The guest has 2 vCPUs and $GUEST_MEM of memory (QEMU's -m, default 3G).
# GUEST_ICOUNT=SHIFT (TCG only) counts instructions: each one the vCPUs
# execute moves the guest's clocks 2^SHIFT ns on, whatever the host is
# doing, so a time measured in the guest is an instruction count (one
# vCPU runs at a time; idle time still follows the host's clock).
# GUEST_APPEND adds words to the kernel's command line (mutation-check.sh
# passes oops=panic, so that a mutant's oops ends the guest at once instead
# of leaving its test hung until the timeout).
. "$(dirname "$0")/lib.sh"

kernel=$OBJ/arch/x86/boot/bzImage
modules=
timeout=600
mode=cmd
jobmode=cmd
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--modules) modules=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--shell) mode=shell; shift ;;
	--systemd) jobmode=systemd; shift ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ "$mode" = shell ] || [ $# -gt 0 ] || die "usage: guest-run.sh [--kernel F] [--timeout S] [--shell] [--] CMD..."
[ -f "$kernel" ] || die "no kernel at ${kernel#"$TOP"/}: run 'make kernel'"
case $TOP in
*[[:space:]]*) die "the checkout's path has white space, which the guest's kernel command line cannot carry: $TOP" ;;
esac
append=${GUEST_APPEND:+ $GUEST_APPEND}
if [ "$jobmode" = systemd ]; then
	sddest=$(realpath -m "${SYSTEMD_DEST:-$SD/dest}")
	case $sddest in
	"$TOP"/*) ;;
	*) die "the systemd install $sddest is not under the checkout, which the guest cannot see" ;;
	esac
	[ -x "$sddest/usr/lib/systemd/systemd" ] || die "no systemd in ${sddest#"$TOP"/}: run SD_BASE=$SD_BASE scripts/systemd-build.sh"
	append="$append reap.sdroot=${sddest#"$TOP"/}"
fi
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: install Debian package qemu-system-x86"
"$TOP/scripts/build-initramfs.sh"

guest=$BUILD/guest
mkdir -p "$guest/logs"
job=$(mktemp -d "$guest/job.XXXXXX")
trap 'rm -rf "$job"' EXIT
mkdir -p "$job/out"
initrd=$guest/initramfs.cpio.gz
if [ -n "$modules" ]; then
	[ -f "$modules" ] || die "no modules initramfs at ${modules#"$TOP"/}"
	# The kernel unpacks concatenated cpio archives one after the other.
	initrd=$job/initramfs.cpio.gz
	cat "$guest/initramfs.cpio.gz" "$modules" > "$initrd"
fi
stamp=$(date +%Y%m%d-%H%M%S)
log=$guest/logs/console-$stamp-$$.log

# A fresh scratch filesystem for every boot, private to this run so that
# guests can run side by side.
scratch=$job/scratch.img
truncate -s 8G "$scratch"
mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1 "$scratch" ||
	die "mkfs.ext4 failed: install Debian package e2fsprogs"

{
	echo "set -o pipefail"
	printf '%q ' "$@"
	echo
} > "$job/cmd"

# Fills QEMU with the command line for accelerator $1 and job mode $2.
#
# Kernel log: loglevel=5 (after quiet, which it overrides) puts every
# message up to KERN_WARNING on the console: WARNING, lockdep, ODEBUG and
# "suspicious RCU usage" reports are printed at that level, and the console
# is the one log that survives a hang.  KERN_NOTICE and KERN_INFO stay off
# it (boot chatter, the OOM killer's memory and task tables) because the
# serial console is slow under emulation; they are in the kernel's buffer,
# which guest/run-tests.sh saves and clears after every test binary, and
# which log_buf_len makes 64 times the default 128 KiB: far more than one
# binary logs (test_reap_on_kill_stress: 43 KiB in its 30 s; a 'make stress'
# run, which is not split, at that rate 2 MiB), and within the 16 MiB that
# busybox's dmesg reads in one call.  'quiet' stays for systemd
# (reap.mode=systemd), which reads it to keep its status lines off the
# console.
#
# Guest clock under TCG: tsc=unstable.  TCG derives the guest's TSC from the
# host's rdtsc, and hosts that are themselves virtual machines may have a TSC
# that jumps (this CI host boots with tsc=unstable and kvm-clock).  One such
# jump moved a check-debug guest's clock 5.4 days forward: the clocksource
# watchdog reported "Long readout interval", the soft-lockup detector fired
# and timeout(1) killed a test binary that was running fine.  With the TSC
# marked unstable the guest keeps time with the HPET, which QEMU emulates
# from the host's monotonic clock, and sched_clock() is filtered against it.
qemu_argv() {
	local accel=$1 mode=$2 cpu=max clock=" tsc=unstable"
	[ "$accel" = kvm ] && cpu=host clock=
	# Under icount the TSC counts instructions, not the host's time: it
	# cannot jump, and it gives clock_gettime() a resolution of one
	# instruction, where the HPET's is 10 ns.
	[ -n "${GUEST_ICOUNT:-}" ] && clock=
	# shellcheck disable=SC2054 # commas inside QEMU option values
	QEMU=(qemu-system-x86_64 -machine q35 -accel "$accel" -cpu "$cpu"
		-smp 2 -m "${GUEST_MEM:-3G}" -no-reboot -nodefaults
		-kernel "$kernel" -initrd "$initrd"
		-append "console=ttyS0 quiet loglevel=5 log_buf_len=8M panic=-1 reap.mode=$mode reap.repo=$TOP$clock$append"
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
		-virtfs "local,path=$job,mount_tag=job,security_model=none,multidevs=remap"
		-virtfs "local,path=$TOP,mount_tag=repo,security_model=none,readonly=on,multidevs=remap"
		-drive "file=$scratch,if=virtio,format=raw,cache=unsafe"
		-device virtio-rng-pci)
	[ -z "${GUEST_ICOUNT:-}" ] || QEMU+=(-icount "shift=$GUEST_ICOUNT")
}

# /dev/kvm exists on machines where it cannot boot a guest: try it once,
# with a short bound, and remember the answer.
detect_accel() {
	local cache=$guest/accel accel=tcg,thread=multi
	if [ ! -f "$cache" ]; then
		if [ -w /dev/kvm ]; then
			mv "$job/cmd" "$job/cmd.real"
			echo true > "$job/cmd"
			qemu_argv kvm cmd
			timeout -k 5 30 "${QEMU[@]}" -display none -monitor none \
				-serial "file:$guest/logs/kvm-probe.log" </dev/null >/dev/null 2>&1 || true
			[ "$(cat "$job/rc" 2>/dev/null)" = 0 ] && accel=kvm
			rm -f "$job/rc" "$job/dmesg"
			mv "$job/cmd.real" "$job/cmd"
		fi
		echo "$accel" > "$cache"
	fi
	cat "$cache"
}

# icount is TCG's alone, and TCG works everywhere: no KVM for it.
if [ -n "${GUEST_ICOUNT:-}" ]; then
	accel=tcg,thread=single
else
	accel=$(detect_accel)
fi
if [ "$mode" = shell ]; then
	say "guest: $accel, $(basename "$kernel"); Ctrl-A X quits QEMU"
	qemu_argv "$accel" shell
	"${QEMU[@]}" -nographic -serial mon:stdio
	exit 0
fi

say "guest: booting ${kernel#"$TOP"/} under $accel${GUEST_ICOUNT:+ with icount shift=$GUEST_ICOUNT} (timeout ${timeout}s, console: ${log#"$TOP"/})"
set +e
qemu_argv "$accel" "$jobmode"
timeout -k 10 "$timeout" "${QEMU[@]}" -display none -monitor none -serial stdio \
	</dev/null 2>&1 | tee "$log"
qemu_rc=${PIPESTATUS[0]}
set -e
[ -f "$job/dmesg" ] && cp "$job/dmesg" "${log%.log}.dmesg"
if [ -n "${GUEST_OUT:-}" ]; then
	mkdir -p "$GUEST_OUT"
	cp -r "$job/out/." "$GUEST_OUT/"
	cp "$log" "$GUEST_OUT/console.log"
fi

if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
	say "guest: timed out after ${timeout}s; console: ${log#"$TOP"/}"
	exit 124
fi
# The console, the kernel log at the end, and the kernel log of each test
# binary that guest/run-tests.sh saved.
logs=("$log" "$job/dmesg")
mapfile -t -O 2 logs < <(find "$job/out" -name '*.dmesg' | sort)
if ! reports=$("$TOP/scripts/scan-console.sh" "${logs[@]}"); then
	say "guest: the kernel reported problems; console: ${log#"$TOP"/}"
	printf '%s\n' "$reports" | sed -e "s|^$job/out/||" -e "s|^$job/||" -e "s|^$guest/logs/||" |
		head -20 >&2
	exit 125
fi
if [ ! -f "$job/rc" ]; then
	say "guest: no exit status reported (qemu exit $qemu_rc); console: ${log#"$TOP"/}"
	exit 123
fi
exit "$(cat "$job/rc")"
