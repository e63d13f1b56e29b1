//! The handoff document model: a Markdown handoff parsed into its sections
//! (goal, done, not working, failed approaches, ...), each with its items, and
//! the date it was written.
//!
//! Sections start at an ATX heading (`## Next step`), a bold label on its own
//! line (`**Current Status:**`, `**Task: ship the parser**`) or a plain label
//! (`Who we're waiting on:`). Headings are classified by keywords after
//! dropping parentheticals, so "Failed approaches (DO NOT retry)", "Recent
//! accomplishments (don't redo)", "What was decided and why" and "Next
//! steps" all land where they belong. Labels only count when they classify;
//! an unknown `#` heading starts an unknown section unless it is nested
//! deeper than the section it appears in. The first level-1 heading that is
//! not a known section is the title.

use std::ops::Range;
use std::sync::LazyLock;

use chrono::{Days, NaiveDate, NaiveDateTime, NaiveTime};
use regex::Regex;
use serde::Serialize;

use crate::patterns::pattern;

/// The sections practitioners converge on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SectionKind {
    /// What this line of work is for.
    Goal,
    /// What is finished and must not be redone.
    Done,
    /// What is broken and why, with the real error.
    NotWorking,
    /// What was tried and failed, so nobody retries it.
    FailedApproaches,
    /// Decisions taken and why.
    Decisions,
    /// The ONE thing to do next.
    NextStep,
    /// Who or what we are waiting on.
    WaitingOn,
    /// What can safely wait.
    CanWait,
    /// Where we stand, measurably ("30/90 tests pass").
    Status,
    /// The commands to build, test and run.
    Commands,
}

/// Keyword phrases per kind, tried in this order (first match wins), matched
/// on whole words of the normalized heading.
const KEYWORDS: &[(SectionKind, &[&str])] = &[
    (
        SectionKind::FailedApproaches,
        &[
            "failed approach",
            "failed approaches",
            "failed attempt",
            "failed attempts",
            "what failed",
            "dead end",
            "dead ends",
            "tried and failed",
            "do not retry",
            "dont retry",
            "didnt work",
            "did not work",
            "approaches that failed",
            "fehlgeschlagene ansätze",
            "fehlversuche",
            "nicht wiederholen",
        ],
    ),
    (
        SectionKind::NotWorking,
        &[
            "not working",
            "doesnt work",
            "does not work",
            "broken",
            "blocker",
            "blockers",
            "known issues",
            "open issues",
            "issues",
            "problems",
            "bugs",
            "failing",
            "errors",
        ],
    ),
    (
        SectionKind::Decisions,
        &[
            "decision",
            "decisions",
            "decided",
            "rationale",
            "tradeoffs",
            "entscheidung",
            "entscheidungen",
        ],
    ),
    (
        SectionKind::WaitingOn,
        &[
            "waiting",
            "blocked on",
            "blocked by",
            "dependencies",
            "depends on",
        ],
    ),
    (
        SectionKind::CanWait,
        &[
            "can wait",
            "safely wait",
            "later",
            "deferred",
            "backlog",
            "parking lot",
            "not now",
            "out of scope",
            "nice to have",
            "someday",
        ],
    ),
    (SectionKind::NextStep, &["next"]),
    (
        SectionKind::Done,
        &[
            "done",
            "completed",
            "complete",
            "accomplishments",
            "accomplished",
            "finished",
            "what works",
            "working",
            "shipped",
        ],
    ),
    (
        SectionKind::Status,
        &[
            "status",
            "in progress",
            "metrics",
            "progress",
            "where we are",
            "health",
        ],
    ),
    (
        SectionKind::Commands,
        &[
            "commands",
            "command",
            "how to run",
            "how to test",
            "how to build",
            "environment",
            "setup",
            "reproduce",
            "runbook",
        ],
    ),
    (
        SectionKind::Goal,
        &[
            "goal",
            "goals",
            "task",
            "objective",
            "objectives",
            "mission",
            "purpose",
            "outcome",
        ],
    ),
];

