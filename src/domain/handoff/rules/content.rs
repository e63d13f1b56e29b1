//! Content rules: size against the budget (scaled), no placeholders and no
//! unfilled template, no secrets, no unresolved merge conflict, no raw dumps
//! (logs, test runs, tool-call logs, transcripts), a measurable status, a
//! date.

use std::sync::LazyLock;

use regex::Regex;

use super::{
    CONFLICT_MARKERS, Finding, NO_MEASURABLE_STATUS, OVER_BUDGET, PLACEHOLDER, RAW_DUMP, SECRET,
    SUPERSEDED, TOO_SHORT, UNDATED, UNFILLED_TEMPLATE,
};
use crate::base::patterns::pattern;
use crate::base::secrets;
use crate::domain::handoff::context::LintContext;
use crate::domain::handoff::document::{HandoffDocument, Line, LineRole, SectionKind};
use crate::domain::handoff::text::{estimate_tokens, snippet};
use crate::domain::memory::conflict::Conflict;

/// A fenced block longer than this is pasted output, not a briefing.
pub const MAX_CODE_BLOCK_LINES: usize = 30;
/// This many log-like lines in a row are a pasted log.
pub const MAX_LOG_LINES: usize = 12;
/// This many transcript turns ("User:", "Assistant:") are a pasted conversation.
pub const MAX_TRANSCRIPT_TURNS: usize = 4;
/// A single line longer than this is pasted data.
pub const MAX_LINE_CHARS: usize = 1_000;
/// This many numbered tool calls ("3. Called `read_file`") are a pasted tool-call log.
pub const MAX_TOOL_CALLS: usize = 5;
/// A template is unfilled when at least this many lines hold placeholders...
pub const TEMPLATE_PLACEHOLDER_LINES: usize = 4;
/// ...and they are at least this share (in percent) of the prose lines.
pub const TEMPLATE_PLACEHOLDER_SHARE: usize = 20;

static PLACEHOLDERS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"\b(?:TODO|TBD|FIXME|XXX)\b|\?\?\?|(?i:\blorem ipsum\b|<(?:fill|insert|your|describe|add|todo)\b[^>]*>|\[(?:fill|insert|your|describe|add|todo)\b[^\]]*\])|^\s*(?:[-*+]\s*)?(?:\.\.\.|…)\s*$|\[[A-Z][A-Z0-9_ ]{2,}\]|\[[A-Z][^\]\[]{2,70}\](?:[^(:]|$)|\bYYYY-MM-DD\b|\b(?:XX|X/Y)\b|=\s*\.\.\.\s*(?:#|$)",
    )
});
/// Inline code spans, dropped before looking for placeholders.
static CODE_SPAN: LazyLock<Regex> = LazyLock::new(|| pattern(r"`[^`]*`"));
static LOG_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?x)^\s*(?:
            \[?\d{4}-\d{2}-\d{2}[T\ ]\d{2}:\d{2}
          | \[?\d{2}:\d{2}:\d{2}
          | \[?(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL)\b
          | at\ [\w.$<>]+\(
          | (?:Compiling|Running|Finished|Downloaded|Checking)\ 
          | test\ \S+\ \.\.\.\ 
          | (?:PASS|FAIL|ok|FAILED)\ +\S
          | thread\ '.+'\ panicked
          | [-=]{3,}\ \S.*\ [-=]{3,}$
          | Traceback\ \(most
          | File\ \x22[^\x22]+\x22,\ line\ \d+
          | \$\ \S
        )",
    )
});
/// A numbered tool call of an agent's log ("3. Called `read_file` on ...").
static TOOL_CALL: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^\s*\d{1,3}[.)]\s+(?:called|ran|running|read|edited|executed|invoked|tool|test output|searched|opened)\b",
    )
});
static TRANSCRIPT_TURN: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)^\s*(?:>\s*)?\**(?:user|assistant|human|ai|claude|codex|model|system)\**\s*:")
});
static MEASURABLE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\d+\s*/\s*\d+|\d+(?:[.,]\d+)?\s*%|\b\d+\s+(?:of|out of|von|sur|de|di|из)\s+(?:the\s+)?(?:last\s+|first\s+)?\d+|\b\d[\d,.]*\s*(?:tests?|passing|passed|pass|failing|failed|fail|errors?|warnings?|files?|endpoints?|items?|steps?|issues?|bugs?|lints?|crates?|modules?|pages?|sections?|commits?|prs?|ms|s|sec|seconds|min|minutes|h|hours|mb|kb|gb|lines|rows|docs|runs|turns|cases|specs|checks|scenarios|records|launches|services|phases|packages|left|remaining|todo|sku)\b|\d\s*(?:件|個|건|개|秒|分|行|万)|\b[1-9]\d{0,4}(?:,\d{3})*\+?\s+(?:[a-z]+\s+)?[a-z]{3,}s\b(?:\s+(?:each|total|live|left|done|pass\w*|fail\w*))?",
    )
});

