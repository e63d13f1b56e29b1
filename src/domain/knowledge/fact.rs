//! One fact and its line in a detail file.
//!
//! A fact is one line, so two machines adding facts union cleanly in git:
//!
//! ```text
//! - [3f9a2c1e0b] 2026-11-23 Use flock for the run lock. _(from run 20261123-101500-ab12)_
//! - [77aa01b2c3] 2026-11-20 ~~Use a pid file for the lock.~~ _(superseded by [3f9a2c1e0b])_
//! - [3f9a2c1e0b] 2026-11-23 Use flock, not a pid file. _(corrects [77aa01b2c3])_ _(from run …)_
//! ```
//!
//! The id is derived from the fact's normalised text, so the same fact
//! learned on two machines gets the same id.

use std::collections::HashSet;
use std::sync::LazyLock;

use chrono::NaiveDate;
use regex::Regex;
use serde::Serialize;
use sha1::{Digest, Sha1};

use crate::base::patterns::pattern;

/// What kind of knowledge a fact is; each kind is one topic (detail file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FactKind {
    /// An architectural choice and its reason (`[DECISION]`).
    Decision,
    /// Unexpected behaviour, an edge case (`[GOTCHA]`).
    Gotcha,
    /// A pattern worth reusing (`[REUSE]`).
    Reuse,
    /// An approach that failed and must not be retried.
    FailedApproach,
    /// A correction of the agent's approach (`[CORRECTION]`) that corrects
    /// no fact we know; one that does takes its target's kind.
    Correction,
}

impl FactKind {
    /// Every kind, in the order the index shows them.
    pub const ALL: [FactKind; 5] = [
        FactKind::Decision,
        FactKind::Gotcha,
        FactKind::Reuse,
        FactKind::FailedApproach,
        FactKind::Correction,
    ];

    /// The topic's file stem under `knowledge/`.
    pub fn topic(self) -> &'static str {
        match self {
            FactKind::Decision => "decisions",
            FactKind::Gotcha => "gotchas",
            FactKind::Reuse => "reuse",
            FactKind::FailedApproach => "failed-approaches",
            FactKind::Correction => "corrections",
        }
    }

    /// The topic's heading.
    pub fn title(self) -> &'static str {
        match self {
            FactKind::Decision => "Decisions",
            FactKind::Gotcha => "Gotchas",
            FactKind::Reuse => "Reuse",
            FactKind::FailedApproach => "Failed approaches (do not retry)",
            FactKind::Correction => "Corrections",
        }
    }

    /// The kind a tag (`DECISION`, ...) or topic name (`decisions`, ...) names.
    pub fn parse(name: &str) -> Option<FactKind> {
        let lower = name.to_ascii_lowercase();
        FactKind::ALL.into_iter().find(|k| {
            k.topic() == lower
                || k.topic().trim_end_matches('s') == lower
                || (lower == "failed" && *k == FactKind::FailedApproach)
        })
    }
}

/// One permanent fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fact {
    /// Ten hex digits of the SHA-1 of its normalised text.
    pub id: String,
    /// Its topic.
    pub kind: FactKind,
    /// When it was learned.
    pub date: NaiveDate,
    /// The fact, one line.
    pub text: String,
    /// Where it was learned (`run <id>`, `hand edit`, ...).
    pub source: Option<String>,
    /// The fact it corrects, which it superseded.
    pub corrects: Option<String>,
    /// The fact that superseded it; a superseded fact is kept, struck out.
    pub superseded_by: Option<String>,
}

impl Fact {
    /// A new, current fact of `kind`.
    pub fn new(kind: FactKind, text: &str, date: NaiveDate, source: Option<String>) -> Self {
        Fact {
            id: fact_id(text),
            kind,
            date,
            text: text.to_string(),
            source,
            corrects: None,
            superseded_by: None,
        }
    }

    /// Whether it is current (not superseded).
    pub fn is_current(&self) -> bool {
        self.superseded_by.is_none()
    }

    /// Its line in a detail file.
    pub fn to_line(&self) -> String {
        let mut line = format!("- [{}] {} ", self.id, self.date.format("%Y-%m-%d"));
        match &self.superseded_by {
            Some(by) => line.push_str(&format!("~~{}~~ _(superseded by [{by}])_", self.text)),
            None => line.push_str(&self.text),
        }
        if let Some(old) = &self.corrects {
            line.push_str(&format!(" _(corrects [{old}])_"));
        }
        if let Some(source) = &self.source {
            line.push_str(&format!(" _(from {source})_"));
        }
        line
    }

