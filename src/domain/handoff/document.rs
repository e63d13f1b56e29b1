//! The handoff document model: a Markdown handoff parsed into its sections
//! (goal, done, not working, failed approaches, ...), each with its items, its
//! language, and the date the handoff was written.
//!
//! The block structure comes from a real Markdown parser (pulldown-cmark):
//! ATX and setext headings, fenced and indented code, tables, HTML blocks.
//! On top of it, handoffs as people write them: a bold label on its own line
//! (`**Current Status:**`, `**Task: ship the parser**`), a plain label
//! (`Who we're waiting on:`), numbered headings (`## 1. Goal`), emoji
//! markers, YAML front matter, checklists (`- [x] done`), CRLF line ends.
//!
//! Headings are classified by the phrases of [`super::vocabulary`] (ten
//! languages), parentheticals dropped, so "Failed approaches (DO NOT
//! retry)", "Tried and abandoned", "Nächste Schritte" and "次の一手" land
//! where they belong. Labels only count when they classify; an unknown
//! heading starts an unknown section unless it is nested deeper than the
//! section it appears in. The first level-1 heading is the title unless it
//! is a short section name. When a document is an append-only log (dated
//! entries, each with its own next step) only the newest entry is current:
//! the sections of older entries, and of a "History" or "Archive" part, are
//! marked [`Section::past`] and the accessors skip them.

use std::ops::Range;
use std::sync::LazyLock;

use chrono::{Days, NaiveDate, NaiveDateTime, NaiveTime};
use pulldown_cmark::{Event, Options, Parser, Tag};
use regex::Regex;
use serde::Serialize;

use super::vocabulary::{self, has_phrase, normalize};
use crate::base::patterns::pattern;

pub use super::vocabulary::SectionKind;

impl SectionKind {
    /// The kind a heading's text names, if any.
    pub fn classify(heading: &str) -> Option<SectionKind> {
        classify_heading(heading).map(|(kind, _)| kind)
    }
}

/// The kind and language of a heading: too long a heading (more than
/// [`MAX_HEADING_WORDS`] words, or 24 characters of a script without
/// spaces) is a title or prose, not a section name.
fn classify_heading(heading: &str) -> Option<(SectionKind, &'static str)> {
    classify_words(heading, MAX_HEADING_WORDS)
}

/// [`classify_heading`] with another word limit: a Markdown heading below
/// the title is a section name even when it says more ("Specific TODOs the
/// next agent can pick up"). A heading that names nothing as a whole may
/// name its section before a dash or colon and say more after it ("Was
/// diese Session tun soll — drei realistische Pfade, lass uns einen
/// wählen").
fn classify_words(heading: &str, max_words: usize) -> Option<(SectionKind, &'static str)> {
    classify_whole(heading, max_words).or_else(|| {
        let head = [" — ", " – ", " - ", ": "]
            .iter()
            .filter_map(|sep| heading.find(sep))
            .min()
            .map(|at| heading[..at].trim())?;
        classify_whole(head, max_words)
    })
}

/// [`classify_words`] of the whole heading.
fn classify_whole(heading: &str, max_words: usize) -> Option<(SectionKind, &'static str)> {
    let norm = normalize(heading);
    let words = norm
        .split(' ')
        .filter(|w| w.chars().any(char::is_alphabetic))
        .count();
    let cjk = norm.chars().filter(|c| vocabulary::is_cjk(*c)).count();
    if words > max_words || cjk > MAX_HEADING_CJK_CHARS {
        return None;
    }
    vocabulary::classify(&norm).or_else(|| classify_parenthetical(heading))
}

/// A heading whose words name nothing may say what it is in its
/// parenthetical: "Phase 2 scope (the next session's work)".
fn classify_parenthetical(heading: &str) -> Option<(SectionKind, &'static str)> {
    if !heading.contains(['(', '[', '（']) {
        return None;
    }
    let opened: String = heading
        .chars()
        .map(|c| {
            if matches!(c, '(' | ')' | '[' | ']' | '（' | '）') {
                ' '
            } else {
                c
            }
        })
        .collect();
    vocabulary::classify(&normalize(&opened))
}

