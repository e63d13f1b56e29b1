//! Consistency within one handoff: statements that cannot both be true
//! ("all tests pass" beside "3 tests failing"; "42/50" beside "45/50";
//! "deployed" beside "deploy blocked"; "all phases complete" beside "what
//! remains"), a next step that is an item the same handoff lists as done
//! (completion blindness), and waiting on something it lists as done. Only
//! the current state counts: code blocks and past entries of a log are left
//! out.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;

use super::{COMPLETION_BLINDNESS, CONTRADICTION, Finding, WAIT_ON_DONE};
use crate::base::patterns::pattern;
use crate::domain::handoff::document::{HandoffDocument, Item, Line, LineRole, SectionKind};
use crate::domain::handoff::text::{content_words, proposes_again, snippet};

/// A fraction's denominator must be at least this to be compared (small
/// ones, "2/3 seeds", are too common to mean the same thing).
const MIN_COMPARED_DENOMINATOR: u32 = 10;

static ALL_PASS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\ball (?:the )?(?:\d+ )?(?:tests?|specs?|checks?)(?: are)? (?:pass|passing|passed|green)\b|\ball green\b|\bno (?:known )?(?:failures|issues)\b|\bfully functional\b|\beverything (?:is )?(?:works|working|passes|green)\b",
    )
});
static SOME_FAIL: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b([1-9]\d*) (?:\w+ )?(?:tests?|specs?|checks?|cases?)(?: are| still)? (?:fail|failing|failed|red|broken)\b|\b([1-9]\d*) fail(?:ed|ing|s|ures?)\b",
    )
});
static DEPLOYED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:deployed|released|shipped) (?:to|in|on) (?:prod|production|live)\b")
});
static NOT_DEPLOYED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bdeploy(?:ment)? (?:is )?(?:blocked|failed|failing|broken)\b|\bnot (?:yet )?deployed\b|\bpipeline is red\b",
    )
});
static ALL_DONE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\ball (?:phases|tasks|steps|work|items|features)(?: \([^)]*\))? (?:are |is )?(?:complete|completed|done|finished)\b",
    )
});
static REMAINS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)^\s*#{1,6}\s*(?:what remains|remaining|still to do|left to do|not done)\b")
});
static AHEAD: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b[1-9]\d* (?:local )?commits? ahead\b|\bahead (?:of (?:origin|the remote|remote)[^.\n]{0,20}?)?by [1-9]\d* commits?\b|\b(?:not (?:yet )?|un)pushed\b",
    )
});
static ALL_PUSHED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:all|everything)(?: (?:commits|changes|work))? (?:is |are |has been |have been )?pushed\b|\bnothing (?:left )?to push\b|\bup to date with (?:origin|the remote|remote)\b",
    )
});
static FRACTION: LazyLock<Regex> = LazyLock::new(|| pattern(r"\b(\d{1,6})\s*/\s*(\d{1,6})\b"));
/// Words before a fraction that make it a target, not a claim: "expect
/// 44/44", "until 44/44 pass", "goal: 90/90", "done when 90/90 pass".
static TARGET_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:expect(?:ed|ing)?|target|goal|aim(?:ing)? (?:for|at)|until|should (?:be|reach|get to)|to reach|up to|(?:done|ready|finished|complete|green|shipped|merged)(?: only)? (?:when|once|if|at)|success(?: criteria| means| is| when)?|acceptance(?: criteria)?|exit criteria|definition of done|erwartet|ziel|fertig,? wenn|objectif|terminé quand|objetivo|obiettivo|цель)\W{0,3}(?:all\s+|alle\s+)?$",
    )
});

pub(super) fn check(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    let lines: Vec<&Line<'_>> = doc.current_prose().collect();
    contradictions(&lines, out);
    let done: Vec<&Item> = doc
        .items_of(SectionKind::Done)
        .chain(
            doc.sections
                .iter()
                .filter(|s| !s.past)
                .flat_map(|s| s.items.iter())
                .filter(|i| i.checked == Some(true)),
        )
        .collect();
    for step in doc.items_of(SectionKind::NextStep) {
        let words = content_words(&step.text);
        if let Some(d) = done.iter().find(|d| proposes_again(&d.text, &words)) {
            out.push(COMPLETION_BLINDNESS.at(
                Some(step.line),
                format!(
                    "the next step \"{}\" is listed as done on line {} (\"{}\"): pick what is really next",
                    snippet(&step.text, 50),
                    d.line,
                    snippet(&d.text, 50)
                ),
            ));
        }
    }
    for wait in doc.items_of(SectionKind::WaitingOn) {
        let words = content_words(&wait.text);
        if let Some(d) = done.iter().find(|d| proposes_again(&d.text, &words)) {
            out.push(WAIT_ON_DONE.at(
                Some(wait.line),
                format!(
                    "waiting on \"{}\", but line {} lists it as done (\"{}\"): drop the wait or say what is missing",
                    snippet(&wait.text, 50),
                    d.line,
                    snippet(&d.text, 50)
                ),
            ));
        }
    }
}

