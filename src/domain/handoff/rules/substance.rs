//! Substance rules: what a human reviewer looks for before the shape.
//! Evidence behind the claims (commit ids, counts, file:line, quoted
//! errors, commands, issue numbers), items that carry content rather than
//! filler, errors quoted rather than "not working", and failed approaches
//! that say why they failed.

use std::sync::LazyLock;

use regex::Regex;

use super::{
    CELEBRATION, FAILED_WITHOUT_REASON, FEW_SPECIFICS, FILLER, Finding, NO_EVIDENCE, SKELETON,
    VAGUE_ERROR,
};
use crate::base::patterns::pattern;
use crate::domain::handoff::document::{HandoffDocument, Item, LineRole, SectionKind};
use crate::domain::handoff::text::snippet;
use crate::domain::handoff::vocabulary::is_cjk;

/// Lines of evidence below which the handoff is thin, with the points each
/// band costs: none, one, two or three.
const EVIDENCE_BANDS: [(usize, u8); 3] = [(0, 25), (1, 15), (3, 6)];
/// At least this many items before filler is judged.
const MIN_ITEMS_FOR_FILLER: usize = 3;
/// Filler from this share of the items on (percent)...
const FILLER_SHARE: usize = 40;
/// An item without an anchor and at most this many words says nothing.
const MAX_EMPTY_ITEM_WORDS: usize = 6;
/// The same for scripts without spaces, in characters.
const MAX_EMPTY_ITEM_CJK_CHARS: usize = 8;

/// Something checkable: a commit id, a count or fraction, a percentage, a
/// file:line, a code span (command, identifier, quoted error), an issue or
/// PR number, a path with an extension, an HTTP status, a version.
static EVIDENCE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b[0-9a-f]{7,40}\b|\d+\s*/\s*\d+|\d+(?:[.,]\d+)?\s*%|`[^`]{2,}`|\w\.[a-z]{1,5}:\d+|\bline \d+|#\d+\b|\b[\w-]+/[\w./-]+\.[a-z]{1,5}\b|\b[\w-]+\.(?:rs|py|ts|tsx|js|go|rb|java|kt|cs|cpp|c|h|md|yml|yaml|toml|json|sql|sh|lua|html|css)\b|\b[1-5]\d\d\b|\bv?\d+\.\d+\.\d+\b|\b\d[\d,.]*\s*(?:tests?|ms|s|min|minutes|seconds|hours|mb|gb|kb|rows|lines|files|errors)\b|\d\s*(?:件|個|건|개|秒|分|行)",
    )
});
/// Specific things a handoff names: a code span (file, command,
/// identifier, quoted error), a commit id, a date, a count with its unit
/// or a fraction, a path with an extension.
static SPECIFIC: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"`[^`\n]{2,}`|\b(?:[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*|[0-9a-f]*[a-f][0-9a-f]*[0-9][0-9a-f]*)\b|\b20\d\d[-/.]\d\d?[-/.]\d\d?\b|\b\d+\s*/\s*\d+\b|\b\d[\d,.]*\s*(?:%|ms|tests?|files?|lines?|errors?|commits?|mb|gb|kb)\b|\b[\w-]+/[\w./-]+\.[a-z]{1,5}\b",
    )
});
/// Specific things at which a handoff stops being thin.
const ENOUGH_SPECIFICS: usize = 20;
/// Words per heading below which the sections are an outline...
const OUTLINE_WORDS_PER_HEADING: usize = 30;
/// ...once there are this many headings.
const OUTLINE_MIN_HEADINGS: usize = 4;

/// A claim of being finished or flawless, or a celebration.
static CELEBRATED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b100\s?%|\bproduction[- ]ready\b|\bfully (?:implemented|functional|complete[d]?|operational|tested)\b|\ball (?:tasks|features|phases|tests) (?:are )?(?:done|complete[d]?|passing)\b|\bmission accomplished\b|\bsuccessfully (?:completed|implemented)\b|🎉|🚀|✨|🏆|💯|✅|已完成|完美|完了しました|abgeschlossen|terminé|completado|завершено",
    )
});
/// Celebrations at which the rule is at full strength.
const CELEBRATIONS_FULL: usize = 12;