/// A handoff that says of itself, at its top, that it is not the current
/// state: "This file is a historical snapshot", "this document is outdated",
/// "It is not the current ... description", "this document contains
/// AI-hallucinated data".
static SUPERSEDED_SELF: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bthis (?:file|document|handoff|note|page)\b[^.\n]{0,30}?\b(?:is|was)\s+(?:now\s+)?(?:an?\s+)?(?:historical|outdated|obsolete|out of date|stale|superseded|archived|deprecated|no longer (?:current|accurate|valid|maintained|up to date))|\bthis (?:file|document|handoff|note|page)\b[^.\n]{0,30}?\b(?:contains|is)\s+(?:ai[- ])?(?:hallucinated|fabricated|made[- ]up)|\b(?:ai[- ])?hallucinated (?:content|data|claims)\b|\bhistorical snapshot\b|\bit is not the current\b|\bnot the current (?:state|status|description|version)\b|diese (?:datei|notiz) ist veraltet|ce (?:fichier|document) est obsolète|este (?:archivo|documento) está obsoleto|этот (?:файл|документ) устарел",
    )
});
/// How many prose lines from the top a handoff has to say it is outdated.
const SUPERSEDED_LINES: usize = 8;

pub(super) fn check(doc: &HandoffDocument<'_>, ctx: &LintContext, out: &mut Vec<Finding>) {
    check_superseded(doc, out);
    check_size(doc, ctx, out);
    check_placeholders(doc, out);
    check_secrets(doc, out);
    check_conflict(doc, out);
    check_dumps(doc, out);
    check_status(doc, out);
    if doc.date.is_none() {
        out.push(UNDATED.at(
            None,
            "no date: put YYYY-MM-DD in the title (a stale handoff is worse than none, and only a dated one can be judged)",
        ));
    }
}

fn check_superseded(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    if let Some(line) = doc
        .current_prose()
        .filter(|l| !l.text.trim().is_empty())
        .take(SUPERSEDED_LINES)
        .find(|l| SUPERSEDED_SELF.is_match(l.text))
    {
        out.push(SUPERSEDED.at(
            Some(line.number),
            format!(
                "\"{}\": the handoff says it is not the current state; write the current one, or point to it and remove this",
                snippet(line.text.trim(), 60)
            ),
        ));
    }
}

fn check_size(doc: &HandoffDocument<'_>, ctx: &LintContext, out: &mut Vec<Finding>) {
    let tokens = estimate_tokens(doc.text);
    if tokens > ctx.max_tokens {
        let quarter = (ctx.max_tokens / 4).max(1);
        let quarters = (tokens - ctx.max_tokens).div_ceil(quarter);
        out.push(OVER_BUDGET.scaled(
            None,
            points(quarters.saturating_mul(usize::from(OVER_BUDGET.weight))),
            format!(
                "about {tokens} tokens, over the {} budget: keep decisions and the critical path, drop history and output",
                ctx.max_tokens
            ),
        ));
    } else if tokens < ctx.min_tokens {
        let missing = ctx.min_tokens - tokens;
        out.push(TOO_SHORT.scaled(
            None,
            points(usize::from(TOO_SHORT.weight) * missing / ctx.min_tokens.max(1)),
            format!(
                "about {tokens} tokens: too thin for the next session to act on (aim for 500-1,500)"
            ),
        ));
    }
}

/// A count as points, saturating.
fn points(n: usize) -> u8 {
    u8::try_from(n).unwrap_or(u8::MAX)
}

/// Tags agent-handover itself asks agents to write (`learn` reads them):
/// a finding, not a placeholder.
static OWN_TAG: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\[(?:DECISION|GOTCHA|REUSE|CORRECTION)\]"));
/// Inline HTML comments (the draft's own note to the agent): not shown, not
/// handed over as text.
static INLINE_COMMENT: LazyLock<Regex> = LazyLock::new(|| pattern(r"<!--.*?-->"));

