//! Exit codes: the library's one table (documented in `--help` and README).

pub use agent_handover::base::error::exit_code::*;
