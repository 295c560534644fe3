#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# memory.reap_on_kill set by the container runtimes Debian ships, in the
# guest on the patched kernel (scripts/check-systemd.sh runs it):
#
#   - runc and crun, from an OCI bundle whose linux.resources.unified sets
#     "memory.reap_on_kill": "1";
#   - podman, with --cgroup-conf memory.reap_on_kill=1 and an image imported
#     from a local tarball (no registry), cgroupfs manager, no network.
#
# For each: the container's cgroup has the file set, a process killed in it
# is reaped (memory.events:kill_reap of the parent cgroup rises by one, and
# kill_reap counts only reaps that freed memory), and an invalid value
# ("2") is refused with the kernel's error: the runtime fails and the
# process never runs; for runc and crun, no container is left, nor a cgroup
# with processes in it (podman keeps the failed container, in state
# "created", until it is removed).  And a runc
# container that does not set the file, under a parent that does, is
# covered all the same.
#
#   test-runtimes.sh HOG       HOG: tests/containers/hog.c, linked statically
#
# Prints "PASS containers:<runtime>_<what>", "FAIL ...: why" or
# "SKIP ...: why" (a runtime that is not installed), after the "EXPECT"
# lines of tests/lib.sh's expect (scripts/suite-results.sh).
set -uo pipefail
hog=$1
work=/tmp/reap-ctr
parent_name=reap-ctr
parent=/sys/fs/cgroup/$parent_name
P=containers
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
busybox=/bin/busybox	# Debian's busybox-static

# Conditions for wait_for, read again at every try.
is_stopped() { [ "$(oci_state "$1" "$2")" = stopped ]; }

# A root with busybox and the hog.
make_rootfs() {	# make_rootfs DIR
	mkdir -p "$1/bin" "$1/proc" "$1/dev" "$1/sys" "$1/tmp"
	cp "$busybox" "$1/bin/busybox"
	ln -sf busybox "$1/bin/sh"
	cp "$hog" "$1/hog"
}

# Whether a hog runs anywhere (procps, for pgrep, is not in a minimal root).
hog_running() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(tr '\0' ' ' < "$p/cmdline" 2>/dev/null)" = "/hog 64 " ] && return 0
	done
	return 1
}

# The cgroup of PID, as a path under /sys/fs/cgroup.
cgroup_of() { echo "$CG$(sed -n 's/^0:://p' "/proc/$1/cgroup")"; }

# covered_kill RT NAME CGROUP KILL-CMD... : checks that CGROUP has the file
# set, runs KILL-CMD, and checks that kill_reap rose by one.
covered_kill() {
	local rt=$1 name=$2 cg=$3 before after
	shift 3
	if [ "$(cat "$cg/memory.reap_on_kill" 2>/dev/null)" = 1 ]; then
		pass "${rt}_file_set"
	else
		fail "${rt}_file_set" "$cg/memory.reap_on_kill is '$(cat "$cg/memory.reap_on_kill" 2>&1)', want 1"
	fi
	before=$(kill_reap "$parent_name")
	"$@" >/dev/null
	if ! wait_for 300 reaped_since "$parent_name" "$before"; then
		fail "${rt}_killed_process_reaped" "kill_reap stayed at $before after '$*'"
		return
	fi
	sleep 0.5	# a second reap would show now
	after=$(kill_reap "$parent_name")
	if [ "$after" = $((before + 1)) ]; then
		pass "${rt}_killed_process_reaped"
	else
		fail "${rt}_killed_process_reaped" "kill_reap went from $before to $after, want one reap"
	fi
}

# --- runc and crun: an OCI bundle with linux.resources.unified ---
oci_bundle() {	# oci_bundle RT DIR VALUE
	local rt=$1 dir=$2 value=$3
	rm -rf "$dir"
	make_rootfs "$dir/rootfs"
	(cd "$dir" && "$rt" spec) || return 1
	jq --arg cg "/$parent_name/$rt-$value" --arg v "$value" '
		.process.terminal = false |
		.process.args = ["/hog", "64"] |
		.linux.cgroupsPath = $cg |
		if $v == "unset" then . else
			.linux.resources.unified = { "memory.reap_on_kill": $v }
		end' \
		"$dir/config.json" > "$dir/config.new" &&
	mv "$dir/config.new" "$dir/config.json"
}

oci_state() { "$1" state "$2" 2>/dev/null | jq -r .status; }

