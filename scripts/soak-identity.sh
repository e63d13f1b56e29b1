#!/usr/bin/env bash
# Soak concurrent `identity set`: N rounds (default 300), each a fresh project
# in which W processes (default 4) set a section of their own at once; every
# section must survive (zero lost).
# Usage: scripts/soak-identity.sh [N] [W]
set -euo pipefail
cd "$(dirname "$0")/.."
IDENTITY_SOAK_ROUNDS="${1:-300}" IDENTITY_SOAK_WRITERS="${2:-4}" \
  exec cargo test --release --test it race::soak_identity_set_at_once -- --ignored --nocapture
