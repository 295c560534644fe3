#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the upstream-ready series of base $KBASE to build/series-$KBASE/:
# its patch series (patches/linux for mainline, the one to send;
# patches/linux-6.12 for the backport) with our new files folded into the
# patch that first needs them (the series' new-files; on 6.12 with the
# backport's new-files.diff applied), the series' cover-letter,
# checkpatch --strict on every patch, and, unless SERIES_BUILD=no, a kernel
# build after every patch (and the cgroup selftests after the patches that
# touch them), so the series is known to bisect.
#
# The series is composed in build/series-tree-$KBASE, a worktree of
# build/linux-$KBASE kept between runs so that the per-patch builds are
# incremental.
. "$(dirname "$0")/lib.sh"

out=$BUILD/series-$KBASE
wt=$BUILD/series-tree-$KBASE
sobj=$BUILD/obj/series-$KBASE
manifest=$SERIES/new-files
cover=$SERIES/cover-letter
export PATH=/usr/bin:$PATH	# checkpatch's spdxcheck.py wants Debian's python3

[ -r "$manifest" ] || die "${manifest#"$TOP"/} missing"
[ -r "$cover" ] || die "${cover#"$TOP"/} missing"
"$TOP/scripts/prepare-tree.sh"
read -r LINUX_PACKAGE base_version _ < "$SOURCE_INFO"

# Every new kernel file is assigned to a patch (or kept out with '-').
manifest_files() { grep -v '^#' "$manifest" | awk 'NF == 2 { print $2 }' | sort; }
if ! diff <(manifest_files) <(our_kernel_files | sort) >/dev/null; then
	diff <(manifest_files) <(our_kernel_files | sort) >&2 || true
	die "${manifest#"$TOP"/} does not list exactly our kernel files ('<' listed only, '>' not listed)"
fi

step "composing the series in ${wt#"$TOP"/}"
# Files the new series leaves as they were keep their mtimes, so that the
# per-patch builds stay incremental from one run to the next.
mtimes=$BUILD/.series-tree-$KBASE.mtimes
if [ -d "$wt/.git" ] || [ -f "$wt/.git" ]; then
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	tree_save_mtimes "$wt" "$mtimes"
	git -C "$wt" checkout -q --detach -f base
	git -C "$wt" clean -q -fdx
else
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$wt" base
fi

