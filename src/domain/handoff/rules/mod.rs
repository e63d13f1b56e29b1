//! The rule set. Each rule has an id, a severity and a weight in the score
//! (points off per finding, capped per rule; see [`super::score`]). The
//! table [`RULES`] is the one source of these numbers.
//!
//! | rule | severity | points off | cap |
//! |---|---|---|---|
//! | `secret` | error | 40 | 80 |
//! | `unfilled-template` | error | 75 | 75 |
//! | `conflict-markers` | error | 50 | 50 |
//! | `section-missing` | error | 8 | 12 |
//! | `next-step-missing` | error | 20 | 20 |
//! | `failed-approaches-missing` | error | 15 | 15 |
//! | `contradiction` | error | 20 | 40 |
//! | `section-empty` | error | 10 | 20 |
//! | `retry-failed-approach` | error | 20 | 40 |
//! | `no-evidence` | warning | 25 | 25 |
//! | `filler` | warning | 25 | 25 |
//! | `too-short` | warning | 30 | 30 |
//! | `over-budget` | warning | 5 | 25 |
//! | `raw-dump` | warning | 15 | 30 |
//! | `completion-blindness` | warning | 25 | 50 |
//! | `wait-on-done` | warning | 20 | 40 |
//! | `stale-handoff` | warning | 12 | 12 |
//! | `superseded` | error | 30 | 30 |
//! | `next-step-not-single` | warning | 2 | 20 |
//! | `next-step-vague` | warning | 12 | 12 |
//! | `vague-error` | warning | 6 | 18 |
//! | `failed-without-reason` | warning | 5 | 15 |
//! | `no-measurable-status` | warning | 10 | 10 |
//! | `undated` | warning | 8 | 8 |
//! | `stale-wait` | warning | 10 | 20 |
//! | `stale-path` | warning | 8 | 24 |
//! | `placeholder` | warning | 5 | 15 |
//! | `volatile-identity` | warning | 10 | 20 |
//! | `policy-in-state` | warning | 5 | 10 |
//! | `section-recommended` | info | 1 | 4 |
//! | `few-specifics` | info | 20 | 20 |
//! | `skeleton` | info | 15 | 15 |
//! | `celebration` | info | 15 | 15 |
//! | `work-not-covered` | warning | 10 | 20 |
//! | `next-step-done-later` | warning | 25 | 25 |
//! | `unknown-ref` | warning | 8 | 16 |
//! | `contradicts-previous` | warning | 10 | 20 |
//! | `contradicts-measured` | warning | 10 | 20 |
//! | `not-a-handoff` | warning | 20 | 20 |
//! | `competing-next` | warning | 5 | 15 |
//! | `next-step-phase-or-menu` | warning | 10 | 10 |
//!
//! Some rules scale: a finding's points can differ from the weight (a
//! missing goal costs less than a missing next step; `too-short`,
//! `over-budget`, `no-evidence` and `filler` grow with the distance from
//! what a briefing needs; `next-step-not-single` costs 2 per step beyond
//! the first, or beyond the fifth of a list in order, whose first step is
//! the next one; `not-a-handoff` grows with the share of the words under
//! reference or finished-phase sections, `competing-next` with the places
//! that say what comes next). Any `secret` fails the handoff outright: the
//! score is 0.

mod claims;
mod consistency;
mod content;
mod cross;
mod genre;
mod layers;
mod paths;
mod structure;
mod substance;
mod truth;

pub use content::{placeholder_in, unfilled_template};

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
    /// Points it takes off the score: its own weight, then what is left of
    /// its rule's cap (set by [`super::score::apply`]).
    pub points: u8,
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
        self.scaled(line, self.weight, message)
    }

    /// A finding of this rule worth `points` instead of its weight (at most
    /// the rule's cap), for rules whose findings scale.
    pub fn scaled(&self, line: Option<usize>, points: u8, message: impl Into<String>) -> Finding {
        Finding {
            rule: self.id,
            severity: self.severity,
            message: message.into(),
            line,
            points: points.min(self.cap),
        }
    }
}

