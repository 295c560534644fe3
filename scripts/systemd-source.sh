#!/bin/bash
# Compose the systemd build tree: Debian trixie's systemd source package
# (257.x) with Debian's own patches applied, then our series
# patches/systemd/*.patch as one git commit per patch.
#
# The source is fetched with apt-get source through a private apt
# configuration under build/systemd-apt (its own sources list with a trixie
# deb-src entry, its own state and cache); the machine's apt configuration is
# not touched.  Like the kernel's, the tree is a patched tree of lib-tree.sh
# (tag "base": Debian's source with Debian's patches): edit it with git and
# write the commits back with scripts/systemd-export-series.sh.  A tree
# holding commits or edits that were not exported is never reset.
. "$(dirname "$0")/lib.sh"

SD_SERIES=$TOP/patches/systemd
SD_TREE=$BUILD/systemd/src
SD_APT=$BUILD/systemd-apt
SD_SUITE=${SD_SUITE:-trixie}
SD_MIRROR=${SD_MIRROR:-http://deb.debian.org/debian}
fetch() {
	mkdir -p "$SD_APT" "$BUILD/systemd"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $SD_MIRROR $SD_SUITE main" \
		> "$SD_APT/sources.list"
	step "apt-get update (private sources list: $SD_SUITE deb-src)"
	private_apt "$SD_APT" update > "$BUILD/systemd/apt-update.log" 2>&1 ||
		die "apt-get update of Debian's $SD_SUITE source archive ($SD_MIRROR) failed; see build/systemd/apt-update.log"
	local dl=$BUILD/systemd/dl
	rm -rf "$dl"
	mkdir -p "$dl"
	step "apt-get source --download-only systemd ($SD_SUITE)"
	(cd "$dl" && private_apt "$SD_APT" source --download-only systemd) > "$BUILD/systemd/apt-source.log" 2>&1 ||
		die "Debian's $SD_SUITE source archive did not give systemd (apt-get source failed); see build/systemd/apt-source.log"
	ls "$dl"/systemd_*.dsc >/dev/null 2>&1 || die "no systemd .dsc was downloaded; see build/systemd/apt-source.log"
}

if [ -d "$SD_TREE/.git" ]; then
	tree_guard "$SD_TREE" "$SD_SERIES" "make systemd-export-series"
	version=$(cat "$BUILD/systemd/base-version")
	if tree_is_current "$SD_TREE" "$version" "$SD_SERIES"; then
		exit 0
	fi
	step "systemd series changed: re-applying on $version"
	tree_reset "$SD_TREE"
else
	command -v dpkg-source >/dev/null || die "dpkg-source missing: run scripts/deps.sh systemd (package dpkg-dev)"
	ls "$BUILD/systemd/dl"/systemd_*.dsc >/dev/null 2>&1 || fetch
	dsc=$(ls "$BUILD/systemd/dl"/systemd_*.dsc | sort -V | tail -1)
	version=$(sed -n 's/^Version: //p' "$dsc")
	case $version in
	257.*) ;;
	*) say "warning: $SD_SUITE's systemd is $version, not 257.x" ;;
	esac
	step "unpacking systemd $version with Debian's patches"
	rm -rf "$SD_TREE" "$SD_TREE.tmp"
	# dpkg-source applies debian/patches (format 3.0 quilt).  The .dsc's
	# signature is not checked (no debian-keyring); apt has checked the
	# files' hashes against the signed Release file.
	dpkg-source --no-check -x "$dsc" "$SD_TREE.tmp" > "$BUILD/systemd/unpack.log" 2>&1 ||
		die "dpkg-source -x $(basename "$dsc") failed; see build/systemd/unpack.log"
	rm -rf "$SD_TREE.tmp/.pc"
	tree_import "$SD_TREE" "Debian systemd $version ($SD_SUITE), Debian's patches applied"
	echo "$version" > "$BUILD/systemd/base-version"
fi
tree_apply "$SD_TREE" "$SD_SERIES" "$version" "systemd $version"
step "systemd tree ready: $version + $(ls "$SD_SERIES"/*.patch 2>/dev/null | wc -l) patches"
