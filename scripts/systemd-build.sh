#!/bin/bash
# Build the patched systemd with meson and ninja, with only what booting it
# as the guest's PID 1 and the tests need, and install it into
# build/systemd/dest (a DESTDIR the guest overlays on the host's root).
#
#   systemd-build.sh          build and install (incremental; nothing to do
#                             when nothing changed)
#   systemd-build.sh tests    also build systemd's own unit tests that cover
#                             MemoryReapOnKill= (run by check-systemd.sh)
#
# Two build directories share ccache: obj (what is installed, no tests) and
# obj-tests (tests=true, but only the named test programs are built).
. "$(dirname "$0")/lib.sh"

SD=$BUILD/systemd
SD_TREE=$SD/src
OBJ_SD=$SD/obj
OBJ_SD_TESTS=$SD/obj-tests
DEST=$SD/dest
# systemd's own unit tests that cover MemoryReapOnKill= (test-load-fragment:
# parser, bus round trip, dump) or the code it touches (cgroup masks, unit
# serialization); the executor is needed by the tests' manager.
SD_UNIT_TESTS=${SD_UNIT_TESTS:-"test-load-fragment test-cgroup-mask test-cgroup-unit-default test-unit-serialize"}

"$TOP/scripts/systemd-source.sh"

# Everything optional off; the few booleans that default to on and are not
# needed, off too.  What is left: PID 1, the executor, journald, udevd,
# systemctl, systemd-run, systemd-analyze and libsystemd-shared.
OPTIONS=(
	-Dmode=release
	-Dbuildtype=debugoptimized
	-Dauto_features=disabled
	-Dman=disabled -Dhtml=disabled -Dtranslations=false
	-Danalyze=true
	-Dutmp=false -Dhibernate=false -Dldconfig=false -Dresolve=false
	-Defi=false -Dtpm=false -Denvironment-d=false -Dbinfmt=false
	-Dcoredump=false -Dpstore=false -Doomd=false -Dlogind=false
	-Dhostnamed=false -Dlocaled=false -Dmachined=false -Dportabled=false
	-Dsysext=false -Dmountfsd=false -Duserdb=false -Dnetworkd=false
	-Dtimedated=false -Dtimesyncd=false -Dnsresourced=false
	-Dnss-myhostname=false -Dnss-systemd=false -Dfirstboot=false
	-Drandomseed=false -Dbacklight=false -Dvconsole=false
	-Dquotacheck=false -Dsysusers=false -Dstoragetm=false -Dtmpfiles=false
	-Dhwdb=false -Drfkill=false -Dxdg-autostart=false -Didn=false
	-Dkernel-install=false -Dcreate-log-dirs=false -Dsmack=false
	-Dima=false -Dipe=false -Dgshadow=false -Dnscd=false
	-Dvmspawn=disabled -Dbootloader=disabled -Dukify=disabled
	-Dbpf-framework=disabled -Dstandalone-binaries=false
	-Dsysvinit-path= -Dsysvrcnd-path= -Drc-local=
	-Dprefix=/usr -Dsysconfdir=/etc -Dlocalstatedir=/var
	-Dversion-tag="$(cat "$SD/base-version")+reap-on-kill"
)

export CC="ccache gcc"
setup() {	# setup BUILDDIR TESTS
	local dir=$1 tests=$2 want
	want="${OPTIONS[*]} -Dtests=$tests"
	if [ -f "$dir/build.ninja" ] && [ "$(cat "$dir/.reap-options" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	step "meson setup ${dir#"$TOP"/} (tests=$tests)"
	rm -rf "$dir"
	meson setup "$dir" "$SD_TREE" "${OPTIONS[@]}" -Dtests="$tests" > "$SD/meson-setup-$(basename "$dir").log" 2>&1 ||
		die "meson setup failed; see build/systemd/meson-setup-$(basename "$dir").log"
	echo "$want" > "$dir/.reap-options"
}

setup "$OBJ_SD" false
# ninja regenerates version.h on every run, so "ninja -n" never says there is
# nothing to do; build, and install again only when something was relinked or
# the tree moved.
head=$(git -C "$SD_TREE" rev-parse HEAD)
step "building systemd $(cat "$SD/base-version") + series (log: build/systemd/ninja.log)"
ninja -C "$OBJ_SD" -j "$(make_jobs)" > "$SD/ninja.log" 2>&1 ||
	{ tail -30 "$SD/ninja.log" >&2; die "systemd build failed; see build/systemd/ninja.log"; }
if [ -f "$DEST/.reap-installed" ] && [ "$(cat "$DEST/.reap-installed")" = "$head" ] &&
   ! grep -q 'Linking target' "$SD/ninja.log"; then
	step "systemd install in build/systemd/dest is up to date"
else
	step "installing into build/systemd/dest"
	rm -rf "$DEST"
	DESTDIR=$DEST meson install -C "$OBJ_SD" --no-rebuild --quiet > "$SD/install.log" 2>&1 ||
		die "meson install failed; see build/systemd/install.log"
	echo "$head" > "$DEST/.reap-installed"
fi
echo "$(cat "$SD/base-version") $(git -C "$SD_TREE" describe --always --tags)" > "$SD/built-version"

if [ "${1:-}" = tests ]; then
	setup "$OBJ_SD_TESTS" true
	step "building systemd unit tests: $SD_UNIT_TESTS"
	# shellcheck disable=SC2086
	ninja -C "$OBJ_SD_TESTS" -j "$(make_jobs)" systemd-executor $SD_UNIT_TESTS > "$SD/ninja-tests.log" 2>&1 ||
		{ tail -30 "$SD/ninja-tests.log" >&2; die "systemd unit test build failed; see build/systemd/ninja-tests.log"; }
fi
