#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compose the kernel build tree of base $KBASE (see lib.sh): pristine Debian
# source, our patch series applied as one git commit per patch, our new
# files symlinked in.  On the 6.12 backport, the files that
# patches/linux-6.12/new-files.diff changes are copies with that diff
# applied, refreshed on every run: edit the repository's file, not the copy.
#
# The tree is a patched tree of lib-tree.sh, like systemd's: edit the
# patches with git (commit, rebase -i) and export them back with
# scripts/export-series.sh.  A tree holding work that was not exported is
# never touched.
. "$(dirname "$0")/lib.sh"

read -r LINUX_PACKAGE base_version LINUX_TARBALL < <(linux_source)

# Our files are symlinks the tree's git must not see.
link_our_files() {
	local exclude=$TREE/.git/info/exclude f
	: > "$exclude"
	while IFS= read -r f; do
		if [ -e "$TREE/$f" ] && [ ! -L "$TREE/$f" ] && ! backported "$f"; then
			die "$f exists upstream: change it with a patch, do not shadow it"
		fi
		mkdir -p "$(dirname "$TREE/$f")"
		backported "$f" || ln -sfn "$TOP/$f" "$TREE/$f"
		echo "/$f" >> "$exclude"
	done < <(our_kernel_files)
	apply_backport_diff
}

# Files the backport diff changes (none on mainline).
backported() {
	[ -f "$BACKPORT_DIFF" ] && grep -qx -- "+++ b/$1" "$BACKPORT_DIFF"
}

# Our file with the backport's changes, written only when it differs, so
# that an unchanged file does not rebuild.
apply_backport_diff() {
	local f tmp
	[ -f "$BACKPORT_DIFF" ] || return 0
	command -v patch >/dev/null || die "patch missing: run scripts/deps.sh (Debian package patch)"
	for f in $(sed -n 's|^+++ b/||p' "$BACKPORT_DIFF"); do
		tmp=$(mktemp)
		if ! filterdiff_one "$f" < "$BACKPORT_DIFF" |
		     patch -s -o "$tmp" "$TOP/$f" >/dev/null 2>&1; then
			rm -f "$tmp" "$tmp.rej" "$tmp.orig"
			die "${BACKPORT_DIFF#"$TOP"/} no longer applies to $f: update it (see its head)"
		fi
		rm -f "$TREE/$f.rej"
		if [ -L "$TREE/$f" ] || ! cmp -s "$tmp" "$TREE/$f"; then
			rm -f "$TREE/$f"
			cp "$tmp" "$TREE/$f"
		fi
		rm -f "$tmp"
	done
}

# The part of a unified diff that changes file $1.
filterdiff_one() {
	awk -v f="$1" '/^--- / { keep = 0 } /^--- a\// { want = ($2 == "a/" f) }
		/^\+\+\+ / { keep = want } keep || (want && /^--- /)'
}

if [ -d "$TREE/.git" ]; then
	tree_guard "$TREE" "$SERIES" "make export-series KBASE=$KBASE"
	if tree_is_current "$TREE" "$base_version" "$SERIES"; then
		link_our_files
		exit 0
	fi
	step "series changed: re-applying on $base_version"
	tree_reset "$TREE"
else
	step "unpacking $LINUX_PACKAGE $base_version"
	rm -rf "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -C "$TREE.tmp" --strip-components=1 -xf "$LINUX_TARBALL"
	tree_import "$TREE" "Debian $LINUX_PACKAGE $base_version (pristine)"
fi
link_our_files
tree_apply "$TREE" "$SERIES" "$base_version" "$LINUX_PACKAGE $base_version"
echo "$LINUX_PACKAGE $base_version" > "$TREE.base-version"
step "tree ready: $LINUX_PACKAGE $base_version + $(ls "$SERIES"/*.patch 2>/dev/null | wc -l) patches"
