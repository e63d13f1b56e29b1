#!/usr/bin/env bash
# Soak the inbox's temp-file sweep: SIGKILL `inbox send` and `inbox ack` N times
# (default 400) at random moments of their run, then check that one more command
# (`inbox ack`) leaves no temp file behind and that no message is torn.
# Prints the counts; exits 1 if a temp file or a torn message is left.
# Usage: scripts/soak-inbox-kill.sh [N]
#   AGENT_HANDOVER_BIN=<binary> to soak another build (default: the debug build).
set -euo pipefail
N="${1:-400}"
cd "$(dirname "$0")/.."
. scripts/soak-bin.sh

WS="$(mktemp -d)"
trap 'rm -rf "$WS"' EXIT
mkdir "$WS/home"
printf '[handover]\nmemory_dir = "memory"\ntag = "codex"\n\n[backend]\ntype = "null"\n' >"$WS/handover.toml"
export HOME="$WS/home"
cd "$WS"
# A body large enough that writing and syncing it takes a while to be killed in.
head -c 150000 /dev/zero | tr '\0' 'x' >body.txt

# Each command is started directly in the background (`$!` is its own pid).
SEND=(inbox send --from codex --body-file body.txt --to)
ACK=(inbox ack --agent claude)
temp_names() { find messages -name '.*.tmp' 2>/dev/null | sort; }
temps() { temp_names | wc -l; }

# How long each command takes here: kills land uniformly within 1.2x that span.
span() {
  local start
  start=$(date +%s%N)
  for _ in 1 2 3 4 5; do "$BIN" "$@" >/dev/null; done
  echo $((($(date +%s%N) - start) / 5 / 1000))
}
send_us=$(span "${SEND[@]}" claude)
ack_us=$(span "${ACK[@]}")

killed_send=0 finished_send=0 killed_ack=0 finished_ack=0 orphans=0
for _ in $(seq 1 "$N"); do
  temp_names >before.txt
  if ((RANDOM % 2)); then
    op=send span_us=$send_us
    if ((RANDOM % 4)); then to=claude; else to=shared; fi
    "$BIN" "${SEND[@]}" "$to" >/dev/null 2>&1 &
  else
    op=ack span_us=$ack_us
    "$BIN" "${ACK[@]}" >/dev/null 2>&1 &
  fi
  pid=$!
  delay_us=$((RANDOM * 32768 + RANDOM))
  delay_us=$((delay_us % (span_us * 12 / 10 + 1)))
  sleep "$(printf '0.%06d' "$delay_us")"
  kill -9 "$pid" 2>/dev/null || true
  rc=0
  wait "$pid" 2>/dev/null || rc=$?
  if [ "$rc" -eq 137 ]; then # killed by SIGKILL, not finished
    if [ "$op" = send ]; then killed_send=$((killed_send + 1)); else killed_ack=$((killed_ack + 1)); fi
    # The temp files this killed command left (the next commands sweep them).
    orphans=$((orphans + $(temp_names | comm -13 before.txt - | wc -l)))
  elif [ "$op" = send ]; then
    finished_send=$((finished_send + 1))
  else
    finished_ack=$((finished_ack + 1))
  fi
done

# Make sure the last command has something to sweep: kill sends until one
# leaves a temp file (bounded), unless the loop's last kills already did.
for _ in $(seq 1 200); do
  [ "$(temps)" -gt 0 ] && break
  "$BIN" "${SEND[@]}" shared >/dev/null 2>&1 &
  pid=$!
  sleep "$(printf '0.%06d' $(((RANDOM * 32768 + RANDOM) % (send_us * 12 / 10 + 1))))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
done
before=$(temps)
"$BIN" "${ACK[@]}" >/dev/null
after=$(temps)
listing="$("$BIN" --json inbox list --all --limit 0)"
messages=$(printf '%s' "$listing" | sed -n 's/^  "total": \([0-9]*\),*$/\1/p')
torn=$(printf '%s' "$listing" | grep -c -E '"(no_header|not_utf8|unreadable)"' || true)

echo "a whole inbox send takes ~${send_us} us, an ack ~${ack_us} us; kills land within 1.2x of that"
echo "inbox send: ${killed_send} killed, ${finished_send} finished before the kill"
echo "inbox ack:  ${killed_ack} killed, ${finished_ack} finished before the kill"
echo "temp files the kills left: ${orphans}"
echo "temp files before the last command: ${before}; after one more inbox ack: ${after}"
echo "messages delivered: ${messages}; torn or unreadable: ${torn}"
[ "$after" -eq 0 ] && [ "$torn" -eq 0 ]
