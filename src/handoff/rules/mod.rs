//! The rule set. Each rule has an id, a severity and a weight in the score
//! (points off per finding, capped per rule; see [`super::score`]). The
//! table [`RULES`] is the one source of these numbers.
//!
//! | rule | severity | points off | cap |
//! |---|---|---|---|
//! | `section-missing` | error | 20 | 60 |
//! | `failed-approaches-missing` | error | 20 | 20 |
//! | `section-empty` | error | 15 | 30 |
//! | `secret` | error | 40 | 80 |
//! | `retry-failed-approach` | error | 20 | 40 |
//! | `too-short` | warning | 20 | 20 |
//! | `over-budget` | warning | 15 | 15 |
//! | `raw-dump` | warning | 15 | 30 |
//! | `completion-blindness` | warning | 12 | 24 |
//! | `stale-handoff` | warning | 12 | 12 |
//! | `next-step-not-single` | warning | 10 | 10 |
//! | `next-step-vague` | warning | 10 | 10 |
//! | `no-measurable-status` | warning | 10 | 10 |
//! | `undated` | warning | 10 | 10 |
//! | `stale-wait` | warning | 10 | 20 |
//! | `stale-path` | warning | 8 | 24 |
//! | `placeholder` | warning | 5 | 15 |
//! | `volatile-identity` | warning | 10 | 20 |
//! | `policy-in-state` | warning | 5 | 10 |
//! | `section-recommended` | info | 1 | 4 |

mod content;
mod cross;
mod layers;
mod paths;
mod structure;

use serde::Serialize;

use super::context::LintContext;
use super::document::HandoffDocument;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; costs almost nothing.
    Info,
    /// Makes the handoff weaker.
    Warning,
    /// Makes the handoff misleading, incomplete or unsafe.
    Error,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One problem found in a handoff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule's id, e.g. `failed-approaches-missing`.
    pub rule: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// What is wrong and how to fix it (secrets redacted).
    pub message: String,
    /// 1-based line, when the finding has one.
    pub line: Option<usize>,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        write!(f, "{} [{}] {}", self.severity, self.rule, self.message)
    }
}

/// A rule: its id, severity and weight in the score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// Stable id, used in findings and JSON.
    pub id: &'static str,
    /// Severity of its findings.
    pub severity: Severity,
    /// Points off the score per finding.
    pub weight: u8,
    /// Most points this rule can take off in total.
    pub cap: u8,
    /// What it checks, in one line.
    pub summary: &'static str,
}

impl Rule {
    /// A finding of this rule.
    pub fn at(&self, line: Option<usize>, message: impl Into<String>) -> Finding {
        Finding {
            rule: self.id,
            severity: self.severity,
            message: message.into(),
            line,
        }
    }
}

const fn rule(
    id: &'static str,
    severity: Severity,
    weight: u8,
    cap: u8,
    summary: &'static str,
) -> Rule {
    Rule {
        id,
        severity,
        weight,
        cap,
        summary,
    }
}

use Severity::{Error, Info, Warning};

