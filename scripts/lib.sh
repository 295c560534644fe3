# SPDX-License-Identifier: GPL-2.0
# Shared settings for the scripts; sourced, not run.
# shellcheck shell=bash
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# Two kernel bases (KBASE): "mainline", the series to send upstream, on
# Debian unstable's newest linux-source-7.x (fetched by
# scripts/linux-source.sh through a private apt configuration); and "6.12",
# the maintained backport, on Debian 12/13's linux-source-6.12.
KBASE=${KBASE:-mainline}
case $KBASE in
mainline)
	SERIES=$TOP/patches/linux
	LINUX_PACKAGE_GLOB='linux-source-7.*'	# the newest sid ships
	;;
6.12)
	SERIES=$TOP/patches/linux-6.12
	LINUX_PACKAGE_GLOB=linux-source-6.12
	;;
*)
	printf 'error: KBASE=%s: want mainline or 6.12\n' "$KBASE" >&2
	exit 1
	;;
esac
KBASES="mainline 6.12"

# Two systemd bases (SD_BASE), the same way: "262", the series to send
# upstream, on the newest systemd Debian ships (sid, or testing while the
# mirror lacks sid's files); and "257", the backport that Debian 13's
# packages carry (trixie).  Each has its series, its tree and build under
# build/systemd-SD_BASE, and its own checks in make check.
SD_BASES="262 257"
SD_BASE=${SD_BASE:-262}
sd_series() {	# sd_series BASE: the directory of its series
	case $1 in
	262) echo "$TOP/patches/systemd" ;;
	*) echo "$TOP/patches/systemd-$1" ;;
	esac
}
# sd_unit_tests BASE: systemd's own unit tests that cover MemoryReapOnKill=
# (test-load-fragment: parser, bus round trip, getters, dump;
# test-bus-unit-util, which 257 lacks: the client's parser) or the code it
# touches (cgroup masks, unit serialization).
sd_unit_tests() {
	case $1 in
	257) echo "test-load-fragment test-cgroup-mask test-unit-serialize" ;;
	*) echo "test-load-fragment test-bus-unit-util test-cgroup-mask test-unit-serialize" ;;
	esac
}
case $SD_BASE in
262) SD_SUITES=${SD_SUITES:-"sid forky"} ;;
257) SD_SUITES=${SD_SUITES:-trixie} ;;
*)
	printf 'error: SD_BASE=%s: want 262 or 257\n' "$SD_BASE" >&2
	exit 1
	;;
esac
SD_SERIES=$(sd_series "$SD_BASE")
SD=$BUILD/systemd-$SD_BASE		# its tree (src), builds, install (dest)

TREE=$BUILD/linux-$KBASE		# pristine source + series, a git repository
OBJ=$BUILD/obj/linux-$KBASE		# objects of the patched kernel
DEBUG_OBJ=$OBJ-debug			# the same with KASAN, lockdep & co.
STOCK_TREE=$BUILD/linux-$KBASE-stock	# pristine source, for the stock comparison
STOCK_OBJ=$BUILD/obj/linux-$KBASE-stock
TESTS_OUT=$BUILD/tests-$KBASE/cgroup	# our and upstream's cgroup selftests
SOURCE_INFO=$BUILD/linux-$KBASE.source	# "PACKAGE VERSION TARBALL" of the base
# The guest's config: the common fragment, then the base's differences.
GUEST_CONFIGS=$TOP/kernel/configs/reap_on_kill_guest.config
[ "$KBASE" = mainline ] && GUEST_CONFIGS="$GUEST_CONFIGS $TOP/kernel/configs/reap_on_kill_guest_mainline.config"
# The 6.12 backport's changes to our new files (see that file).
BACKPORT_DIFF=$SERIES/new-files.diff

# Our own new kernel files: they live in the repository at their kernel paths
# and are symlinked into the build tree, so editing either edits both.
OUR_KERNEL_FILES="mm include tools/testing/selftests/cgroup Documentation kernel/configs"

# Upstream cgroup selftests, run as the regression baseline, and ours.
UPSTREAM_TESTS=${UPSTREAM_TESTS-"test_core test_kill test_freezer test_memcontrol test_cpu test_cpuset test_kmem test_pids test_hugetlb_memcg test_zswap"}
OUR_TESTS="test_reap_on_kill test_reap_on_kill_stress"
# Upstream binaries run a second time with memory.reap_on_kill=1 on their
# root (guest/covered-run.sh): those that kill (cgroup.kill, the OOM
# killer), so that the memory controller's accounting and events are
# tested with reaps happening, at about 30 s per base.  Not test_kmem (it
# kills nothing, and costs 100-175 s); not test_core and test_pids: they
# move themselves back into their root, which only the real root allows
# once it delegates controllers; not test_cpu and test_cpuset, which kill
# nothing; not test_zswap, which skips here.
COVERED_TESTS=${COVERED_TESTS-"covered:test_kill covered:test_freezer covered:test_memcontrol"}