/// The first placeholder in `text` (one line), if it holds one: `TODO`,
/// `<fill in>`, `[YOUR NAME]`, `YYYY-MM-DD`, …; inline code, inline HTML
/// comments and agent-handover's own tags (`[DECISION]`) are not.
pub fn placeholder_in(text: &str) -> Option<String> {
    let text = CODE_SPAN.replace_all(text, "");
    let text = INLINE_COMMENT.replace_all(&text, "");
    let text = OWN_TAG.replace_all(&text, "");
    PLACEHOLDERS
        .find(&text)
        .map(|m| m.as_str().trim().to_string())
}

/// The lines of a handoff that hold placeholders (number, placeholder),
/// and how many prose lines it has: HTML comment blocks and code are not
/// prose.
fn placeholder_lines(doc: &HandoffDocument<'_>) -> (usize, Vec<(usize, String)>) {
    let mut prose = 0;
    let mut found = Vec::new();
    for line in doc
        .lines
        .iter()
        .filter(|l| !l.fenced && l.role != LineRole::Html && !l.text.trim().is_empty())
    {
        prose += 1;
        if let Some(placeholder) = placeholder_in(line.text) {
            found.push((line.number, placeholder));
        }
    }
    (prose, found)
}

/// The placeholder lines of `text` when it is an unfilled template (the
/// `unfilled-template` rule fires), else `None`: what `run` refuses.
pub fn unfilled_template(text: &str) -> Option<Vec<(usize, String)>> {
    let doc = HandoffDocument::parse(text);
    let (prose, found) = placeholder_lines(&doc);
    is_template(prose, found.len()).then_some(found)
}

fn is_template(prose: usize, placeholders: usize) -> bool {
    placeholders >= TEMPLATE_PLACEHOLDER_LINES
        && placeholders * 100 >= prose * TEMPLATE_PLACEHOLDER_SHARE
}

fn check_placeholders(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    let (prose, found) = placeholder_lines(doc);
    if is_template(prose, found.len()) {
        out.push(UNFILLED_TEMPLATE.at(
            Some(found[0].0),
            format!(
                "{} of {prose} lines are placeholders (\"{}\"...): this is a template, not a handoff; write what happened",
                found.len(),
                snippet(&found[0].1, 30)
            ),
        ));
    }
    for (line, placeholder) in found {
        out.push(PLACEHOLDER.at(
            Some(line),
            format!("placeholder \"{placeholder}\" left in: fill it in or delete the line"),
        ));
    }
}

pub(super) fn check_secrets(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    for m in secrets::scan(doc.text) {
        out.push(SECRET.at(
            Some(m.line(doc.text)),
            format!(
                "possible {} ({}): remove it from the handoff and rotate it; handoffs are published",
                m.kind,
                secrets::REDACTED
            ),
        ));
    }
}

/// Unresolved merge conflict markers ([`crate::domain::memory::conflict`]):
/// one finding, at the first, naming them all.
pub(super) fn check_conflict(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    if let Some(conflict) = Conflict::find(doc.text) {
        out.push(CONFLICT_MARKERS.at(
            Some(conflict.first()),
            format!(
                "an unresolved merge conflict ({}): the next session would read both sides as the truth; keep what is true and delete the <<<<<<<, ======= and >>>>>>> lines",
                conflict.span()
            ),
        ));
    }
}

