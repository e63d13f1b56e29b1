#!/usr/bin/env bash
# Type-check this repository for another platform: runs the shared
# `check-target` tool (Debian's Rust with its standard-library source, a stub
# C compiler, nothing linked: it proves the Rust compiles for TARGET, not that
# it links or runs) on the repository this script is in.
#   scripts/check-target.sh TARGET [cargo check args]
# The tool is found at, in order:
#   1. $AGENT_HANDOVER_CHECK_TARGET;
#   2. ../shared/tools/check-target beside this checkout (or beside the main
#      checkout, for a git worktree);
#   3. the same beside the checkout this one was cloned from, when its
#      `origin` is a local folder (CI's clean clone of the development checkout).
# None there is an error naming every place looked in: CI must not pass
# without the check.
set -euo pipefail
target=${1:?usage: scripts/check-target.sh TARGET [cargo check args]}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

candidates=()
if [ -n "${AGENT_HANDOVER_CHECK_TARGET:-}" ]; then
    candidates+=("$AGENT_HANDOVER_CHECK_TARGET")
fi
candidates+=("$root/../shared/tools/check-target")
common=$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
if [ -n "$common" ] && [ "$(basename "$common")" = .git ]; then
    candidates+=("$(dirname "$common")/../shared/tools/check-target")
fi
origin=$(git config --get remote.origin.url 2>/dev/null || true)
origin=${origin#file://}
if [ -n "$origin" ] && [ -d "$origin" ]; then
    candidates+=("$(cd "$origin" && pwd)/../shared/tools/check-target")
fi

for tool in "${candidates[@]}"; do
    if [ -f "$tool" ]; then
        echo "check-target $target: $tool" >&2
        exec bash "$tool" "$@"
    fi
done
echo "error: no check-target tool to type-check for $target; looked in:" >&2
printf '  %s\n' "${candidates[@]}" >&2
echo "  fix: set AGENT_HANDOVER_CHECK_TARGET to its path" >&2
exit 1