for p in "$SERIES"/*.patch; do
	name=$(basename "$p")
	num=${name%%-*}
	if ! git -C "$wt" am -q --keep-cr "$p" >/dev/null 2>&1; then
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		die "$name does not apply to $LINUX_PACKAGE $base_version"
	fi
	# The tree's copy: on 6.12, with the backport's changes applied.
	files=$(grep -v '^#' "$manifest" | awk -v n="$num" '$1 == n { print $2 }')
	[ -n "$files" ] || continue
	for f in $files; do
		mkdir -p "$(dirname "$wt/$f")"
		cp -L "$TREE/$f" "$wt/$f"
		git -C "$wt" add -f "$f"
	done
	git -C "$wt" commit -q --amend --no-edit
done
tree_restore_mtimes "$wt" "$mtimes"

rm -rf "$out"
mkdir -p "$out"
# The cover letter comes from the committer: make that the project.
git -C "$wt" -c user.name="reap-on-kill developers" -c user.email=dev@reap-on-kill.invalid \
	format-patch -q --cover-letter --thread=shallow --no-signature -o "$out" base..HEAD

# Fill in the cover letter: subject, body, and the base it was made on.
if [ "$KBASE" = mainline ]; then
	base_text="The series applies to Linux $(make -s -C "$TREE" kernelversion) as Debian unstable ships it ($LINUX_PACKAGE $base_version), on which it was built and tested."
else
	base_text="This is the backport to Linux $KBASE.y as Debian ships it ($LINUX_PACKAGE $base_version), on which it was built and tested; patches 0001 and 0002 bring in the mainline helpers the series uses."
fi
python3 - "$out"/0000-cover-letter.patch "$cover" "$base_text" <<'EOF'
import sys, textwrap
path, cover, base = sys.argv[1:]
subject, _, body = open(cover).read().partition('\n')
body = body.strip('\n') + '\n\nBase\n====\n\n' + textwrap.fill(base, 72) + '\n'
text = open(path).read()
text = text.replace('*** SUBJECT HERE ***', subject.strip())
text = text.replace('*** BLURB HERE ***', body.rstrip('\n'))
open(path, 'w').write(text)
EOF

step "checkpatch --strict"
status=0
declare -A cp_result
for p in "$out"/0*.patch; do
	name=$(basename "$p")
	[ "$name" = 0000-cover-letter.patch ] && continue
	if res=$(cd "$wt" && scripts/checkpatch.pl --strict --quiet "$p" 2>&1); then
		cp_result[$name]=clean
	else
		printf '== %s\n%s\n' "$name" "$res" >&2
		cp_result[$name]="$(grep -cE '^(ERROR|WARNING|CHECK)' <<<"$res") problems"
		status=1
	fi
done

# build_at COMMIT NAME: build the kernel (and the selftests if the commit
# touches them) as of COMMIT; prints "ok (Ns)" or "FAILED ...".
build_at() {
	local commit=$1 name=$2 log=$BUILD/logs/series-$KBASE-$2.log start files
	git -C "$wt" checkout -q --detach "$commit"
	start=$(date +%s)
	# Before the Kconfig patch the feature's symbol is unknown: allowed.
	if ! ALLOW_UNKNOWN=1 "$TOP/scripts/kernel-config.sh" "$wt" "$sobj" \
		$GUEST_CONFIGS >"$log" 2>&1; then
		echo "FAILED (config; ${log#"$TOP"/})"; return 1
	fi
	if ! make -C "$wt" O="$sobj" CC="$TOP/scripts/ccache-gcc" -j"$(make_jobs)" \
		bzImage headers >>"$log" 2>&1; then
		echo "FAILED (kernel; ${log#"$TOP"/})"; return 1
	fi
	# The kernel-doc comments of the kernel files this commit adds.
	files=$(git -C "$wt" diff --name-only --diff-filter=A "$commit~1" "$commit" -- \
		'*.c' '*.h' ':!tools')
	if [ -n "$files" ] &&
	   (cd "$wt" && scripts/kernel-doc -none -Wall $files 2>&1) | tee -a "$log" | grep -q .; then
		echo "FAILED (kernel-doc; ${log#"$TOP"/})"; return 1
	fi
	if git -C "$wt" diff --quiet "$commit~1" "$commit" -- tools/testing/selftests/cgroup; then
		echo "ok ($(( $(date +%s) - start ))s)"; return 0
	fi
	mkdir -p "$sobj-tests"
	if ! make -C "$wt/tools/testing/selftests/cgroup" OUTPUT="$sobj-tests" \
		KHDR_INCLUDES="-isystem $sobj/usr/include" -j"$(make_jobs)" >>"$log" 2>&1; then
		echo "FAILED (selftests; ${log#"$TOP"/})"; return 1
	fi
	echo "ok, with selftests ($(( $(date +%s) - start ))s)"
}

declare -A build_result
if [ "${SERIES_BUILD:-yes}" != no ]; then
	mkdir -p "$BUILD/logs"
	i=0
	for c in $(git -C "$wt" rev-list --reverse base..HEAD); do
		i=$((i + 1))
		name=$(printf '%04d' "$i")
		step "building after patch $name: $(git -C "$wt" log -1 --format=%s "$c")"
		build_result[$name]=$(build_at "$c" "$name") || status=1
		say "    ${build_result[$name]}"
	done
fi

# Summary: one line per patch.
{
	echo "Series against $LINUX_PACKAGE $base_version, in ${out#"$TOP"/}:"
	i=0
	for c in $(git -C "$wt" rev-list --reverse base..HEAD); do
		i=$((i + 1))
		name=$(printf '%04d' "$i")
		file=$(cd "$out" && ls "$name"-*.patch)
		stat=$(git -C "$wt" diff --shortstat "$c~1" "$c" | sed 's/^ //')
		printf '  %s  %s\n        %s; checkpatch: %s; build: %s\n' "$file" \
			"$(git -C "$wt" log -1 --format=%s "$c")" "$stat" \
			"${cp_result[$file]:-?}" "${build_result[$name]:-not built (SERIES_BUILD=no)}"
	done
} | tee "$out/SUMMARY"
exit $status