fn check_dumps(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    let lines = &doc.lines;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.fenced {
            let len = lines[i..].iter().take_while(|l| l.fenced).count();
            let logged = lines[i..i + len]
                .iter()
                .filter(|l| LOG_LINE.is_match(l.text))
                .count();
            if logged >= MAX_LOG_LINES && len.saturating_sub(2) <= MAX_CODE_BLOCK_LINES {
                out.push(RAW_DUMP.at(
                    Some(line.number),
                    format!(
                        "a code block of {logged} log lines: quote the one error that matters and say where the full log is"
                    ),
                ));
            } else if len.saturating_sub(2) > MAX_CODE_BLOCK_LINES {
                out.push(RAW_DUMP.at(
                    Some(line.number),
                    format!(
                        "a {}-line code block: paste the one error or command that matters, not the whole output",
                        len - 2
                    ),
                ));
            }
            i += len;
            continue;
        }
        let run = lines[i..]
            .iter()
            .take_while(|l| !l.fenced && LOG_LINE.is_match(l.text))
            .count();
        if run >= MAX_LOG_LINES {
            out.push(RAW_DUMP.at(
                Some(line.number),
                format!(
                    "{run} lines of pasted log: quote the real error in one line and say where the full log is"
                ),
            ));
        }
        if line.text.chars().count() > MAX_LINE_CHARS {
            out.push(RAW_DUMP.at(
                Some(line.number),
                "a line of over 1,000 characters: pasted data does not belong in a briefing",
            ));
        }
        i += run.max(1);
    }
    let calls: Vec<&Line<'_>> = lines
        .iter()
        .filter(|l| !l.fenced && TOOL_CALL.is_match(l.text))
        .collect();
    if calls.len() >= MAX_TOOL_CALLS {
        out.push(RAW_DUMP.at(
            Some(calls[0].number),
            format!(
                "{} numbered tool calls: a log of what the agent did is not a briefing; say what is true now and what to do next",
                calls.len()
            ),
        ));
    }
    let turns: Vec<&Line<'_>> = lines
        .iter()
        .filter(|l| TRANSCRIPT_TURN.is_match(l.text))
        .collect();
    if turns.len() >= MAX_TRANSCRIPT_TURNS {
        out.push(RAW_DUMP.at(
            Some(turns[0].number),
            format!(
                "{} transcript turns (\"{}\"...): summarise the decisions, do not paste the conversation",
                turns.len(),
                snippet(turns[0].text, 30)
            ),
        ));
    }
}

