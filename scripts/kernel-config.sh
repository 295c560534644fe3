#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write a lean guest .config: allnoconfig + our fragment(s), then verify that
# every option the fragments ask for survived olddefconfig.  Later fragments
# override earlier ones.
#
#   kernel-config.sh SRC OBJ FRAGMENT...
set -euo pipefail
src=$(realpath "$1")
mkdir -p "$2"
obj=$(realpath "$2")
shift 2
all=$(mktemp)
want=$(mktemp)
trap 'rm -f "$all" "$want"' EXIT
cat "$@" > "$all"
# A later fragment overrides an earlier one, as in Kconfig: check the last
# setting of each symbol.
awk '{ sym = $0 }
	/^# CONFIG_[A-Za-z0-9_]+ is not set/ { sym = $2 }
	/^CONFIG_[A-Za-z0-9_]+=/ { sym = substr($0, 1, index($0, "=") - 1) }
	sym ~ /^CONFIG_/ { last[sym] = NR; line[NR] = $0 }
	END { for (n = 1; n <= NR; n++) if (n in line) { split(line[n], a, /[= ]/);
		s = (a[1] == "#") ? a[2] : a[1]; if (last[s] == n) print line[n] } }' \
	"$all" > "$want"
# Kconfig would warn of each override in the concatenation: give it the
# last setting of each symbol only.
make -s -C "$src" O="$obj" KCONFIG_ALLCONFIG="$want" allnoconfig >/dev/null
make -s -C "$src" O="$obj" olddefconfig >/dev/null

# A symbol that does not exist in this tree (the feature, on a stock tree)
# is reported separately from one that exists but was dropped.
missing=0
while IFS= read -r line; do
	case $line in
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}
		if grep -q "^$sym=" "$obj/.config"; then
			echo "config: $sym should be off" >&2
			missing=1
		fi ;;
	CONFIG_*=*) sym=${line%%=*}
		if ! grep -qx "$line" "$obj/.config"; then
			if ! grep -rqs "^config ${sym#CONFIG_}\$" --include='Kconfig*' "$src"; then
				[ "${ALLOW_UNKNOWN:-}" = 1 ] && continue
				echo "config: $sym is not known to this kernel" >&2
			else
				echo "config: $line did not survive olddefconfig (missing dependency?)" >&2
			fi
			missing=1
		fi ;;
	esac
done < "$want"
exit $missing
