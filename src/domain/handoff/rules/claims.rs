//! `contradicts-measured`: the handoff's claims held against what was
//! measured ([`crate::domain::handoff::measured`]): a number it gives for a
//! measured metric that is not the measured one (`412 tests pass` where
//! `passed` measured 398; `failed: 0` where it measured 2), or tests said
//! to pass while a measured number or command says they fail. The numbers
//! are the run's that handed the text over, else the draft's measured line
//! in the text itself.
//!
//! Left alone: the measured line itself, failed approaches and older
//! entries (they tell of other moments), a line that tells a change
//! (`398 → 412`, "from 398 to 412"), and, for "the tests pass", the next
//! step and lines that state an aim ("make all tests pass").

use std::collections::{HashMap, HashSet};
use std::sync::{LazyLock, Mutex, PoisonError};

use regex::Regex;

use super::{CONTRADICTS_MEASURED, Finding};
use crate::base::patterns::pattern;
use crate::base::text::number;
use crate::domain::handoff::context::LintContext;
use crate::domain::handoff::document::{HandoffDocument, SectionKind};
use crate::domain::handoff::measured::Measured;
use crate::domain::handoff::text::snippet;

/// A number as written: `412`, `1,204`, `81.5`.
const NUMBER: &str = r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)";
/// Words that may stand between a count and what it counts ("412 tests pass").
const COUNTED: &str = r"(?:(?:unit|integration|e2e|new|tests?|checks?|specs?|cases?)\s+)?";

/// A line that tells a change rather than a state.
static CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)→|->|=>|\bfrom\s+\d[\d,.]*\s*%?\s+to\b|\bwas\s+\d|\bup from\b|\bdown from\b")
});
/// "All tests pass", "the suite is green".
static PASSING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:all\s+(?:the\s+)?(?:\d[\d,]*\s+)?(?:unit\s+|integration\s+)?tests?\s+(?:now\s+)?(?:pass|are\s+(?:now\s+)?(?:passing|green)|green)|tests?\s+(?:are\s+)?(?:all\s+)?(?:now\s+)?(?:passing|green)|(?:test\s+)?suite\s+(?:is\s+)?(?:now\s+)?(?:green|passing))",
    )
});
/// A line that says the opposite or an aim, not that the tests pass now.
static NOT_A_PASS_CLAIM: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bnot\b|n't\b|\bno longer\b|fail|\buntil\b|\bonce\b|\bshould\b|\bmust\b|\bneeds?\b|\bwant\b|\bwill\b|\bmake\b|\bget\b|\bso that\b|\bbefore\b|\bexcept\b|\bbut\b",
    )
});

pub(super) fn check(doc: &HandoffDocument<'_>, ctx: &LintContext, out: &mut Vec<Finding>) {
    let own = Measured::from_draft_line(doc.text);
    let measured_line = own.as_ref().map(|(line, _)| *line);
    let Some(measured) = ctx.measured.as_ref().or(own.as_ref().map(|(_, m)| m)) else {
        return;
    };
    let other_moments = lines_of(doc, |kind, past| {
        past || kind == Some(SectionKind::FailedApproaches)
    });
    let next_step = lines_of(doc, |kind, _| kind == Some(SectionKind::NextStep));
    let claims: Vec<(&str, f64, Claim)> = measured
        .values
        .iter()
        .filter_map(|(name, value)| Some((name.as_str(), *value, claim_pattern_cached(name)?)))
        .collect();
    let failing = measured.failing();
    for (index, line) in doc.lines.iter().enumerate() {
        if line.fenced || Some(line.number) == measured_line || other_moments.contains(&index) {
            continue;
        }
        // Cheap tests first: a count needs a digit, a pass claim its word.
        let counts = line.text.bytes().any(|b| b.is_ascii_digit());
        let lower = line.text.to_ascii_lowercase();
        let passes = failing.is_some() && (lower.contains("pass") || lower.contains("green"));
        if !(counts || passes) || CHANGE.is_match(line.text) {
            continue;
        }
        let contradicted = claims
            .iter()
            .filter(|_| counts)
            .find_map(|(name, value, claim)| {
                if !lower.contains(claim.needle.as_str()) {
                    return None;
                }
                let said = claimed(&claim.pattern, line.text);
                (!said.is_empty() && !said.iter().any(|c| agrees(*c, *value))).then(|| {
                    format!(
                        "says {} for `{name}`, which measured {}",
                        number(said[0]),
                        number(*value)
                    )
                })
            });
        let contradicted = contradicted.or_else(|| {
            let failing = failing.as_ref()?;
            (passes
                && !next_step.contains(&index)
                && PASSING.is_match(line.text)
                && !NOT_A_PASS_CLAIM.is_match(line.text))
            .then(|| format!("says the tests pass, but {failing}"))
        });
        if let Some(what) = contradicted {
            out.push(CONTRADICTS_MEASURED.at(
                Some(line.number),
                format!(
                    "\"{}\" {what} ({}): write what was measured, or measure again",
                    snippet(line.text.trim().trim_start_matches(['-', '*', '+']).trim_start(), 60),
                    measured.source
                ),
            ));
        }
    }
}