/// Headings that look like a kind by keyword but are not ("Not done yet").
const NOT_A_SECTION: &[&str] = &["not done", "remaining", "left to do", "todo"];

impl SectionKind {
    /// Every kind, in the order a handoff presents them.
    pub const ALL: [SectionKind; 10] = [
        SectionKind::Goal,
        SectionKind::Status,
        SectionKind::Done,
        SectionKind::NotWorking,
        SectionKind::FailedApproaches,
        SectionKind::Decisions,
        SectionKind::NextStep,
        SectionKind::WaitingOn,
        SectionKind::CanWait,
        SectionKind::Commands,
    ];

    /// The canonical heading, as the templates write it.
    pub fn heading(self) -> &'static str {
        match self {
            SectionKind::Goal => "Goal",
            SectionKind::Done => "Done (don't redo)",
            SectionKind::NotWorking => "Not working (and why)",
            SectionKind::FailedApproaches => "Failed approaches (DO NOT retry)",
            SectionKind::Decisions => "Key decisions (and why)",
            SectionKind::NextStep => "Next step",
            SectionKind::WaitingOn => "Waiting on",
            SectionKind::CanWait => "Can safely wait",
            SectionKind::Status => "Current status",
            SectionKind::Commands => "Commands",
        }
    }

    /// Whether every handoff needs it (the rest are recommended).
    pub fn is_required(self) -> bool {
        matches!(
            self,
            SectionKind::Goal
                | SectionKind::Done
                | SectionKind::FailedApproaches
                | SectionKind::NextStep
        )
    }

    /// The kind a heading's text names, if any.
    pub fn classify(heading: &str) -> Option<SectionKind> {
        let norm = normalize_heading(heading);
        let words = norm
            .split(' ')
            .filter(|w| w.chars().any(char::is_alphabetic))
            .count();
        if words > MAX_HEADING_WORDS || NOT_A_SECTION.iter().any(|p| has_phrase(&norm, p)) {
            return None;
        }
        KEYWORDS
            .iter()
            .find(|(_, phrases)| phrases.iter().any(|p| has_phrase(&norm, p)))
            .map(|(kind, _)| *kind)
    }
}

/// Lowercase words of a heading, parentheticals dropped (unless that leaves
/// nothing), apostrophes removed ("don't" -> "dont").
fn normalize_heading(heading: &str) -> String {
    let mut outside = String::with_capacity(heading.len());
    let mut depth = 0u32;
    for c in heading.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => outside.push(c),
            _ => {}
        }
    }
    let source = if outside.chars().any(char::is_alphanumeric) {
        outside.as_str()
    } else {
        heading
    };
    let mut norm = String::with_capacity(source.len());
    for c in source.chars().filter(|c| !matches!(c, '\'' | '’')) {
        if c.is_alphanumeric() {
            norm.extend(c.to_lowercase());
        } else if !norm.ends_with(' ') && !norm.is_empty() {
            norm.push(' ');
        }
    }
    norm.trim_end().to_string()
}

/// Whether `phrase` occurs in `words` on word boundaries (both are
/// space-separated lowercase words).
fn has_phrase(words: &str, phrase: &str) -> bool {
    words.match_indices(phrase).any(|(at, _)| {
        let before = at == 0 || words.as_bytes()[at - 1] == b' ';
        let end = at + phrase.len();
        let after = end == words.len() || words.as_bytes()[end] == b' ';
        before && after
    })
}

/// One line of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number.
    pub number: usize,
    /// The text, without its line ending.
    pub text: &'a str,
    /// Inside a fenced code block (fence lines included).
    pub fenced: bool,
}

/// One entry of a section: a list item (with its nested lines), a paragraph,
/// or a fenced code block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// 1-based line where it starts.
    pub line: usize,
    /// Its text, list markers removed, lines joined with `\n`.
    pub text: String,
}