fn contradictions(lines: &[&Line<'_>], out: &mut Vec<Finding>) {
    let first = |re: &Regex| lines.iter().find(|l| re.is_match(l.text)).copied();
    if let (Some(pass), Some(fail)) = (first(&ALL_PASS), first(&SOME_FAIL)) {
        out.push(CONTRADICTION.at(
            Some(fail.number),
            format!(
                "line {} says \"{}\", line {} says \"{}\": which is it?",
                pass.number,
                snippet(pass.text.trim(), 40),
                fail.number,
                snippet(fail.text.trim(), 40)
            ),
        ));
    }
    if let (Some(yes), Some(no)) = (first(&DEPLOYED), first(&NOT_DEPLOYED)) {
        out.push(CONTRADICTION.at(
            Some(no.number),
            format!(
                "line {} says it is deployed, line {} that the deploy is blocked: which is it?",
                yes.number, no.number
            ),
        ));
    }
    if let (Some(done), Some(left)) = (first(&ALL_DONE), first(&REMAINS)) {
        out.push(CONTRADICTION.at(
            Some(left.number),
            format!(
                "line {} says everything is complete, line {} lists what remains: which is it?",
                done.number, left.number
            ),
        ));
    }
    if let (Some(pushed), Some(ahead)) = (first(&ALL_PUSHED), first(&AHEAD)) {
        out.push(CONTRADICTION.at(
            Some(ahead.number),
            format!(
                "line {} says everything is pushed, line {} that commits are not (\"{}\"): which is it?",
                pushed.number,
                ahead.number,
                snippet(ahead.text.trim(), 40)
            ),
        ));
    }
    let mut seen: HashMap<u32, (u32, usize)> = HashMap::new();
    let mut reported: HashSet<u32> = HashSet::new();
    // Rows of a table are different things by design (results by date, by
    // source): their counts of one total are not two claims about one state.
    for line in lines.iter().filter(|l| l.role != LineRole::TableRow) {
        for c in FRACTION.captures_iter(line.text) {
            let (Ok(n), Ok(d)) = (c[1].parse::<u32>(), c[2].parse::<u32>()) else {
                continue;
            };
            let target = TARGET_BEFORE.is_match(&line.text[..c.get(0).map_or(0, |m| m.start())]);
            if d < MIN_COMPARED_DENOMINATOR || n > d || target {
                continue;
            }
            match seen.get(&d) {
                // Two fractions on one line are two measures side by side
                // ("66/100 overall, functional 14/100"), not two claims.
                Some((m, at)) if *m != n && *at != line.number && reported.insert(d) => {
                    out.push(CONTRADICTION.at(
                        Some(line.number),
                        format!("{n}/{d} here, {m}/{d} on line {at}: say which count is current"),
                    ));
                }
                Some(_) => {}
                None => {
                    seen.insert(d, (n, line.number));
                }
            }
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

    #[test]
    fn tests_pass_and_fail_at_once() {
        let f = fired(
            "## Status\n- All tests pass.\n## Not working\n- 3 tests failing in `tests/test_invoices.py`\n",
        );
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].rule, "contradiction");
        assert_eq!(f[0].line, Some(4));
        assert!(fired("## Status\n- All tests pass\n- 0 failures\n").is_empty());
    }

    #[test]
    fn a_target_is_no_second_count() {
        let text = "## Status\n- 41/44 parser tests pass\n## Next step\nFix `lex_key`, rerun and expect 44/44.\n";
        assert!(fired(text).is_empty(), "{:?}", fired(text));
        let text = "## Status\n- 41/44 parser tests pass\n## Done\n- 44/44 parser tests pass\n";
        assert_eq!(fired(text).len(), 1);
    }

    #[test]
    fn two_counts_of_the_same_total() {
        let f = fired(
            "## Status\n- 42/50 acceptance checks done\n## Next step\nFinish the rest (45/50 done).\n",
        );
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message.starts_with("45/50 here, 42/50"),
            "{}",
            f[0].message
        );
        assert!(fired("- recall 3/5\n- escape 1/5\n- 30/90 pass\n- 30/90 again\n").is_empty());
    }

    /// Issue 25: a target beside a count was called a contradiction.
    #[test]
    fn a_target_is_not_a_second_count() {
        for target in [
            "Done when 90/90 pass.",
            "Ready once 90/90 are green.",
            "Success criteria: 90/90.",
            "Definition of done: 90/90 pass.",
        ] {
            let text = format!("## Goal\n{target}\n## Status\n- 55/90 pass\n");
            let f = fired(&text);
            assert!(f.is_empty(), "{target}: {f:?}");
        }
        let f = fired("## Goal\nShip it.\n## Status\n- 55/90 pass\n## Now\n- 60/90 pass\n");
        assert_eq!(f.len(), 1, "two counts still are: {f:?}");
    }

    #[test]
    fn two_scores_on_one_line_are_not_a_contradiction() {
        // A QA handoff as written: an overall score and a category score.
        let f = fired(
            "# QA fix queue\n**Overall score at handoff:** 66/100 (D). Functional 14/100 is the drag.\n",
        );
        assert!(f.is_empty(), "{f:?}");
        let f = fired("## Status\n- 66/100 checks pass\n## Now\n- 70/100 checks pass\n");
        assert_eq!(f.len(), 1, "{f:?}");
    }

    #[test]
    fn commits_ahead_and_all_pushed() {
        let f = fired(
            "## Status\n- Branch `feat/x`, 3 commits ahead of origin/main\n- Tests: 41/41\n## Done\n- All changes pushed\n",
        );
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].rule, "contradiction");
        assert!(fired("## Status\n- All changes pushed, working tree clean\n").is_empty());
    }

    #[test]
    fn deployed_and_blocked() {
        let f =
            fired("- Deployed to production on Friday.\n- Deploy blocked: the pipeline is red\n");
        assert_eq!(f.len(), 1, "{f:?}");
    }

    #[test]
    fn everything_complete_and_what_remains() {
        let f = fired(
            "- **ALL PHASES (0-6) ARE COMPLETE.**\n\n## What remains (Phases 2-6)\n- Phase 3\n",
        );
        assert_eq!(f.len(), 1, "{f:?}");
    }

    #[test]
    fn the_next_step_is_listed_as_done() {
        let text = "## Done\n- Price range slider wired to the `price_min`/`price_max` query params\n- [x] Rating filter\n## Next step\nImplement the price range slider wired to the price_min/price_max query params.\n";
        let f = fired(text);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].rule, "completion-blindness");
        assert_eq!(f[0].line, Some(5));
        let other = text.replace(
            "Implement the price range slider wired",
            "Add a currency selector next",
        );
        assert!(fired(&other).is_empty());
    }

    #[test]
    fn waiting_on_what_is_done() {
        let f = fired(
            "## Done\n- DNS records for staging.acme.dev created by Ops\n## Waiting on\n- Ops to create the DNS records for staging.acme.dev\n- Legal on the wording\n",
        );
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].rule, "wait-on-done");
        assert_eq!(f[0].line, Some(4));
    }

    #[test]
    fn counts_in_table_rows_are_not_compared() {
        let text = "# Results 2026-05-15\n\n| Date | Verified |\n|---|---|\n| 2026-02-22 | 15/244 |\n| 2026-03-08 | 63/244 |\n\nNow 63/244.\n";
        assert!(fired(text).iter().all(|f| f.rule != CONTRADICTION.id));
        let prose = "# Results 2026-05-15\n\n- 15/244 verified\n- 63/244 verified\n";
        assert!(fired(prose).iter().any(|f| f.rule == CONTRADICTION.id));
    }

    #[test]
    fn past_entries_and_code_are_not_compared() {
        let log = "## 2026-09-01\n### Status\n- 12/40 done\n### Next step\nMatch by id\n## 2026-09-05\n### Status\n- 30/40 done\n### Next step\nWrite the report in `report.py`\n```\nall tests pass\n3 tests failing\n```\n";
        assert!(fired(log).is_empty(), "{:?}", fired(log));
    }
}
