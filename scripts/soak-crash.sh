#!/usr/bin/env bash
# Soak the crash test: SIGKILL a real `agent-handover run` N times (default 5000)
# at random moments and check every invariant after each kill and recovery.
# Usage: scripts/soak-crash.sh [N] ; reproduce a failure with CRASH_SEED=<seed printed>.
set -euo pipefail
cd "$(dirname "$0")/.."
CRASH_ITERS="${1:-5000}" exec cargo test --release --test it crash::sigkill -- --nocapture
