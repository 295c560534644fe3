# SPDX-License-Identifier: GPL-2.0
# Patched source trees, shared by the kernel's (prepare-tree.sh) and
# systemd's (systemd-source.sh); sourced after lib.sh, not run.
# shellcheck shell=bash
#
# A patched tree is a git repository: tag "base" is the pristine upstream
# source as Debian ships it, one commit per patch of our series follows,
# tag "applied" marks the series as last applied or exported, and the stamp
# .git/reap-on-kill-applied holds "BASE_VERSION SERIES_ID".  Work is done in
# the tree with git and written back with tree_export; a tree holding work
# that was not exported is never reset.

# tree_series_id DIR: identifies the series in DIR as it is now (its
# *.patch files, and *.diff files such as a backport's new-files.diff).
tree_series_id() {
	find "$1" -maxdepth 1 \( -name '*.patch' -o -name '*.diff' \) -type f 2>/dev/null |
		sort | xargs -r cat | sha1sum | cut -c1-12
}

# tree_guard TREE SERIES EXPORT_COMMAND: die when TREE holds edits or
# commits that are not in SERIES: the next re-apply would lose them.
tree_guard() {
	local tree=$1 series=$2 export_cmd=$3
	[ -d "$tree/.git" ] || return 0
	if [ -n "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
		git -C "$tree" status --short --untracked-files=no >&2
		die "${tree#"$TOP"/} has uncommitted edits: commit them there, then '$export_cmd'"
	fi
	if git -C "$tree" rev-parse -q --verify applied >/dev/null &&
	   [ "$(git -C "$tree" rev-parse HEAD)" != "$(git -C "$tree" rev-parse applied)" ]; then
		die "${tree#"$TOP"/} has commits not exported to ${series#"$TOP"/}: run '$export_cmd'"
	fi
}

# tree_is_current TREE VERSION SERIES: whether TREE holds SERIES as it is
# now, applied on VERSION.
tree_is_current() {
	[ "$(cat "$1/.git/reap-on-kill-applied" 2>/dev/null)" = "$2 $(tree_series_id "$3")" ]
}

# tree_import TREE MESSAGE: TREE.tmp holds the unpacked pristine source;
# make it a git repository whose one commit, tagged "base", is that
# source, and move it to TREE.
tree_import() {
	local tree=$1 tmp=$1.tmp
	git -C "$tmp" init -q
	git -C "$tmp" config user.name "reap-on-kill build"
	git -C "$tmp" config user.email "build@reap-on-kill.invalid"
	git -C "$tmp" config core.autocrlf false
	git -C "$tmp" config gc.auto 0
	# Debian's kernel .gitignore ignores everything: add by force.
	git -C "$tmp" add -A -f .
	git -C "$tmp" commit -q -m "$2"
	git -C "$tmp" tag base
	rm -rf "$tree"
	mv "$tmp" "$tree"
}

# tree_reset TREE: back to the pristine base, for a series that changed.
# The files the old series touched are remembered with their mtimes, so
# that tree_apply can give those the new series leaves unchanged their old
# mtimes back, and an incremental build does not rebuild what includes them.
tree_reset() {
	# At its base already (an apply failed): keep what the reset before
	# it remembered.
	[ "$(git -C "$1" rev-parse HEAD)" = "$(git -C "$1" rev-parse base)" ] ||
		tree_save_mtimes "$1"
	git -C "$1" reset -q --hard base
	git -C "$1" clean -qfd
}

# tree_save_mtimes TREE [LIST]: remember the content and mtime of the files
# TREE's commits touch, in LIST (default: in TREE's .git directory; a
# worktree, whose .git is a file, names one).
tree_save_mtimes() {
	local tree=$1 list=${2:-$1/.git/reap-on-kill-mtimes} f
	git -C "$tree" diff --name-only base HEAD -- |
		while IFS= read -r f; do
			[ -f "$tree/$f" ] || continue
			printf '%s %s %s\n' "$(git -C "$tree" hash-object -- "$f")" \
				"$(stat -c %.9Y "$tree/$f")" "$f"
		done > "$list"
}

# tree_restore_mtimes TREE [LIST]: give the files of LIST (see
# tree_save_mtimes) whose content is unchanged their old mtimes back.
tree_restore_mtimes() {
	local tree=$1 list=${2:-$1/.git/reap-on-kill-mtimes} hash mtime f
	[ -f "$list" ] || return 0
	while read -r hash mtime f; do
		[ -f "$tree/$f" ] &&
		[ "$(git -C "$tree" hash-object -- "$f")" = "$hash" ] &&
		touch -d "@$mtime" "$tree/$f"
	done < "$list"
	rm -f "$list"
}

# tree_apply TREE SERIES VERSION WHAT: apply SERIES's patches to TREE (at
# its base) as one commit each, name the first that fails to apply to WHAT,
# and stamp the tree.
tree_apply() {
	local tree=$1 series=$2 version=$3 what=$4 p
	for p in "$series"/*.patch; do
		[ -e "$p" ] || continue
		if ! git -C "$tree" am -q --keep-cr "$p" >/dev/null 2>&1; then
			git -C "$tree" am --abort >/dev/null 2>&1 || true
			# Back to the base, unstamped, so that the next run
			# applies the series again rather than finding
			# commits it does not know.
			git -C "$tree" reset -q --hard base
			git -C "$tree" tag -f applied base >/dev/null
			rm -f "$tree/.git/reap-on-kill-applied"
			die "patch ${p#"$TOP"/} does not apply to $what; rebase the series"
		fi
	done
	git -C "$tree" tag -f applied >/dev/null
	tree_restore_mtimes "$tree"
	echo "$version $(tree_series_id "$series")" > "$tree/.git/reap-on-kill-applied"
}

# tree_export TREE SERIES VERSION: write TREE's commits since its base to
# SERIES as a git format-patch series, and stamp the tree as holding it.
tree_export() {
	local tree=$1 series=$2 version=$3
	[ -d "$tree/.git" ] || die "no tree ${tree#"$TOP"/}: compose it first"
	if [ -n "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
		die "${tree#"$TOP"/} has uncommitted edits: commit them first"
	fi
	mkdir -p "$series"
	rm -f "$series"/*.patch
	git -C "$tree" format-patch -q --no-signature --zero-commit -N \
		-o "$series" base..HEAD
	git -C "$tree" tag -f applied >/dev/null
	echo "$version $(tree_series_id "$series")" > "$tree/.git/reap-on-kill-applied"
	step "exported $(ls "$series"/*.patch | wc -l) patches to ${series#"$TOP"/}"
}
