//! The use cases: one function per command or MCP tool that does more than
//! read one model. Each takes typed arguments and returns a typed outcome
//! (`Serialize` for `--json`, a `text()` or its parts for people) that
//! already holds what a face would otherwise work out: the advice for a
//! queued handover, the quality note, where the memory went, texts with
//! their secrets redacted. The CLI, the MCP server and the dashboard call
//! these and only adapt arguments and words (`tests/it/architecture.rs` holds
//! the faces off the plumbing below).

pub mod handover;
pub mod identity;
pub mod knowledge;
pub mod migrate;
pub mod review;
pub mod session;
pub mod task;
