#!/bin/bash
# Write a lean guest .config: allnoconfig + our fragment(s), then verify that
# every option the fragments ask for survived olddefconfig.
#
#   kernel-config.sh SRC OBJ FRAGMENT...
set -euo pipefail
src=$(realpath "$1")
mkdir -p "$2"
obj=$(realpath "$2")
shift 2
all=$(mktemp)
trap 'rm -f "$all"' EXIT
cat "$@" > "$all"
make -s -C "$src" O="$obj" KCONFIG_ALLCONFIG="$all" allnoconfig >/dev/null
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
done < "$all"
exit $missing
