#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Helpers for the scripts that work in a Debian root of their own
# (scripts/fresh-check.sh, scripts/distro-check.sh): debootstrap's mirror,
# bind mounts in and out, and what is left running in the root.  Sourced
# after lib.sh.

# This machine's mirror for a suite, from its apt sources (one-line or
# deb822, whatever apt reads), else DEFAULT.
mirror_of() {	# mirror_of SUITE DEFAULT
	local uri
	# shellcheck disable=SC2016 # apt's own $(FIELD) syntax
	uri=$(apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 2>/dev/null |
		awk -v s="$1" '$1 == s { print $2; exit }')
	uri=${uri%/}
	echo "${uri:-$2}"
}

# Mount points at or below $1, deepest first.
mounts_under() {
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}

unmount_all() {	# unmount_all DIR: everything mounted below DIR, or fail
	local m
	for m in $(mounts_under "$1"); do
		umount "$m" 2>/dev/null || umount -l "$m" || true
	done
	[ -z "$(mounts_under "$1")" ] || die "still mounted under ${1#"$TOP"/}: $(mounts_under "$1" | tr '\n' ' ')"
}

# Processes left in the root DIR (an interrupted make check's QEMU, say)
# keep its mounts busy: end them, they are ours.
kill_chroot_procs() {	# kill_chroot_procs DIR
	local p pids=() sig
	for sig in TERM KILL; do
		pids=()
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/root" 2>/dev/null)" = "$1" ] && pids+=("${p#/proc/}")
		done
		[ ${#pids[@]} -eq 0 ] && return 0
		kill -s "$sig" "${pids[@]}" 2>/dev/null || true
		sleep 2
	done
}

# Removes a tree that nothing is mounted in; --one-file-system in case.
remove_tree() {	# remove_tree DIR
	unmount_all "$1"
	rm -rf --one-file-system "$1"
}

# A fresh copy of the pristine root BASE in DIR, whatever DIR held, with
# this machine's name resolution (apt in it fetches packages).
copy_root() {	# copy_root BASE DIR
	remove_tree "$2"
	cp -a "$1" "$2"
	cp -L /etc/resolv.conf "$2/etc/resolv.conf"
}

# /proc, /sys and /dev for a chroot in DIR; mounts made under its /dev must
# not propagate to the host's.
bind_system() {	# bind_system DIR
	local d
	for d in /proc /sys /dev /dev/pts /dev/shm; do
		[ -d "$d" ] || continue
		mkdir -p "$1$d"
		mount --bind "$d" "$1$d"
		mount --make-rslave "$1$d"
	done
}

# Daemons that packages install must not start in a chroot, on the host's
# network and devices; the standard chroot answer.
forbid_daemons() {	# forbid_daemons DIR
	printf '#!/bin/sh\nexit 101\n' > "$1/usr/sbin/policy-rc.d"
	chmod +x "$1/usr/sbin/policy-rc.d"
}

# Runs CMD in the root DIR with a clean environment, as root.
in_root() {	# in_root DIR CMD...
	local dir=$1
	shift
	chroot "$dir" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