/// A section: a heading and the items under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section<'a> {
    /// What it is, or `None` for a heading we do not know.
    pub kind: Option<SectionKind>,
    /// The heading as written (without `#`, `**` or the trailing colon).
    pub heading: &'a str,
    /// 1-based line of the heading.
    pub line: usize,
    /// Heading level: 1-6 for `#` headings, 7 for labels.
    pub level: u8,
    /// Indices of its body lines in [`HandoffDocument::lines`].
    pub body: Range<usize>,
    /// Its items, in order.
    pub items: Vec<Item>,
}

/// When a handoff was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HandoffDate {
    /// The day.
    pub date: NaiveDate,
    /// The time of day, when the handoff gives one.
    pub time: Option<NaiveTime>,
}

impl HandoffDate {
    /// The moment after which events are "since the handoff": its time if
    /// given, else the end of its day (so the session's own work that day
    /// does not count against it).
    pub fn since(&self) -> NaiveDateTime {
        match self.time {
            Some(t) => self.date.and_time(t),
            None => (self.date + Days::new(1)).and_time(NaiveTime::MIN),
        }
    }
}

/// A parsed handoff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandoffDocument<'a> {
    /// The whole text.
    pub text: &'a str,
    /// Every line.
    pub lines: Vec<Line<'a>>,
    /// The title (the first level-1 heading that is not a section) and its line.
    pub title: Option<(usize, &'a str)>,
    /// The sections, in order.
    pub sections: Vec<Section<'a>>,
    /// When it was written, from a date near the top (or on a "Date:",
    /// "Updated:", ... line), e.g. the `<!-- agent-handover | layer2 | YYYY-MM-DD -->` header.
    pub date: Option<HandoffDate>,
}

static ATX: LazyLock<Regex> = LazyLock::new(|| pattern(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$"));
static BOLD_LABEL: LazyLock<Regex> = LazyLock::new(|| pattern(r"^\s*\*\*([^*]+?)\*\*\s*(.*)$"));
static PLAIN_LABEL: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^([A-Za-z][A-Za-z '’()/-]{1,60}):\s*(.*)$"));
static LIST_ITEM: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$"));
static DATE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\b(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,2}:\d{2}))?"));
static DATE_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:date|dated|updated|written|as of|handoff|handover|session)\b")
});

/// Lines searched for a date before falling back to labelled date lines.
const DATE_SEARCH_LINES: usize = 10;
/// A heading of more words than this (parentheticals and numbers aside) is
/// a title or prose, not a section ("Handoff — task board sync").
const MAX_HEADING_WORDS: usize = 6;
/// A plain `Label:` line of more words than this is a sentence, not a label.
const MAX_PLAIN_LABEL_WORDS: usize = 5;

/// A heading found on a line: level, text, text after a label's colon.
struct Heading<'a> {
    level: u8,
    text: &'a str,
    inline: &'a str,
    kind: Option<SectionKind>,
}

impl<'a> HandoffDocument<'a> {
    /// Parse `text`. Never fails: anything unrecognised is simply not a section.
    pub fn parse(text: &'a str) -> Self {
        let lines = split_lines(text);
        let mut title = None;
        let mut sections: Vec<Section<'a>> = Vec::new();
        let mut starts: Vec<(usize, &'a str)> = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if line.fenced {
                continue;
            }
            let Some(h) = heading(line.text) else {
                continue;
            };
            if h.kind.is_none() || (h.level == 1 && is_title(h.text)) {
                if h.level == 1 && title.is_none() && sections.is_empty() {
                    title = Some((line.number, h.text));
                    continue;
                }
                if sections.last().is_some_and(|s| h.level > s.level) {
                    continue; // a sub-heading inside the current section
                }
            }
            if let Some(prev) = sections.last_mut() {
                prev.body.end = i;
            }
            sections.push(Section {
                kind: h.kind,
                heading: h.text,
                line: line.number,
                level: h.level,
                body: i + 1..lines.len(),
                items: Vec::new(),
            });
            starts.push((line.number, h.inline));
        }
        for (section, (line, inline)) in sections.iter_mut().zip(starts) {
            let mut items = Vec::new();
            if !inline.trim().is_empty() {
                items.push(Item {
                    line,
                    text: inline.trim().to_string(),
                });
            }
            items.extend(collect_items(&lines[section.body.clone()]));
            section.items = items;
        }
        let date = find_date(&lines);
        HandoffDocument {
            text,
            lines,
            title,
            sections,
            date,
        }
    }

    /// The sections of one kind.
    pub fn sections_of(&self, kind: SectionKind) -> impl Iterator<Item = &Section<'a>> {
        self.sections.iter().filter(move |s| s.kind == Some(kind))
    }

    /// Whether a section of `kind` is present.
    pub fn has(&self, kind: SectionKind) -> bool {
        self.sections_of(kind).next().is_some()
    }

    /// The items of every section of `kind`.
    pub fn items_of(&self, kind: SectionKind) -> impl Iterator<Item = &Item> {
        self.sections_of(kind).flat_map(|s| s.items.iter())
    }
}

