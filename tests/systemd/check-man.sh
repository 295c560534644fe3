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
#     text holds no markup left unrendered, starts "Takes a boolean
#     argument. Defaults to unset", says what systemctl stop does (SIGTERM,
#     then SIGKILL after TimeoutStopSec=), that unprivileged managers and
#     Delegate= can enable it, how to cover all slices (slice.d/), that the
#     root slice accepts and ignores it, that an empty assignment resets it
#     to unset and that systemctl revert removes a set-property drop-in, and
#     links the kernel's section; it says when it was added on 262 (v263)
#     and makes no version claim on the 257 backport;
#     ManagedOOMSwap=/ManagedOOMMemoryPressure= point to it and say that
#     the root slice, where ManagedOOMSwap=kill usually is, ignores it;
#   - systemd-oomd.service(8) recommends it, and says the same of the root
#     slice;
#   - org.freedesktop.systemd1(5) lists MemoryReapOnKill on each of the six
#     unit interfaces with resource-control settings (slice, scope, service,
#     socket, mount, swap), and no EffectiveMemoryReapOnKill nor
#     DefaultMemoryReapOnKill (both dropped).
# Prints the "EXPECT" lines of tests/lib.sh's expect, then "PASS
# systemd-BASE-man:<what>" or "FAIL ...: why" per check.
set -uo pipefail
obj=$1 base=$2
label=systemd-$base
man=$obj/man
pages="systemd.resource-control.5 systemd-oomd.service.8 org.freedesktop.systemd1.5"

P=$label-man
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
expect rendered groff_clean resource_control_entry resource_control_version managed_oom_xref oomd_xref dbus_properties
ok() { pass "$1"; }
bad() { fail "$1" "$2"; }

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
else
	# The entry's text as one line, for phrases that a line break may split.
	flat=$(tr -s ' \n' '  ' <<<"$entry")
	missing=
	for phrase in 'Takes a boolean argument. Defaults to unset' 'memory.reap_on_kill' 'kill_reap' \
		'systemctl stop sends SIGTERM' 'TimeoutStopSec=' 'Delegate=' 'slice.d/' \
		'accepts this setting but does not apply it' 'An empty assignment resets the setting to unset' \
		'systemctl revert removes' 'Reaping Killed Processes'; do
		grep -qF -- "$phrase" <<<"$flat" || missing="$missing '$phrase'"
	done
	if [ -n "$missing" ]; then
		bad resource_control_entry "the entry lacks:$missing"
	else
		ok resource_control_entry
	fi
fi
version=$(grep -o 'Added in version [0-9]*' <<<"$entry" || true)
case $base:$version in
262:"Added in version 263"|257:) ok resource_control_version ;;
*) bad resource_control_version "says '${version:-nothing}' on $base (want 'Added in version 263' on 262, nothing on the 257 backport)" ;;
esac

moom=$(awk '/^       [A-Za-z]/ { on = ($1 ~ /^ManagedOOMSwap=/) } on' <<<"$text" | tr -s ' \n' '  ')
if ! grep -qF 'MemoryReapOnKill=yes' <<<"$moom"; then
	bad managed_oom_xref "the ManagedOOMSwap=/ManagedOOMMemoryPressure= entry does not point to MemoryReapOnKill="
elif ! grep -qF 'ignores MemoryReapOnKill=' <<<"$moom"; then
	bad managed_oom_xref "the ManagedOOMSwap=/ManagedOOMMemoryPressure= entry does not say that the root slice ignores MemoryReapOnKill="
else
	ok managed_oom_xref
fi
oomd=$(render systemd-oomd.service.8 | tr -s ' \n' '  ')
if ! grep -qF 'MemoryReapOnKill=yes' <<<"$oomd"; then
	bad oomd_xref "systemd-oomd.service(8) does not mention MemoryReapOnKill=yes"
elif ! grep -qF 'ignores MemoryReapOnKill=' <<<"$oomd"; then
	bad oomd_xref "systemd-oomd.service(8) does not say that the root slice ignores MemoryReapOnKill="
else
	ok oomd_xref
fi

dbus=$(render org.freedesktop.systemd1.5)
n_set=$(grep -c 'readonly b MemoryReapOnKill = \.\.\.;' <<<"$dbus")
n_gone=$(grep -c 'EffectiveMemoryReapOnKill\|DefaultMemoryReapOnKill' <<<"$dbus")
if [ "$n_set" = 6 ] && [ "$n_gone" = 0 ]; then
	ok dbus_properties
else
	bad dbus_properties "MemoryReapOnKill on $n_set unit interfaces (want 6), $n_gone mentions of the dropped EffectiveMemoryReapOnKill/DefaultMemoryReapOnKill (want 0)"
fi