fn check_status(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    let status: Vec<_> = doc.sections_of(SectionKind::Status).collect();
    let measurable = if status.is_empty() {
        MEASURABLE.is_match(doc.text)
    } else {
        status
            .iter()
            .flat_map(|s| s.items.iter())
            .any(|item| MEASURABLE.is_match(&item.text))
    };
    if !measurable {
        out.push(NO_MEASURABLE_STATUS.at(
            status.first().map(|s| s.line),
            "no measurable status: say where things stand in numbers (\"30/90 tests pass\", \"3 of 7 endpoints done\", \"12 lints left\")",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired(text: &str) -> Vec<Finding> {
        let doc = HandoffDocument::parse(text);
        let mut out = Vec::new();
        check(&doc, &LintContext::default(), &mut out);
        out
    }

    /// Issue 25: the tags install asks agents to write, and the draft's
    /// own header comment, were reported as placeholders.
    #[test]
    fn our_own_tags_and_comments_are_not_placeholders() {
        let text = "# Handoff 2026-11-26\n\n<!-- Drafted by `agent-handover draft`: Replace every TODO with what only you know. -->\n\n## Key decisions\n- [DECISION] flock over pid files: the kernel frees it <!-- TODO later -->\n- Parser kept ([GOTCHA] setext headings need a blank line)\n";
        let f = fired(text);
        assert!(
            !f.iter()
                .any(|f| f.rule == "placeholder" || f.rule == "unfilled-template"),
            "{f:?}"
        );
        assert_eq!(
            placeholder_in("- [YOUR NAME] did it"),
            Some("[YOUR NAME]".into())
        );
        assert_eq!(placeholder_in("- TODO: fill"), Some("TODO".into()));
        assert_eq!(placeholder_in("- [DECISION] keep flock"), None);
    }

    fn ids(text: &str) -> Vec<&'static str> {
        fired(text).iter().map(|f| f.rule).collect()
    }

    fn sized(body: &str) -> String {
        format!(
            "# Handoff 2026-01-02\n## Status\n30/90 tests pass\n{body}\n{}",
            "Plenty of context about the work so far.\n".repeat(50)
        )
    }

    #[test]
    fn a_dated_measurable_sized_text_fires_nothing() {
        assert!(ids(&sized("")).is_empty(), "{:?}", ids(&sized("")));
    }

    #[test]
    fn size_bounds() {
        assert_eq!(ids("# 2026-01-02\n## Status\n1/2"), ["too-short"]);
        // Thin costs in proportion to what is missing of the 500 tokens
        // the budget starts at: about 250 tokens lose half the weight.
        let points = |text: &str| {
            fired(text)
                .iter()
                .filter(|f| f.rule == "too-short")
                .map(|f| f.points)
                .sum::<u8>()
        };
        let half = format!(
            "# 2026-01-02\n## Status\n1/2\n{}",
            "some more words\n".repeat(66)
        );
        assert!((13..=16).contains(&points(&half)), "{}", points(&half));
        assert_eq!(points(&sized("")), 0);
        let long = sized(&"a line of ten words for the budget test here\n".repeat(150));
        assert_eq!(ids(&long), ["over-budget"]);
    }

    #[test]
    fn placeholders_outside_code() {
        let f = fired(&sized(
            "- TODO: fill this\n- `todo!()` and `TODO` in code are fine\n```\n// TODO in a block\n```\n- <fill in the error>\n- [describe the fix]\n- ...\n- a todo list app is prose",
        ));
        let lines: Vec<_> = f
            .iter()
            .filter(|f| f.rule == "placeholder")
            .map(|f| f.line.unwrap())
            .collect();
        assert_eq!(lines, [4, 9, 10, 11], "{f:?}");
    }

    #[test]
    fn secrets_are_reported_with_lines_and_never_quoted() {
        let key = format!("{}{}", "AKIA", "ZDOC9IS0J8HT9LGM");
        let f = fired(&sized(&format!("line four\nkey {key}")));
        let secret: Vec<_> = f.iter().filter(|f| f.rule == "secret").collect();
        assert_eq!(secret.len(), 1);
        assert_eq!(secret[0].line, Some(5));
        assert!(!secret[0].message.contains(&key));
        assert!(secret[0].message.contains("AWS access key ID"));
    }

    #[test]
    fn dumps() {
        let block = format!(
            "```\n{}```",
            "output line\n".repeat(MAX_CODE_BLOCK_LINES + 1)
        );
        assert_eq!(ids(&sized(&block)), ["raw-dump"]);
        let short_block = format!("```\n{}```", "error[E0308]: mismatched types\n".repeat(3));
        assert!(ids(&sized(&short_block)).is_empty());
        let log = "2026-01-02 10:00:01 INFO started\n".repeat(MAX_LOG_LINES);
        assert_eq!(ids(&sized(&log)), ["raw-dump"]);
        let transcript = "User: do X\nAssistant: done\n".repeat(2);
        assert_eq!(ids(&sized(&transcript)), ["raw-dump"]);
        assert_eq!(ids(&sized(&"x".repeat(MAX_LINE_CHARS + 1))), ["raw-dump"]);
    }

    #[test]
    fn status_must_have_a_number() {
        let text = sized("").replace("30/90 tests pass", "going well");
        assert_eq!(ids(&text), ["no-measurable-status"]);
        for ok in [
            "33.3% pass rate",
            "3 of 7 endpoints",
            "12 lints left",
            "2 tests failing",
        ] {
            assert!(
                ids(&sized("").replace("30/90 tests pass", ok)).is_empty(),
                "{ok}"
            );
        }
        // Without a status section, a number anywhere will do.
        let text = "# 2026-01-02\n## Done\n- 4 files migrated\n".to_string()
            + &"some context here\n".repeat(120);
        assert!(ids(&text).is_empty(), "{:?}", ids(&text));
    }

    #[test]
    fn undated() {
        let text = sized("").replace("Handoff 2026-01-02", "Handoff");
        assert_eq!(ids(&text), ["undated"]);
    }

    #[test]
    fn a_handoff_that_says_it_is_outdated_is_superseded() {
        // The top of a real handoff kept as an archive.
        let text = "# Room Sweep — Developer Handoff\n\n**This file is a historical snapshot from 2026-08-01 (v3.0.1).**\nIt is not the current operator or architecture description.\n\n## Open items\n\n- Field-test TX on hardware\n";
        assert!(ids(text).contains(&"superseded"), "{:?}", ids(text));
        // A banner disowning the content, as a real archived handoff has it.
        let disowned = "> **WARNING - HALLUCINATED CONTENT**\n>\n> Investigation determined this document contains AI-hallucinated data.\n\n# Session Handoff - 2025-12-27\n\n## Next\n\n- Enrich Nevada\n";
        assert!(ids(disowned).contains(&"superseded"), "{:?}", ids(disowned));
        // Saying so of an older part, further down, is not the same.
        let current = "# Notes — 2026-10-03\n\n## Current direction\n\nPython stays the engine; 523 tests pass.\n\n## Next\n\n- Align the Tauri versions\n\n## Workspace\n\nThe Rust port is an experiment.\nStatements below about a missing shell are historical and superseded by the notes above.\n";
        assert!(!ids(current).contains(&"superseded"), "{:?}", ids(current));
    }
}
