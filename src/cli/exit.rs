//! Exit codes: the library's one table (documented in `--help` and docs/commands.md).

pub use agent_handover::base::error::exit_code::*;
