//! Printing: plain text for people, one JSON object for `--json`.

use serde::Serialize;

use super::exit;
use agent_handover::Error;

/// How a command prints.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    /// `--json` was given.
    pub json: bool,
}

impl Output {
    /// Print `value` as JSON (with `--json`) or run `text` to print for people.
    pub fn emit<T: Serialize>(&self, value: &T, text: impl FnOnce()) {
        if self.json {
            println!(
                "{}",
                serde_json::to_string_pretty(value).expect("output serializes")
            );
        } else {
            text();
        }
    }

    /// Report an error and return its exit code. With `--json`, stdout gets
    /// `{"error": ..., "kind": ..., "exit_code": N}` too.
    pub fn fail(&self, error: &Error) -> u8 {
        let code = exit::code_for(error);
        eprintln!("error: {error}");
        if self.json {
            let value = serde_json::json!({
                "ok": false,
                "error": error.to_string(),
                "kind": error_kind(error),
                "exit_code": code,
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&value).expect("output serializes")
            );
        }
        code
    }
}

fn error_kind(error: &Error) -> &'static str {
    match error {
        Error::Io { .. } => "io",
        Error::Corrupt { .. } => "corrupt",
        Error::FutureVersion { .. } => "future_version",
        Error::TooLarge { .. } => "too_large",
        Error::UnsafeName { .. } => "unsafe_name",
        Error::OutsideRoot { .. } => "outside_root",
        Error::Symlink { .. } => "symlink",
        Error::Config { .. } => "config",
        Error::Paused { .. } => "paused",
        Error::Busy { .. } => "busy",
        Error::StepFailed { .. } => "step_failed",
        Error::NeedsHuman { .. } => "needs_human",
        Error::NoSuchRun(_) => "no_such_run",
        Error::HandoverInProgress { .. } => "handover_in_progress",
        Error::BelowMinScore { .. } => "below_min_score",
        Error::UnknownStep { .. } => "unknown_step",
        Error::UnknownVersion { .. } => "unknown_version",
        Error::UnknownMessage { .. } => "unknown_message",
    }
}