/// What a line is, in the Markdown block structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRole {
    /// Prose, list items, labels.
    Text,
    /// Inside a fenced or indented code block (fence lines included).
    Code,
    /// An ATX heading, or the text line of a setext heading, of this level.
    Heading(u8),
    /// The `===`/`---` line under a setext heading.
    Underline,
    /// A table's header row or its delimiter row.
    TableHead,
    /// A table body row.
    TableRow,
    /// An HTML comment block.
    Html,
    /// YAML front matter, delimiters included.
    FrontMatter,
}

/// One line of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number.
    pub number: usize,
    /// The text, without its line ending.
    pub text: &'a str,
    /// Inside a code block (fence lines included): `role == LineRole::Code`.
    pub fenced: bool,
    /// What the line is.
    pub role: LineRole,
}

/// One entry of a section: a list item (with its nested lines), a paragraph,
/// a table row, or a code block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// 1-based line where it starts.
    pub line: usize,
    /// Its text, list markers and checkboxes removed, lines joined with `\n`.
    pub text: String,
    /// `Some(true)` for a ticked checklist item (`- [x]`), `Some(false)`
    /// for an open one (`- [ ]`), `None` for anything else.
    pub checked: Option<bool>,
    /// What kind of block it is.
    pub shape: ItemShape,
}

/// The block an [`Item`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemShape {
    /// A paragraph, or the text after a label's colon.
    Paragraph,
    /// A bullet list item (`-`, `*`, `+`).
    Bullet,
    /// A numbered list item (`1.`, `2)`).
    Numbered,
    /// A code block.
    Code,
    /// A table body row.
    Row,
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
    /// Heading level: 1-6 for Markdown headings, 7 for labels.
    pub level: u8,
    /// Indices of its body lines in [`HandoffDocument::lines`].
    pub body: Range<usize>,
    /// Its items, in order.
    pub items: Vec<Item>,
    /// The language of the heading's phrase (`"en"`, `"de"`, ...), when known.
    pub language: Option<&'static str>,
    /// Part of an older entry of an append-only log, or of a history part:
    /// not the current state ([`HandoffDocument::sections_of`] skips it).
    pub past: bool,
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
    /// The sections, in order (past ones included).
    pub sections: Vec<Section<'a>>,
    /// When it was written, from a date near the top (or on a "Date:",
    /// "Updated:", ... line), e.g. the `<!-- agent-handover | layer2 | YYYY-MM-DD -->` header.
    pub date: Option<HandoffDate>,
    /// The language most of its recognised headings are written in.
    pub language: Option<&'static str>,
}

static ATX: LazyLock<Regex> = LazyLock::new(|| pattern(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$"));
static BOLD_LABEL: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^\s*(?:\d{1,2}[.)]\s+)?\*\*([^*]+?)\*\*\s*(.*)$"));
static PLAIN_LABEL: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^([A-Za-z][A-Za-z '’()/-]{1,60}):\s*(.*)$"));
/// A label alone on its line, no colon, right above a list ("Goal" then "- ...").
static BARE_LABEL: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^([\p{L}][\p{L}\d '’()/-]{1,60}?)\s*$"));
/// A placeholder's marker, as a plain label ("TODO: the goal").
static PLACEHOLDER_MARK: LazyLock<Regex> = LazyLock::new(|| pattern(r"^(?i:todo|tbd|fixme|xxx)$"));
/// `1. Goal` alone on a line: a numbered heading without `#`.
static NUMBERED_LABEL: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^\s{0,3}\d{1,2}[.)]\s+([^\s:*`][^:*`]{0,40}?):?\s*$"));
static LIST_ITEM: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$"));
static CHECKBOX: LazyLock<Regex> = LazyLock::new(|| pattern(r"^\[([ xX✓])\]\s*(.*)$"));
static DATE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\b(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,2}:\d{2}))?"));
/// A date written out: "November 12, 2025", "12 Nov 2025", "12.11.2025".
static WRITTEN_DATE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:(?P<m1>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y1>\d{4})|(?P<d2>\d{1,2})(?:st|nd|rd|th)?\.?\s+(?P<m2>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s+(?P<y2>\d{4})|(?P<d3>\d{1,2})\.(?P<n3>\d{1,2})\.(?P<y3>\d{4}))\b",
    )
});
static DATE_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:date|dated|updated|written|as of|handoff|handover|session)\b")
});
/// A heading over a part that is not the current state.
static HISTORY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:history|historical|archive|archived|changelog|previous sessions?|earlier sessions?|old notes)\b",
    )
});