/// The rules: a constant for each, and [`RULES`] listing them in the
/// order written. One entry per rule, so a rule's id, severity, weight and
/// cap are written once; the module docs' table is held to them by a test.
macro_rules! rules {
    ($(
        $(#[$doc:meta])*
        $name:ident = ($id:literal, $severity:ident, $weight:literal, $cap:literal, $summary:literal $(,)?);
    )*) => {
        $(
            $(#[$doc])*
            pub const $name: Rule = Rule {
                id: $id,
                severity: Severity::$severity,
                weight: $weight,
                cap: $cap,
                summary: $summary,
            };
        )*

        /// Every rule.
        pub const RULES: &[Rule] = &[$($name),*];
    };
}

rules! {
    /// An API key, token, password or private key: the score is 0.
    SECRET = (
        "secret",
        Error,
        40,
        80,
        "no API keys, tokens, passwords or private keys",
    );
    /// Mostly placeholders: a template nobody filled in.
    UNFILLED_TEMPLATE = (
        "unfilled-template",
        Error,
        75,
        75,
        "the handoff is written, not a template left unfilled",
    );
    /// Unresolved merge conflict markers (`<<<<<<< `, `>>>>>>> `): a merge
    /// nobody settled, both sides read as the truth.
    CONFLICT_MARKERS = (
        "conflict-markers",
        Error,
        50,
        50,
        "no unresolved merge conflict is left (<<<<<<< ======= >>>>>>>)",
    );
    /// A required section (goal, done) is absent: 8 points for what is done,
    /// 4 for the goal.
    SECTION_MISSING = (
        "section-missing",
        Error,
        8,
        12,
        "the goal and done sections are present",
    );
    /// Nothing says what the next session should do: no next-step section, no
    /// heading that announces one, no line that names it.
    NEXT_STEP_MISSING = (
        "next-step-missing",
        Error,
        20,
        20,
        "a next step is written down",
    );
    /// No negative knowledge: neither a section nor "tried X -> failed because
    /// Y", a trap, a caveat or a known issue.
    FAILED_APPROACHES_MISSING = (
        "failed-approaches-missing",
        Error,
        15,
        15,
        "what failed and what to watch out for is written down (a section, \"tried X -> failed because Y\", the traps and known issues), \"none\" if nothing did",
    );
    /// A known section with nothing under it.
    SECTION_EMPTY = (
        "section-empty",
        Error,
        10,
        20,
        "no section is empty (\"none\" is an answer)",
    );
    /// A recommended section (not working, decisions, waiting on, can wait, status, commands) is absent.
    SECTION_RECOMMENDED = (
        "section-recommended",
        Info,
        1,
        4,
        "the recommended sections are present",
    );
    /// More than one next step and no order (2 points per step beyond the
    /// first), or an ordered queue too long for a session (beyond the fifth).
    NEXT_STEP_NOT_SINGLE = (
        "next-step-not-single",
        Warning,
        2,
        20,
        "there is ONE next step (or an ordered list whose first step is it)",
    );
    /// A next step that names nothing to start from.
    NEXT_STEP_VAGUE = (
        "next-step-vague",
        Warning,
        12,
        12,
        "the next step is concrete (a file, command, function or error)",
    );
    /// Over the token budget: 5 points per quarter of the budget over it.
    OVER_BUDGET = (
        "over-budget",
        Warning,
        5,
        25,
        "the handoff fits the token budget (default 1,500)",
    );
    /// Under the minimum size, scaled by how far under.
    TOO_SHORT = (
        "too-short",
        Warning,
        30,
        30,
        "the handoff has enough substance (default 100 tokens)",
    );
    /// TODO, TBD, FIXME, `<fill in>`, `[describe ...]`, ...
    PLACEHOLDER = (
        "placeholder",
        Warning,
        5,
        15,
        "no placeholders are left (TODO, TBD, FIXME, ???, <fill in>, [describe ...])",
    );
    /// A referenced file that does not exist in the project.
    STALE_PATH = (
        "stale-path",
        Warning,
        8,
        24,
        "every referenced project file exists",
    );
    /// A pasted log, test run, tool-call log or transcript.
    RAW_DUMP = (
        "raw-dump",
        Warning,
        15,
        30,
        "no pasted logs, test runs, tool-call logs or transcripts",
    );
    /// No number saying where things stand.
    NO_MEASURABLE_STATUS = (
        "no-measurable-status",
        Warning,
        10,
        10,
        "the status is measurable (\"30/90 tests pass\")",
    );
    /// No date.
    UNDATED = (
        "undated",
        Warning,
        8,
        8,
        "the handoff is dated",
    );
    /// The next step redoes work listed as done (here or in the previous handoff).
    COMPLETION_BLINDNESS = (
        "completion-blindness",
        Warning,
        25,
        50,
        "the next step does not redo work listed as done (here or in the previous handoff)",
    );
    /// A failed approach is proposed as the next step.
    RETRY_FAILED_APPROACH = (
        "retry-failed-approach",
        Error,
        20,
        40,
        "the next step is not an approach that already failed",
    );
    /// Waiting on someone who has since written to the inbox.
    STALE_WAIT = (
        "stale-wait",
        Warning,
        10,
        20,
        "nobody we wait on has written to the inbox since",
    );
    /// Waiting on something the handoff itself lists as done.
    WAIT_ON_DONE = (
        "wait-on-done",
        Warning,
        20,
        40,
        "nothing we wait on is listed as done",
    );
    /// Many commits since the handoff.
    STALE_HANDOFF = (
        "stale-handoff",
        Warning,
        12,
        12,
        "the project has not moved on much since the handoff (fewer than 10 commits)",
    );
    /// The handoff says of itself that it is no longer the current state: "a
    /// historical snapshot", "superseded by", "outdated", "archived".
    SUPERSEDED = (
        "superseded",
        Error,
        30,
        30,
        "the handoff is the current state, not a snapshot it says is outdated",
    );
    /// Volatile status in the identity layer.
    VOLATILE_IDENTITY = (
        "volatile-identity",
        Warning,
        10,
        20,
        "the identity layer holds no volatile status (progress, today, test counts)",
    );
    /// A standing policy in the current state.
    POLICY_IN_STATE = (
        "policy-in-state",
        Warning,
        5,
        10,
        "standing policies live in the identity layer, not the current state",
    );
    /// Two statements of the handoff that cannot both be true.
    CONTRADICTION = (
        "contradiction",
        Error,
        20,
        40,
        "the handoff does not contradict itself (all tests pass / 3 failing, 42/50 / 45/50, deployed / blocked)",
    );
    /// Little or no evidence behind the claims.
    NO_EVIDENCE = (
        "no-evidence",
        Warning,
        25,
        25,
        "claims come with evidence: commit ids, counts, file:line, quoted errors, commands",
    );
    /// Most items say nothing ("made good progress", "various fixes").
    FILLER = (
        "filler",
        Warning,
        25,
        25,
        "the items carry content, not filler",
    );
    /// "Not working" without the error.
    VAGUE_ERROR = (
        "vague-error",
        Warning,
        6,
        18,
        "what fails is quoted with its error, not just \"not working\"",
    );
    /// A failed approach without the reason it failed.
    FAILED_WITHOUT_REASON = (
        "failed-without-reason",
        Warning,
        5,
        15,
        "each failed approach says why it failed",
    );
    /// The handoff names few specific things the next session can check or
    /// act on: files, commands and identifiers in code spans, commit ids,
    /// dates, counts. Graded: the fewer, the stronger (none: all 20 points).
    FEW_SPECIFICS = (
        "few-specifics",
        Info,
        20,
        20,
        "the handoff names the specific files, commands, commits, dates and counts it is about",
    );
    /// Headings and short bullets with little under them: an outline, not a
    /// briefing. Graded by the words per heading.
    SKELETON = (
        "skeleton",
        Info,
        15,
        15,
        "the sections carry text, not just an outline of headings",
    );
    /// Claims of being finished or flawless ("100% complete", "production
    /// ready", 🎉, rows of ✅) in place of the state: graded by how many.
    CELEBRATION = (
        "celebration",
        Info,
        15,
        15,
        "the state is reported, not celebrated (\"100% complete\", \"production ready\", 🎉 ✅)",
    );
    /// The session's commits changed an area the handoff never mentions
    /// (the project's truth: [`crate::domain::handoff::truth`]).
    WORK_NOT_COVERED = (
        "work-not-covered",
        Warning,
        10,
        20,
        "the session's work is in the handoff: every area its commits changed is mentioned",
    );
    /// A commit made after the handoff meets its next step.
    NEXT_STEP_DONE_LATER = (
        "next-step-done-later",
        Warning,
        25,
        25,
        "no commit made after the handoff already does its next step",
    );
    /// A commit id or branch the handoff names is not in the repository.
    UNKNOWN_REF = (
        "unknown-ref",
        Warning,
        8,
        16,
        "every commit and branch the handoff names is in the repository",
    );
    /// Listed as not working, though the previous handoff listed it as done.
    CONTRADICTS_PREVIOUS = (
        "contradicts-previous",
        Warning,
        10,
        20,
        "nothing listed as not working was done in the previous handoff, unless it broke again",
    );
    /// A count or a "tests pass" that is not what the run (or the draft's
    /// measured line) measured.
    CONTRADICTS_MEASURED = (
        "contradicts-measured",
        Warning,
        10,
        20,
        "every number the handoff gives for a measured metric is the measured one, and no test said to pass fails",
    );
    /// Not a session handoff: a README or runbook (architecture, setup,
    /// commands, contacts) or a changelog of finished phases. Graded by
    /// the share of the words under such sections; reference weighs half
    /// beside a status or an open task.
    NOT_A_HANDOFF = (
        "not-a-handoff",
        Warning,
        20,
        20,
        "the document is a handoff (where the work stands, what is open, what is next), not a README, runbook or changelog",
    );
    /// Next steps in several places (addenda stacked on a handoff, each
    /// with its own): 5 points per place beyond the first.
    COMPETING_NEXT = (
        "competing-next",
        Warning,
        5,
        15,
        "one place says what comes next, not several addenda that compete",
    );
    /// The next step is a menu of options or a whole phase.
    NEXT_STEP_PHASE_OR_MENU = (
        "next-step-phase-or-menu",
        Warning,
        10,
        10,
        "the next step is one step, not a menu of options (\"Option A / B / C\") or a whole phase",
    );
}

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
        content::check_conflict(doc, &mut out);
        return out;
    }
    layers::check_state(doc, &mut out);
    structure::check(doc, &mut out);
    content::check(doc, ctx, &mut out);
    substance::check(doc, &mut out);
    consistency::check(doc, &mut out);
    paths::check(doc, ctx, &mut out);
    cross::check(doc, ctx, &mut out);
    truth::check(doc, ctx, &mut out);
    claims::check(doc, ctx, &mut out);
    genre::check(doc, &mut out);
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

    /// The module docs' table lists exactly the rules, each with its
    /// severity, weight and cap (in any order).
    #[test]
    fn the_module_doc_table_matches_the_rules() {
        let doc = include_str!("mod.rs");
        let mut table: Vec<&str> = doc.lines().filter(|l| l.starts_with("//! | `")).collect();
        let mut expected: Vec<String> = RULES
            .iter()
            .map(|r| {
                format!(
                    "//! | `{}` | {} | {} | {} |",
                    r.id, r.severity, r.weight, r.cap
                )
            })
            .collect();
        table.sort_unstable();
        expected.sort_unstable();
        assert_eq!(table, expected, "the doc table and RULES differ");
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