/// Indices of the body lines of the sections `pick` chooses (by kind, and
/// whether the section is past).
fn lines_of(
    doc: &HandoffDocument<'_>,
    pick: impl Fn(Option<SectionKind>, bool) -> bool,
) -> HashSet<usize> {
    doc.sections
        .iter()
        .filter(|s| pick(s.kind, s.past))
        .flat_map(|s| s.body.clone())
        .collect()
}

/// A compiled claim pattern, and the word (lowercase) a line must hold
/// for it to match: tried first, as the pattern costs far more.
#[derive(Debug, Clone)]
struct Claim {
    pattern: Regex,
    needle: String,
}

/// Most metric names whose claim patterns are kept compiled (a project
/// has a few; compiling one costs more than the rest of a lint).
const KEPT_PATTERNS: usize = 64;

/// [`claim_pattern`], compiled once per name.
fn claim_pattern_cached(name: &str) -> Option<Claim> {
    static KEPT: LazyLock<Mutex<HashMap<String, Option<Claim>>>> =
        LazyLock::new(|| Mutex::new(HashMap::new()));
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(pattern) = kept.get(name) {
        return pattern.clone();
    }
    let pattern = claim_pattern(name);
    if kept.len() >= KEPT_PATTERNS {
        kept.clear();
    }
    kept.insert(name.to_string(), pattern.clone());
    pattern
}

/// The pattern of a claim about metric `name`: a count before its word
/// (`398 passed`, `412 tests pass`, `81.5% coverage`) or a value after it
/// (`passed: 398`, `coverage = 81%`). `None` for a name too short to say.
fn claim_pattern(name: &str) -> Option<Claim> {
    let words: Vec<String> = name
        .to_lowercase()
        .split(['_', '-', '.', ' '])
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    let (last, first) = words.split_last()?;
    let stem = ["ing", "ed", "es", "s"]
        .iter()
        .find_map(|suffix| last.strip_suffix(suffix).filter(|s| s.len() >= 3))
        .unwrap_or(last);
    if stem.len() < 3 && first.is_empty() {
        return None;
    }
    let mut term: Vec<String> = first.iter().map(|w| regex::escape(w)).collect();
    term.push(format!(r"{}\w*", regex::escape(stem)));
    let term = term.join(r"[\s_-]+");
    let needle = stem.to_string();
    Regex::new(&format!(
        r"(?i)(?:^|[^\w.,/:#-])(of\s+|v|#)?{NUMBER}\s*%?\s+{COUNTED}{term}\b|\b{term}\s*[:=]\s*{NUMBER}"
    ))
    .ok()
    .map(|pattern| Claim { pattern, needle })
}

/// The numbers `line` claims by `claim` (a count after "of", as in "2 of
/// 30 tests", or a version or issue number, is not one).
fn claimed(claim: &Regex, line: &str) -> Vec<f64> {
    claim
        .captures_iter(line)
        .filter(|c| c.get(1).is_none())
        .filter_map(|c| c.get(2).or_else(|| c.get(3)))
        .filter_map(|m| m.as_str().replace(',', "").parse().ok())
        .collect()
}

