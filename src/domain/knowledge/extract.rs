//! Learning extraction: the findings of a session note worth keeping.
//!
//! Three forms are read, in every language the handoff parser reads:
//!
//! * a **tag** opening a line or list item: `[DECISION] …`, `[GOTCHA] …`,
//!   `[REUSE] …`, `[CORRECTION] …`;
//! * a tag **inline**, later in a line: `switched to flock ([GOTCHA] a pid
//!   file survives a crash)`: the text after the tag, to the end of its
//!   parenthesis or line;
//! * the items of a **section**: "Key decisions", "Failed approaches"
//!   (through [`HandoffDocument`]), and "Gotchas", "Reuse", "Corrections"
//!   with their German names (headings the parser leaves unclassified).
//!
//! Triage drops what only describes this session ("today", "so far", "in
//! dieser Sitzung", …), placeholders (a template's `TODO:` hints, `<fill
//! in>`, `[YOUR TEXT]`: the linter's own test), HTML comments and
//! fragments; history is rewritten as
//! a fact ("We decided to use X" → "Use X"). Findings are deduplicated
//! within the note by id and similarity.

use std::sync::LazyLock;

use regex::Regex;

use super::DUPLICATE_SIMILARITY;
use super::fact::{FactKind, Shingles, fact_id};
use crate::base::patterns::pattern;
use crate::domain::handoff::document::{HandoffDocument, LineRole, SectionKind};
use crate::domain::handoff::placeholder_in;

/// One finding of a note, cleaned, before it is merged with what we know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Its kind.
    pub kind: FactKind,
    /// The fact, one line.
    pub text: String,
    /// The 1-based line of the note it came from.
    pub line: usize,
}

/// Headings of the topics the handoff parser has no section kind for,
/// normalised to lowercase words (English and German).
const TOPIC_HEADINGS: &[(FactKind, &[&str])] = &[
    (
        FactKind::Gotcha,
        &[
            "gotcha",
            "gotchas",
            "pitfalls",
            "caveats",
            "surprises",
            "lessons learned",
            "stolperfallen",
            "fallstricke",
            "fallen",
            "überraschungen",
        ],
    ),
    (
        FactKind::Reuse,
        &[
            "reuse",
            "reusable",
            "reusable patterns",
            "patterns",
            "worth reusing",
            "wiederverwendbar",
            "wiederverwendung",
            "muster",
        ],
    ),
    (
        FactKind::Correction,
        &[
            "correction",
            "corrections",
            "korrektur",
            "korrekturen",
            "berichtigungen",
        ],
    ),
];

static TAG: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\[(DECISION|GOTCHA|REUSE|CORRECTION)\]:?\s*"));
static SESSION_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:this session|today|tonight|just now|so far|right now|for now|in this run|this morning|this afternoon|heute|in dieser sitzung|diese sitzung|bisher|gerade eben|vorerst|jetzt gerade)\b",
    )
});
static HISTORY_OPENER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^(?:we|i)\s+(?:have\s+)?(?:decided|chose|found|learned|noticed|realized|realised)\s+(?:that\s+|to\s+)?|^(?:decided|found|learned|note):\s*|^wir\s+haben\s+(?:entschieden|beschlossen|gelernt|festgestellt),?\s*(?:dass\s+)?",
    )
});
const PLACEHOLDERS: &[&str] = &[
    "none",
    "n/a",
    "na",
    "nothing",
    "todo",
    "tbd",
    "-",
    "keine",
    "nichts",
    "entfällt",
];
/// A finding of fewer words is a fragment, not a fact.
const MIN_WORDS: usize = 3;

