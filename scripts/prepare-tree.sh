#!/bin/bash
# Compose the kernel build tree: pristine Debian linux-source-6.12, our patch
# series applied as one git commit per patch, our new files symlinked in.
#
# The tree is a git repository so patches can be edited with git (commit,
# rebase -i) and exported back with scripts/export-series.sh.  It refuses to
# touch a tree holding work that was not exported.
. "$(dirname "$0")/lib.sh"

[ -r "$LINUX_TARBALL" ] || die "$LINUX_TARBALL missing: run 'make deps' (package $LINUX_PACKAGE)"
base_version=$(dpkg-query -W -f='${Version}' "$LINUX_PACKAGE" 2>/dev/null || echo unknown)
series_id=$(series_id)
stamp=$TREE/.git/reap-on-kill-applied

# Our files are symlinks the tree's git must not see.
link_our_files() {
	local exclude=$TREE/.git/info/exclude f
	: > "$exclude"
	while IFS= read -r f; do
		if [ -e "$TREE/$f" ] && [ ! -L "$TREE/$f" ]; then
			die "$f exists upstream: change it with a patch, do not shadow it"
		fi
		mkdir -p "$(dirname "$TREE/$f")"
		ln -sfn "$TOP/$f" "$TREE/$f"
		echo "/$f" >> "$exclude"
	done < <(our_kernel_files)
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
echo "$base_version" > "$BUILD/linux-base-version"
step "tree ready: $LINUX_PACKAGE $base_version + $(ls "$SERIES"/*.patch 2>/dev/null | wc -l) patches"
