#!/usr/bin/env bash
# Soak publishing under SIGKILL: three clones of a bare remote, N handovers
# (default 300) each killed at a random moment, recovered as an agent would;
# every note must end up on every machine exactly once, committed once.
# Usage: scripts/soak-publish-kill.sh [N] ; replay with PUBLISH_KILL_SEED=<seed printed>.
set -euo pipefail
cd "$(dirname "$0")/.."
PUBLISH_KILLS="${1:-300}" exec cargo test --release --test it git_publish::sigkill_during_publish -- --nocapture