/// The findings of `note`, each once.
pub fn findings(note: &str) -> Vec<Finding> {
    let doc = HandoffDocument::parse(note);
    let mut raw: Vec<Finding> = Vec::new();
    // Code and HTML comments (the draft's and install's notes to the agent,
    // which name the tags) are not findings.
    for line in doc
        .lines
        .iter()
        .filter(|l| !l.fenced && l.role != LineRole::Html)
    {
        for caps in TAG.captures_iter(line.text) {
            let tag = caps.get(0).expect("whole match");
            let kind = FactKind::parse(&caps[1]).expect("the pattern names kinds");
            let before = &line.text[..tag.start()];
            let after = &line.text[tag.end()..];
            // Inline in a parenthesis: up to its end; else up to the next tag.
            let end = if before.matches('(').count() > before.matches(')').count() {
                after.find(')').unwrap_or(after.len())
            } else {
                TAG.find(after).map_or(after.len(), |m| m.start())
            };
            raw.push(Finding {
                kind,
                text: after[..end].to_string(),
                line: line.number,
            });
        }
    }
    for section in &doc.sections {
        // A topic heading names its own kind first: the linter files
        // "Gotchas" under failed approaches, the index keeps them apart.
        let kind = match (topic_of_heading(section.heading), section.kind) {
            (Some(kind), _) => kind,
            (None, Some(SectionKind::Decisions)) => FactKind::Decision,
            (None, Some(SectionKind::FailedApproaches)) => FactKind::FailedApproach,
            (None, _) => continue,
        };
        for item in &section.items {
            // Lines holding a tag were read above.
            let untagged: Vec<&str> = item.text.lines().filter(|l| !TAG.is_match(l)).collect();
            if !untagged.is_empty() {
                raw.push(Finding {
                    kind,
                    text: untagged.join("\n"),
                    line: item.line,
                });
            }
        }
    }
    let mut out: Vec<(Finding, Shingles)> = Vec::new();
    for mut finding in raw {
        let Some(text) = triage(&finding.text) else {
            continue;
        };
        finding.text = text;
        let id = fact_id(&finding.text);
        let shingles = Shingles::of(&finding.text);
        let dup = out.iter().any(|(f, s)| {
            fact_id(&f.text) == id
                || (finding.kind != FactKind::Correction
                    && f.kind != FactKind::Correction
                    && s.similarity(&shingles) >= DUPLICATE_SIMILARITY)
        });
        if !dup {
            out.push((finding, shingles));
        }
    }
    out.into_iter().map(|(f, _)| f).collect()
}

/// The topic (gotcha, reuse, correction) a heading names, if any.
fn topic_of_heading(heading: &str) -> Option<FactKind> {
    let norm = heading
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ");
    TOPIC_HEADINGS
        .iter()
        .find(|(_, names)| {
            names
                .iter()
                .any(|n| norm == *n || norm.starts_with(&format!("{n} ")))
        })
        .map(|(kind, _)| *kind)
}

