//! The numbers a handover measured (its `[[metric]]` results), which the
//! handoff's claims are held against: given by the run that handed the text
//! over ([`crate::engine::lint_context`]), or read from the text's own
//! measured line, which the draft writes ([`DRAFT_LINE`]).

use serde::Serialize;

use crate::base::text::number;

/// What the draft writes before the measured numbers:
/// `- Measured at hand-over: passed=30 failed=2; tests failed (exit 1)`.
pub const DRAFT_LINE: &str = "Measured at hand-over:";

/// Numbers measured for a handoff, and where they come from.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Measured {
    /// Where they come from, for the evidence (`run 20261201-…`, `the
    /// draft's measured line`).
    pub source: String,
    /// Each number by its name, in the order measured.
    pub values: Vec<(String, f64)>,
    /// Commands that failed, as said (`tests failed (exit 1)`).
    pub failures: Vec<String>,
}

impl Measured {
    /// The numbers of the draft's measured line in `text`, if it has one
    /// (`name=value` words, then `; `-separated failures).
    pub fn from_draft_line(text: &str) -> Option<(usize, Measured)> {
        let (number, rest) = text.lines().enumerate().find_map(|(i, line)| {
            let body = line
                .trim_start()
                .trim_start_matches(['-', '*'])
                .trim_start();
            body.strip_prefix(DRAFT_LINE).map(|rest| (i + 1, rest))
        })?;
        let mut parts = rest.split(';');
        let values: Vec<(String, f64)> = parts
            .next()
            .unwrap_or("")
            .split_whitespace()
            .filter_map(|word| {
                let (name, value) = word.split_once('=')?;
                Some((name.to_string(), value.parse::<f64>().ok()?))
            })
            .collect();
        let failures: Vec<String> = parts
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(str::to_string)
            .collect();
        (!values.is_empty() || !failures.is_empty()).then(|| {
            (
                number,
                Measured {
                    source: "the draft's measured line".into(),
                    values,
                    failures,
                },
            )
        })
    }

    /// The first measured number that says something is failing (a name
    /// of failures or errors, above 0), or else the first failed command.
    pub fn failing(&self) -> Option<String> {
        self.values
            .iter()
            .find(|(name, value)| {
                let name = name.to_lowercase();
                *value > 0.0
                    && ["fail", "error", "broken"]
                        .iter()
                        .any(|w| name.starts_with(w) || name.contains(&format!("_{w}")))
            })
            .map(|(name, value)| format!("`{name}` measured {}", number(*value)))
            .or_else(|| self.failures.first().cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drafts_line_is_read_back() {
        let text = "## Status\n- Measured at hand-over: passed=30 failed=2 coverage=81.5; tests failed (exit 1)\n";
        let (line, m) = Measured::from_draft_line(text).unwrap();
        assert_eq!(line, 2);
        assert_eq!(
            m.values,
            [
                ("passed".to_string(), 30.0),
                ("failed".to_string(), 2.0),
                ("coverage".to_string(), 81.5)
            ]
        );
        assert_eq!(m.failures, ["tests failed (exit 1)"]);
        assert_eq!(m.failing().as_deref(), Some("`failed` measured 2"));
        assert!(Measured::from_draft_line("## Status\nall good\n").is_none());
        let quiet = Measured {
            values: vec![("passed".into(), 3.0), ("failed".into(), 0.0)],
            ..Measured::default()
        };
        assert_eq!(quiet.failing(), None, "0 failures is no failure");
    }
}
