#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make the kernel base's pristine source tarball available and record it in
# $SOURCE_INFO as "PACKAGE VERSION TARBALL".
#
#   KBASE=6.12      Debian 12/13's linux-source-6.12, installed by
#                   scripts/deps.sh (/usr/src/linux-source-6.12.tar.xz).
#   KBASE=mainline  the newest linux-source-7.* that Debian unstable ships,
#                   downloaded with apt-get through a private configuration
#                   under build/linux-apt (the machine's apt setup is not
#                   touched) and unpacked under build/linux-mainline-dl.
#                   Fetched once; LINUX_REFRESH=1 looks for a newer one.
#                   LINUX_SUITE and LINUX_MIRROR choose the archive.
. "$(dirname "$0")/lib.sh"

suite=${LINUX_SUITE:-sid}
mirror=${LINUX_MIRROR:-http://deb.debian.org/debian}
apt_dir=$BUILD/linux-apt
dl=$BUILD/linux-$KBASE-dl

installed_6_12() {
	local tarball=/usr/src/linux-source-6.12.tar.xz version
	[ -r "$tarball" ] || die "$tarball missing: run 'make deps' (package linux-source-6.12)"
	version=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
	echo "linux-source-6.12 $version $tarball" > "$SOURCE_INFO"
}

# The newest linux-source-7.* in the suite's package index.
newest_mainline_package() {
	private_apt_update "$apt_dir" "$BUILD/logs/linux-apt-update.log" \
		-o APT::Architecture=amd64 -o APT::Architectures=amd64 ||
		die "apt-get update of Debian $suite ($mirror) failed; see build/logs/linux-apt-update.log"
	private_apt_cache "$apt_dir" pkgnames linux-source-7. 2>/dev/null |
		grep -E '^linux-source-7\.[0-9]+$' | sort -V | tail -1
}

fetch_mainline() {
	local pkg deb version tarball
	mkdir -p "$apt_dir" "$dl" "$BUILD/logs"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
		> "$apt_dir/sources.list"
	step "apt-get update (private sources list: Debian $suite)"
	pkg=$(newest_mainline_package)
	[ -n "$pkg" ] || die "Debian $suite lists no linux-source-7.* package"
	step "apt-get download $pkg ($suite)"
	rm -f "$dl"/*.deb "$dl"/*.tar.xz
	(cd "$dl" && private_apt "$apt_dir" download "$pkg") >"$BUILD/logs/linux-apt-download.log" 2>&1 ||
		die "apt-get download $pkg failed; see build/logs/linux-apt-download.log"
	deb=$(ls "$dl"/"$pkg"_*.deb)
	version=$(dpkg-deb -f "$deb" Version)
	tarball=$dl/$pkg.tar.xz
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz" > "$tarball.tmp" ||
		die "$deb holds no usr/src/$pkg.tar.xz"
	mv "$tarball.tmp" "$tarball"
	rm -f "$deb"	# the tarball is all we keep
	echo "$pkg $version $tarball" > "$SOURCE_INFO"
}

case $KBASE in
6.12)
	installed_6_12
	;;
mainline)
	if [ "${LINUX_REFRESH:-}" = 1 ] || [ ! -r "$SOURCE_INFO" ] ||
	   [ ! -r "$(cut -d' ' -f3 "$SOURCE_INFO")" ]; then
		fetch_mainline
	fi
	;;
esac