/// Lines searched for a date before falling back to labelled date lines.
const DATE_SEARCH_LINES: usize = 10;
/// A heading of more words than this (parentheticals and numbers aside) is
/// a title or prose, not a section ("Handoff — task board sync").
const MAX_HEADING_WORDS: usize = 6;
/// The same for a Markdown heading of level 2 or deeper.
const MAX_SECTION_HEADING_WORDS: usize = 10;
/// The same for scripts without spaces (Japanese, Chinese).
const MAX_HEADING_CJK_CHARS: usize = 24;
/// A plain `Label:` line of more words than this is a sentence, not a label.
const MAX_PLAIN_LABEL_WORDS: usize = 5;
/// A numbered line (`1. Goal`) of more words than this is a list item.
const MAX_NUMBERED_LABEL_WORDS: usize = 3;
/// A level-1 heading of at most this many words that names a section is a
/// section, not the title ("# Next step").
const MAX_SECTION_TITLE_WORDS: usize = 3;
/// Front matter longer than this is not front matter.
const MAX_FRONT_MATTER_LINES: usize = 40;

/// A heading found on a line: level, text, text after a label's colon.
struct Heading<'a> {
    level: u8,
    text: &'a str,
    inline: &'a str,
    kind: Option<(SectionKind, &'static str)>,
}

