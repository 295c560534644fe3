#!/bin/bash
# Compose the systemd build tree of SD_BASE (lib.sh): Debian's systemd
# source package of that base with Debian's own patches applied, then the
# base's series (patches/systemd for 262, patches/systemd-257) as one git
# commit per patch.
#
# The source is fetched with apt-get source through a private apt
# configuration under build/systemd-apt (its own sources list with the deb-src
# entries of sid, forky and trixie, its own state and cache); the machine's
# apt configuration is not touched.  The base's suites are tried in order
# (262: sid, then forky while the mirror lacks sid's files).  Like the
# kernel's, the tree is a patched tree of lib-tree.sh (tag "base": Debian's
# source with Debian's patches): edit it with git and write the commits back
# with scripts/systemd-export-series.sh.  A tree holding commits or edits that
# were not exported is never reset.
. "$(dirname "$0")/lib.sh"

SD_TREE=$SD/src
SD_APT=$BUILD/systemd-apt
SD_MIRROR=${SD_MIRROR:-http://deb.debian.org/debian}
fetch() {
	local suite dl=$SD/dl
	mkdir -p "$SD_APT" "$SD"
	for suite in sid forky trixie; do
		echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $SD_MIRROR $suite main"
	done > "$SD_APT/sources.list"
	step "apt-get update (private sources list: sid, forky, trixie deb-src)"
	private_apt_update "$SD_APT" "$SD/apt-update.log" ||
		die "apt-get update of Debian's source archive ($SD_MIRROR) failed; see ${SD#"$TOP"/}/apt-update.log"
	: > "$SD/apt-source.log"
	for suite in $SD_SUITES; do
		rm -rf "$dl"
		mkdir -p "$dl"
		step "apt-get source --download-only systemd/$suite"
		if (cd "$dl" && private_apt "$SD_APT" source --download-only "systemd/$suite") >> "$SD/apt-source.log" 2>&1 &&
		   ls "$dl"/systemd_*.dsc >/dev/null 2>&1; then
			return 0
		fi
		say "systemd/$suite could not be downloaded; see ${SD#"$TOP"/}/apt-source.log"
	done
	die "Debian's source archive did not give systemd from any of: $SD_SUITES (apt-get source failed); see ${SD#"$TOP"/}/apt-source.log"
}

if [ -d "$SD_TREE/.git" ]; then
	tree_guard "$SD_TREE" "$SD_SERIES" "make systemd-export-series SD_BASE=$SD_BASE"
	version=$(cat "$SD/base-version")
	if tree_is_current "$SD_TREE" "$version" "$SD_SERIES"; then
		exit 0
	fi
	step "systemd series changed: re-applying on $version"
	tree_reset "$SD_TREE"
else
	command -v dpkg-source >/dev/null || die "dpkg-source missing: run scripts/deps.sh systemd (package dpkg-dev)"
	ls "$SD/dl"/systemd_*.dsc >/dev/null 2>&1 || fetch
	dsc=$(ls "$SD/dl"/systemd_*.dsc | sort -V | tail -1)
	version=$(sed -n 's/^Version: //p' "$dsc")
	case $version in
	"$SD_BASE".*|"$SD_BASE"-*) ;;
	*) say "warning: Debian's systemd for SD_BASE=$SD_BASE is $version, not $SD_BASE.x: the series may not apply" ;;
	esac
	step "unpacking systemd $version with Debian's patches"
	rm -rf "$SD_TREE" "$SD_TREE.tmp"
	# dpkg-source applies debian/patches (format 3.0 quilt).  The .dsc's
	# signature is not checked (no debian-keyring); apt has checked the
	# files' hashes against the signed Release file.
	dpkg-source --no-check -x "$dsc" "$SD_TREE.tmp" > "$SD/unpack.log" 2>&1 ||
		die "dpkg-source -x $(basename "$dsc") failed; see ${SD#"$TOP"/}/unpack.log"
	rm -rf "$SD_TREE.tmp/.pc"
	tree_import "$SD_TREE" "Debian systemd $version, Debian's patches applied"
	echo "$version" > "$SD/base-version"
fi
tree_apply "$SD_TREE" "$SD_SERIES" "$version" "systemd $version"
step "systemd tree ready: $version + $(ls "$SD_SERIES"/*.patch 2>/dev/null | wc -l) patches"
