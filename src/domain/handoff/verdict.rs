//! The next session's verdict on the handoff it started from: a score of
//! 1-10 and, optionally, what was missing or wrong. The session that used a
//! handoff is its best judge; the draft asks for one line
//! ([`TEMPLATE_LINE`]), which the session fills in its own handoff, or it
//! is given as `run --verdict` (the MCP `handover` tool's `verdict`).
//! `run` takes the line out of the texts it writes (it is about the last
//! handoff, not the current state) and records the verdict with the run,
//! beside the outcome judged from the work
//! ([`super::usefulness::Usefulness::verdict`]). The linter reads past the
//! line: it is not part of the handoff.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::base::error::{ErrorKind, ModuleError, exit_code};
use crate::base::secrets;

/// The words a verdict line starts with.
pub const LABEL: &str = "Verdict on the last handoff:";
/// The line the draft leaves for the session to fill (unfilled, it records nothing).
pub const TEMPLATE_LINE: &str = "Verdict on the last handoff: ?/10 (1-10: how well it got you started; then what was missing or wrong; or delete this line)";
/// Most characters of a verdict's words.
pub const MAX_NOTE_CHARS: usize = 300;

/// A session's verdict on the handoff it started from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionVerdict {
    /// 1 (it misled) to 10 (all that was needed, and true).
    pub score: u8,
    /// What was missing or wrong, in the session's words (redacted); may be empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

/// A verdict that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerdictError {
    /// No score of 1-10 leads it.
    #[error(
        "the verdict {given:?} has no score of 1-10 first\n  fix: start it with the score, e.g. \"7/10 the failing test was not named\""
    )]
    NoScore {
        /// What was given (cut).
        given: String,
    },
    /// Its words are too long.
    #[error(
        "the verdict's words are {chars} characters long\n  fix: say what was missing or wrong in at most {MAX_NOTE_CHARS}"
    )]
    TooLong {
        /// Their length.
        chars: usize,
    },
}

impl ModuleError for VerdictError {
    fn kind(&self) -> ErrorKind {
        ErrorKind {
            name: "bad_verdict",
            exit_code: exit_code::USAGE,
        }
    }
}

impl SessionVerdict {
    /// Reads `7/10 the failing test was not named` (also `7`, `7/10:`,
    /// `7 - …`, `7/10 — …`).
    pub fn parse(value: &str) -> Result<SessionVerdict, VerdictError> {
        // Redacted whole before anything is cut or quoted.
        let value = secrets::redact(value.trim());
        let value = value.as_ref();
        let digits: String = value.chars().take_while(char::is_ascii_digit).collect();
        let rest = &value[digits.len()..];
        let rest = rest
            .trim_start()
            .strip_prefix("/10")
            .or_else(|| rest.trim_start().strip_prefix("/ 10"))
            .unwrap_or(rest);
        let score = digits.parse::<u8>().ok().filter(|s| (1..=10).contains(s));
        // Not `3/5`, `7.5/10` or `7x`: a score of ten, whole.
        let whole = !rest.starts_with(['/', '.', ','])
            || rest
                .chars()
                .nth(1)
                .is_some_and(|c| !c.is_ascii_digit() && c != '/');
        let (Some(score), true) = (
            score,
            whole && (rest.is_empty() || !rest.starts_with(char::is_alphanumeric)),
        ) else {
            return Err(VerdictError::NoScore {
                given: value.chars().take(40).collect(),
            });
        };
        let note = rest
            .trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, ':' | '-' | '—' | '–' | ',' | ';' | '.')
            })
            .trim();
        // Only the score filled in: the template's own words are no note.
        let note = if TEMPLATE_LINE.ends_with(note) {
            ""
        } else {
            note
        };
        let chars = note.chars().count();
        if chars > MAX_NOTE_CHARS {
            return Err(VerdictError::TooLong { chars });
        }
        Ok(SessionVerdict {
            score,
            note: note.to_string(),
        })
    }

    /// `verdict 7/10: the failing test was not named`.
    pub fn describe(&self) -> String {
        if self.note.is_empty() {
            format!("verdict {}/10", self.score)
        } else {
            format!("verdict {}/10: {}", self.score, self.note)
        }
    }
}

/// The value after the label, when `line` is a verdict line (filled or
/// not): `Verdict on the last handoff: …`, also as a list item, in bold
/// or quoted, any case.
fn value_of(line: &str) -> Option<&str> {
    let line = line
        .trim()
        .trim_start_matches(['-', '*', '>', ' '])
        .trim_start_matches("**");
    let head = line.get(..LABEL.len() - 1)?;
    if !head.eq_ignore_ascii_case(&LABEL[..LABEL.len() - 1]) {
        return None;
    }
    let rest = line[head.len()..].trim_start_matches("**");
    let rest = rest.strip_prefix(':')?;
    Some(rest.trim_start_matches("**").trim())
}

