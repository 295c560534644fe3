#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make distro-check: the README's install on Debian 13, done the way its
# users would, in a disk image booted with its own init.  Needs root
# (debootstrap, chroot, mounts).  Not part of make check.
#
#   distro-check.sh [debian|patched|all]     (default: all)
#   distro-check.sh root                     only step 1
#
# 1. build/distro/root: Debian 13 (trixie), debootstrap's minbase variant
#    plus systemd-sysv and udev, built once and kept pristine
#    (DISTRO_REBUILD=1 starts over).
# 2. The kernel package of make deb (built first if build/deb has none) is
#    installed in a copy of it with "apt install ./linux-image-...deb", as
#    the README says.  A disk image is made from that copy (mkfs.ext4 -d)
#    and booted in QEMU from the kernel the package installed in its /boot,
#    root on virtio (built into the packaged kernel: no initramfs).  A unit
#    in the image runs tests/distro/check-installed.sh under the image's own
#    systemd and powers off; its PASS/FAIL lines come back on the serial
#    console.
#    debian:  with Debian's systemd 257, unpatched.
#    patched: with the systemd binary packages built from make deb's source
#             package in a trixie chroot (apt-get build-dep, dpkg-buildpackage
#             -b, DEB_BUILD_OPTIONS=nocheck, profiles noudeb nocheck
#             noinsttest; kept in build/distro/debs), all
#             installed with the README's "apt install ./...deb" line, and
#             the README's drop-in on batch.slice.
#
# The console's first line starts with systemd's terminal reset, so result
# lines are matched anywhere in a line.  Ends with "N passed, N failed";
# exit status 0 only if nothing failed.
#   DISTRO_MIRROR   the Debian mirror; by default this machine's, else
#                   deb.debian.org
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/chroot-lib.sh"

what=${1:-all}
case $what in
debian | patched | all | root) ;;
*) die "usage: distro-check.sh [debian|patched|all|root]" ;;
esac
[ "$(id -u)" = 0 ] || die "make distro-check needs root (debootstrap, chroot, mount)"
"$TOP/scripts/deps.sh" distro

distro=$(realpath -m "$BUILD/distro")
base=$distro/root
run=$distro/run
debs=$distro/debs
case $distro in
*[[:space:]]*) die "the checkout's path has white space: $distro" ;;
esac
mkdir -p "$distro" "$debs"
passed=0 failed=0
trap 'kill_chroot_procs "$run"; unmount_all "$run"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mirror=${DISTRO_MIRROR:-$(mirror_of bookworm http://deb.debian.org/debian)}

make_base() {
	[ "${DISTRO_REBUILD:-0}" != 1 ] && [ -f "$base.complete" ] && return 0
	step "debootstrap: Debian 13 minbase with systemd from $mirror into ${base#"$TOP"/}"
	rm -f "$base.complete"
	remove_tree "$base"
	if ! debootstrap --variant=minbase --include=systemd-sysv,udev trixie "$base" "$mirror" \
		> "$distro/debootstrap.log" 2>&1; then
		tail -5 "$distro/debootstrap.log" >&2
		die "debootstrap failed; see ${distro#"$TOP"/}/debootstrap.log"
	fi
	forbid_daemons "$base"
	touch "$base.complete"
}

# The newest file in build/deb matching the glob PATTERN, debug symbol
# packages aside.
newest_deb_file() {	# newest_deb_file PATTERN
	# shellcheck disable=SC2086,SC2010 # PATTERN is a glob; names have no spaces
	ls -t $BUILD/deb/$1 2>/dev/null | grep -v -- -dbg_ | head -1
}

# That file, running make deb first if there is none.
from_make_deb() {	# from_make_deb PATTERN
	local f
	f=$(newest_deb_file "$1")
	if [ -z "$f" ]; then
		"$TOP/scripts/make-deb.sh" >&2 || die "make deb failed"
		f=$(newest_deb_file "$1")
	fi
	[ -n "$f" ] || die "make deb wrote no $1"
	echo "$f"
}

# The patched systemd's binary packages, built in a trixie chroot from make
# deb's source package, once.
systemd_debs() {
	local dsc build=$distro/build
	if ls "$debs"/systemd_*+reaponkill1_*.deb > /dev/null 2>&1; then
		return 0
	fi
	dsc=$(from_make_deb 'systemd_*+reaponkill1.dsc') || exit
	step "building the patched systemd's packages from $(basename "$dsc") in a trixie chroot (log: ${distro#"$TOP"/}/systemd-build.log)"
	copy_root "$base" "$build"
	mkdir -p "$build/src"
	cp "$(dirname "$dsc")"/systemd_*+reaponkill1* "$(dirname "$dsc")"/systemd_*.orig.tar.* "$build/src/"
	bind_system "$build"
	local start=$SECONDS rc=0
	# Without the installer's udeb flavour (a second full build) and the
	# test packages; apt-get build-dep and dpkg-buildpackage both read the
	# profiles from the environment.
	in_root "$build" /bin/bash -c "set -e; cd /src
		export DEB_BUILD_PROFILES='noudeb nocheck noinsttest'
		apt-get update
		apt-get install -y --no-install-recommends dpkg-dev
		apt-get build-dep -y ./$(basename "$dsc")
		dpkg-source -x $(basename "$dsc") tree
		cd tree && DEB_BUILD_OPTIONS='nocheck noautodbgsym parallel=$(nproc)' dpkg-buildpackage -b -uc -us" \
		> "$distro/systemd-build.log" 2>&1 || rc=$?
	kill_chroot_procs "$build"
	unmount_all "$build"
	[ "$rc" = 0 ] || { tail -20 "$distro/systemd-build.log" >&2; die "the systemd packages did not build; see ${distro#"$TOP"/}/systemd-build.log"; }
	cp "$build"/src/*.deb "$debs/"
	say "distro-check: the systemd packages built in $((SECONDS - start)) s"
	remove_tree "$build"
}

# The README's install line for the patched systemd, run in the root DIR
# with the packages in DIR/root/debs: ours replaces every installed package
# built from systemd's source, since they depend on each other's exact
# version (minbase has libudev1 besides systemd, systemd-sysv, udev,
# libsystemd0 and libsystemd-shared).
install_systemd() {	# install_systemd DIR
	cat > "$1/root/install-systemd.sh" <<-'EOF'
	cd /root/debs || exit
	apt install -y $(dpkg-query -W -f '${db:Status-Abbrev} ${binary:Package} ${source:Package}\n' |
		awk '$1 == "ii" && $3 == "systemd" { sub(/:.*/, "", $2); print "./" $2 "_*+reaponkill1_*.deb" }')
	EOF
	in_root "$1" /bin/bash -x /root/install-systemd.sh
}

