#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build Debian binary packages of the patched kernel with the kernel's own
# bindeb-pkg target, and a source package of the patched systemd, into
# build/deb/, then check that the packaged kernel is the one tested: boot
# the guest from the vmlinuz inside the .deb and run test_reap_on_kill there.
#
#   DEB_CONFIG=cloud   (default) the guest config plus
#                      kernel/configs/reap_on_kill_cloud.config: boots a
#                      typical KVM or cloud VM, builds in minutes
#   DEB_CONFIG=debian  Debian's own 6.12 config (package linux-config-6.12)
#                      with the feature on; hours on 2 cores, not run by CI
#   DEB_BOOT_CHECK=no  skip the boot check
#
# The packages are of the 6.12 backport, for Debian 13 (KBASE=6.12).
KBASE=${KBASE:-6.12}
. "$(dirname "$0")/lib.sh"

flavour=${DEB_CONFIG:-cloud}
localversion=-reap-on-kill
obj=$BUILD/obj/linux-deb-$flavour
out=$BUILD/deb
log=$BUILD/logs/deb-$flavour.log
mkdir -p "$BUILD/logs"

"$TOP/scripts/deps.sh" deb
"$TOP/scripts/prepare-tree.sh"
read -r _ base_version < "$TREE.base-version"

step "configuring the packaged kernel ($flavour)"
case $flavour in
cloud)
	"$TOP/scripts/kernel-config.sh" "$TREE" "$obj" \
		"$TOP/kernel/configs/reap_on_kill_guest.config" \
		"$TOP/kernel/configs/reap_on_kill_cloud.config" ||
		die "kernel config failed: fix kernel/configs/reap_on_kill_cloud.config"
	;;
debian)
	debconf=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
	[ -r "$debconf" ] || die "$debconf missing: install Debian package linux-config-6.12"
	mkdir -p "$obj"
	xz -dc "$debconf" > "$obj/.config"
	# Debian signs modules with its own key, which we do not have.
	"$TREE/scripts/config" --file "$obj/.config" \
		--enable MEMCG_REAP_ON_KILL \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str MODULE_SIG_KEY "certs/signing_key.pem" \
		--disable MODULE_SIG_ALL --disable DEBUG_INFO_BTF \
		--disable DEBUG_INFO_DWARF5 --enable DEBUG_INFO_NONE
	make -s -C "$TREE" O="$obj" olddefconfig
	grep -qx CONFIG_MEMCG_REAP_ON_KILL=y "$obj/.config" ||
		die "CONFIG_MEMCG_REAP_ON_KILL did not survive olddefconfig"
	;;
*)
	die "DEB_CONFIG must be cloud or debian, not '$flavour'"
	;;
esac

# bindeb-pkg writes the packages next to the object directory.
rm -f "$(dirname "$obj")"/linux-*.deb "$(dirname "$obj")"/linux-upstream_*
step "building the packages (log: ${log#"$TOP"/})"
start=$(date +%s)
if ! make -C "$TREE" O="$obj" CC="$TOP/scripts/ccache-gcc" -j"$(make_jobs)" \
	LOCALVERSION="$localversion" KDEB_PKGVERSION="$(sed 's/-.*//' <<<"$base_version")-1+reaponkill" \
	KDEB_SOURCENAME=linux-reap-on-kill \
	bindeb-pkg >"$log" 2>&1; then
	grep -E 'error|Error' "$log" | tail -20 >&2
	die "bindeb-pkg failed; full log: ${log#"$TOP"/}"
fi
rm -rf "$out"
mkdir -p "$out"
mv "$(dirname "$obj")"/linux-*.deb "$out"/
rm -f "$(dirname "$obj")"/linux-reap-on-kill_*
step "built in $(( $(date +%s) - start ))s:"
for d in "$out"/*.deb; do
	printf '  %s  (%s, %s KiB)\n' "$(basename "$d")" \
		"$(dpkg-deb -f "$d" Package)" "$(( $(stat -c %s "$d") / 1024 ))"
done

# The patched systemd: a source package for trixie (see systemd-debsrc.sh
# for why its binary packages are built there).
"$TOP/scripts/systemd-debsrc.sh"

[ "${DEB_BOOT_CHECK:-yes}" = no ] && exit 0
[ "$flavour" = cloud ] || { say "boot check: only for DEB_CONFIG=cloud (Debian's config lacks the guest's 9p root)"; exit 0; }

step "boot check: the vmlinuz inside the package runs test_reap_on_kill"
image=$(ls "$out"/linux-image-*.deb | grep -v -- -dbg_ | head -1)
unpacked=$BUILD/deb-unpacked
rm -rf "$unpacked"
dpkg-deb -x "$image" "$unpacked"
vmlinuz=$(ls "$unpacked"/boot/vmlinuz-* | head -1)
[ -f "$vmlinuz" ] || die "no /boot/vmlinuz-* in $(basename "$image")"
release=${vmlinuz##*/vmlinuz-}
# The selftests, against the UAPI headers of the packages themselves.
libc=$(ls "$out"/linux-libc-dev_*.deb | head -1)
dpkg-deb -x "$libc" "$unpacked/libc"
KHDR=$unpacked/libc/usr/include "$TOP/scripts/build-tests.sh"
set +e
"$TOP/scripts/guest-run.sh" --kernel "$vmlinuz" --timeout 900 -- bash -c '
	echo "guest kernel: $(uname -r)"
	[ "$(uname -r)" = "$1" ] || { echo "booted $(uname -r), want $1"; exit 1; }
	"$2"/test_reap_on_kill' _ "$release" "$TESTS_OUT" | tee "$BUILD/logs/deb-boot.log"
rc=${PIPESTATUS[0]}
set -e
passed=$(grep -c '^ok ' "$BUILD/logs/deb-boot.log" || true)
failed=$(grep -c '^not ok ' "$BUILD/logs/deb-boot.log" || true)
if [ "$rc" != 0 ] || [ "$failed" != 0 ] || [ "$passed" = 0 ]; then
	die "boot check failed: $release from $(basename "$image"): exit $rc, $passed passed, $failed failed"
fi
step "boot check: $release from $(basename "$image"): $passed passed, 0 failed"
