#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compile what the series touches under the kernel configurations it must
# survive besides the guest's own: the feature off, futexes off, 32-bit
# compat off.  A full kernel per configuration would cost six minutes each
# on two cores, and a configuration change misses ccache everywhere; the
# objects our series changes, plus a link check against the symbols only
# mm/reap_on_kill.o defines, find the same breakage in about a minute each.
#
#   build-matrix.sh [NAME...]      default: every configuration below
#
# Prints "PASS build:NAME" or "FAIL build:NAME: why" per configuration and
# exits non-zero if any failed.  Objects in build/obj/matrix-KBASE-NAME (a
# base of its own: objtool's generated tables differ between kernels),
# logs in build/logs/matrix-KBASE-NAME.log.
. "$(dirname "$0")/lib.sh"

# NAME:the Kconfig lines that make the configuration, separated by ";"
# (FUTEX can be switched off only with EXPERT)
MATRIX="
reap_on_kill_off:# CONFIG_MEMCG_REAP_ON_KILL is not set
futex_off:CONFIG_EXPERT=y;# CONFIG_FUTEX is not set
compat_off:# CONFIG_IA32_EMULATION is not set
"

# Every .c file the series changes, and ours.
touched_objects() {
	{
		grep -h '^diff --git a/.*\.c ' "$SERIES"/*.patch | awk '{ print $3 }' | sed 's|^a/||'
		git -C "$TOP" ls-files -- 'mm/*.c' 'kernel/*.c'
	} | grep -v '^tools/' | sort -u | sed 's/\.c$/.o/'
}

# Symbols defined only by mm/reap_on_kill.o: with the feature off, nothing
# may reference them.
REAP_SYMBOLS='__reap_on_kill_queue|__reap_on_kill_pin_mm|reap_on_kill_key|reap_on_kill_css_online|reap_on_kill_css_free|memory_reap_on_kill_show|memory_reap_on_kill_write'

"$TOP/scripts/prepare-tree.sh"
mkdir -p "$BUILD/logs"
want=${*:-$(awk -F: 'NF { print $1 }' <<<"$MATRIX")}
rc=0
for name in $want; do
	line=$(awk -F: -v n="$name" '$1 == n { print $2 }' <<<"$MATRIX")
	[ -n "$line" ] || die "unknown configuration $name"
	obj=$BUILD/obj/matrix-$KBASE-$name
	log=$BUILD/logs/matrix-$KBASE-$name.log
	frag=$(mktemp)
	tr ';' '\n' <<<"$line" > "$frag"
	step "build matrix: $name ($line)"
	start=$(date +%s)
	if ! "$TOP/scripts/kernel-config.sh" "$TREE" "$obj" \
		$GUEST_CONFIGS "$frag" >"$log" 2>&1; then
		rm -f "$frag"
		echo "FAIL build:$name: the configuration does not hold (see ${log#"$TOP"/})"
		rc=1
		continue
	fi
	rm -f "$frag"
	# Objects whose Kconfig symbol is off in this configuration are not
	# built by their Makefile; ask only for those that are.
	objs=()
	for o in $(touched_objects); do
		case $o in
		mm/reap_on_kill.o) grep -q '^CONFIG_MEMCG_REAP_ON_KILL=y' "$obj/.config" || continue ;;
		kernel/futex/*.o) grep -q '^CONFIG_FUTEX=y' "$obj/.config" || continue ;;
		esac
		objs+=("$o")
	done
	if ! make -C "$TREE" O="$obj" CC="$TOP/scripts/ccache-gcc" -j"$(make_jobs)" \
		"${objs[@]}" >>"$log" 2>&1; then
		echo "FAIL build:$name: $(grep -m1 -E 'error' "$log" || echo "see ${log#"$TOP"/}")"
		rc=1
		continue
	fi
	if [ "$name" = reap_on_kill_off ]; then
		undefined=$(cd "$obj" && nm -u "${objs[@]}" | grep -wE "$REAP_SYMBOLS" | sort -u || true)
		if [ -n "$undefined" ]; then
			echo "FAIL build:$name: would not link, references $(echo $undefined)"
			rc=1
			continue
		fi
	fi
	echo "PASS build:$name (${#objs[@]} objects, $(( $(date +%s) - start ))s)"
done
exit $rc