/// A required section (goal, done, next step) is absent.
pub const SECTION_MISSING: Rule = rule(
    "section-missing",
    Error,
    20,
    60,
    "the goal, done and next-step sections are present",
);
/// No "Failed approaches" section.
pub const FAILED_APPROACHES_MISSING: Rule = rule(
    "failed-approaches-missing",
    Error,
    20,
    20,
    "a failed-approaches section is present (mandatory, even if obvious)",
);
/// A known section with nothing under it.
pub const SECTION_EMPTY: Rule = rule(
    "section-empty",
    Error,
    15,
    30,
    "no section is empty (\"none\" is an answer)",
);
/// A recommended section (not working, decisions, waiting on, can wait, status, commands) is absent.
pub const SECTION_RECOMMENDED: Rule = rule(
    "section-recommended",
    Info,
    1,
    4,
    "the recommended sections are present",
);
/// More than one next step.
pub const NEXT_STEP_NOT_SINGLE: Rule = rule(
    "next-step-not-single",
    Warning,
    10,
    10,
    "there is exactly ONE next step",
);
/// A next step that names nothing to start from.
pub const NEXT_STEP_VAGUE: Rule = rule(
    "next-step-vague",
    Warning,
    10,
    10,
    "the next step is concrete (a file, command, function or error)",
);
/// Over the token budget.
pub const OVER_BUDGET: Rule = rule(
    "over-budget",
    Warning,
    15,
    15,
    "the handoff fits the token budget (default 1,500)",
);
/// Under the minimum size.
pub const TOO_SHORT: Rule = rule(
    "too-short",
    Warning,
    20,
    20,
    "the handoff has enough substance (default 100 tokens)",
);
/// TODO, TBD, FIXME, `<fill in>`, ...
pub const PLACEHOLDER: Rule = rule(
    "placeholder",
    Warning,
    5,
    15,
    "no placeholders are left (TODO, TBD, FIXME, ???, <fill in>)",
);
/// An API key, token or private key.
pub const SECRET: Rule = rule(
    "secret",
    Error,
    40,
    80,
    "no API keys, tokens, passwords or private keys",
);
/// A referenced file that does not exist in the project.
pub const STALE_PATH: Rule = rule(
    "stale-path",
    Warning,
    8,
    24,
    "every referenced file exists in the project",
);
/// A pasted log, long code block or transcript.
pub const RAW_DUMP: Rule = rule(
    "raw-dump",
    Warning,
    15,
    30,
    "no pasted logs, long outputs or transcripts",
);
/// No number saying where things stand.
pub const NO_MEASURABLE_STATUS: Rule = rule(
    "no-measurable-status",
    Warning,
    10,
    10,
    "the status is measurable (\"30/90 tests pass\")",
);
/// No date.
pub const UNDATED: Rule = rule("undated", Warning, 10, 10, "the handoff is dated");
/// Work the previous handoff listed as done is proposed again.
pub const COMPLETION_BLINDNESS: Rule = rule(
    "completion-blindness",
    Warning,
    12,
    24,
    "the next step does not redo work an earlier handoff listed as done",
);
/// A failed approach is proposed as the next step.
pub const RETRY_FAILED_APPROACH: Rule = rule(
    "retry-failed-approach",
    Error,
    20,
    40,
    "the next step is not an approach that already failed",
);
/// Waiting on someone who has since written to the inbox.
pub const STALE_WAIT: Rule = rule(
    "stale-wait",
    Warning,
    10,
    20,
    "nobody we wait on has written to the inbox since",
);
/// Many commits since the handoff.
pub const STALE_HANDOFF: Rule = rule(
    "stale-handoff",
    Warning,
    12,
    12,
    "the project has not moved on much since the handoff (fewer than 10 commits)",
);

/// Volatile status in the identity layer.
pub const VOLATILE_IDENTITY: Rule = rule(
    "volatile-identity",
    Warning,
    10,
    20,
    "the identity layer holds no volatile status (progress, today, test counts)",
);
/// A standing policy in the current state.
pub const POLICY_IN_STATE: Rule = rule(
    "policy-in-state",
    Warning,
    5,
    10,
    "standing policies live in the identity layer, not the current state",
);

/// Every rule.
pub const RULES: &[Rule] = &[
    SECTION_MISSING,
    FAILED_APPROACHES_MISSING,
    SECTION_EMPTY,
    SECTION_RECOMMENDED,
    NEXT_STEP_NOT_SINGLE,
    NEXT_STEP_VAGUE,
    OVER_BUDGET,
    TOO_SHORT,
    PLACEHOLDER,
    SECRET,
    STALE_PATH,
    RAW_DUMP,
    NO_MEASURABLE_STATUS,
    UNDATED,
    COMPLETION_BLINDNESS,
    RETRY_FAILED_APPROACH,
    STALE_WAIT,
    STALE_HANDOFF,
    VOLATILE_IDENTITY,
    POLICY_IN_STATE,
];

/// The rule with this id.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// Run every rule over a parsed document.
pub fn check(doc: &HandoffDocument<'_>, ctx: &LintContext) -> Vec<Finding> {
    let mut out = Vec::new();
    if layers::is_identity(doc) {
        // Not a handoff: only what belongs in the layer, and no secret.
        layers::check_identity(doc, &mut out);
        content::check_secrets(doc, &mut out);
        return out;
    }
    layers::check_state(doc, &mut out);
    structure::check(doc, &mut out);
    content::check(doc, ctx, &mut out);
    paths::check(doc, ctx, &mut out);
    cross::check(doc, ctx, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_caps_hold_at_least_one_finding() {
        for (i, r) in RULES.iter().enumerate() {
            assert!(r.cap >= r.weight, "{}", r.id);
            assert!(RULES[i + 1..].iter().all(|o| o.id != r.id), "{}", r.id);
            assert_eq!(find(r.id), Some(r));
        }
    }

    #[test]
    fn the_module_doc_table_matches_the_rules() {
        let doc = include_str!("mod.rs");
        for r in RULES {
            let row = format!(
                "//! | `{}` | {} | {} | {} |",
                r.id, r.severity, r.weight, r.cap
            );
            assert!(doc.contains(&row), "missing or stale doc row: {row}");
        }
    }

    #[test]
    fn findings_display_with_line_severity_and_rule() {
        let f = UNDATED.at(Some(3), "add a date");
        assert_eq!(f.to_string(), "line 3: warning [undated] add a date");
        assert_eq!(
            SECTION_MISSING.at(None, "x").to_string(),
            "error [section-missing] x"
        );
    }
}
