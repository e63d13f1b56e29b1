# Sourced by the soak scripts (from the repository root): sets BIN to the
# binary under test, AGENT_HANDOVER_BIN when given, else the debug build
# (built first, wherever CARGO_TARGET_DIR puts it).
BIN="${AGENT_HANDOVER_BIN:-}"
if [ -z "$BIN" ]; then
  cargo build --quiet --bin agent-handover
  BIN="$PWD/${CARGO_TARGET_DIR:-target}/debug/agent-handover"
  case "${CARGO_TARGET_DIR:-}" in /*) BIN="$CARGO_TARGET_DIR/debug/agent-handover" ;; esac
fi