/// Whether `line` is a verdict line (the linter reads past it).
pub fn is_verdict_line(line: &str) -> bool {
    value_of(line).is_some()
}

/// `text` without its verdict lines, and the first one's verdict (`None`
/// when there is none, it is the unfilled template, or it cannot be read:
/// a verdict is optional and never stops a handover). A blank line after a
/// removed line goes with it.
pub fn take(text: &str) -> (Cow<'_, str>, Option<SessionVerdict>) {
    let verdict = text.lines().find_map(value_of).and_then(|value| {
        // Too long: the score, and the words cut.
        SessionVerdict::parse(value).ok().or_else(|| {
            let cut: String = value.chars().take(MAX_NOTE_CHARS).collect();
            SessionVerdict::parse(&cut).ok()
        })
    });
    (
        crate::base::text::without_lines(text, is_verdict_line),
        verdict,
    )
}

/// `text` with its verdict lines blanked (the line numbers stay), for the
/// linter.
pub fn blank_out(text: &str) -> Cow<'_, str> {
    if !text.lines().any(is_verdict_line) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if is_verdict_line(line) {
            if line.ends_with('\n') {
                out.push('\n');
            }
        } else {
            out.push_str(line);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_reads_its_score_and_words_in_the_forms_people_write() {
        for (given, score, note) in [
            (
                "7/10 the failing test was not named",
                7,
                "the failing test was not named",
            ),
            (
                "7/10 — the failing test was not named",
                7,
                "the failing test was not named",
            ),
            ("10", 10, ""),
            ("3 - next step already done", 3, "next step already done"),
            ("4 / 10: stale", 4, "stale"),
        ] {
            let v = SessionVerdict::parse(given).unwrap();
            assert_eq!((v.score, v.note.as_str()), (score, note), "{given}");
        }
        let only_score = TEMPLATE_LINE.replace("?/10", "8/10");
        let (_, kept) = take(&only_score);
        assert_eq!(kept.map(|v| (v.score, v.note)), Some((8, String::new())));
        for bad in [
            "?/10 what",
            "0/10",
            "11/10",
            "great",
            "",
            "7x",
            "3/5 meh",
            "7.5/10 ok",
        ] {
            assert!(
                matches!(
                    SessionVerdict::parse(bad),
                    Err(VerdictError::NoScore { .. })
                ),
                "{bad}"
            );
        }
        let long = format!("5 {}", "x".repeat(MAX_NOTE_CHARS + 1));
        assert!(matches!(
            SessionVerdict::parse(&long),
            Err(VerdictError::TooLong { .. })
        ));
    }

    #[test]
    fn a_verdicts_words_are_redacted() {
        let v = SessionVerdict::parse(
            "6/10 it held sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 in plain text",
        )
        .unwrap();
        assert!(!v.note.contains("abcdefghijklmnop"), "{v:?}");
    }

    #[test]
    fn take_removes_the_line_and_reads_it_and_the_unfilled_template_records_nothing() {
        let text = "# Handoff 2026-12-01\n\nVerdict on the last handoff: 6/10 — no failing test named\n\n## Goal\nShip it\n";
        let (rest, verdict) = take(text);
        assert_eq!(rest, "# Handoff 2026-12-01\n\n## Goal\nShip it\n");
        assert_eq!(verdict.unwrap().score, 6);
        let unfilled = format!("# H\n{TEMPLATE_LINE}\n## Goal\nx\n");
        let (rest, verdict) = take(&unfilled);
        assert_eq!((rest.as_ref(), verdict), ("# H\n## Goal\nx\n", None));
        for line in [
            "- **Verdict on the last handoff:** 8/10",
            "**verdict on the last handoff**: 8/10",
            "> Verdict on the last handoff: 8",
        ] {
            let (_, verdict) = take(line);
            assert_eq!(verdict.map(|v| v.score), Some(8), "{line}");
        }
        let plain = "## Goal\nThe verdict on the last handoff is in.\n";
        assert!(matches!(take(plain).0, Cow::Borrowed(_)));
    }

    #[test]
    fn blank_out_keeps_the_line_numbers() {
        let text = "a\nVerdict on the last handoff: 7/10 fine\nb\n";
        assert_eq!(blank_out(text), "a\n\nb\n");
        assert!(matches!(blank_out("a\nb\n"), Cow::Borrowed(_)));
    }
}