impl<'a> HandoffDocument<'a> {
    /// Parse `text`. Never fails: anything unrecognised is simply not a section.
    pub fn parse(text: &'a str) -> Self {
        let lines = split_lines(text);
        let mut title = None;
        let mut sections: Vec<Section<'a>> = Vec::new();
        let mut starts: Vec<(usize, &'a str)> = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let Some(h) = heading(&lines, i) else {
                continue;
            };
            let words = normalize(h.text)
                .split(' ')
                .filter(|w| !w.is_empty())
                .count();
            let is_title_heading = h.level == 1
                && (h.kind.is_none() || words > MAX_SECTION_TITLE_WORDS || is_title(h.text));
            if is_title_heading && title.is_none() && sections.is_empty() {
                title = Some((line.number, h.text));
                continue;
            }
            if (h.kind.is_none() || is_title_heading)
                && sections.last().is_some_and(|s| h.level > s.level)
            {
                continue; // a sub-heading inside the current section
            }
            if let Some(prev) = sections.last_mut() {
                prev.body.end = i;
            }
            let kind = h.kind.filter(|_| !is_title_heading);
            sections.push(Section {
                kind: kind.map(|(k, _)| k),
                heading: h.text,
                line: line.number,
                level: h.level,
                body: i + 1..lines.len(),
                items: Vec::new(),
                language: kind.map(|(_, l)| l),
                past: false,
            });
            starts.push((line.number, h.inline));
        }
        for (section, (line, inline)) in sections.iter_mut().zip(starts) {
            let mut items = Vec::new();
            if !inline.trim().is_empty() {
                items.push(Item {
                    line,
                    text: inline.trim().to_string(),
                    checked: None,
                    shape: ItemShape::Paragraph,
                });
            }
            items.extend(collect_items(&lines[section.body.clone()]));
            section.items = items;
        }
        mark_past(&mut sections, &lines);
        let date = find_date(&lines);
        let language = majority_language(&sections);
        HandoffDocument {
            text,
            lines,
            title,
            sections,
            date,
            language,
        }
    }

    /// The current sections of one kind (past ones skipped).
    pub fn sections_of(&self, kind: SectionKind) -> impl Iterator<Item = &Section<'a>> {
        self.sections
            .iter()
            .filter(move |s| s.kind == Some(kind) && !s.past)
    }

    /// Whether a current section of `kind` is present.
    pub fn has(&self, kind: SectionKind) -> bool {
        self.sections_of(kind).next().is_some()
    }

    /// The items of every current section of `kind`.
    pub fn items_of(&self, kind: SectionKind) -> impl Iterator<Item = &Item> {
        self.sections_of(kind).flat_map(|s| s.items.iter())
    }

    /// THE next step: the first item of the current next-step sections (in
    /// an ordered list, the first step is the next one).
    pub fn next_step(&self) -> Option<&Item> {
        self.items_of(SectionKind::NextStep).next()
    }

    /// Headings that name no section we know, with their lines: what a
    /// "missing section" finding should point at.
    pub fn unrecognised(&self) -> impl Iterator<Item = &Section<'a>> {
        self.sections.iter().filter(|s| s.kind.is_none() && !s.past)
    }

    /// The lines of the current state: outside code, tables' heads, HTML,
    /// front matter and past sections.
    pub fn current_prose(&self) -> impl Iterator<Item = &Line<'a>> {
        let past: Vec<Range<usize>> = self
            .sections
            .iter()
            .filter(|s| s.past)
            .map(|s| s.line - 1..s.body.end)
            .collect();
        self.lines.iter().enumerate().filter_map(move |(i, l)| {
            let prose = matches!(
                l.role,
                LineRole::Text | LineRole::Heading(_) | LineRole::TableRow
            );
            (prose && !past.iter().any(|r| r.contains(&i))).then_some(l)
        })
    }
}

/// A level-1 heading naming the document ("Handoff — task board — date").
fn is_title(text: &str) -> bool {
    let norm = normalize(text);
    ["handoff", "handover", "session"]
        .iter()
        .any(|w| has_phrase(&norm, w))
        || DATE.is_match(text)
}