export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
export CCACHE_BASEDIR=$BUILD
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-4G}
export CCACHE_NOHASHDIR=1
# Depend mode: a miss does not run the preprocessor a second time to hash
# its output; the compiler's own dependency list (kbuild's -Wp,-MMD,
# meson's -MD) says which headers a hit must match.  Measured on 91 kernel
# objects here (kernel/, fs/ext4/, -j3): plain gcc 76-83 s, an empty cache
# 103 s by default and 78 s in depend mode, a full one 15 s and 8 s.  A
# cold make check compiles everything once, so this is most of a kernel
# build's ccache overhead.
export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=reap-on-kill
export KBUILD_BUILD_HOST=build

# vmlinux_build_id OBJ: the GNU build ID of OBJ/vmlinux (empty if none),
# which a booted guest shows in /sys/kernel/notes.
vmlinux_build_id() {
	readelf -n "$1/vmlinux" 2>/dev/null | sed -n 's/.*Build ID: //p' | head -1 || true
}
say() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
# Steps print the time since the outermost script started (m:ss), so a
# log shows where a slow run spent it.
: "${REAP_T0:=$(date +%s)}"
export REAP_T0
elapsed() {
	local s=$(($(date +%s) - REAP_T0))
	printf '%d:%02d' $((s / 60)) $((s % 60))
}
step() { printf '==> [%s] %s\n' "$(elapsed)" "$*" >&2; }

# Files we own in the kernel tree: tracked in our repository under one of
# OUR_KERNEL_FILES.
our_kernel_files() {
	local d
	for d in $OUR_KERNEL_FILES; do
		git -C "$TOP" ls-files -- "$d"
	done
}

# The base's source package, version and tarball: "PACKAGE VERSION TARBALL".
linux_source() {
	"$TOP/scripts/linux-source.sh" >&2
	cat "$SOURCE_INFO"
}

make_jobs() { echo $(( $(nproc) + 1 )); }

# private_apt DIR ARGS...: apt-get with its own configuration, state and
# cache under DIR (DIR/sources.list written by the caller), never the
# machine's: the machine's apt setup is not touched.
private_apt() {
	local dir=$1
	shift
	mkdir -p "$dir/sources.list.d" "$dir/preferences.d" \
		"$dir/state/lists/partial" "$dir/cache/archives/partial"
	[ -e "$dir/state/status" ] || : > "$dir/state/status"
	[ -e "$dir/preferences" ] || : > "$dir/preferences"
	apt-get -q \
		-o Dir::Etc::SourceList="$dir/sources.list" \
		-o Dir::Etc::SourceParts="$dir/sources.list.d" \
		-o Dir::Etc::Preferences="$dir/preferences" \
		-o Dir::Etc::PreferencesParts="$dir/preferences.d" \
		-o Dir::State="$dir/state" \
		-o Dir::State::Status="$dir/state/status" \
		-o Dir::Cache="$dir/cache" \
		-o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root \
		"$@"
}

# private_apt_cache DIR ARGS...: apt-cache over private_apt's state in DIR.
private_apt_cache() {
	local dir=$1
	shift
	apt-cache -o Dir::Etc::SourceList="$dir/sources.list" \
		-o Dir::Etc::SourceParts="$dir/sources.list.d" \
		-o Dir::State="$dir/state" -o Dir::State::Status="$dir/state/status" \
		-o Dir::Cache="$dir/cache" "$@"
}

# private_apt_update DIR LOG [ARGS...]: "apt-get update" of a private
# configuration, its output in LOG.  A mirror that stopped syncing (or
# snapshot.debian.org) serves sid's and testing's Release files after their
# Valid-Until date, and apt then refuses the whole suite.  The signatures are
# what make the files trustworthy; the date only guards against being held
# back on old packages.  So an update that failed only for that is tried
# again without the date check, with a warning naming the suites and when
# they expired; REAP_APT_STRICT=1 refuses instead.
private_apt_update() {
	local dir=$1 log=$2 expired
	shift 2
	LC_ALL=C private_apt "$dir" "$@" update >"$log" 2>&1 && return 0
	expired=$(sed -n 's|^E: Release file for \(.*\) is expired (invalid since \(.*\))\..*|\1 (expired \2 ago)|p' "$log")
	[ -n "$expired" ] || return 1
	[ "${REAP_APT_STRICT:-0}" = 1 ] && return 1
	say "warning: the mirror's Release files are past their Valid-Until date: $(tr '\n' ' ' <<<"$expired")"
	say "warning: using them anyway (signatures are still checked); REAP_APT_STRICT=1 refuses"
	LC_ALL=C private_apt "$dir" "$@" -o Acquire::Check-Valid-Until=false update >>"$log" 2>&1
}

. "$TOP/scripts/lib-tree.sh"