oci_runtime() {	# oci_runtime RT
	local rt=$1 dir=$work/$1 name=reap-$1 pid
	if ! command -v "$rt" >/dev/null; then
		for t in file_set killed_process_reaped invalid_value_refused; do
			skip "${rt}_$t" "$rt is not installed (Debian package $rt)"
		done
		return
	fi
	if ! oci_bundle "$rt" "$dir" 1 ||
	   ! "$rt" run -d -b "$dir" "$name" >"$dir/out" 2>"$dir/err" </dev/null ||
	   ! wait_for 300 grep -q ready "$dir/out"; then
		fail "${rt}_file_set" "the container did not start: $(tail -3 "$dir/err" | tr '\n' ' ')"
		"$rt" delete -f "$name" 2>/dev/null
		return
	fi
	pid=$("$rt" state "$name" | jq -r .pid)
	covered_kill "$rt" "$name" "$(cgroup_of "$pid")" "$rt" kill "$name" KILL
	wait_for 300 is_stopped "$rt" "$name"
	"$rt" delete -f "$name" 2>/dev/null

	# An invalid value: refused with the kernel's error, nothing left.
	name=reap-$rt-bad
	oci_bundle "$rt" "$dir" 2 || return
	if "$rt" run -d -b "$dir" "$name" >"$dir/out" 2>"$dir/err" </dev/null; then
		fail "${rt}_invalid_value_refused" "$rt run succeeded with memory.reap_on_kill=2"
		"$rt" delete -f "$name" 2>/dev/null
	elif ! grep -qi 'reap_on_kill.*invalid argument' "$dir/err"; then
		fail "${rt}_invalid_value_refused" "failed without the kernel's EINVAL: $(tail -2 "$dir/err" | tr '\n' ' ')"
	elif grep -q ready "$dir/out"; then
		fail "${rt}_invalid_value_refused" "refused, but the process ran"
	elif "$rt" state "$name" >/dev/null 2>&1; then
		fail "${rt}_invalid_value_refused" "refused, but the container is left: $("$rt" state "$name" | jq -c '{status, pid}')"
	elif [ -d "$parent/$rt-2" ] && grep -q . "$parent/$rt-2/cgroup.procs"; then
		fail "${rt}_invalid_value_refused" "refused, but its cgroup is left with processes in it: $(tr '\n' ' ' < "$parent/$rt-2/cgroup.procs")"
	elif [ -d "$parent/$rt-2" ] && [ "$rt" != crun ]; then
		fail "${rt}_invalid_value_refused" "refused, but its (empty) cgroup is left"
	else
		# crun up to at least Debian 12's 1.8.1 leaves the empty cgroup
		# of a container whose cgroup setup failed; upstream fixed that
		# in 2026 (containers/crun pull request 2242).  Nothing runs in
		# it, so the container is not half-configured: noted, removed.
		if [ -d "$parent/$rt-2" ]; then
			echo "# crun: left the empty cgroup $parent_name/$rt-2 behind (a crun bug, fixed upstream); removed"
			rmdir "$parent/$rt-2" || echo "# crun: and it could not be removed"
		fi
		pass "${rt}_invalid_value_refused"
		sed -n 's/^/# '"$rt"': /p' "$dir/err" | tail -1
	fi
	"$rt" delete -f "$name" 2>/dev/null
}

# A container that does not set the file, under a parent cgroup that does
# (what a covered kubepods cgroup gives every pod): its own file reads 0,
# and its killed process is reaped all the same.
parent_covered() {	# parent_covered RT
	local rt=$1 dir=$work/$1 name=reap-$1-parent pid cg own before after
	command -v "$rt" >/dev/null || {
		skip "${rt}_parent_covered" "$rt is not installed (Debian package $rt)"
		return
	}
	echo 1 > "$parent/memory.reap_on_kill"
	if ! oci_bundle "$rt" "$dir" unset ||
	   ! "$rt" run -d -b "$dir" "$name" >"$dir/out" 2>"$dir/err" </dev/null ||
	   ! wait_for 300 grep -q ready "$dir/out"; then
		fail "${rt}_parent_covered" "the container did not start: $(tail -3 "$dir/err" | tr '\n' ' ')"
	else
		pid=$("$rt" state "$name" | jq -r .pid)
		cg=$(cgroup_of "$pid")
		own=$(cat "$cg/memory.reap_on_kill" 2>&1)
		before=$(kill_reap "$parent_name")
		"$rt" kill "$name" KILL
		if [ "$own" != 0 ]; then
			fail "${rt}_parent_covered" "the container's own file is '$own', want 0"
		elif ! wait_for 300 reaped_since "$parent_name" "$before"; then
			fail "${rt}_parent_covered" "kill_reap stayed at $before: the parent's setting did not cover the container"
		else
			sleep 0.5
			after=$(kill_reap "$parent_name")
			if [ "$after" = $((before + 1)) ]; then
				pass "${rt}_parent_covered"
			else
				fail "${rt}_parent_covered" "kill_reap went from $before to $after, want one reap"
			fi
		fi
		wait_for 300 is_stopped "$rt" "$name"
	fi
	"$rt" delete -f "$name" 2>/dev/null
	echo 0 > "$parent/memory.reap_on_kill"
}

