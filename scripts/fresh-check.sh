#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make fresh-check: the README's "make check" on a fresh Debian 12 machine,
# in a chroot on this one.  Needs root (debootstrap, chroot, mounts).
#
#   fresh-check.sh [--rebuild]
#
# 1. build/fresh/root: a minimal Debian 12 (bookworm) root, debootstrap's
#    minbase variant plus make (the README's first command needs it), with
#    the apt sources of a default Debian 12 install (bookworm,
#    bookworm-updates, bookworm-security) on this machine's mirror.  It is
#    built once and kept pristine; --rebuild or FRESH_REBUILD=1 starts over.
# 2. build/fresh/run: a copy of it made for every run, so that what one run
#    installs cannot hide a missing dependency from the next.  A clean
#    'git clone' of the committed HEAD goes to /root/reap-on-kill in it;
#    FRESH_WORKTREE=1 adds the working tree's uncommitted changes (tracked
#    edits and untracked files that are not ignored), to try them before
#    committing.
# 3. 'make check' runs there as root in the chroot, with /proc, /sys, /dev,
#    /dev/pts and /dev/shm bound in (no /dev/kvm is needed: the guest falls
#    back to software emulation).  Everything is unmounted on exit, failure
#    or interruption included.
#
# Prints the elapsed times; the last line of the output is make check's
# "N passed, N failed", and the exit status is make check's.  The whole
# output is kept in build/fresh/check.log.
#
#   FRESH_CMD='...'   run this in the checkout instead of 'make check'
#                     (e.g. 'apt-get update && make help', to try the root)
#   FRESH_MIRROR, FRESH_SECURITY_MIRROR   Debian mirrors; by default those of
#                     this machine's apt sources, else deb.debian.org
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/chroot-lib.sh"

rebuild=${FRESH_REBUILD:-0}
while [ $# -gt 0 ]; do
	case $1 in
	--rebuild) rebuild=1; shift ;;
	*) die "usage: fresh-check.sh [--rebuild]" ;;
	esac
done
cmd=${FRESH_CMD:-make check}
[ "$(id -u)" = 0 ] || die "make fresh-check needs root (debootstrap, chroot, mount)"
"$TOP/scripts/deps.sh" fresh

# Physical paths: they are compared with /proc/self/mountinfo and /proc/PID/root.
fresh=$(realpath -m "$BUILD/fresh")
base=$fresh/root
run=$fresh/run
repo_in=/root/reap-on-kill
log=$fresh/check.log
case $fresh in
*[[:space:]]*) die "the checkout's path has white space: $fresh" ;;
esac
mkdir -p "$fresh"

cleanup() {
	kill_chroot_procs "$run"
	unmount_all "$run"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mirror=${FRESH_MIRROR:-$(mirror_of bookworm http://deb.debian.org/debian)}
security=${FRESH_SECURITY_MIRROR:-$(mirror_of bookworm-security http://deb.debian.org/debian-security)}

if [ "$rebuild" = 1 ] || [ ! -f "$base.complete" ]; then
	step "debootstrap: Debian 12 minbase from $mirror into ${base#"$TOP"/}"
	rm -f "$base.complete"
	remove_tree "$base"
	start=$SECONDS
	if ! debootstrap --variant=minbase --include=make bookworm "$base" "$mirror" \
		> "$fresh/debootstrap.log" 2>&1; then
		tail -5 "$fresh/debootstrap.log" >&2
		die "debootstrap failed; see ${fresh#"$TOP"/}/debootstrap.log"
	fi
	# The sources of a default Debian 12 install, on this machine's mirror:
	# linux-source-6.12 comes from bookworm-security.
	rm -f "$base/etc/apt/sources.list"
	cat > "$base/etc/apt/sources.list.d/debian.sources" <<-EOF
	Types: deb
	URIs: $mirror
	Suites: bookworm bookworm-updates
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

	Types: deb
	URIs: $security
	Suites: bookworm-security
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	forbid_daemons "$base"
	say "fresh-check: debootstrap took $((SECONDS - start)) s, $(du -sm "$base" | cut -f1) MiB"
	touch "$base.complete"
else
	say "fresh-check: reusing ${base#"$TOP"/} (--rebuild or FRESH_REBUILD=1 starts over)"
fi

step "a copy of the root, and a clean clone of the repository in it"
copy_root "$base" "$run"
git clone --quiet --no-hardlinks "$TOP" "$run$repo_in"
say "fresh-check: HEAD $(git -C "$run$repo_in" log -1 --format='%h %s')"
if [ "${FRESH_WORKTREE:-0}" = 1 ]; then
	git -C "$TOP" diff --binary HEAD > "$fresh/worktree.diff"
	if [ -s "$fresh/worktree.diff" ]; then
		git -C "$run$repo_in" apply --binary "$fresh/worktree.diff"
	fi
	git -C "$TOP" ls-files -z --others --exclude-standard |
		(cd "$TOP" && xargs -0 -r cp --parents -a -t "$run$repo_in")
	say "fresh-check: with the working tree's changes: $(git -C "$run$repo_in" status --short | wc -l) files"
fi

bind_system "$run"

step "in the fresh root: cd $repo_in && $cmd"
start=$SECONDS
# In the background, waited for: bash runs the INT and TERM traps (and so
# the cleanup) only once the foreground command ends, but interrupts a wait.
rm -f "$fresh/rc"
{
	chroot "$run" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "cd $repo_in && $cmd"
	echo $? > "$fresh/rc"
} 2>&1 | tee "$log" &
wait $! || true
rc=$(cat "$fresh/rc" 2>/dev/null || echo 1)
took=$((SECONDS - start))
cleanup
say "fresh-check: '$cmd' exited $rc after $((took / 60)) min $((took % 60)) s; output: ${log#"$TOP"/}"
summary=$(grep -aE '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1 || true)
if [ -n "$summary" ]; then
	echo "$summary"
elif [ "$cmd" = "make check" ]; then
	echo "fresh-check: make check ended (exit $rc) before its 'N passed, N failed' line"
fi
exit "$rc"
