#!/usr/bin/env bash
# Soak the memory ref under SIGKILL: four worktrees of one repository and a
# second clone of its bare remote, N rounds (default 300) of two handovers
# at once, each killed at a random moment and recovered as an agent would;
# no work tree or branch may change, and every note must end up on every
# machine and on the remote exactly once.
# Usage: scripts/soak-memory-ref-kill.sh [N] ; replay with MEMORY_REF_KILL_SEED=<seed printed>.
set -euo pipefail
cd "$(dirname "$0")/.."
MEMORY_REF_KILLS="${1:-300}" exec cargo test --release --test it memory_ref::sigkill_during_handovers -- --ignored --nocapture
