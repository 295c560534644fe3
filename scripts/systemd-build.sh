#!/bin/bash
# Build the patched systemd of SD_BASE (lib.sh) with meson and ninja, with
# only what booting it as the guest's PID 1 and the tests need, and install
# it into build/systemd-SD_BASE/dest (a DESTDIR the guest overlays on the
# host's root).
#
#   systemd-build.sh          build and install (incremental; nothing to do
#                             when nothing changed)
#   systemd-build.sh tests    also build systemd's own unit tests that cover
#                             MemoryReapOnKill= and the man pages that
#                             document it (checked by check-systemd.sh)
#
# One build directory, configured with tests=true so that the unit tests can
# be built in it, but only what is installed and the named test programs are
# built (not the hundreds of other tests): one compile of everything, not two.
. "$(dirname "$0")/lib.sh"

SD_TREE=$SD/src
OBJ_SD=$SD/obj
DEST=$SD/dest
REL=${SD#"$TOP"/}
# The unit tests to build (lib.sh); the executor is needed by their manager.
SD_UNIT_TESTS=${SD_UNIT_TESTS:-$(sd_unit_tests "$SD_BASE")}
# The man pages that document the setting, rendered as systemd's build does
# (xsltproc, docbook-xsl), for tests/systemd/check-man.sh.
SD_MAN_PAGES="man/systemd.resource-control.5 man/systemd-oomd.service.8 man/org.freedesktop.systemd1.5"

"$TOP/scripts/systemd-source.sh"

# Not optimized (-O0), without debug information: a cold make check
# compiles systemd twice, and -O0 compiles in about 0.4x the time of -O2
# (measured on four of its largest files).  systemd's own CI builds and
# tests at -O0 as well as -O2 (see its meson.build on -Wmaybe-uninitialized),
# and what is tested here is behaviour, not speed.
# Everything optional off; the few booleans that default to on and are not
# needed, off too.  What is left: PID 1, the executor, journald, udevd,
# systemctl, systemd-run, systemd-analyze, systemd-oomd (the killer the
# oomd scenario runs), libsystemd-shared, and logind with PAM (pam_systemd,
# user-runtime-dir): the user-manager test reaches testuser's user@.service
# with "systemd-run --machine=testuser@ --user", as upstream's tests do,
# which opens a PAM session (PAMName=login) that logind answers.
OPTIONS=(
	-Dmode=release
	-Doptimization=0 -Ddebug=false
	-Dauto_features=disabled
	-Dman=disabled -Dhtml=disabled -Dtranslations=false
	-Danalyze=true
	-Dutmp=false -Dhibernate=false -Dldconfig=false -Dresolve=false
	-Defi=false -Dtpm=false -Denvironment-d=false -Dbinfmt=false
	-Dcoredump=false -Dpstore=false -Dlogind=true -Dpam=enabled
	-Dhostnamed=false -Dlocaled=false -Dmachined=false -Dportabled=false
	-Dsysext=false -Dmountfsd=false -Duserdb=false -Dnetworkd=false
	-Dtimedated=false -Dtimesyncd=false -Dnsresourced=false
	-Dnss-myhostname=false -Dnss-systemd=false -Dfirstboot=false
	-Drandomseed=false -Dbacklight=false -Dvconsole=false
	-Dquotacheck=false -Dsysusers=false -Dstoragetm=false -Dtmpfiles=false
	-Dhwdb=false -Drfkill=false -Dxdg-autostart=false -Didn=false
	-Dkernel-install=false -Dcreate-log-dirs=false -Dsmack=false
	-Dima=false -Dipe=false -Dgshadow=false
	-Dvmspawn=disabled -Dbootloader=disabled -Dukify=disabled
	-Dbpf-framework=disabled
	-Doomd=true
	-Dprefix=/usr -Dsysconfdir=/etc -Dlocalstatedir=/var
	-Dversion-tag="$(cat "$SD/base-version")+reap-on-kill"
)
# Options that 262 dropped (nscd, SysV scripts) or changed (standalone
# binaries: a list instead of a boolean).
case $SD_BASE in
257) OPTIONS+=(-Dnscd=false -Dstandalone-binaries=false -Dsysvinit-path= -Dsysvrcnd-path= -Drc-local=) ;;
# 262 made libmount optional (dlopen()ed), and auto_features=disabled turns
# it off: without it the manager has no mount units, and logind's sandbox
# and user-runtime-dir's tmpfs (mount options go through libmount) fail
# with EOPNOTSUPP.  257 always links it.
*) OPTIONS+=(-Dstandalone-binaries= -Dlibmount=enabled) ;;
esac
# tests=true so that the unit tests can be built; only those named are.
OPTIONS+=(-Dtests=true)

