#!/bin/bash
# The man pages that document MemoryReapOnKill=, as systemd's build renders
# them (xsltproc with man/custom-man.xsl, built by scripts/systemd-build.sh
# into OBJ/man), read the way man(1) reads them (preconv, groff -man).
#
#   check-man.sh OBJ BASE
#
# Checks, for systemd BASE:
#   - groff has nothing to say about the three pages, but for the lines of
#     the notes list that hold a URL too long to break (upstream's);
#   - systemd.resource-control(5) lists MemoryReapOnKill= among the memory
#     controller's settings (the entry before it is a Memory*= one), its
#     text holds no markup left unrendered, and it says when it was added
#     on 262 (v263) and makes no version claim on the 257 backport;
#   - systemd-system.conf(5) lists DefaultMemoryReapOnKill=;
#   - org.freedesktop.systemd1(5) lists the Manager's DefaultMemoryReapOnKill,
#     and MemoryReapOnKill and EffectiveMemoryReapOnKill on each of the six
#     unit interfaces with resource-control settings (slice, scope, service,
#     socket, mount, swap).
# Prints "PASS systemd-BASE:man_<what>" or "FAIL ...: why" per check.
set -uo pipefail
obj=$1 base=$2
label=systemd-$base
man=$obj/man
pages="systemd.resource-control.5 systemd-system.conf.5 org.freedesktop.systemd1.5"

ok() { echo "PASS $label:man_$1"; }
bad() { echo "FAIL $label:man_$1: $2"; }

for tool in preconv groff; do
	command -v "$tool" >/dev/null || { bad rendered "no $tool: install Debian package groff-base"; exit 0; }
done
for p in $pages; do
	if [ ! -s "$man/$p" ]; then
		bad rendered "no $p in ${obj##*/build/}/man: systemd-build.sh builds it when xsltproc, docbook-xsl and docbook-xml are installed (scripts/deps.sh systemd)"
		exit 0
	fi
done
ok rendered

# render PAGE: the page as text, as man(1) shows it at 80 columns.
render() {
	preconv -e utf-8 "$man/$1" | LC_ALL=C.UTF-8 groff -man -Tutf8 -rLL=80n -P-cbou 2>/dev/null
}

# groff's warnings, but for "can't break line" on a line that is a URL.
warnings=
for p in $pages; do
	while IFS= read -r w; do
		line=$(sed -n 's/^troff: *[^:]*:\([0-9]*\): warning.*can.t break line.*/\1/p' <<<"$w")
		if [ -n "$line" ] && sed -n "${line}p" "$man/$p" | grep -q '^\\%http'; then
			continue
		fi
		warnings="$warnings$p: $w; "
	done < <(preconv -e utf-8 "$man/$p" | LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z 2>&1)
done
if [ -z "$warnings" ]; then
	ok groff_clean
else
	bad groff_clean "$warnings"
fi

# The entry: from its term to the next term (a line indented by 7 spaces).
text=$(render systemd.resource-control.5)
entry=$(awk '/^       [A-Za-z]/ { on = ($1 == "MemoryReapOnKill=") } on' <<<"$text")
before=$(awk '/^       [A-Za-z]/ { if ($1 == "MemoryReapOnKill=") { print prev; exit } prev = $1 }' <<<"$text")
if [ -z "$entry" ]; then
	bad resource_control_entry "no MemoryReapOnKill= entry in systemd.resource-control(5)"
elif [[ $before != Memory*= ]]; then
	bad resource_control_entry "MemoryReapOnKill= follows '$before', not a Memory*= setting"
elif grep -qE '<|>|&[a-z]+;|\\f|FIXME' <<<"$entry"; then
	bad resource_control_entry "markup left in the text: $(grep -m1 -E '<|>|&[a-z]+;|\\f|FIXME' <<<"$entry")"
elif ! grep -q 'memory.reap_on_kill' <<<"$entry" || ! grep -q 'kill_reap' <<<"$entry"; then
	bad resource_control_entry "the entry names neither the memory.reap_on_kill attribute nor kill_reap"
else
	ok resource_control_entry
fi
version=$(grep -o 'Added in version [0-9]*' <<<"$entry" || true)
case $base:$version in
262:"Added in version 263"|257:) ok resource_control_version ;;
*) bad resource_control_version "says '${version:-nothing}' on $base (want 'Added in version 263' on 262, nothing on the 257 backport)" ;;
esac

if render systemd-system.conf.5 | grep -q '^       DefaultMemoryReapOnKill=$'; then
	ok system_conf_entry
else
	bad system_conf_entry "no DefaultMemoryReapOnKill= entry in systemd-system.conf(5)"
fi

dbus=$(render org.freedesktop.systemd1.5)
n_set=$(grep -c 'readonly b MemoryReapOnKill = \.\.\.;' <<<"$dbus")
n_eff=$(grep -c 'readonly b EffectiveMemoryReapOnKill = \.\.\.;' <<<"$dbus")
n_def=$(grep -c 'readonly b DefaultMemoryReapOnKill = \.\.\.;' <<<"$dbus")
if [ "$n_set" = 6 ] && [ "$n_eff" = 6 ] && [ "$n_def" = 1 ]; then
	ok dbus_properties
else
	bad dbus_properties "MemoryReapOnKill on $n_set, EffectiveMemoryReapOnKill on $n_eff unit interfaces (want 6 each), DefaultMemoryReapOnKill $n_def times (want 1)"
fi