/// The language most classified sections are written in (ties: the first).
fn majority_language(sections: &[Section<'_>]) -> Option<&'static str> {
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    for language in sections.iter().filter_map(|s| s.language) {
        match counts.iter_mut().find(|(l, _)| *l == language) {
            Some((_, n)) => *n += 1,
            None => counts.push((language, 1)),
        }
    }
    let best = counts.iter().map(|(_, n)| *n).max()?;
    counts.iter().find(|(_, n)| *n == best).map(|(l, _)| *l)
}

/// Mark the sections that are not the current state: those under a
/// "History"/"Archive" heading, and, in an append-only log (two or more
/// dated headings, each entry with its own next step), those of every entry
/// but the newest.
fn mark_past(sections: &mut [Section<'_>], lines: &[Line<'_>]) {
    // (line index, level, date) of every heading that opens an entry.
    let mut entries: Vec<(usize, u8, Option<NaiveDate>, bool)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let LineRole::Heading(level) = line.role else {
            continue;
        };
        let text = heading_text(line.text);
        if classify_heading(text).is_some() {
            continue;
        }
        let date = DATE
            .captures(text)
            .and_then(|c| NaiveDate::parse_from_str(&c[1], "%Y-%m-%d").ok());
        let inside_history = entries
            .iter()
            .rev()
            .find(|(_, l, _, _)| *l < level)
            .is_some_and(|e| e.3);
        let history = inside_history || HISTORY.is_match(text);
        if date.is_some() || history {
            entries.push((i, level, date, history));
        }
    }
    let entry_of = |line_index: usize, level: u8| {
        entries
            .iter()
            .rposition(|(at, l, _, _)| *at < line_index && *l < level)
    };
    for s in sections.iter_mut() {
        if let Some(e) = entry_of(s.line - 1, s.level) {
            s.past = entries[e].3;
        }
    }
    let dated: Vec<usize> = (0..entries.len())
        .filter(|e| entries[*e].2.is_some() && !entries[*e].3)
        .collect();
    let steps_by_entry: Vec<usize> = sections
        .iter()
        .filter(|s| s.kind == Some(SectionKind::NextStep) && !s.past)
        .filter_map(|s| entry_of(s.line - 1, s.level))
        .collect();
    let mut with_steps = steps_by_entry.clone();
    with_steps.dedup();
    if dated.len() < 2 || with_steps.len() < 2 {
        return;
    }
    let newest = dated
        .iter()
        .copied()
        .filter(|e| with_steps.contains(e))
        .max_by_key(|e| (entries[*e].2, *e));
    for s in sections.iter_mut() {
        if let Some(e) = entry_of(s.line - 1, s.level)
            && entries[e].2.is_some()
            && Some(e) != newest
        {
            s.past = true;
        }
    }
}

/// The text of a Markdown heading line (ATX or setext).
fn heading_text(line: &str) -> &str {
    ATX.captures(line)
        .and_then(|c| c.get(2))
        .map_or(line.trim(), |m| m.as_str())
}

/// Split into lines and give each its role, from the Markdown block
/// structure (front matter first: a Markdown parser would read its closing
/// `---` as a setext underline).
fn split_lines(text: &str) -> Vec<Line<'_>> {
    let mut starts = Vec::new();
    let mut lines: Vec<Line<'_>> = Vec::new();
    let mut offset = 0;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        starts.push(offset);
        offset += raw.len();
        let content = raw.strip_suffix('\n').unwrap_or(raw);
        let content = content.strip_suffix('\r').unwrap_or(content);
        lines.push(Line {
            number: i + 1,
            text: content,
            fenced: false,
            role: LineRole::Text,
        });
    }
    let body_line = front_matter_end(&lines);
    for line in &mut lines[..body_line] {
        line.role = LineRole::FrontMatter;
    }
    let body_start = starts.get(body_line).copied().unwrap_or(text.len());
    let line_of = |at: usize| starts.partition_point(|s| *s <= at).saturating_sub(1);
    let set = |range: Range<usize>, role: LineRole, lines: &mut Vec<Line<'_>>| {
        if range.is_empty() {
            return;
        }
        let (first, last) = (
            line_of(body_start + range.start),
            line_of(body_start + range.end - 1),
        );
        for line in &mut lines[first..=last] {
            line.role = role;
        }
    };
    let options = Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS;
    for (event, range) in Parser::new_ext(&text[body_start..], options).into_offset_iter() {
        let Event::Start(tag) = event else {
            continue;
        };
        match tag {
            Tag::CodeBlock(_) => set(range, LineRole::Code, &mut lines),
            // Comments only: `<fill in later>` is a placeholder, not markup.
            Tag::HtmlBlock
                if text[body_start + range.start..]
                    .trim_start()
                    .starts_with("<!--") =>
            {
                set(range, LineRole::Html, &mut lines)
            }
            Tag::TableHead => {
                set(range.clone(), LineRole::TableHead, &mut lines);
                let head = line_of(body_start + range.start);
                if let Some(delimiter) = lines.get_mut(head + 1) {
                    delimiter.role = LineRole::TableHead;
                }
            }
            Tag::TableRow => set(range, LineRole::TableRow, &mut lines),
            Tag::Heading { level, .. } => {
                let (first, last) = (
                    line_of(body_start + range.start),
                    line_of(body_start + range.end.saturating_sub(1).max(range.start)),
                );
                lines[first].role = LineRole::Heading(level as u8);
                if last > first {
                    lines[last].role = LineRole::Underline;
                }
            }
            _ => {}
        }
    }
    for line in &mut lines {
        line.fenced = line.role == LineRole::Code;
    }
    lines
}