    /// Read a detail-file line of topic `kind`; `None` for any other line.
    pub fn parse_line(kind: FactKind, line: &str) -> Option<Fact> {
        let caps = FACT_LINE.captures(line.trim_end())?;
        let date = NaiveDate::parse_from_str(&caps[2], "%Y-%m-%d").ok()?;
        let mut rest = caps[3].to_string();
        let mut source = None;
        let mut corrects = None;
        let mut superseded_by = None;
        if let Some(c) = TRAILER_FROM.captures(&rest) {
            source = Some(c[1].to_string());
            rest.truncate(c.get(0).expect("whole match").start());
        }
        if let Some(c) = TRAILER_CORRECTS.captures(&rest) {
            corrects = Some(c[1].to_string());
            rest.truncate(c.get(0).expect("whole match").start());
        }
        if let Some(c) = TRAILER_SUPERSEDED.captures(&rest) {
            superseded_by = Some(c[2].to_string());
            rest = c[1].to_string();
        }
        Some(Fact {
            id: caps[1].to_string(),
            kind,
            date,
            text: rest.trim().to_string(),
            source,
            corrects,
            superseded_by,
        })
    }
}

static FACT_LINE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^- \[([0-9a-f]{6,40})\] (\d{4}-\d{2}-\d{2}) (.*)$"));
static TRAILER_FROM: LazyLock<Regex> = LazyLock::new(|| pattern(r" _\(from (.+?)\)_$"));
static TRAILER_CORRECTS: LazyLock<Regex> =
    LazyLock::new(|| pattern(r" _\(corrects \[([0-9a-f]{6,40})\]\)_$"));
static TRAILER_SUPERSEDED: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^~~(.*)~~ _\(superseded by \[([0-9a-f]{6,40})\]\)_$"));

/// The id of a fact's text: ten hex digits of the SHA-1 of its normalised words.
pub fn fact_id(text: &str) -> String {
    let digest = Sha1::digest(normalized(text).as_bytes());
    digest.iter().take(5).map(|b| format!("{b:02x}")).collect()
}

/// Lowercase words, joined by single spaces: what two spellings of one fact share.
pub fn normalized(text: &str) -> String {
    words(text).collect::<Vec<_>>().join(" ")
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// Words too common to tell two facts apart (negations are kept: they
/// change the meaning).
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "to", "of", "in", "on", "for", "and", "or", "is", "are", "be", "it", "its",
    "this", "that", "with", "as", "by", "at", "we", "our", "der", "die", "das", "den", "dem",
    "ein", "eine", "und", "oder", "ist", "sind", "zu", "mit", "im", "auf", "für", "von",
];

/// A fact's distinctive words, for similarity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shingles(HashSet<String>);

impl Shingles {
    /// The distinctive words of `text`.
    pub fn of(text: &str) -> Self {
        Shingles(
            words(text)
                .filter(|w| !STOP_WORDS.contains(&w.as_str()))
                .collect(),
        )
    }

    /// Jaccard similarity, 0.0-1.0 (two empty sets are not similar).
    pub fn similarity(&self, other: &Shingles) -> f64 {
        let (small, large) = if self.0.len() <= other.0.len() {
            (&self.0, &other.0)
        } else {
            (&other.0, &self.0)
        };
        let shared = small.iter().filter(|w| large.contains(*w)).count();
        let union = small.len() + large.len() - shared;
        if union == 0 {
            0.0
        } else {
            shared as f64 / union as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
    }

    #[test]
    fn a_line_round_trips_with_every_trailer() {
        let mut f = Fact::new(
            FactKind::Decision,
            "Use flock (not a pid file) for the lock.",
            day(),
            Some("run r1".into()),
        );
        f.corrects = Some("0123456789".into());
        assert_eq!(
            Fact::parse_line(FactKind::Decision, &f.to_line()),
            Some(f.clone())
        );
        f.superseded_by = Some("abcdefabcd".into());
        f.source = None;
        let line = f.to_line();
        assert!(
            line.contains("~~Use flock (not a pid file) for the lock.~~"),
            "{line}"
        );
        assert_eq!(Fact::parse_line(FactKind::Decision, &line), Some(f));
        assert_eq!(Fact::parse_line(FactKind::Decision, "# Decisions"), None);
    }

    #[test]
    fn ids_ignore_case_and_punctuation_and_similarity_ignores_filler() {
        assert_eq!(
            fact_id("Use flock, not a pid file."),
            fact_id("use FLOCK not a pid-file")
        );
        assert_ne!(fact_id("use flock"), fact_id("use a pid file"));
        let a = Shingles::of("The run lock is an flock on run.lock");
        let b = Shingles::of("run lock is a flock on run.lock");
        assert!(a.similarity(&b) > 0.99);
        assert!(a.similarity(&Shingles::of("tests need tmux")) < 0.1);
        assert_eq!(FactKind::parse("GOTCHA"), Some(FactKind::Gotcha));
        assert_eq!(FactKind::parse("decisions"), Some(FactKind::Decision));
    }
}