/// Whether a claimed number says what was measured (a fraction rounded).
fn agrees(claimed: f64, measured: f64) -> bool {
    let tolerance = if measured.fract() == 0.0 { 0.5 } else { 1.0 };
    (claimed - measured).abs() < tolerance
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::handoff::{LintContext, lint};

    fn found(text: &str, measured: Option<Measured>) -> Vec<String> {
        let ctx = LintContext {
            measured,
            ..LintContext::default()
        };
        lint(text, &ctx)
            .findings
            .into_iter()
            .filter(|f| f.rule == "contradicts-measured")
            .map(|f| f.message)
            .collect()
    }

    fn run(values: &[(&str, f64)], failures: &[&str]) -> Option<Measured> {
        Some(Measured {
            source: "run 20261201-120000-ab12".into(),
            values: values.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            failures: failures.iter().map(|f| f.to_string()).collect(),
        })
    }

    #[test]
    fn a_count_that_is_not_the_measured_one_is_found_with_both_numbers() {
        let m = run(&[("passed", 398.0), ("failed", 2.0)], &[]);
        let said = found(
            "# Handoff\n## Status\n- 412 tests pass, failed: 0\n",
            m.clone(),
        );
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].contains("says 412 for `passed`, which measured 398"),
            "{said:?}"
        );
        assert!(said[0].contains("run 20261201-120000-ab12"), "{said:?}");
        assert!(
            found("# Handoff\n## Status\n- 398 passed, 2 failed\n", m.clone()).is_empty(),
            "true counts"
        );
        assert!(
            found(
                "# Handoff\n## Status\n- passed went from 380 to 398\n- 2 of 400 tests failed\n",
                m
            )
            .is_empty(),
            "a change and a part of a whole are no claim of the count"
        );
    }

    #[test]
    fn tests_said_to_pass_while_one_fails() {
        let m = run(&[("passed", 30.0), ("failed", 1.0)], &[]);
        let said = found("# Handoff\n## Done\n- All tests pass now.\n", m.clone());
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].contains("`failed` measured 1"), "{said:?}");
        let aims = "# Handoff\n## Next step\n- All tests pass: fix `lexer::escape`.\n## Done\n- Wrote the lexer; all tests should pass once the escape is fixed.\n";
        assert!(found(aims, m).is_empty(), "an aim is no claim");
        let failed_command = run(&[], &["tests failed (exit 1)"]);
        assert_eq!(
            found(
                "# Handoff\n## Status\n- the suite is green\n",
                failed_command
            )
            .len(),
            1
        );
        let green = run(&[("passed", 30.0), ("failed", 0.0)], &[]);
        assert!(found("# Handoff\n## Status\n- All tests pass.\n", green).is_empty());
    }

    #[test]
    fn the_drafts_line_is_the_measure_when_no_run_gives_one() {
        let text = "# Handoff\n## Status\n- Measured at hand-over: passed=30 failed=2\n- 32 passed, 0 failed\n";
        let said = found(text, None);
        assert_eq!(said.len(), 1, "one line, two wrong counts: {said:?}");
        assert!(said[0].contains("the draft's measured line"), "{said:?}");
        assert!(
            found("# Handoff\n## Status\n- 32 passed\n", None).is_empty(),
            "nothing measured"
        );
    }

    #[test]
    fn failed_approaches_and_fractions() {
        let m = run(&[("coverage", 81.4), ("failed", 2.0)], &[]);
        let text = "# Handoff\n## Status\n- coverage: 81%\n## Failed approaches\n- 3 failed tries at caching: too slow\n";
        assert!(found(text, m.clone()).is_empty(), "{:?}", found(text, m));
        let m = run(&[("coverage", 81.4)], &[]);
        assert_eq!(found("# Handoff\n## Status\n- 90% coverage\n", m).len(), 1);
    }
}
