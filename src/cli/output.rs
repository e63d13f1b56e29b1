//! Printing: plain text for people, one JSON object for `--json`.

use serde::Serialize;

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
        let kind = error.kind();
        eprintln!("error: {error}");
        if self.json {
            let value = serde_json::json!({
                "ok": false,
                "error": error.to_string(),
                "kind": kind.name,
                "exit_code": kind.exit_code,
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&value).expect("output serializes")
            );
        }
        kind.exit_code
    }
}
