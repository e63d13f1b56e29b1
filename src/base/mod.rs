//! The base layer, used by every other: the error type and exit codes,
//! typed step outcomes, durable file writes, how our regular expressions
//! compile, the one secret detector, shell words, and the crash points of
//! the crash tests, what counts as an empty text, the machine's processes. Nothing here imports
//! another layer.

pub mod error;
pub mod failpoint;
pub mod fsx;
pub mod outcome;
pub mod patterns;
pub mod procs;
pub mod secrets;
pub mod shell;
#[cfg(test)]
pub(crate) mod testing;
pub mod text;
