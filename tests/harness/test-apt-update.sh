#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unit test of private_apt_update (scripts/lib.sh), run by scripts/check.sh
# before any guest.  A stub apt-get on PATH records its arguments and answers
# like apt does for a mirror whose Release file is past its Valid-Until date
# (or, for the last case, like one that lacks a file).  Nothing is fetched.
#
# Prints "PASS harness:apt_<case>" or "FAIL harness:apt_<case>: <what it
# saw>" per case; exits non-zero if any failed.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/lib.sh
. "$TOP/scripts/lib.sh"
set +e
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

pass() { echo "PASS harness:apt_$1"; }
fail() {
	echo "FAIL harness:apt_$1: $2"
	sed 's/^/	called: /' "$tmp/calls" 2>/dev/null
	failures=$((failures + 1))
}

mkdir -p "$tmp/bin"
cat > "$tmp/bin/apt-get" <<'STUB'
#!/bin/sh
echo "apt-get $*" >> "$STUB_CALLS"
case "$* $STUB_MODE" in
*"Check-Valid-Until=false"*expired) exit 0 ;;
*expired)
	echo "E: Release file for http://mirror.invalid/debian/dists/sid/InRelease is expired (invalid since 28d 18h 52min 18s). Updates for this repository will not be applied."
	exit 100 ;;
*missing)
	echo "E: Failed to fetch http://mirror.invalid/debian/dists/sid/InRelease  404  Not Found"
	exit 100 ;;
esac
exit 0
STUB
chmod +x "$tmp/bin/apt-get"
export STUB_CALLS=$tmp/calls

# run MODE [ENV=VALUE...]: private_apt_update with the stub; sets rc, err.
run() {
	local mode=$1
	shift
	: > "$tmp/calls"
	err=$(env -u REAP_APT_STRICT "$@" PATH="$tmp/bin:$PATH" STUB_MODE="$mode" bash -c '
		. "$0/scripts/lib.sh"
		private_apt_update "$1/apt" "$1/log"' "$TOP" "$tmp" 2>&1)
	rc=$?
}
calls() { wc -l < "$tmp/calls"; }

run expired
if [ "$rc" = 0 ] && [ "$(calls)" = 2 ] &&
   grep -q 'Check-Valid-Until=false.* update$' <(sed -n 2p "$tmp/calls") &&
   grep -q 'Valid-Until date: http://mirror.invalid/debian/dists/sid/InRelease (expired 28d' <<<"$err"; then
	pass expired_release_retried_with_warning
else
	fail expired_release_retried_with_warning "exit $rc, $(calls) calls, said: $err"
fi

run expired REAP_APT_STRICT=1
if [ "$rc" != 0 ] && [ "$(calls)" = 1 ]; then
	pass expired_release_refused_when_strict
else
	fail expired_release_refused_when_strict "exit $rc, $(calls) calls"
fi

run missing
if [ "$rc" != 0 ] && [ "$(calls)" = 1 ] && [ -z "$err" ]; then
	pass other_failure_not_retried
else
	fail other_failure_not_retried "exit $rc, $(calls) calls, said: $err"
fi

[ "$failures" = 0 ]
