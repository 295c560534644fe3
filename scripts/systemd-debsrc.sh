#!/bin/bash
# A Debian source package of the patched systemd, for Debian 13 (trixie):
# Debian's own systemd 257 source package with the 257 backport
# (patches/systemd-257) added to
# debian/patches and a changelog entry, written to build/deb/.  Unpacking it
# again with dpkg-source applies the patches, which checks that they do.
#
# Its binary packages are built on trixie (dpkg-buildpackage -b): trixie's
# build dependencies are not all in Debian 12, and the full build takes
# hours on 2 cores, so this machine only builds the lean systemd that
# make check boots (scripts/systemd-build.sh).
export SD_BASE=257
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/systemd-source.sh" >&2
dsc=$(ls "$SD"/dl/systemd_*.dsc 2>/dev/null | head -1)
[ -n "$dsc" ] || die "no systemd source package in ${SD#"$TOP"/}/dl"
work=$BUILD/systemd-debsrc
out=$BUILD/deb
rm -rf "$work"
mkdir -p "$work" "$out"
# apt checked the files against the signed Sources index.
dpkg-source -q --no-check -x "$dsc" "$work/systemd" >/dev/null ||
	die "dpkg-source -x $(basename "$dsc") failed"

version=$(dpkg-parsechangelog -l "$work/systemd/debian/changelog" -S Version)
new=$version+reaponkill1
mkdir -p "$work/systemd/debian/patches"
for p in "$SD_SERIES"/*.patch; do
	name=reap-on-kill/$(basename "$p")
	mkdir -p "$work/systemd/debian/patches/reap-on-kill"
	cp "$p" "$work/systemd/debian/patches/$name"
	echo "$name" >> "$work/systemd/debian/patches/series"
done
{
	printf 'systemd (%s) trixie; urgency=medium\n\n' "$new"
	printf '  * Add MemoryReapOnKill=, for the kernel'"'"'s memory.reap_on_kill\n'
	printf '    (debian/patches/reap-on-kill/).\n\n'
	printf ' -- reap-on-kill developers <dev@reap-on-kill.invalid>  %s\n\n' \
		"$(date -R -d "$KBUILD_BUILD_TIMESTAMP")"
	cat "$work/systemd/debian/changelog"
} > "$work/changelog"
mv "$work/changelog" "$work/systemd/debian/changelog"

# dpkg-source -b wants the patches unapplied, as they are, and the orig
# tarball next to the tree.
cp "$(dirname "$dsc")"/systemd_*.orig.tar.* "$work/"
(cd "$work" && dpkg-source -q -b systemd >/dev/null) ||
	die "dpkg-source -b failed in build/systemd-debsrc"
rm -f "$out"/systemd_*
cp "$work"/systemd_"${new#*:}".dsc "$work"/systemd_"${new#*:}".debian.tar.* \
	"$work"/systemd_*.orig.tar.* "$out/"

# Unpacking applies every patch in debian/patches/series.
check=$work/check
rm -rf "$check"
dpkg-source -q -x "$out/systemd_${new#*:}.dsc" "$check" >/dev/null ||
	die "the source package does not unpack: a patch does not apply"
grep -q MemoryReapOnKill "$check/src/core/load-fragment-gperf.gperf.in" ||
	die "the unpacked source package lacks MemoryReapOnKill="
step "systemd source package: build/deb/systemd_${new#*:}.dsc ($(ls "$SD_SERIES"/*.patch | wc -l) patches in debian/patches/reap-on-kill)"