/// Words that carry something: a digit, a code span, a path or file name,
/// an identifier (`snake_case`, `CamelCase`, `a::b`, `f()`), a quotation.
static ANCHOR: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r#"\d|`|\w/\w|\w\.[a-z]{1,5}\b|::|\w\(\)|\w_\w|[a-z][A-Z]|"[^"]{3,}"|«|„|「"#)
});
/// Phrases that say nothing, in the ten languages.
static FILLER_PHRASE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:going well|good progress|solid progress|great progress|on track|various|several (?:fixes|improvements|things)|some (?:things|stuff|fixes|improvements)|a few (?:things|approaches)|improvements?|clean-?ups?|keep (?:going|working|improving)|continue (?:working|improving|development|making)|as usual|the usual|stuff|n/a)\b|läuft|diverse|einiges|weitermachen|plein de choses|bien avancé|quelques corrections|varias cosas|más o menos|muita coisa|bastante|un po' di tutto|いろいろ|色々|順調|여러 가지|一些|很多|顺利|разные|много сделали|по плану",
    )
});
/// A statement that something fails.
static FAILURE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:not working|doesn'?t work|does not work|broken|fails?|failing|failed|error|crash(?:es|ed)?|wrong|issue|problem)\b|funktioniert nicht|ne marche pas|no funciona|não funciona|non funziona|не работает|動かない|안 됨|不工作|报错",
    )
});
/// What makes a failure precise: a quoted error, an error name or code, a
/// status code, a number.
static PRECISE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r#"`|"[^"]{4,}"|\b\w+(?:Error|Exception)\b|\b[A-Z]{2,}[_-]?\d{2,}|\b[1-5]\d\d\b|\d"#)
});
/// A placeholder left for the error (the placeholder rule reports it).
static PLACEHOLDER: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)^(?:TODO|TBD|FIXME)\b|^\[|^<"));
/// The reason an approach failed: an arrow, "because", a colon or dash
/// clause, a second sentence that explains the first ("**Never run the
/// benchmark here.** The shell kills background jobs."), in the ten
/// languages.
static REASON: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)->|→|=>|:\s|\s[—–-]\s|\(|\bbecause\b|\bsince\b|\bbut\b|\bso\b|;|weil|parce que|porque|perché|потому|поскольку|因为|ため|때문|：|[.!]\**\s+(?-i:[A-Z`*])",
    )
});

pub(super) fn check(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    check_evidence(doc, out);
    check_specifics(doc, out);
    check_outline(doc, out);
    check_celebration(doc, out);
    check_filler(doc, out);
    check_errors(doc, out);
    for item in doc.items_of(SectionKind::FailedApproaches) {
        let text = item.text.trim();
        if !is_none(text) && !REASON.is_match(text) && text.lines().count() < 2 {
            out.push(FAILED_WITHOUT_REASON.at(
                Some(item.line),
                format!(
                    "\"{}\" failed, but why? Add \"-> the reason\" so the next session can tell whether it still applies",
                    snippet(text, 50)
                ),
            ));
        }
    }
}

fn check_evidence(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    let prose = doc
        .current_prose()
        .filter(|l| EVIDENCE.is_match(l.text))
        .count();
    let blocks = doc
        .lines
        .windows(2)
        .filter(|w| w[1].role == LineRole::Code && w[0].role != LineRole::Code)
        .count()
        + usize::from(doc.lines.first().is_some_and(|l| l.role == LineRole::Code));
    let evidence = prose + blocks;
    if let Some((_, points)) = EVIDENCE_BANDS.iter().find(|(max, _)| evidence <= *max) {
        out.push(NO_EVIDENCE.scaled(
            None,
            *points,
            format!(
                "{evidence} line{} of evidence: back the claims with commit ids, counts (\"41/44 tests\"), file:line, the quoted error and the commands run",
                if evidence == 1 { "" } else { "s" }
            ),
        ));
    }
}

/// How many distinct specific things the handoff names, graded up to
/// [`ENOUGH_SPECIFICS`].
fn check_specifics(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    let named: std::collections::BTreeSet<&str> = doc
        .lines
        .iter()
        .flat_map(|l| SPECIFIC.find_iter(l.text).map(|m| m.as_str()))
        .collect();
    let n = named.len();
    if n < ENOUGH_SPECIFICS {
        let points = (ENOUGH_SPECIFICS - n) * usize::from(FEW_SPECIFICS.cap) / ENOUGH_SPECIFICS;
        out.push(FEW_SPECIFICS.scaled(
            None,
            u8::try_from(points).unwrap_or(u8::MAX),
            format!(
                "names {n} specific thing{} (files, commands and identifiers in `code`, commit ids, dates, counts): the next session acts on specifics",
                if n == 1 { "" } else { "s" }
            ),
        ));
    }
}

/// Celebrations in place of the state (three or more).
fn check_celebration(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    let found: Vec<(usize, &str)> = doc
        .lines
        .iter()
        .filter(|l| !l.fenced)
        .flat_map(|l| {
            CELEBRATED
                .find_iter(l.text)
                .map(move |m| (l.number, m.as_str()))
        })
        .collect();
    if found.len() < 3 {
        return;
    }
    let points =
        found.len().min(CELEBRATIONS_FULL) * usize::from(CELEBRATION.cap) / CELEBRATIONS_FULL;
    out.push(CELEBRATION.scaled(
        found.first().map(|(line, _)| *line),
        u8::try_from(points).unwrap_or(u8::MAX),
        format!(
            "{} celebrations such as \"{}\": say what works, with its evidence, and what is left",
            found.len(),
            found[0].1
        ),
    ));
}

/// An outline: many headings with few words under each.
fn check_outline(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    let headings = doc.sections.len();
    if headings < OUTLINE_MIN_HEADINGS {
        return;
    }
    let words: usize = doc
        .lines
        .iter()
        .filter(|l| !l.fenced)
        .map(|l| {
            let cjk = l.text.chars().filter(|c| is_cjk(*c)).count();
            l.text.split_whitespace().count() + cjk / 2
        })
        .sum();
    let per_heading = words / headings;
    if per_heading < OUTLINE_WORDS_PER_HEADING {
        let points = (OUTLINE_WORDS_PER_HEADING - per_heading) * usize::from(SKELETON.cap)
            / OUTLINE_WORDS_PER_HEADING;
        out.push(SKELETON.scaled(
            None,
            u8::try_from(points).unwrap_or(u8::MAX),
            format!(
                "{headings} headings over {words} words ({per_heading} a heading): an outline; say under each what the next session needs"
            ),
        ));
    }
}

fn check_filler(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    let items: Vec<&Item> = doc
        .sections
        .iter()
        .filter(|s| s.kind.is_some() && !s.past)
        .flat_map(|s| s.items.iter())
        .collect();
    if items.len() < MIN_ITEMS_FOR_FILLER {
        return;
    }
    let empty: Vec<&&Item> = items.iter().filter(|i| says_nothing(&i.text)).collect();
    let share = empty.len() * 100 / items.len();
    if share >= FILLER_SHARE {
        let points = usize::from(FILLER.weight) * share / 100;
        out.push(FILLER.scaled(
            Some(empty[0].line),
            u8::try_from(points).unwrap_or(FILLER.weight),
            format!(
                "{} of {} items say nothing checkable (\"{}\"): name what was done, where, and how it was verified",
                empty.len(),
                items.len(),
                snippet(&empty[0].text, 40)
            ),
        ));
    }
}

/// An item that carries no content: a filler phrase, or a few words with
/// nothing to check. "none" is an answer, not filler.
fn says_nothing(text: &str) -> bool {
    let text = text.trim();
    if is_none(text) || ANCHOR.is_match(text) {
        return false;
    }
    if FILLER_PHRASE.is_match(text) {
        return true;
    }
    let cjk = text.chars().filter(|c| is_cjk(*c)).count();
    if cjk > 0 {
        cjk <= MAX_EMPTY_ITEM_CJK_CHARS
    } else {
        text.split_whitespace().count() <= MAX_EMPTY_ITEM_WORDS
    }
}

/// "none", "nobody", "n/a" and their translations: an answer. So is
/// such a word with a few words saying when or what of ("none this
/// session", "nothing failed", "none so far", "no failed approaches yet"),
/// which is how the templates' "write \"none\" if nothing failed" gets
/// answered; not "None of the retries worked", which reports a failure.
fn is_none(text: &str) -> bool {
    let t = text.trim().trim_end_matches(['.', '!']).to_lowercase();
    if NONE_WORDS.contains(&t.as_str()) {
        return true;
    }
    let words: Vec<&str> = t
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '—' | '–' | ':'))
        .filter(|w| !w.is_empty() && *w != "-")
        .collect();
    let lead = match words.as_slice() {
        ["no", "failed" | "failures" | "failure" | "dead", ..] => 2,
        [first, ..] if NONE_WORDS.contains(first) => 1,
        _ => return false,
    };
    words.len() - lead <= 4 && words[lead..].iter().all(|w| NONE_QUALIFIERS.contains(w))
}

/// What counts as "none" on its own.
const NONE_WORDS: &[&str] = &[
    "none",
    "nobody",
    "no one",
    "nothing",
    "none yet",
    "n/a",
    "na",
    "niemand",
    "niemanden",
    "keine",
    "aucun",
    "personne",
    "rien",
    "nadie",
    "ninguno",
    "nada",
    "ninguém",
    "nessuno",
    "никого",
    "нет",
    "なし",
    "없음",
    "无",
    "没有",
];

/// The words that may follow "none" and leave it an answer: when, and of what.
const NONE_QUALIFIERS: &[&str] = &[
    "this",
    "session",
    "so",
    "far",
    "yet",
    "today",
    "here",
    "now",
    "for",
    "in",
    "the",
    "last",
    "failed",
    "fails",
    "tried",
    "found",
    "known",
    "recorded",
    "noted",
    "approaches",
    "approach",
    "ends",
    "worth",
    "noting",
    "new",
];

fn check_errors(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    for section in doc.sections_of(SectionKind::NotWorking) {
        for (i, item) in section.items.iter().enumerate() {
            let text = item.text.trim();
            // "Fails. Full output:" followed by the output is quoted.
            let quoted_below = text.ends_with(':')
                && section
                    .items
                    .get(i + 1)
                    .is_some_and(|next| PRECISE.is_match(&next.text));
            if is_none(text)
                || !FAILURE.is_match(text)
                || PRECISE.is_match(text)
                || PLACEHOLDER.is_match(text)
                || quoted_below
            {
                continue;
            }
            out.push(VAGUE_ERROR.at(
                Some(item.line),
                format!(
                    "\"{}\": quote the error (message, code, failing test) so the next session can find it",
                    snippet(text, 50)
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired(text: &str) -> Vec<Finding> {
        let doc = HandoffDocument::parse(text);
        let mut out = Vec::new();
        check(&doc, &mut out);
        out
    }

    fn ids(text: &str) -> Vec<&'static str> {
        fired(text).iter().map(|f| f.rule).collect()
    }

    #[test]
    fn evidence_is_counted_in_bands() {
        let none = fired("## Done\n- the parser\n- the lexer\n");
        assert_eq!(none[0].rule, "no-evidence");
        assert_eq!(none[0].points, 25);
        let thin = fired("## Done\n- the parser (`a1b2c3d`)\n- the lexer\n");
        assert_eq!(thin[0].points, 15);
        let rich = "## Done\n- `a1b2c3d` parser\n- 41/44 tests\n- `src/lex.rs:88`\n- PR #412\n- `cargo test`\n- 12 ms p99\n";
        assert!(!ids(rich).contains(&"no-evidence"), "{:?}", fired(rich));
    }

    #[test]
    fn filler_under_every_heading() {
        let text = "## Status\nThings are going well.\n## Done\n- Worked on various improvements\n- Made several fixes\n## Next step\nKeep working on the remaining items.\n";
        let f = fired(text);
        let filler: Vec<_> = f.iter().filter(|f| f.rule == "filler").collect();
        assert_eq!(filler.len(), 1, "{f:?}");
        assert!(filler[0].points >= 20, "{filler:?}");
        let concrete = "## Status\n- 30/90 tests pass\n## Done\n- `lex_key` handles dots\n- Ported the CLI to clap 4\n## Next step\nRun `cargo test parser`.\n## Waiting on\n- nobody\n";
        assert!(!ids(concrete).contains(&"filler"), "{:?}", fired(concrete));
    }

    #[test]
    fn errors_need_quoting() {
        let f = fired(
            "## Not working\n- Uploads fail sometimes\n- `KeyError: 'sku'` on import\n- none\n",
        );
        let vague: Vec<_> = f.iter().filter(|f| f.rule == "vague-error").collect();
        assert_eq!(vague.len(), 1, "{f:?}");
        assert_eq!(vague[0].line, Some(2));
    }

    #[test]
    fn failed_approaches_need_a_reason() {
        let f = fired(
            "## Failed approaches\n- Increasing timeouts\n- Mocking the clock -> the bug is not timing\n- Pinning serde because of derive\n- Decimal everywhere: 40 tests broke\n- **Never run long benchmarks in the agent shell.** It kills background jobs on exit.\n",
        );
        let lines: Vec<_> = f
            .iter()
            .filter(|f| f.rule == "failed-without-reason")
            .map(|f| f.line)
            .collect();
        // A second sentence explains the first, as real handoffs write their
        // don'ts.
        assert_eq!(lines, [Some(2)]);
    }

    #[test]
    fn none_is_an_answer() {
        for none in ["none", "Nobody.", "Niemanden", "なし", "Никого"] {
            assert!(is_none(none), "{none}");
            assert!(!says_nothing(none), "{none}");
        }
    }

    /// Issue 40: the templates say "write \"none\" if nothing failed", and
    /// real handoffs answer "none this session": no failure without a reason.
    #[test]
    fn none_this_session_is_no_failure_without_a_reason() {
        let f = fired(
            "## Failed approaches\n- none this session\n- None\n- n/a\n- nothing failed\n- No failed approaches so far.\n- None of the retries worked\n",
        );
        let lines: Vec<_> = f
            .iter()
            .filter(|f| f.rule == "failed-without-reason")
            .map(|f| f.line)
            .collect();
        assert_eq!(
            lines,
            [Some(7)],
            "only the failure reported without its reason: {f:?}"
        );
    }
}
