//! The integration tests, one binary: one module per family, each driving
//! the real `agent-handover` binary (or the library) the way its users do.
//! A family runs with its module path as the filter, e.g.
//! `cargo test --test it git_publish::` (a filter is a substring of the
//! test's path: `cli::` selects `state_cli::` too); one test with
//! `cargo test --test it -- --exact cli::pause_blocks_everything_and_nothing_is_written`.
//!
//! The tests share this process and run in parallel threads across the
//! whole suite, so none may change what the process holds for all of them
//! (environment variables, the current directory, the umask, signal
//! handlers): each child process gets its own environment, directory and
//! HOME instead. `tests/fsync_budget.rs` is its own binary because the
//! durable-write counter it reads is per process, and the in-process
//! engine runs of the other families here would add to it.

// The corpora and their figures, shared with the benches (`benches/support/`).
#[path = "../../benches/support/calibration.rs"]
mod calibration;
#[path = "../../benches/support/fit.rs"]
mod fit;
#[path = "../../benches/support/real_corpus.rs"]
mod real_corpus;
#[path = "../../benches/support/secret_corpus.rs"]
mod secret_corpus;

mod common;

mod agents;
mod architecture;
mod brief;
mod capacity;
mod claude_plugin;
mod cli;
mod compaction;
mod crash;
mod dashboard_tmux;
mod docs_examples;
mod extension_packages;
mod git_in_the_wild;
mod git_publish;
mod handoff_truth;
mod inbox;
mod install;
mod interop_python;
mod json_contract;
mod knowledge;
mod library;
#[cfg(feature = "mcp")]
mod mcp;
mod memory_ref;
mod metrics;
mod packaging;
mod quality;
mod queue;
mod race;
mod real_agents;
mod run_state;
mod secrets;
mod state_cli;
