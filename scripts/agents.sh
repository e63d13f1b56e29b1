#!/usr/bin/env bash
# Installs the agent programs pinned in tests/agents/versions.txt into a
# cache outside the clone, skipping what is already there, and prints the
# path of each program's command (of a library, command `-`: the folder
# holding its package.json, package-lock.json and node_modules).
#
#   scripts/agents.sh [NAME...]     install (all, or the named) and print
#
# Cache: $AGENT_HANDOVER_AGENT_CACHE, default ~/.cache/agent-handover/agents.
# An install is marked complete only when it has finished (a killed
# install is redone from scratch by the next run); a lock keeps two runs
# from installing at once.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${AGENT_HANDOVER_AGENT_CACHE:-$HOME/.cache/agent-handover/agents}
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

wanted=" $* "
while read -r name registry package version command; do
    case "$name" in ''|'#'*) continue ;; esac
    if [ $# -gt 0 ] && [[ "$wanted" != *" $name "* ]]; then continue; fi
    dir="$cache/$name-$version"
    case "$registry" in
        npm) if [ "$command" = - ]; then bin=$dir; else bin="$dir/node_modules/.bin/$command"; fi ;;
        pypi) bin="$dir/bin/$command" ;;
        *) echo "error: unknown registry '$registry' for $name in tests/agents/versions.txt" >&2; exit 2 ;;
    esac
    if [ ! -e "$dir/.complete" ]; then
        rm -rf "$dir"
        start=$(date +%s)
        case "$registry" in
            npm)
                command -v npm >/dev/null || { echo "error: npm is needed to install $package (install Node.js 20 or newer)" >&2; exit 2; }
                mkdir -p "$dir"
                if [ "$command" = - ]; then
                    # A library, pinned exactly, as OpenCode writes a config
                    # folder's package.json for the plugin API.
                    printf '{\n  "dependencies": {\n    "%s": "%s"\n  }\n}\n' "$package" "$version" > "$dir/package.json"
                    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error >&2
                else
                    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$package@$version" >&2
                fi ;;
            pypi)
                python3 -m venv "$dir"
                "$dir/bin/pip" install --quiet --disable-pip-version-check "$package==$version" >&2 ;;
        esac
        touch "$dir/.complete"
        echo "installed $package@$version in $(( $(date +%s) - start )) s" >&2
    fi
    printf '%s\t%s\n' "$name" "$bin"
done < "$here/tests/agents/versions.txt"
