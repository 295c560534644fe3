#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unit test of scripts/deps.sh, run by scripts/check.sh before any guest.
# deps.sh runs with a PATH of stubs only: apt-get, dpkg-query and id record
# their arguments and answer as told, every tool deps.sh looks for is an
# empty stub except the one that is to be missing, and BUILD is a directory
# that does not exist yet.  So neither this machine's packages nor who runs
# the test matter, and nothing is installed.  (Header files and the like
# that deps.sh finds by path still depend on the machine: the checks on the
# default list are about what must and must not be in it; 'deps.sh fresh'
# looks for one command only and is checked exactly.)
#
# Prints "PASS harness:deps_<case>" or "FAIL harness:deps_<case>: <what it
# saw>" per case; exits non-zero if any failed.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
deps=${DEPS_SH:-$TOP/scripts/deps.sh}	# DEPS_SH: to test the test
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

pass() { echo "PASS harness:deps_$1"; }
fail() {	# fail CASE WHY: WHY, then what deps.sh printed and called
	echo "FAIL harness:deps_$1: $2"
	sed 's/^/	deps.sh: /' "$tmp/err" 2>/dev/null | tail -8
	sed 's/^/	called: /' "$tmp/calls" 2>/dev/null
	failures=$((failures + 1))
}

# stub_path MISSING: a PATH directory with every tool of deps.sh but MISSING.
stub_path() {
	local bin=$tmp/bin-$1 t
	rm -rf "$bin"
	mkdir -p "$bin"
	# What deps.sh and lib.sh themselves run.
	for t in dirname grep mkdir; do
		ln -s "$(command -v "$t")" "$bin/$t"
	done
	# The commands deps.sh looks for: the "command:package" lines.
	# shellcheck disable=SC2013 # one word per line
	for t in $(sed -n 's/^\([a-z0-9][a-z0-9._+-]*\):[a-z0-9][a-z0-9.+-]*$/\1/p' "$deps"); do
		[ "$t" = "$1" ] || printf '#!/bin/sh\nexit 0\n' > "$bin/$t"
	done
	cat > "$bin/apt-get" <<-'STUB'
	#!/bin/sh
	echo "apt-get $*" >> "$STUB_CALLS"
	echo "stub apt-get output: $*"
	[ "$1" = install ] && [ "${STUB_APT_FAIL:-0}" = 1 ] && exit 100
	exit 0
	STUB
	cat > "$bin/dpkg-query" <<-'STUB'
	#!/bin/sh
	echo "dpkg-query $*" >> "$STUB_CALLS"
	exit 1
	STUB
	cat > "$bin/id" <<-'STUB'
	#!/bin/sh
	[ "$1" = -u ] && { echo "${STUB_UID:-0}"; exit 0; }
	exit 1
	STUB
	chmod +x "$bin"/*
	echo "$bin"
}

# run_deps BUILD-DIR MISSING [ENV=VALUE...] -- [DEPS-ARGS...]: exit status in $rc.
run_deps() {
	local build=$1 missing=$2 bin
	shift 2
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	bin=$(stub_path "$missing")
	: > "$tmp/calls"
	set +e
	env -i PATH="$bin" BUILD="$build" STUB_CALLS="$tmp/calls" "${envs[@]}" \
		/bin/bash "$deps" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	set -e
}

# 1. A missing tool is installed the documented way, into a build directory
#    that did not exist.
b=$tmp/fresh1/build
run_deps "$b" flex --
install=$(grep '^apt-get install' "$tmp/calls" | head -1 || true)
if [ "$rc" != 0 ]; then
	fail installs_missing_tool "exit $rc, want 0"
elif [ -z "$install" ]; then
	fail installs_missing_tool "apt-get install was not called"
elif [[ $install != "apt-get install -y --no-install-recommends "* ]]; then
	fail installs_missing_tool "called '$install', want 'apt-get install -y --no-install-recommends PACKAGES'"
elif ! grep -qw flex <<<"${install#apt-get install -y --no-install-recommends }"; then
	fail installs_missing_tool "the missing flex's package is not in '$install'"
elif grep -qwE 'gcc|make|bison|qemu-system-x86' <<<"$install"; then
	fail installs_missing_tool "'$install' names packages of tools that are there"
elif ! grep -qw busybox-static <<<"$install"; then
	fail installs_missing_tool "dpkg-query said busybox-static is not installed, but '$install' lacks it"
elif ! grep -q 'missing flex: installing Debian package flex' "$tmp/err"; then
	fail installs_missing_tool "deps.sh did not say which package it installs for flex"
elif ! grep -q 'stub apt-get output: install' "$b/apt.log" 2>/dev/null; then
	fail installs_missing_tool "apt-get's output is not in BUILD/apt.log ($(ls -A "$tmp/fresh1" 2>&1))"
else
	pass installs_missing_tool
fi

# 2. apt failing: a retry after 'apt-get update', then an error naming the
#    packages and the log.
b=$tmp/fresh2/build
run_deps "$b" flex STUB_APT_FAIL=1 --
if [ "$rc" = 0 ]; then
	fail apt_failure_names_package_and_log "exit 0 although apt-get install failed"
elif ! grep -q "apt-get install .*flex.* failed; see $b/apt.log" "$tmp/err"; then
	fail apt_failure_names_package_and_log "the error does not name flex and $b/apt.log"
elif [ ! -s "$b/apt.log" ]; then
	fail apt_failure_names_package_and_log "the log it names was not written"
elif [ "$(cut -d' ' -f2 "$tmp/calls" | grep -v '^-W' | tr '\n' ' ')" != "install update install " ]; then
	fail apt_failure_names_package_and_log "apt-get calls: $(tr '\n' ';' < "$tmp/calls"), want install, update, install"
else
	pass apt_failure_names_package_and_log
fi

# 3. Not root: no apt-get, and the command to run instead.
b=$tmp/fresh3/build
run_deps "$b" flex STUB_UID=1000 --
if [ "$rc" = 0 ]; then
	fail refuses_without_root "exit 0 as uid 1000 with flex missing"
elif grep -q '^apt-get' "$tmp/calls"; then
	fail refuses_without_root "apt-get was called as uid 1000"
elif ! grep -q 'need root to install: apt-get install .*flex' "$tmp/err"; then
	fail refuses_without_root "the error does not name the apt-get command and flex"
else
	pass refuses_without_root
fi

# 4. 'deps.sh fresh': exactly debootstrap when it is missing, nothing when
#    it is there (and then no build directory either).
b=$tmp/fresh4/build
run_deps "$b" debootstrap -- fresh
if [ "$rc" != 0 ] || [ "$(grep '^apt-get install' "$tmp/calls")" != \
	"apt-get install -y --no-install-recommends debootstrap" ]; then
	fail fresh_installs_debootstrap "exit $rc, calls: $(tr '\n' ';' < "$tmp/calls")"
else
	run_deps "$tmp/fresh5/build" none -- fresh
	if [ "$rc" != 0 ] || [ -s "$tmp/calls" ] || [ -e "$tmp/fresh5" ]; then
		fail fresh_installs_debootstrap "with debootstrap there: exit $rc, calls: $(tr '\n' ';' < "$tmp/calls"), $(ls -d "$tmp/fresh5" 2>/dev/null)"
	else
		pass fresh_installs_debootstrap
	fi
fi
[ "$failures" = 0 ]