/// A finding rewritten as a fact, or `None` when it is not worth keeping.
fn triage(text: &str) -> Option<String> {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let trimmed = one_line
        .trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace())
        .trim_start_matches(|c: char| c == ':' || c == '-' || c.is_whitespace());
    if PLACEHOLDERS.contains(&trimmed.to_lowercase().trim_end_matches('.'))
        || placeholder_in(trimmed).is_some()
        || trimmed.contains("<!--")
        || SESSION_ONLY.is_match(trimmed)
        || !crate::base::secrets::scan(trimmed).is_empty()
    {
        return None;
    }
    let fact = HISTORY_OPENER.replace(trimmed, "");
    if fact.split_whitespace().count() < MIN_WORDS {
        return None;
    }
    let mut chars = fact.chars();
    let first = chars.next()?;
    Some(first.to_uppercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds_and_texts(note: &str) -> Vec<(FactKind, String)> {
        findings(note)
            .into_iter()
            .map(|f| (f.kind, f.text))
            .collect()
    }

    #[test]
    fn tags_inline_tags_and_sections_each_give_a_finding() {
        let note = "\
# Handoff 2026-11-23

## Done
- [GOTCHA] git2 merges ignore .gitattributes drivers we did not register
- Switched the lock to flock ([DECISION] the kernel releases an flock when its holder dies)

## Key decisions
- Stage every run's inputs before the first step runs
- The kernel releases an flock when its holder dies.

## Gotchas
- Fsync of the directory is needed after a rename
- none

## Failed approaches
- Retrying the push in a loop: the server refuses it the same way

## Next step
- [REUSE] write_atomic then sync_parent for every state file
";
        let got = kinds_and_texts(note);
        assert_eq!(
            got,
            [
                (
                    FactKind::Gotcha,
                    "Git2 merges ignore .gitattributes drivers we did not register".into()
                ),
                (
                    FactKind::Decision,
                    "The kernel releases an flock when its holder dies".into()
                ),
                (
                    FactKind::Reuse,
                    "Write_atomic then sync_parent for every state file".into()
                ),
                (
                    FactKind::Decision,
                    "Stage every run's inputs before the first step runs".into()
                ),
                (
                    FactKind::Gotcha,
                    "Fsync of the directory is needed after a rename".into()
                ),
                (
                    FactKind::FailedApproach,
                    "Retrying the push in a loop: the server refuses it the same way".into()
                ),
            ]
        );
    }

    #[test]
    fn a_tagged_line_continuing_a_list_item_is_read_once_and_the_item_kept() {
        let note = "## Key decisions\n- Use flock for the lock because the kernel frees it\n[GOTCHA] tmux needs -e to keep colours\n";
        assert_eq!(
            kinds_and_texts(note),
            [
                (FactKind::Gotcha, "Tmux needs -e to keep colours".into()),
                (
                    FactKind::Decision,
                    "Use flock for the lock because the kernel frees it".into()
                ),
            ]
        );
    }

    /// Issue 25: a template handed over as it is taught `learn` its hints
    /// as facts ("TODO: each choice and its reason…"). In every language the
    /// parser reads, a template's hints, placeholders and our own comments
    /// (which name the tags) give no finding; a real item among them does.
    #[test]
    fn template_hints_placeholders_and_comments_are_never_learned() {
        use crate::domain::handoff::SectionKind;
        use crate::domain::handoff::vocabulary::VOCABULARY;
        let phrases = |kind: SectionKind| {
            VOCABULARY
                .iter()
                .find(|(k, _)| *k == kind)
                .map(|(_, langs)| *langs)
                .unwrap()
        };
        let decisions = phrases(SectionKind::Decisions);
        let failed = phrases(SectionKind::FailedApproaches);
        assert_eq!(decisions.len(), 10, "every language");
        for ((lang, decision), (_, fail)) in decisions.iter().zip(failed) {
            let note = format!(
                "# Handoff\n\n<!-- Tag what you learned: [DECISION] a choice and why, [GOTCHA] a trap. -->\n\n## {}\n- TODO: each choice and its reason, e.g. \"direct migration\".\n- <describe the decision>\n- [YOUR DECISION HERE]\n- Keep the lock in flock: the kernel frees it when the holder dies.\n\n## {}\n- TODO: what was tried -> why it failed.\n- ...\n- [GOTCHA] TODO: the trap\n",
                decision[0], fail[0]
            );
            let got = kinds_and_texts(&note);
            assert_eq!(
                got,
                [(
                    FactKind::Decision,
                    "Keep the lock in flock: the kernel frees it when the holder dies.".into()
                )],
                "{lang}: {note}"
            );
        }
    }

    #[test]
    fn session_only_statements_and_history_are_triaged() {
        assert_eq!(triage("Tests pass so far"), None);
        assert_eq!(triage("heute alle Tests grün gemacht"), None);
        assert_eq!(triage("n/a"), None);
        assert_eq!(triage("use flock"), None, "a fragment");
        assert_eq!(
            triage("We decided to keep one lock per checkpoint").as_deref(),
            Some("Keep one lock per checkpoint")
        );
        assert_eq!(
            triage("Wir haben entschieden, dass jede Datei atomar geschrieben wird").as_deref(),
            Some("Jede Datei atomar geschrieben wird")
        );
        assert_eq!(
            triage("the token is AKIAIOSFODNN7EXAMPLE for the bucket"),
            None
        );
    }
}
