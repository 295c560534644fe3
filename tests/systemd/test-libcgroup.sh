#!/bin/bash
# libcgroup's tools (Debian's cgroup-tools) and memory.reap_on_kill, run in
# the guest (busybox init, cgroup2 at /sys/fs/cgroup).  Prints one line per
# test: "PASS name", "FAIL name: reason" or "SKIP name: reason", after the
# "EXPECT" lines of tests/lib.sh's expect (scripts/suite-results.sh).
set -u
P=libcgroup
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
expect cgcreate cgset cgget invalid_value cgconfigparser cgconfigparser_invalid_value set_by_cgset_reaps
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
check() {	# check NAME REASON-IF-FALSE SHELL-CONDITION
	if eval "$3"; then pass "$1"; else fail "$1" "$2"; fi
}
file() { cat "$CG/$1/memory.reap_on_kill" 2>/dev/null || echo missing; }

if ! command -v cgcreate >/dev/null; then
	for t in cgcreate cgset cgget invalid_value cgconfigparser cgconfigparser_invalid_value set_by_cgset_reaps; do
		echo "SKIP libcgroup:$t: cgroup-tools is not installed (scripts/deps.sh systemd)"
	done
	exit 0
fi
echo "# $(dpkg-query -W -f='cgroup-tools ${Version}' cgroup-tools 2>/dev/null)"

grep -qw memory "$CG/cgroup.subtree_control" || echo +memory > "$CG/cgroup.subtree_control"

out=$(cgcreate -g memory:/reapx 2>&1)
check libcgroup:cgcreate "cgcreate -g memory:/reapx: $out; memory.reap_on_kill: $(file reapx)" \
	'[ -d "$CG/reapx" ] && [ "$(file reapx)" = 0 ]'

out=$(cgset -r memory.reap_on_kill=1 reapx 2>&1)
check libcgroup:cgset "cgset -r memory.reap_on_kill=1 reapx: exit $? $out; file $(file reapx)" \
	'[ "$(file reapx)" = 1 ]'

out=$(cgget -n -v -r memory.reap_on_kill reapx 2>&1)
check libcgroup:cgget "cgget -n -v -r memory.reap_on_kill reapx: '$out', want 1" \
	'[ "$out" = 1 ]'

out=$(cgset -r memory.reap_on_kill=2 reapx 2>&1)
rc=$?
check libcgroup:invalid_value "cgset -r memory.reap_on_kill=2: exit $rc ($out), file $(file reapx); want an error and 1" \
	'[ "$rc" != 0 ] && [ "$(file reapx)" = 1 ]'

conf=$(mktemp)
cat > "$conf" <<-EOF
group reapy {
	memory {
		memory.reap_on_kill = 1;
	}
}
group reapy/child {
	memory {
	}
}
EOF
out=$(cgconfigparser -l "$conf" 2>&1)
rc=$?
check libcgroup:cgconfigparser "cgconfigparser: exit $rc ($out); reapy $(file reapy), reapy/child $(file reapy/child); want 1 and 0" \
	'[ "$rc" = 0 ] && [ "$(file reapy)" = 1 ] && [ "$(file reapy/child)" = 0 ]'

cat > "$conf" <<-EOF
group reapz {
	memory {
		memory.reap_on_kill = 2;
	}
}
EOF
out=$(cgconfigparser -l "$conf" 2>&1)
rc=$?
check libcgroup:cgconfigparser_invalid_value "cgconfigparser with memory.reap_on_kill = 2: exit $rc ($out), file $(file reapz); want an error and no 1" \
	'[ "$rc" != 0 ] && [ "$(file reapz)" != 1 ]'
rm -f "$conf"

# What the settings do: a process killed in reapx is reaped.
sh -c 'echo $$ > '"$CG"'/reapx/cgroup.procs; exec /usr/bin/python3 -c "import time; b = bytes(1) * (64 << 20); time.sleep(1000)"' &
pid=$!
n=0
while [ "$(cat "$CG/reapx/memory.current")" -lt $((48 << 20)) ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
before=$(sed -n 's/^kill_reap //p' "$CG/reapx/memory.events")
kill -9 $pid
wait $pid 2>/dev/null
n=0
while [ "$(sed -n 's/^kill_reap //p' "$CG/reapx/memory.events")" = "$before" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
after=$(sed -n 's/^kill_reap //p' "$CG/reapx/memory.events")
check libcgroup:set_by_cgset_reaps "kill_reap of reapx $before -> $after" '[ "$after" -gt "$before" ]'

cgdelete -g memory:/reapx memory:/reapy/child memory:/reapy 2>/dev/null
exit 0