/// A level-1 heading naming the document ("Handoff — task board — date").
fn is_title(text: &str) -> bool {
    let norm = normalize_heading(text);
    ["handoff", "handover"].iter().any(|w| has_phrase(&norm, w))
}

fn split_lines(text: &str) -> Vec<Line<'_>> {
    let mut fence: Option<&str> = None;
    text.lines()
        .enumerate()
        .map(|(i, raw)| {
            let trimmed = raw.trim_start();
            let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
            let fenced = match (fence, marker) {
                (None, Some(m)) => {
                    fence = Some(m);
                    true
                }
                (Some(open), Some(m)) if open == m && trimmed.trim_end() == m => {
                    fence = None;
                    true
                }
                (open, _) => open.is_some(),
            };
            Line {
                number: i + 1,
                text: raw,
                fenced,
            }
        })
        .collect()
}

fn heading(text: &str) -> Option<Heading<'_>> {
    if let Some(c) = ATX.captures(text) {
        let t = c.get(2).map_or("", |m| m.as_str());
        return Some(Heading {
            level: c[1].len() as u8,
            text: t,
            inline: "",
            kind: SectionKind::classify(t),
        });
    }
    let (label, inline, max_words) = if let Some(c) = BOLD_LABEL.captures(text) {
        let inner = c.get(1).map_or("", |m| m.as_str());
        let rest = c.get(2).map_or("", |m| m.as_str());
        let (label, inline) = match inner.split_once(':') {
            Some((label, after)) if rest.is_empty() || after.trim().is_empty() => {
                (label, if after.trim().is_empty() { rest } else { after })
            }
            None => (inner, rest.strip_prefix(':')?),
            _ => return None,
        };
        (label, inline, MAX_HEADING_WORDS)
    } else {
        let c = PLAIN_LABEL.captures(text)?;
        (
            c.get(1).map_or("", |m| m.as_str()),
            c.get(2).map_or("", |m| m.as_str()),
            MAX_PLAIN_LABEL_WORDS,
        )
    };
    if label.split_whitespace().count() > max_words {
        return None;
    }
    let kind = SectionKind::classify(label)?;
    Some(Heading {
        level: 7,
        text: label.trim(),
        inline,
        kind: Some(kind),
    })
}

