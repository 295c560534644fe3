#!/bin/bash
# Build the cgroup kselftests, ours included, against the patched tree's
# UAPI headers.  Output: build/tests/cgroup/.
. "$(dirname "$0")/lib.sh"

out=$BUILD/tests/cgroup
log=$BUILD/logs/selftests.log
[ -d "$OBJ/usr/include" ] || die "no kernel headers: build the kernel first"
mkdir -p "$out" "$BUILD/logs"
step "building the cgroup selftests (log: ${log#"$TOP"/})"
if ! make -C "$TREE/tools/testing/selftests/cgroup" OUTPUT="$out" \
	KHDR_INCLUDES="-isystem $OBJ/usr/include" -j"$(make_jobs)" \
	>"$log" 2>&1; then
	grep -E 'error|warning' "$log" | head -20 >&2
	die "selftest build failed; full log: ${log#"$TOP"/}"
fi
if grep -q 'warning:' "$log"; then
	grep 'warning:' "$log" >&2
fi