export CC="$TOP/scripts/ccache-gcc"
setup() {	# setup BUILDDIR
	local dir=$1 want
	want="${OPTIONS[*]}"
	# meson makes the man page targets only if it finds xsltproc: a build
	# directory set up without it is set up again once it is installed.
	command -v xsltproc >/dev/null || want="$want (no xsltproc)"
	if [ -f "$dir/build.ninja" ] && [ "$(cat "$dir/.reap-options" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	step "meson setup ${dir#"$TOP"/}"
	rm -rf "$dir"
	meson setup "$dir" "$SD_TREE" "${OPTIONS[@]}" > "$SD/meson-setup-$(basename "$dir").log" 2>&1 ||
		die "meson setup failed; see $REL/meson-setup-$(basename "$dir").log"
	echo "$want" > "$dir/.reap-options"
}

# The outputs of every target that meson installs, relative to BUILDDIR.
installed_targets() {	# installed_targets BUILDDIR
	meson introspect "$1" --targets |
		python3 -c 'import json, os, sys
for t in json.load(sys.stdin):
    if t.get("installed"):
        for f in t["filename"]:
            print(os.path.relpath(f, os.path.realpath(sys.argv[1])))' "$1"
}

setup "$OBJ_SD"
# ninja regenerates version.h on every run, so "ninja -n" never says there is
# nothing to do; build, and install again only when something was relinked or
# the tree moved.
head=$(git -C "$SD_TREE" rev-parse HEAD)
targets=$(installed_targets "$OBJ_SD") || die "meson introspect ${OBJ_SD#"$TOP"/} failed"
if [ "${1:-}" = tests ]; then
	targets="$targets systemd-executor $SD_UNIT_TESTS"
	# The man pages need xsltproc, docbook-xsl and docbook-xml's DTD (deps.sh
	# systemd; xsltproc runs with --nonet); without them check-man.sh says
	# what is missing, and the rest still builds.
	if command -v xsltproc >/dev/null &&
	   [ -f /usr/share/xml/docbook/stylesheet/docbook-xsl/manpages/docbook.xsl ] &&
	   [ -f /usr/share/xml/docbook/schema/dtd/4.5/docbookx.dtd ]; then
		targets="$targets $SD_MAN_PAGES"
	fi
	step "building systemd $(cat "$SD/base-version") + series, and unit tests $SD_UNIT_TESTS (log: $REL/ninja.log)"
else
	step "building systemd $(cat "$SD/base-version") + series (log: $REL/ninja.log)"
fi
# shellcheck disable=SC2086
ninja -C "$OBJ_SD" -j "$(make_jobs)" $targets > "$SD/ninja.log" 2>&1 ||
	{ tail -30 "$SD/ninja.log" >&2; die "systemd build failed; see $REL/ninja.log"; }
if [ -f "$DEST/.reap-installed" ] && [ "$(cat "$DEST/.reap-installed")" = "$head" ] &&
   ! grep -q 'Linking target' "$SD/ninja.log"; then
	step "systemd install in $REL/dest is up to date"
else
	step "installing into $REL/dest"
	rm -rf "$DEST"
	DESTDIR=$DEST meson install -C "$OBJ_SD" --no-rebuild --quiet > "$SD/install.log" 2>&1 ||
		die "meson install failed; see $REL/install.log"
	echo "$head" > "$DEST/.reap-installed"
fi
echo "$(cat "$SD/base-version") $(git -C "$SD_TREE" describe --always --tags)" > "$SD/built-version"
