#!/usr/bin/env bash
# Regenerate screenshots/*.png from the real dashboard: tmux runs the release
# binary on a generated workspace, `capture-pane -e` keeps the colours, and
# scripts/ansi2png.py draws each capture as a PNG (Pillow, installed into
# target/py-shots on first use; DejaVu Sans Mono from fonts-dejavu-core).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cargo build --release --quiet --bin agent-handover
bin=$root/target/release/agent-handover
venv=$root/target/py-shots
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import PIL' 2>/dev/null; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q pillow
fi
sock=ah-shots-$$
work=$(mktemp -d)
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
ws=$work/parser
# HOME is the workspace's parent, so the header shows ~/parser, not a temp path.
export HOME=$work
unset NO_COLOR AGENT_HANDOVER_CHECKPOINT

# A project with history: the tour's two sessions (one crashed and resumed),
# a third session, messages between agents, then a fourth handover killed
# while its tests ran.
"$bin" demo --tour --dir "$ws" >/dev/null
cd "$ws"
note() {
  cat <<NOTE
# Session $1: parser rewrite

## Goal
Replace the hand-written parser with one that reports source spans.

## Done (don't redo)
- Lexer with spans; error recovery at statement level
- $2

## Status
$3/90 tests pass

## Failed approaches (DO NOT retry)
- regex-based lexer: 40x slower on 1 MB inputs

## Next step
$4
NOTE
}
AGENT_HANDOVER_DEMO_PASSED=71 "$bin" run --config handover.toml --note "$(note 3 "Nested lists parse (src/parser/list.rs)" 71 "Fix unicode escapes in src/parser/escape.rs")" >/dev/null
if "$bin" inbox --help >/dev/null 2>&1; then
  echo "CI is red on main since 10:12: parser::unicode fails on the new escape table." |
    "$bin" inbox send --to demo-agent --from reviewer --subject "CI red on main" >/dev/null
  echo "Schema v3 of the AST is merged; spans are byte offsets now." |
    "$bin" inbox send --to demo-agent --from architect --subject "AST v3 merged" >/dev/null
  echo "Release freeze starts Friday 18:00 UTC." |
    "$bin" inbox send --to shared --from lead --subject "Release freeze" >/dev/null || true
fi
AGENT_HANDOVER_DEMO_PASSED=88 AGENT_HANDOVER_DEMO_SLEEP=30 "$bin" run --config handover.toml \
  --note "$(note 4 "Unicode escapes (src/parser/escape.rs)" 88 "Wire the CLI to the new parser in src/cli/mod.rs")" >/dev/null 2>&1 &
run=$!
for _ in $(seq 200); do
  "$bin" status --json | grep -q '"state": "running"' && "$bin" status --json | grep -A3 '"name": "tests"' | grep -q running && break
  sleep 0.05
done
kill -9 "$run"; wait "$run" 2>/dev/null || true

mkdir -p "$root/screenshots"
# shot NAME COLS ROWS [KEYS...]: start the dashboard (with $dash_args and
# $shot_home as HOME, when set), type KEYS, capture, draw.
shot() {
  local name=$1 cols=$2 rows=$3; shift 3
  tmux -L "$sock" -f /dev/null new-session -d -x "$cols" -y "$rows" -c "$ws" \
    "env HOME=${shot_home:-$HOME} TERM=xterm-256color $bin dashboard ${dash_args:-}"
  sleep 1.5
  for k in "$@"; do tmux -L "$sock" send-keys -t 0 "$k"; sleep 0.3; done
  sleep 0.5
  tmux -L "$sock" capture-pane -e -p -t 0 >"$work/$name.txt"
  tmux -L "$sock" kill-server 2>/dev/null || true
  "$venv/bin/python" "$root/scripts/ansi2png.py" "$work/$name.txt" "$root/screenshots/$name.png" "$cols" "$rows"
  echo "screenshots/$name.png"
}
shot inbox-160x48 160 48
shot state-160x48 160 48 3
shot state-compare-160x48 160 48 3 Space j j Enter
shot quality-160x48 160 48 4
shot timeline-160x48 160 48 5
shot run-narrow-60x20 60 20
shot state-narrow-60x20 60 20 3
shot state-versions-60x20 60 20 3 v
shot run-80x24 80 24
shot inbox-compose-100x30 100 30 c "Stop the deploy" Tab "The release is frozen until Friday." Enter "Wait for my word."
"$bin" pause --reason "reviewing the handoff" >/dev/null
shot paused-100x30 100 30
"$bin" unpause >/dev/null
shot help-100x30 100 30 "?"
shot metrics-160x48 160 48 6

# The fleet: the parser beside a completed workspace with mail for the
# human and a paused one (HOME is their parent, so paths show as ~/...).
for other in billing docs; do
  mkdir -p "$work/$other/home"
  (cd "$work/$other" && printf '[handover]\ntag = "%s"\n[backend]\ntype = "null"\n' "$other" >handover.toml && HOME=$work/$other/home "$bin" run --config handover.toml --note "$(note 1 "Set up $other" 30 "Continue $other")" >/dev/null 2>&1 || true)
done
(cd "$work/billing" && echo "Refund rounding: which rule do we follow?" |
  HOME=$work/billing/home "$bin" inbox send --to human --from billing-agent --subject "Question on refunds" >/dev/null)
(cd "$work/docs" && HOME=$work/docs/home "$bin" pause --reason "reviewing the docs" >/dev/null)
dash_args="$ws $work/billing $work/docs" shot_home=$work shot fleet-100x30 100 30
dash_args="$ws $work/billing $work/docs" shot_home=$work shot fleet-narrow-60x20 60 20
dash_args="$ws $work/billing $work/docs" shot_home=$work shot fleet-cockpit-160x48 160 48
