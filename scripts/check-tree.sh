#!/bin/bash
# Refuse to go on when the build tree holds edits that are not in the
# repository's patch series: they would be lost by the next re-apply.
. "$(dirname "$0")/lib.sh"
[ -d "$TREE/.git" ] || exit 0
if [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; then
	git -C "$TREE" status --short --untracked-files=no >&2
	die "${TREE#"$TOP"/} has uncommitted edits: commit them there, then 'make export-series KBASE=$KBASE'"
fi
if git -C "$TREE" rev-parse -q --verify applied >/dev/null &&
   [ "$(git -C "$TREE" rev-parse HEAD)" != "$(git -C "$TREE" rev-parse applied)" ]; then
	die "${TREE#"$TOP"/} has commits not exported to ${SERIES#"$TOP"/}: run 'make export-series KBASE=$KBASE'"
fi