/// The index of the first line after YAML front matter (0 without any).
fn front_matter_end(lines: &[Line<'_>]) -> usize {
    if lines.first().is_none_or(|l| l.text.trim_end() != "---") {
        return 0;
    }
    lines
        .iter()
        .skip(1)
        .take(MAX_FRONT_MATTER_LINES)
        .position(|l| matches!(l.text.trim_end(), "---" | "..."))
        .filter(|end| {
            lines[1..=*end].iter().all(|l| {
                l.text.trim().is_empty()
                    || l.text.contains(':')
                    || l.text.trim_start().starts_with('-')
            }) && *end > 0
        })
        .map_or(0, |end| end + 2)
}

/// The heading on line `i`, if it has one: a Markdown heading, or a label
/// that names a section.
fn heading<'a>(lines: &[Line<'a>], i: usize) -> Option<Heading<'a>> {
    let line = &lines[i];
    match line.role {
        LineRole::Heading(level) => {
            let text = heading_text(line.text);
            let max_words = if level >= 2 {
                MAX_SECTION_HEADING_WORDS
            } else {
                MAX_HEADING_WORDS
            };
            return Some(Heading {
                level,
                text,
                inline: "",
                kind: classify_words(text, max_words),
            });
        }
        LineRole::Text => {}
        _ => return None,
    }
    let text = line.text;
    let (label, inline, max_words) = if let Some(c) = BOLD_LABEL.captures(text) {
        let inner = c.get(1).map_or("", |m| m.as_str());
        let rest = c.get(2).map_or("", |m| m.as_str());
        let (label, inline) = match inner.split_once(':') {
            Some((label, after)) if rest.is_empty() || after.trim().is_empty() => {
                (label, if after.trim().is_empty() { rest } else { after })
            }
            None if rest.is_empty() => (inner, ""),
            None => (inner, rest.strip_prefix(':')?),
            _ => return None,
        };
        (label, inline, MAX_HEADING_WORDS)
    } else if let Some(c) = NUMBERED_LABEL.captures(text) {
        let next_is_item = lines[i + 1..]
            .iter()
            .find(|l| !l.text.trim().is_empty())
            .is_some_and(|l| LIST_ITEM.is_match(l.text) && indent(l.text) <= indent(text));
        if next_is_item {
            return None;
        }
        (
            c.get(1).map_or("", |m| m.as_str()),
            "",
            MAX_NUMBERED_LABEL_WORDS,
        )
    } else if let Some(c) = BARE_LABEL.captures(text) {
        let after_blank = i == 0 || lines[i - 1].text.trim().is_empty();
        let next_is_item = lines
            .get(i + 1)
            .is_some_and(|l| LIST_ITEM.is_match(l.text) && indent(l.text) >= indent(text));
        if !(after_blank && next_is_item) {
            return None;
        }
        (
            c.get(1).map_or("", |m| m.as_str()),
            "",
            MAX_PLAIN_LABEL_WORDS,
        )
    } else {
        let c = PLAIN_LABEL.captures(text)?;
        if PLACEHOLDER_MARK.is_match(&c[1]) {
            return None; // "TODO: fill in the goal" is a placeholder, not a to-do list
        }
        (
            c.get(1).map_or("", |m| m.as_str()),
            c.get(2).map_or("", |m| m.as_str()),
            MAX_PLAIN_LABEL_WORDS,
        )
    };
    if label.split_whitespace().count() > max_words {
        return None;
    }
    let kind = classify_heading(label)?;
    Some(Heading {
        level: 7,
        text: label.trim(),
        inline,
        kind: Some(kind),
    })
}

fn indent(text: &str) -> usize {
    text.len() - text.trim_start().len()
}