/// Split a section body into items: list items (nested lines belong to
/// their parent), paragraphs, fenced blocks. Blank lines, HTML comments and
/// sub-headings are not items.
fn collect_items(body: &[Line<'_>]) -> Vec<Item> {
    let mut items: Vec<Item> = Vec::new();
    let mut current: Option<Item> = None;
    let mut list_indent: Option<usize> = None;
    let mut after_blank = true;
    let mut i = 0;
    while i < body.len() {
        let line = body[i];
        i += 1;
        let text = line.text;
        let indent = text.len() - text.trim_start().len();
        if line.fenced {
            let start = line.number;
            let mut block = Vec::new();
            while i < body.len() && body[i].fenced && !is_fence(body[i].text) {
                block.push(body[i].text.trim_end());
                i += 1;
            }
            i += usize::from(i < body.len() && body[i].fenced); // closing fence
            let nested = list_indent.is_some_and(|base| indent > base) && current.is_some();
            match (&mut current, nested) {
                (Some(item), true) => {
                    item.text.push('\n');
                    item.text.push_str(&block.join("\n"));
                }
                _ => {
                    items.extend(current.take());
                    current = Some(Item {
                        line: start,
                        text: block.join("\n"),
                    });
                }
            }
            after_blank = false;
            continue;
        }
        let trimmed = text.trim();
        if trimmed.is_empty() {
            after_blank = true;
            continue;
        }
        if (trimmed.starts_with("<!--") && trimmed.ends_with("-->")) || ATX.is_match(text) {
            if !trimmed.starts_with("<!--") {
                items.extend(current.take());
                after_blank = true;
            }
            continue;
        }
        if let Some(c) = LIST_ITEM.captures(text) {
            let base = *list_indent.get_or_insert(indent);
            if indent <= base || current.is_none() {
                items.extend(current.take());
                current = Some(Item {
                    line: line.number,
                    text: c[2].trim().to_string(),
                });
            } else if let Some(item) = &mut current {
                item.text.push('\n');
                item.text.push_str(c[2].trim());
            }
        } else {
            let continues = !after_blank || list_indent.is_some_and(|base| indent > base);
            match &mut current {
                Some(item) if continues => {
                    item.text.push('\n');
                    item.text.push_str(trimmed);
                }
                _ => {
                    items.extend(current.take());
                    current = Some(Item {
                        line: line.number,
                        text: trimmed.to_string(),
                    });
                }
            }
        }
        after_blank = false;
    }
    items.extend(current);
    items
}

fn is_fence(text: &str) -> bool {
    let t = text.trim();
    t.starts_with("```") || t.starts_with("~~~")
}

fn find_date(lines: &[Line<'_>]) -> Option<HandoffDate> {
    let top = lines.iter().take(DATE_SEARCH_LINES);
    let labelled = lines
        .iter()
        .skip(DATE_SEARCH_LINES)
        .filter(|l| !l.fenced && DATE_LINE.is_match(l.text));
    top.chain(labelled).find_map(|l| {
        DATE.captures_iter(l.text).find_map(|c| {
            let date = NaiveDate::parse_from_str(&c[1], "%Y-%m-%d").ok()?;
            let time = c
                .get(2)
                .and_then(|t| NaiveTime::parse_from_str(t.as_str(), "%H:%M").ok());
            Some(HandoffDate { date, time })
        })
    })
}

/// Handoff-like text for property tests: headings, labels, list items,
/// fences, dates, paths and noise in any order.
#[cfg(test)]
pub(super) mod arbitrary {
    use proptest::prelude::*;

    /// One line of a handoff, or noise.
    fn line() -> impl Strategy<Value = String> {
        let title = prop::sample::select(vec![
            "Goal",
            "Done (don't redo)",
            "Next step",
            "Failed approaches (DO NOT retry)",
            "Key decisions (and why)",
            "Waiting on",
            "Can safely wait",
            "Current status",
            "Commands",
            "Not working (and why)",
            "Handoff 2026-11-21",
            "Notes",
            "",
        ]);
        let words = "[a-zA-Z0-9 `./_:()'*#-]{0,40}";
        prop_oneof![
            (1usize..8, title.clone()).prop_map(|(n, t)| format!("{} {t}", "#".repeat(n))),
            title.clone().prop_map(|t| format!("**{t}:**")),
            (title, words).prop_map(|(t, w)| format!("{t}: {w}")),
            ("[ \t]{0,6}", "[-*+]|[0-9]{1,4}[.)]", words)
                .prop_map(|(i, m, w)| format!("{i}{m} {w}")),
            prop::sample::select(vec![
                "```",
                "~~~",
                "```sh",
                "<!-- agent-handover | layer2 | 2026-11-21 -->",
                "Date: 2026-13-45 25:99",
                "Updated 2026-02-30T10:00",
                "- `src/lib.rs:12`",
                "- 3/4 tests pass",
                "TODO",
                "- [ ] todo",
                "> quote",
                "",
            ])
            .prop_map(String::from),
            words.prop_map(String::from),
            "\\PC{0,40}",
        ]
    }

    /// A handoff-like text, with `\n` or `\r\n` line ends.
    pub fn handoff_like() -> impl Strategy<Value = String> {
        (prop::collection::vec(line(), 0..40), any::<bool>())
            .prop_map(|(lines, crlf)| lines.join(if crlf { "\r\n" } else { "\n" }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(doc: &HandoffDocument<'_>) -> Vec<Option<SectionKind>> {
        doc.sections.iter().map(|s| s.kind).collect()
    }

    #[test]
    fn heading_variants_classify() {
        use SectionKind::*;
        let cases = [
            ("Failed approaches (DO NOT retry)", Some(FailedApproaches)),
            ("Failed Approaches", Some(FailedApproaches)),
            ("What didn't work", Some(FailedApproaches)),
            ("Recent accomplishments (don't redo)", Some(Done)),
            ("Done (don't redo)", Some(Done)),
            ("What was decided and why", Some(Decisions)),
            ("Key Decisions", Some(Decisions)),
            ("Next step", Some(NextStep)),
            ("Next steps", Some(NextStep)),
            ("What needs attention next", Some(NextStep)),
            ("NOT Working (and why)", Some(NotWorking)),
            ("Who we're waiting on", Some(WaitingOn)),
            ("What can safely wait", Some(CanWait)),
            ("Current Status", Some(Status)),
            ("What was in progress", Some(Status)),
            ("Development Environment", Some(Commands)),
            ("Commands to run", Some(Commands)),
            ("Goal", Some(Goal)),
            ("Task", Some(Goal)),
            ("Expected Outcome", Some(Goal)),
            ("Not done yet", None),
            ("What to do next", Some(NextStep)),
            ("Strategic approach", None),
            ("Session Handoff - 2026-04-08 14:30", None),
            ("Sync our task management board with the inbox", None),
        ];
        for (heading, kind) in cases {
            assert_eq!(SectionKind::classify(heading), kind, "{heading}");
        }
    }

    #[test]
    fn canonical_headings_classify_as_themselves() {
        for kind in SectionKind::ALL {
            assert_eq!(SectionKind::classify(kind.heading()), Some(kind));
        }
    }

    #[test]
    fn atx_sections_items_and_title() {
        let doc = HandoffDocument::parse(
            "# Session Handoff - 2026-04-08 14:30\n\n## Goal\nMigrate payments\nto Stripe v3\n\n## Done\n- schema script\n  - tested on staging\n- webhook handler\n\n### Notes\nstill part of done\n\n## Next Step\n```sh\ncargo test\n```\n## Empty\n",
        );
        assert_eq!(doc.title, Some((1, "Session Handoff - 2026-04-08 14:30")));
        assert_eq!(
            kinds(&doc),
            [
                Some(SectionKind::Goal),
                Some(SectionKind::Done),
                Some(SectionKind::NextStep),
                None
            ]
        );
        let goal = &doc.sections[0];
        assert_eq!(goal.items.len(), 1);
        assert_eq!(goal.items[0].text, "Migrate payments\nto Stripe v3");
        let done: Vec<_> = doc.items_of(SectionKind::Done).collect();
        assert_eq!(done.len(), 3, "{done:?}");
        assert_eq!(done[0].text, "schema script\ntested on staging");
        assert_eq!(done[2].line, 13);
        let next: Vec<_> = doc.items_of(SectionKind::NextStep).collect();
        assert_eq!(next.len(), 1);
        assert_eq!(next[0].text, "cargo test");
        assert!(doc.sections[3].items.is_empty());
        let date = doc.date.unwrap();
        assert_eq!(date.date, NaiveDate::from_ymd_opt(2026, 4, 8).unwrap());
        assert_eq!(date.time, NaiveTime::from_hms_opt(14, 30, 0));
    }

    #[test]
    fn bold_and_plain_labels_are_sections_only_when_known() {
        let doc = HandoffDocument::parse(
            "**Task: Raise the pass rate from 33% to 50%**\n\n**Current Status:**\n- 30/90 tests pass\n\n**Strategic Approach:** ignored label\n\n**Recent Accomplishments (Don't Redo):**\n- endpoints\n\nWho we're waiting on:\n- Alice\n\nNote: prose, not a section\n",
        );
        assert_eq!(
            kinds(&doc),
            [
                Some(SectionKind::Goal),
                Some(SectionKind::Status),
                Some(SectionKind::Done),
                Some(SectionKind::WaitingOn)
            ]
        );
        assert_eq!(
            doc.sections[0].items[0].text,
            "Raise the pass rate from 33% to 50%"
        );
        // The unknown bold label is prose in the status section.
        assert_eq!(doc.sections[1].items.len(), 2);
        assert_eq!(doc.sections[3].items.len(), 2);
        assert!(doc.date.is_none());
    }

    #[test]
    fn titles_and_sentences_are_not_sections() {
        let doc = HandoffDocument::parse(
            "# Handoff — task board — 2026-11-20
## Goal
Sync our task board with the inbox: every message becomes a card.
",
        );
        assert_eq!(doc.title.map(|t| t.0), Some(1));
        assert_eq!(kinds(&doc), [Some(SectionKind::Goal)]);
        assert_eq!(doc.sections[0].items.len(), 1);
    }

    #[test]
    fn headings_inside_code_fences_are_not_sections() {
        let doc = HandoffDocument::parse("## Commands\n```\n## Next step\n```\n");
        assert_eq!(kinds(&doc), [Some(SectionKind::Commands)]);
        assert_eq!(doc.sections[0].items[0].text, "## Next step");
    }

    #[test]
    fn numbered_items_and_paragraphs_count_separately() {
        let doc = HandoffDocument::parse(
            "## Next steps\n1. first\n2. second\n   detail of second\n\nA closing paragraph.\n",
        );
        let items: Vec<_> = doc.items_of(SectionKind::NextStep).collect();
        assert_eq!(items.len(), 3, "{items:?}");
        assert_eq!(items[1].text, "second\ndetail of second");
    }

    #[test]
    fn date_from_header_or_labelled_line() {
        let doc =
            HandoffDocument::parse("<!-- agent-handover | layer2 | 2026-11-21 -->\n# State\n");
        assert_eq!(
            doc.date.unwrap().since(),
            NaiveDate::from_ymd_opt(2026, 11, 22)
                .unwrap()
                .and_time(NaiveTime::MIN)
        );
        let mut text = "line\n".repeat(20);
        text.push_str("Updated: 2025-01-02\n");
        let doc = HandoffDocument::parse(&text);
        assert_eq!(
            doc.date.unwrap().date,
            NaiveDate::from_ymd_opt(2025, 1, 2).unwrap()
        );
        assert!(
            HandoffDocument::parse("no date 2025-13-45 here")
                .date
                .is_none()
        );
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn any_text_parses_into_sections_inside_the_text(
                text in prop_oneof![arbitrary::handoff_like(), "\\PC{0,300}"]
            ) {
                let doc = HandoffDocument::parse(&text);
                let n = doc.lines.len();
                for (i, line) in doc.lines.iter().enumerate() {
                    prop_assert_eq!(line.number, i + 1);
                }
                if let Some((line, _)) = doc.title {
                    prop_assert!((1..=n).contains(&line));
                }
                let mut last = 0;
                for s in &doc.sections {
                    prop_assert!(s.line > last && s.line <= n, "{s:?}");
                    prop_assert!(s.body.start == s.line && s.body.end <= n, "{s:?}");
                    for item in &s.items {
                        prop_assert!(item.line >= s.line && item.line <= n, "{item:?}");
                    }
                    last = s.line;
                }
            }
        }
    }
}
