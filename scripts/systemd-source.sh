#!/bin/bash
# Compose the systemd build tree: Debian trixie's systemd source package
# (257.x) with Debian's own patches applied, then our series
# patches/systemd/*.patch as one git commit per patch.
#
# The source is fetched with apt-get source through a private apt
# configuration under build/systemd-apt (its own sources list with a trixie
# deb-src entry, its own state and cache); the machine's apt configuration is
# not touched.  Like prepare-tree.sh for the kernel, the tree is a git
# repository (tag "base": Debian's source with Debian's patches; tag
# "applied": our series on top); edit it with git and write the commits back
# with scripts/systemd-export-series.sh.  A tree holding commits or edits that
# were not exported is never reset.
. "$(dirname "$0")/lib.sh"

SD_SERIES=$TOP/patches/systemd
SD_TREE=$BUILD/systemd/src
SD_APT=$BUILD/systemd-apt
SD_SUITE=${SD_SUITE:-trixie}
SD_MIRROR=${SD_MIRROR:-http://deb.debian.org/debian}
stamp=$SD_TREE/.git/reap-on-kill-applied
sd_series_id=$({ cat "$SD_SERIES"/*.patch 2>/dev/null || true; } | sha1sum | cut -c1-12)

# apt with our own configuration only.
sd_apt() {
	apt-get -q \
		-o Dir::Etc::SourceList="$SD_APT/sources.list" \
		-o Dir::Etc::SourceParts="$SD_APT/sources.list.d" \
		-o Dir::Etc::Preferences="$SD_APT/preferences" \
		-o Dir::Etc::PreferencesParts="$SD_APT/preferences.d" \
		-o Dir::State="$SD_APT/state" \
		-o Dir::State::Status="$SD_APT/state/status" \
		-o Dir::Cache="$SD_APT/cache" \
		-o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root \
		"$@"
}

fetch() {
	mkdir -p "$SD_APT/sources.list.d" "$SD_APT/preferences.d" \
		"$SD_APT/state/lists/partial" "$SD_APT/cache/archives/partial" "$BUILD/systemd"
	: > "$SD_APT/state/status"
	: > "$SD_APT/preferences"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $SD_MIRROR $SD_SUITE main" \
		> "$SD_APT/sources.list"
	step "apt-get update (private sources list: $SD_SUITE deb-src)"
	sd_apt update > "$BUILD/systemd/apt-update.log" 2>&1 ||
		die "apt-get update of Debian's $SD_SUITE source archive ($SD_MIRROR) failed; see build/systemd/apt-update.log"
	local dl=$BUILD/systemd/dl
	rm -rf "$dl"
	mkdir -p "$dl"
	step "apt-get source --download-only systemd ($SD_SUITE)"
	(cd "$dl" && sd_apt source --download-only systemd) > "$BUILD/systemd/apt-source.log" 2>&1 ||
		die "Debian's $SD_SUITE source archive did not give systemd (apt-get source failed); see build/systemd/apt-source.log"
	ls "$dl"/systemd_*.dsc >/dev/null 2>&1 || die "no systemd .dsc was downloaded; see build/systemd/apt-source.log"
}

if [ -d "$SD_TREE/.git" ]; then
	"$TOP/scripts/systemd-check-tree.sh"
	version=$(cat "$BUILD/systemd/base-version")
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version $sd_series_id" ]; then
		exit 0
	fi
	step "systemd series changed: re-applying on $version"
	git -C "$SD_TREE" reset -q --hard base
	git -C "$SD_TREE" clean -qfdx
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
	git -C "$SD_TREE.tmp" init -q
	git -C "$SD_TREE.tmp" config user.name "reap-on-kill build"
	git -C "$SD_TREE.tmp" config user.email "build@reap-on-kill.invalid"
	git -C "$SD_TREE.tmp" config core.autocrlf false
	git -C "$SD_TREE.tmp" config gc.auto 0
	git -C "$SD_TREE.tmp" add -A -f .
	git -C "$SD_TREE.tmp" commit -q -m "Debian systemd $version ($SD_SUITE), Debian's patches applied"
	git -C "$SD_TREE.tmp" tag base
	mv "$SD_TREE.tmp" "$SD_TREE"
	echo "$version" > "$BUILD/systemd/base-version"
fi

for p in "$SD_SERIES"/*.patch; do
	[ -e "$p" ] || continue
	if ! git -C "$SD_TREE" am -q --keep-cr "$p" >/dev/null 2>&1; then
		git -C "$SD_TREE" am --abort >/dev/null 2>&1 || true
		die "patch $(basename "$p") does not apply to systemd $version; rebase the series"
	fi
done
git -C "$SD_TREE" tag -f applied >/dev/null
echo "$version $sd_series_id" > "$stamp"
step "systemd tree ready: $version + $(ls "$SD_SERIES"/*.patch 2>/dev/null | wc -l) patches"