# --- podman: --cgroup-conf, an image imported from a tarball ---
podman_runtime() {
	local dir=$work/podman name=reap-podman pid pm
	if ! command -v podman >/dev/null; then
		for t in file_set killed_process_reaped invalid_value_refused; do
			skip "podman_$t" "podman is not installed (Debian package podman)"
		done
		return
	fi
	rm -rf "$dir"
	mkdir -p "$dir/store" "$dir/tmp"
	# Its own storage on a tmpfs: the guest's root is an overlay, which
	# cannot hold another overlay's upper directory.
	mount -t tmpfs tmpfs "$dir/store"
	pm=(podman --root "$dir/store/root" --runroot "$dir/store/run"
	   --storage-driver vfs --cgroup-manager cgroupfs --events-backend file)
	export TMPDIR=$dir/tmp
	make_rootfs "$dir/rootfs"
	if ! tar -C "$dir/rootfs" -c . | "${pm[@]}" import - localhost/reap-hog >"$dir/import" 2>&1; then
		fail podman_file_set "podman import failed: $(tail -2 "$dir/import" | tr '\n' ' ')"
		umount "$dir/store"
		return
	fi
	run=("${pm[@]}" run -d --network none --log-driver k8s-file
	     --cgroup-parent "/$parent_name")
	if ! "${run[@]}" --name "$name" --cgroup-conf memory.reap_on_kill=1 \
		localhost/reap-hog /hog 64 >"$dir/out" 2>"$dir/err" ||
	   ! wait_for 600 sh -c '"$@" logs '"$name"' 2>/dev/null | grep -q ready' sh "${pm[@]}"; then
		fail podman_file_set "the container did not start: $(tail -3 "$dir/err" | tr '\n' ' ')"
	else
		pid=$("${pm[@]}" inspect --format '{{.State.Pid}}' "$name")
		covered_kill podman "$name" "$(cgroup_of "$pid")" "${pm[@]}" kill -s KILL "$name"
		"${pm[@]}" wait "$name" >/dev/null 2>&1
	fi
	"${pm[@]}" rm -f "$name" >/dev/null 2>&1

	name=reap-podman-bad
	if "${run[@]}" --name "$name" --cgroup-conf memory.reap_on_kill=2 \
		localhost/reap-hog /hog 64 >"$dir/out" 2>"$dir/err"; then
		fail podman_invalid_value_refused "podman run succeeded with memory.reap_on_kill=2"
	elif ! grep -qi 'reap_on_kill.*invalid argument' "$dir/err"; then
		fail podman_invalid_value_refused "failed without the kernel's EINVAL: $(tail -2 "$dir/err" | tr '\n' ' ')"
	elif [ "$("${pm[@]}" inspect --format '{{.State.Running}}' "$name" 2>/dev/null)" = true ] ||
	     "${pm[@]}" logs "$name" 2>/dev/null | grep -q ready ||
	     hog_running; then
		fail podman_invalid_value_refused "refused, but the container runs or its process ran"
	else
		pass podman_invalid_value_refused
		sed -n 's/^/# podman: /p' "$dir/err" | tail -1
	fi
	"${pm[@]}" rm -f "$name" >/dev/null 2>&1
	umount "$dir/store"
}

expect runc_file_set runc_killed_process_reaped runc_invalid_value_refused \
	crun_file_set crun_killed_process_reaped crun_invalid_value_refused runc_parent_covered \
	podman_file_set podman_killed_process_reaped podman_invalid_value_refused
mkdir -p "$work" "$parent"
if [ ! -x "$hog" ]; then
	fail setup "no hog program at $hog (tests/containers/hog.c, linked statically)"
	exit 0
fi
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
[ -f "$parent/memory.reap_on_kill" ] || {
	fail setup "no memory.reap_on_kill in $parent (not the patched kernel?)"
	exit 0
}
oci_runtime runc
oci_runtime crun
parent_covered runc
podman_runtime
