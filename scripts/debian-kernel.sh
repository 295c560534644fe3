#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian's own kernel, which has no memory.reap_on_kill: the kernel an
# administrator runs before installing ours.  systemd's kernel-independent
# checks boot on it (scripts/check-systemd.sh's "nofile" half), so that a
# manager on a kernel without the file is tested on every run, without a
# second kernel build.
#
#   debian-kernel.sh        prints the directory holding vmlinuz and
#                           modules.cpio.gz
#
# Downloads the newest linux-binary-*-amd64 and linux-modules-*-amd64 of
# Debian unstable (the generic flavour: the cloud one has no 9p) through the
# private apt configuration that scripts/linux-source.sh keeps for the
# mainline source, under build/debian-kernel/VERSION.  Debian builds the
# drivers the guest mounts its root with as modules: modules.cpio.gz holds
# them, decompressed, with their dependencies and the order to load them in
# (lib/modules/load), and scripts/guest-run.sh appends it to the guest's
# initramfs when given --modules.  Fetched once.
. "$(dirname "$0")/lib.sh"

# What guest/init mounts: the 9p shares, the overlay root, the ext4 scratch
# disk on virtio-blk.
WANT="9pnet_virtio 9p overlay virtio_blk ext4"

apt_dir=$BUILD/linux-apt
suite=${LINUX_SUITE:-sid}
mirror=${LINUX_MIRROR:-http://deb.debian.org/debian}

# The newest generic amd64 kernel's release name (7.2.13+deb14-amd64).
newest_release() {
	private_apt_cache "$apt_dir" pkgnames linux-binary- 2>/dev/null |
		sed -n 's/^linux-binary-\([0-9][^ ]*-amd64\)$/\1/p' |
		grep -vE -- '-(cloud|rt)-amd64$' | sort -V | tail -1
}

# depends_of KO: the modules KO needs loaded first, from its .modinfo.
depends_of() {
	objcopy -O binary --only-section=.modinfo "$1" /dev/stdout 2>/dev/null |
		tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' '
}

# add MODULE: MODULE's file and those of its dependencies into $dir/lib/modules
# and their names into $order, dependencies first.
add() {
	local m=$1 f d
	case " $order " in *" $m "*) return 0 ;; esac
	f=$(find "$tree" \( -name "$m.ko.xz" -o -name "${m//_/-}.ko.xz" \) -print -quit)
	[ -n "$f" ] || die "Debian's kernel $release has no module $m"
	xz -dc "$f" > "$dir/lib/modules/$m.ko"
	for d in $(depends_of "$dir/lib/modules/$m.ko"); do
		add "$d"
	done
	order="$order $m"
}

if [ ! -s "$apt_dir/sources.list" ]; then
	mkdir -p "$apt_dir"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
		> "$apt_dir/sources.list"
fi
if [ -z "$(newest_release)" ]; then
	private_apt_update "$apt_dir" "$BUILD/logs/debian-kernel-apt.log" \
		-o APT::Architecture=amd64 -o APT::Architectures=amd64 ||
		die "apt-get update of Debian $suite failed; see build/logs/debian-kernel-apt.log"
fi
release=$(newest_release)
[ -n "$release" ] || die "Debian $suite lists no linux-binary-*-amd64 package"
out=$BUILD/debian-kernel/$release
if [ -f "$out/vmlinuz" ] && [ -f "$out/modules.cpio.gz" ]; then
	echo "$out"
	exit 0
fi

step "apt-get download Debian's kernel $release ($suite)"
dl=$(mktemp -d "$BUILD/debian-kernel.XXXXXX")
trap 'rm -rf "$dl"' EXIT
mkdir -p "$BUILD/logs"
(cd "$dl" && private_apt "$apt_dir" download "linux-binary-$release" "linux-modules-$release") \
	>"$BUILD/logs/debian-kernel-download.log" 2>&1 ||
	die "apt-get download of Debian's kernel $release failed; see build/logs/debian-kernel-download.log"
for deb in "$dl"/*.deb; do
	dpkg-deb -x "$deb" "$dl/root"
done
tree=$dl/root/usr/lib/modules/$release
[ -f "$tree/vmlinuz" ] || die "linux-binary-$release holds no usr/lib/modules/$release/vmlinuz"

dir=$dl/initramfs
mkdir -p "$dir/lib/modules"
order=
for m in $WANT; do
	add "$m"
done
echo $order | tr ' ' '\n' > "$dir/lib/modules/load"
mkdir -p "$out"
(cd "$dir" && find . | cpio --quiet -o -H newc | gzip -1) > "$out/modules.cpio.gz"
cp "$tree/vmlinuz" "$out/vmlinuz"
say "Debian's kernel $release: ${out#"$TOP"/} (modules:$order)"
echo "$out"
