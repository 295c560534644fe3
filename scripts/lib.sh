# Shared settings for the scripts; sourced, not run.
# shellcheck shell=bash
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=$BUILD/linux			# pristine source + series, a git repository
OBJ=$BUILD/obj/linux			# objects of the patched kernel
STOCK_TREE=$BUILD/linux-stock		# pristine source, for the stock comparison
SERIES=$TOP/patches/linux
LINUX_TARBALL=/usr/src/linux-source-6.12.tar.xz
LINUX_PACKAGE=linux-source-6.12
# Our own new kernel files: they live in the repository at their kernel paths
# and are symlinked into the build tree, so editing either edits both.
OUR_KERNEL_FILES="mm include tools/testing/selftests/cgroup Documentation kernel/configs"

# Upstream cgroup selftests, run as the regression baseline, and ours.
UPSTREAM_TESTS=${UPSTREAM_TESTS-"test_core test_kill test_freezer test_memcontrol test_cpu test_cpuset test_kmem test_pids test_hugetlb_memcg test_zswap"}
OUR_TESTS="test_reap_on_kill test_reap_on_kill_stress"

export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
export CCACHE_BASEDIR=$BUILD
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-4G}
export CCACHE_NOHASHDIR=1
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=reap-on-kill
export KBUILD_BUILD_HOST=build

say() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
step() { printf '==> %s\n' "$*" >&2; }

# Files we own in the kernel tree: tracked in our repository under one of
# OUR_KERNEL_FILES.
our_kernel_files() {
	local d
	for d in $OUR_KERNEL_FILES; do
		git -C "$TOP" ls-files -- "$d"
	done
}

# Identifies the patch series as it is in the repository.
series_id() {
	find "$SERIES" -name '*.patch' -type f 2>/dev/null | sort | xargs -r cat | sha1sum | cut -c1-12
}

make_jobs() { echo $(( $(nproc) + 1 )); }
