#!/bin/bash
# Compose the kernel build tree of base $KBASE (see lib.sh): pristine Debian
# source, our patch series applied as one git commit per patch, our new
# files symlinked in.  On the 6.12 backport, the files that
# patches/linux-6.12/new-files.diff changes are copies with that diff
# applied, refreshed on every run: edit the repository's file, not the copy.
#
# The tree is a git repository so patches can be edited with git (commit,
# rebase -i) and exported back with scripts/export-series.sh.  It refuses to
# touch a tree holding work that was not exported.
. "$(dirname "$0")/lib.sh"

read -r LINUX_PACKAGE base_version LINUX_TARBALL < <(linux_source)
series_id=$(series_id)
stamp=$TREE/.git/reap-on-kill-applied

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
	"$TOP/scripts/check-tree.sh"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$base_version $series_id" ]; then
		link_our_files
		exit 0
	fi
	step "series changed: re-applying on $base_version"
	git -C "$TREE" reset -q --hard base
else
	step "unpacking $LINUX_PACKAGE $base_version"
	rm -rf "$TREE" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -C "$TREE.tmp" --strip-components=1 -xf "$LINUX_TARBALL"
	git -C "$TREE.tmp" init -q
	git -C "$TREE.tmp" config user.name "reap-on-kill build"
	git -C "$TREE.tmp" config user.email "build@reap-on-kill.invalid"
	git -C "$TREE.tmp" config core.autocrlf false
	git -C "$TREE.tmp" config gc.auto 0
	# Debian's top-level .gitignore ignores everything: add by force.
	git -C "$TREE.tmp" add -A -f .
	git -C "$TREE.tmp" commit -q -m "Debian $LINUX_PACKAGE $base_version (pristine)"
	git -C "$TREE.tmp" tag base
	mv "$TREE.tmp" "$TREE"
fi
link_our_files

for p in "$SERIES"/*.patch; do
	[ -e "$p" ] || continue
	if ! git -C "$TREE" am -q --keep-cr "$p" >/dev/null 2>&1; then
		git -C "$TREE" am --abort >/dev/null 2>&1 || true
		die "patch $(basename "$p") does not apply to $LINUX_PACKAGE $base_version; rebase the series"
	fi
done
git -C "$TREE" tag -f applied >/dev/null
echo "$base_version $series_id" > "$stamp"
echo "$LINUX_PACKAGE $base_version" > "$TREE.base-version"
step "tree ready: $LINUX_PACKAGE $base_version + $(ls "$SERIES"/*.patch 2>/dev/null | wc -l) patches"
