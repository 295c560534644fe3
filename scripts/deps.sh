#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install, from Debian's archive, whatever the build and the guest need and
# this machine lacks.  Each tool is named with the package that provides it.
#
#   deps.sh            what the kernel, the guest and the tests need
#   deps.sh systemd    also what building systemd and the libcgroup tests need
#   deps.sh deb        also what the kernel's bindeb-pkg target needs
#   deps.sh distro     also debootstrap and e2fsprogs, for scripts/distro-check.sh
#   deps.sh bench      also perf, for the reap's profile (bench.sh curves)
#   deps.sh fresh      only debootstrap, for scripts/fresh-check.sh (which
#                      installs the rest inside its own Debian root)
#
# Installs with 'apt-get install -y --no-install-recommends' as root, output
# in $BUILD/apt.log; exits non-zero naming the packages and that log if apt
# fails.  tests/harness/test-deps.sh checks this with a stub apt-get.
. "$(dirname "$0")/lib.sh"

# command-or-file  package  (/usr/lib32/libc.a: the compat robust-list test's
# 32-bit victim is linked statically; the archive keyring checks the private
# apt sources that fetch the mainline kernel and systemd)
NEEDS="
gcc:gcc
make:make
flex:flex
bison:bison
bc:bc
cpio:cpio
ccache:ccache
git:git
perl:perl
patch:patch
rsync:rsync
xz:xz-utils
mkfs.ext4:e2fsprogs
qemu-system-x86_64:qemu-system-x86
/usr/include/libelf.h:libelf-dev
/usr/include/openssl/ssl.h:libssl-dev
/usr/src/linux-source-6.12.tar.xz:linux-source-6.12
/usr/share/keyrings/debian-archive-keyring.gpg:debian-archive-keyring
/usr/lib/python3/dist-packages/ply:python3-ply
/usr/lib/python3/dist-packages/git:python3-git
gnuplot:gnuplot-nox
/usr/lib32/libc.a:gcc-multilib
"
# scripts/systemd-source.sh, systemd-build.sh, check-systemd.sh (which also
# runs the container runtimes' tests; the guest's system and user buses,
# which logind and "systemd-run --machine=testuser@ --user" need, are the
# host's dbus-daemon)
if [ "${1:-}" = systemd ]; then
	NEEDS="$NEEDS
dpkg-source:dpkg-dev
meson:meson
ninja:ninja-build
gperf:gperf
pkg-config:pkg-config
/usr/include/sys/capability.h:libcap-dev
/usr/include/libmount/libmount.h:libmount-dev
/usr/include/crypt.h:libcrypt-dev
/usr/include/security/pam_appl.h:libpam0g-dev
dbus-daemon:dbus-daemon
/usr/lib/systemd/user/dbus.socket:dbus-user-session
/usr/lib/python3/dist-packages/jinja2:python3-jinja2
/usr/lib/python3/dist-packages/elftools:python3-pyelftools
cgcreate:cgroup-tools
jq:jq
xsltproc:xsltproc
/usr/share/xml/docbook/stylesheet/docbook-xsl/manpages/docbook.xsl:docbook-xsl
/usr/share/xml/docbook/schema/dtd/4.5/docbookx.dtd:docbook-xml
groff:groff-base
runc:runc
crun:crun
podman:podman
"
fi

# scripts/make-deb.sh: the kernel's bindeb-pkg
if [ "${1:-}" = deb ]; then
	NEEDS="$NEEDS
dpkg-buildpackage:dpkg-dev
fakeroot:fakeroot
dh:debhelper
kmod:kmod
"
fi

# scripts/distro-check.sh: a Debian 13 root, its disk image and its boot
# (make deb, which it may run, checks its own needs)
if [ "${1:-}" = distro ]; then
	NEEDS="$NEEDS
debootstrap:debootstrap
mkfs.ext4:e2fsprogs
"
fi

# scripts/bench.sh curves: the profile of a reap, with perf in the guest
if [ "${1:-}" = bench ]; then
	NEEDS="$NEEDS
perf:linux-perf
"
fi

# scripts/fresh-check.sh: nothing else on the host
if [ "${1:-}" = fresh ]; then
	NEEDS="
debootstrap:debootstrap
"
fi

missing=()
for need in $NEEDS; do
	what=${need%%:*} pkg=${need##*:}
	case $what in
	/*) [ -e "$what" ] && continue ;;
	*) command -v "$what" >/dev/null && continue ;;
	esac
	say "missing $what: installing Debian package $pkg"
	missing+=("$pkg")
done
# The guest's initramfs needs the static busybox, not the dynamic one.
if [ "${1:-}" != fresh ] &&
   ! dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q "ok installed"; then
	say "missing static busybox: installing Debian package busybox-static"
	missing+=(busybox-static)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" = 0 ] || die "need root to install: apt-get install ${missing[*]}"
step "apt-get install ${missing[*]}"
# On a fresh checkout nothing has created build/ yet.
mkdir -p "$BUILD"
log=$BUILD/apt.log
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
	# A fresh machine may have never fetched the package lists.
	apt-get update >>"$log" 2>&1 || true
	apt-get install -y --no-install-recommends "${missing[@]}" >>"$log" 2>&1 ||
		die "apt-get install ${missing[*]} failed; see ${log#"$TOP"/}"
fi