/// Split a section body into items: list items (nested lines belong to
/// their parent), paragraphs, table rows, code blocks. Blank lines, HTML,
/// table heads, setext underlines and sub-headings are not items.
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
        let indent = indent(text);
        match line.role {
            LineRole::Code => {
                let start = line.number;
                let mut block: Vec<&str> = Vec::new();
                let mut j = i - 1;
                while j < body.len() && body[j].role == LineRole::Code {
                    block.push(body[j].text.trim_end());
                    j += 1;
                }
                i = j;
                if block.first().is_some_and(|l| is_fence(l)) {
                    block.remove(0);
                    if block.last().is_some_and(|l| is_fence(l)) {
                        block.pop();
                    }
                }
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
                            checked: None,
                            shape: ItemShape::Code,
                        });
                    }
                }
                after_blank = false;
                continue;
            }
            LineRole::TableRow => {
                items.extend(current.take());
                let cells: Vec<&str> = text
                    .trim()
                    .trim_matches('|')
                    .split('|')
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .collect();
                items.push(Item {
                    line: line.number,
                    text: cells.join(" | "),
                    checked: None,
                    shape: ItemShape::Row,
                });
                after_blank = true;
                continue;
            }
            LineRole::Heading(_) => {
                items.extend(current.take());
                after_blank = true;
                continue;
            }
            LineRole::Html | LineRole::TableHead | LineRole::Underline | LineRole::FrontMatter => {
                continue;
            }
            LineRole::Text => {}
        }
        let trimmed = text.trim();
        if trimmed.is_empty() {
            after_blank = true;
            continue;
        }
        if trimmed.starts_with("<!--") && trimmed.ends_with("-->") {
            continue;
        }
        if let Some(c) = LIST_ITEM.captures(text) {
            let base = *list_indent.get_or_insert(indent);
            let (content, checked) = match CHECKBOX.captures(c[2].trim()) {
                Some(b) => (b[2].to_string(), Some(&b[1] != " ")),
                None => (c[2].trim().to_string(), None),
            };
            if indent <= base || current.is_none() {
                items.extend(current.take());
                current = Some(Item {
                    line: line.number,
                    text: content,
                    checked,
                    shape: if c[0].trim_start().starts_with(|c: char| c.is_ascii_digit()) {
                        ItemShape::Numbered
                    } else {
                        ItemShape::Bullet
                    },
                });
            } else if let Some(item) = &mut current {
                item.text.push('\n');
                item.text.push_str(&content);
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
                        checked: None,
                        shape: ItemShape::Paragraph,
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
    let iso = top.clone().chain(labelled.clone()).find_map(|l| {
        DATE.captures_iter(l.text).find_map(|c| {
            let date = NaiveDate::parse_from_str(&c[1], "%Y-%m-%d").ok()?;
            let time = c
                .get(2)
                .and_then(|t| NaiveTime::parse_from_str(t.as_str(), "%H:%M").ok());
            Some(HandoffDate { date, time })
        })
    });
    iso.or_else(|| {
        top.chain(labelled).find_map(|l| {
            WRITTEN_DATE
                .captures_iter(l.text)
                .find_map(|c| written_date(&c).map(|date| HandoffDate { date, time: None }))
        })
    })
}

/// The date of a [`WRITTEN_DATE`] match.
fn written_date(c: &regex::Captures<'_>) -> Option<NaiveDate> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let num = |name: &str| c.name(name).and_then(|m| m.as_str().parse::<u32>().ok());
    let month = |name: &str| {
        c.name(name).and_then(|m| {
            let m = m.as_str().to_ascii_lowercase();
            MONTHS.iter().position(|x| *x == m).map(|i| i as u32 + 1)
        })
    };
    let (y, m, d) = if let Some(y) = num("y1") {
        (y, month("m1")?, num("d1")?)
    } else if let Some(y) = num("y2") {
        (y, month("m2")?, num("d2")?)
    } else {
        (num("y3")?, num("n3")?, num("d3")?)
    };
    NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)
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
    fn what_is_left_is_the_next_step_but_a_todo_placeholder_is_not() {
        for heading in [
            "## Next Steps / TODO",
            "## Remaining Steps",
            "## Outstanding Work",
            "## 1.6 What's left (operator decisions)",
            "### Was diese Session tun soll — drei realistische Pfade, lass uns einen wählen",
            "## Pendientes",
            "## 남은 작업",
        ] {
            let text = format!("# Handoff\n\n{heading}\n\n- a step\n");
            let doc = HandoffDocument::parse(&text);
            assert_eq!(
                doc.sections.first().and_then(|s| s.kind),
                Some(SectionKind::NextStep),
                "{heading}"
            );
        }
        let doc =
            HandoffDocument::parse("## Goal\nTODO: the feature and how we will know it is done\n");
        assert_eq!(doc.sections.len(), 1, "{:?}", doc.sections);
        assert!(!doc.has(SectionKind::NextStep));
        assert_eq!(SectionKind::classify("Not done yet"), None);
    }

    #[test]
    fn written_dates_are_dates() {
        for (text, want) in [
            ("**Session Date:** November 12, 2025", (2025, 11, 12)),
            ("Handoff, 3 Feb 2026", (2026, 2, 3)),
            ("Stand: 12.11.2025", (2025, 11, 12)),
        ] {
            let doc = HandoffDocument::parse(text);
            let date = doc.date.map(|d| d.date);
            assert_eq!(
                date,
                NaiveDate::from_ymd_opt(want.0, want.1, want.2),
                "{text}"
            );
        }
        let iso = HandoffDocument::parse("# Handoff 2026-01-02\nNovember 12, 2025");
        assert_eq!(
            iso.date.map(|d| d.date),
            NaiveDate::from_ymd_opt(2026, 1, 2)
        );
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
            // Headings of real handoffs (public corpus).
            ("Phase 2 scope (the next session's work)", Some(NextStep)),
            (
                "Do these first (highest leverage, in order)",
                Some(NextStep),
            ),
            ("Resume prompt", Some(NextStep)),
            ("What NOT to do", Some(FailedApproaches)),
            ("What changed", Some(Done)),
            ("Active work", Some(Status)),
            ("Settings (experimental)", None),
            ("Current implementation", Some(Done)),
            ("Verified results (real numbers)", Some(Done)),
            ("Not yet implemented", None),
        ];
        for (heading, kind) in cases {
            assert_eq!(SectionKind::classify(heading), kind, "{heading}");
        }
    }

    #[test]
    fn long_section_headings_of_real_handoffs_classify() {
        let text = "# Bourbaki — handoff for next session\n\n## 5. Lessons & don'ts (read these before you do anything)\n- Never run benchmarks inside the agent shell: it kills them\n## 7. Specific TODOs the next agent can pick up\n1. Wire `lean_prover` into the search loop\n## Conflicts surfaced (preserve until resolved or migrated into PLAN.md)\n- Repo identity differs\n";
        let doc = HandoffDocument::parse(text);
        assert_eq!(
            kinds(&doc),
            [
                Some(SectionKind::FailedApproaches),
                Some(SectionKind::NextStep),
                None
            ]
        );
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
    fn a_bare_label_above_a_list_is_a_section() {
        // As a real status file has them: no `#`, no colon.
        let doc = HandoffDocument::parse(
            "# Resources — week 12\n\nGoal\n- Use a UUID as the resource id.\n\nWhat’s left (priority-ordered plan)\n1) Replace the filename in the service APIs\n\nSmaller improvements\n- error handling\n\nWork on it next week\n\nDone\nthe parser\n\nwe paused here\nDone\n- the lexer\n",
        );
        assert_eq!(
            kinds(&doc),
            [Some(SectionKind::Goal), Some(SectionKind::NextStep)]
        );
        // An unknown label, a label after prose, or one above prose stays prose.
        assert_eq!(doc.sections[1].items.len(), 7);
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