# boot_check MODE: a copy of the root with the kernel package (and in
# patched mode our systemd) installed as the README says, made into a disk
# image and booted; counts the result lines.
boot_check() {
	local mode=$1 deb img=$distro/disk.img console=$distro/console-$1.log kernel line
	deb=$(from_make_deb 'linux-image-*-reap-on-kill_*.deb') || exit
	step "$mode: installing $(basename "$deb") in a copy of the root"
	copy_root "$base" "$run"
	mkdir -p "$run/root/debs"
	cp "$deb" "$run/root/debs/"
	bind_system "$run"
	in_root "$run" /bin/bash -c "cd /root/debs && apt install -y ./$(basename "$deb")" \
		> "$distro/install-$mode.log" 2>&1 ||
		die "apt install ./$(basename "$deb") failed; see ${distro#"$TOP"/}/install-$mode.log"
	if [ "$mode" = patched ]; then
		cp "$debs"/*.deb "$run/root/debs/"
		install_systemd "$run" >> "$distro/install-$mode.log" 2>&1 ||
			die "installing the systemd packages failed; see ${distro#"$TOP"/}/install-$mode.log"
		# The README's drop-in.
		mkdir -p "$run/etc/systemd/system/batch.slice.d"
		printf '[Slice]\nMemoryReapOnKill=yes\n' > "$run/etc/systemd/system/batch.slice.d/reap.conf"
	fi
	kill_chroot_procs "$run"
	unmount_all "$run"

	# The check, run at boot by the image's systemd.
	gcc -static -O2 -o "$run/root/hog" "$TOP/tests/containers/hog.c" || die "cannot link tests/containers/hog.c statically"
	mkdir -p "$run/root/tests/distro"
	cp "$TOP/tests/lib.sh" "$run/root/tests/"
	cp "$TOP/tests/distro/check-installed.sh" "$run/root/tests/distro/"
	cat > "$run/etc/systemd/system/distro-check.service" <<-EOF
	[Unit]
	Description=make distro-check: the README's install, checked
	After=multi-user.target
	[Service]
	Type=oneshot
	ExecStart=/bin/bash /root/tests/distro/check-installed.sh $mode /root/hog
	StandardOutput=tty
	StandardError=tty
	TTYPath=/dev/ttyS0
	ExecStopPost=/usr/bin/systemctl --no-block poweroff
	[Install]
	WantedBy=multi-user.target
	EOF
	# The check writes to the serial console: no login prompt there, whose
	# getty would hang up the terminal under the running check.
	ln -sf /dev/null "$run/etc/systemd/system/serial-getty@ttyS0.service"
	mkdir -p "$run/etc/systemd/system/multi-user.target.wants"
	ln -sf ../distro-check.service "$run/etc/systemd/system/multi-user.target.wants/"
	kernel=$(ls "$run"/boot/vmlinuz-*-reap-on-kill | tail -1)
	[ -f "$kernel" ] || die "the kernel package put no vmlinuz in /boot"
	cp "$kernel" "$distro/vmlinuz"

	step "$mode: booting $(basename "$kernel") from a disk image of that root"
	rm -f "$img"
	mkfs.ext4 -q -d "$run" -L root "$img" 4G || die "mkfs.ext4 -d failed"
	# QEMU tries the accelerators in order: KVM where it works, else TCG.
	# shellcheck disable=SC2054 # the comma belongs to tcg's option
	local accel=(-accel tcg,thread=multi)
	[ -w /dev/kvm ] && accel=(-accel kvm "${accel[@]}")
	timeout -k 10 1200 qemu-system-x86_64 -machine q35 "${accel[@]}" -cpu max -smp 2 -m 2G \
		-no-reboot -nodefaults -display none -serial "file:$console" \
		-kernel "$distro/vmlinuz" \
		-append "root=/dev/vda rw console=ttyS0 quiet systemd.show_status=0 panic=-1" \
		-drive "file=$img,if=virtio,format=raw" > "$distro/qemu-$mode.log" 2>&1
	local rc=$?
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"PASS "*) passed=$((passed + 1)); echo "$line" ;;
		"FAIL "*) failed=$((failed + 1)); echo "$line" ;;
		esac
	done < <(grep -aoE "(PASS|FAIL) distro-$mode:.*" "$console")
	if ! tr -d '\r' < "$console" | grep -aqx DONE; then
		failed=$((failed + 1))
		echo "FAIL distro-$mode:boot: no DONE from the check (qemu exit $rc; console: ${console#"$TOP"/})"
	fi
}

make_base
[ "$what" = root ] && exit 0
case $what in
debian | all) boot_check debian ;;
esac
case $what in
patched | all) systemd_debs && boot_check patched ;;
esac
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
