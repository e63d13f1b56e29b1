#!/usr/bin/env bash
# Soak install and removal, and `knowledge forget`: SIGKILL them N times each
# (default 300) at random moments of their run, finish with the same command
# unkilled, and check the end state: after install then removal, every file
# of the project is back byte for byte (nothing left over: no `.mcp.json`,
# no temp file, no reformatted settings); after a forget, the fact is out of
# MEMORY.md and recorded once. Prints the counts; exits 1 on a violation.
# Usage: scripts/soak-install-kill.sh [N]
#   AGENT_HANDOVER_BIN=<binary> to soak another build (default: the debug build).
set -euo pipefail
N="${1:-300}"
cd "$(dirname "$0")/.."
. scripts/soak-bin.sh
WS="$(mktemp -d)"
trap 'rm -rf "$WS"' EXIT
export HOME="$WS/home"
mkdir -p "$HOME"

fresh() { # a project with the user's own files an install edits
  rm -rf "$WS/p" && mkdir -p "$WS/p/.claude" && cd "$WS/p"
  printf '[handover]\nmemory_dir = "memory"\ntag = "t"\n\n[backend]\ntype = "null"\n' >handover.toml
  printf '{"model": "opus","permissions":{"allow":["Bash(ls)"]}}\n' >.claude/settings.json
  printf '# House rules\n\nBe kind.\n' >CLAUDE.md
}
listing() { find . -path ./.agent-handover -prune -o -type f -print0 | sort -z | xargs -0 sha1sum; }
span_us() { # how long a command takes here, in microseconds
  local start; start=$(date +%s%N); "$@" >/dev/null 2>&1 || true
  echo $((($(date +%s%N) - start) / 1000))
}
kill_within() { # run the command, SIGKILL it at a random moment within $1 us
  "${@:2}" >/dev/null 2>&1 & local pid=$!
  sleep "$(awk -v us="$((RANDOM * RANDOM % ($1 + 1)))" 'BEGIN { printf "%.6f", us / 1e6 }')"
  kill -9 "$pid" 2>/dev/null && killed=$((killed + 1)) || true
  wait "$pid" 2>/dev/null || true
}

killed=0; bad=0
fresh; install_us=$(span_us "$BIN" install claude); remove_us=$(span_us "$BIN" install --remove claude)
for i in $(seq "$N"); do
  fresh; before=$(listing)
  if [ $((i % 2)) -eq 0 ]; then
    kill_within "$install_us" "$BIN" install claude
  else
    "$BIN" install claude >/dev/null
    kill_within "$remove_us" "$BIN" install --remove claude
  fi
  "$BIN" install claude >/dev/null && "$BIN" install --remove claude >/dev/null
  if [ "$(listing)" != "$before" ]; then
    bad=$((bad + 1)); echo "violation at round $i:"; diff <(echo "$before") <(listing) || true
  fi
done
echo "install/remove: $N rounds, $killed killed mid-run, $bad violations"

killed_forget=0; bad_forget=0
note='# Session

## Decisions
- [DECISION] one lock per checkpoint: flock, released by the kernel.
'
for i in $(seq "$N"); do
  rm -rf "$WS/k" && mkdir -p "$WS/k" && cd "$WS/k"
  printf '[handover]\nmemory_dir = "memory"\ntag = "t"\n\n[backend]\ntype = "null"\n' >handover.toml
  "$BIN" run --note "$note" >/dev/null 2>&1
  id=$("$BIN" --json knowledge search flock | sed -n 's/.*"id": *"\([0-9a-f]*\)".*/\1/p' | head -1)
  [ -n "$id" ] || { echo "no fact learned"; exit 1; }
  [ "$i" -eq 1 ] && forget_us=$(cd "$WS" && mkdir -p t && cd t && cp -r "$WS/k/." . && span_us "$BIN" knowledge forget "$id")
  before=$killed; killed=0
  kill_within "$forget_us" "$BIN" knowledge forget "$id"
  killed_forget=$((killed_forget + killed)); killed=$before
  "$BIN" knowledge forget "$id" >/dev/null 2>&1 || { bad_forget=$((bad_forget + 1)); echo "forget again failed at round $i"; continue; }
  if grep -q "$id" memory/MEMORY.md || [ "$(grep -c "$id" memory/knowledge/forgotten.md)" != 1 ]; then
    bad_forget=$((bad_forget + 1)); echo "forget violation at round $i"
  fi
done
echo "knowledge forget: $N rounds, $killed_forget killed mid-run, $bad_forget violations"
[ "$bad" -eq 0 ] && [ "$bad_forget" -eq 0 ]
