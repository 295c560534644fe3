#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest kernel of base $KBASE (mainline or 6.12, see lib.sh).
#   build-kernel.sh          the patched kernel (pristine + series + our files)
#   build-kernel.sh stock    the same config on the pristine source
#   build-kernel.sh debug    the patched kernel with KASAN, lockdep & co.
. "$(dirname "$0")/lib.sh"

flavour=${1:-patched}
case $flavour in
patched)
	"$TOP/scripts/prepare-tree.sh"
	src=$TREE obj=$OBJ
	;;
debug)
	"$TOP/scripts/prepare-tree.sh"
	src=$TREE obj=$DEBUG_OBJ
	EXTRA_CONFIG="${EXTRA_CONFIG:-} $TOP/kernel/configs/reap_on_kill_debug.config"
	;;
stock)
	src=$STOCK_TREE obj=$STOCK_OBJ
	if [ ! -f "$src/Makefile" ]; then
		read -r _ _ tarball < <(linux_source)
		step "unpacking the pristine $KBASE source for the stock build"
		mkdir -p "$src"
		tar -C "$src" --strip-components=1 -xf "$tarball"
	fi
	;;
*)
	die "usage: build-kernel.sh [patched|stock|debug]"
	;;
esac

mkdir -p "$BUILD/logs"
log=$BUILD/logs/kernel-$KBASE-$flavour.log
fragments=$GUEST_CONFIGS
[ -n "${EXTRA_CONFIG:-}" ] && fragments="$fragments $EXTRA_CONFIG"

step "configuring the $flavour $KBASE kernel"
# The stock tree does not know CONFIG_MEMCG_REAP_ON_KILL.
if ! ALLOW_UNKNOWN=$([ "$flavour" = stock ] && echo 1) \
	"$TOP/scripts/kernel-config.sh" "$src" "$obj" $fragments; then
	die "kernel config failed: fix kernel/configs/reap_on_kill_guest.config"
fi

step "building the $flavour $KBASE kernel (log: ${log#"$TOP"/})"
start=$(date +%s)
if ! make -C "$src" O="$obj" CC="$TOP/scripts/ccache-gcc" -j"$(make_jobs)" \
	bzImage headers >"$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -20 >&2
	die "kernel build failed; full log: ${log#"$TOP"/}"
fi
echo "$(( $(date +%s) - start ))" > "$obj/.build-seconds"
step "built $(cat "$obj/include/config/kernel.release") in $(cat "$obj/.build-seconds")s"
