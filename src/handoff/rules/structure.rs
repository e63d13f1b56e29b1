//! Shape rules: required sections present and non-empty (a missing one
//! names the headings that were not recognised), failed approaches written
//! down (a section, or inline "tried X -> failed because Y"), exactly one
//! concrete next step.

use std::sync::LazyLock;

use regex::Regex;

use super::{
    FAILED_APPROACHES_MISSING, Finding, NEXT_STEP_NOT_SINGLE, NEXT_STEP_VAGUE, SECTION_EMPTY,
    SECTION_MISSING, SECTION_RECOMMENDED,
};
use crate::handoff::document::{HandoffDocument, Item, LineRole, SectionKind};
use crate::handoff::text::snippet;
use crate::patterns::pattern;

/// A next step shorter than this many words is too thin to act on, unless
/// it names something concrete.
const MIN_NEXT_STEP_WORDS: usize = 4;

/// Something to start from: a code span, a path or file name, a number
/// (line, issue), a `::` path, a call, or an identifier with `_`.
static ANCHOR: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"`[^`]+`|\w/\w|\w\.[a-z]{1,5}\b|\d|::|\w\(\)|\w_\w"));
/// Openings that say "more of the same" without saying what.
static GENERIC: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^(?:continue|keep (?:going|working)|carry on|finish(?: up)?|work on|look into|investigate|improve|fix (?:bugs|the bugs|stuff|things|issues|it)|make it work|see above|more of the same|whatever|debug|weitermachen|weiter|continuer|seguir|continuar|continuare|продолжить|続き|계속|继续)",
    )
});
/// A next step written in the prose rather than under its own heading:
/// "Next task is Phase 2", "Next session starts with `go m1-1-0`", "Start
/// with mode sync", "<- you are here", "That is the natural next step".
static NEXT_INLINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bnext (?:session|agent|step|task|action|thing)s?\b[^.\n]{0,30}?(?::|\bis\b|\bshould\b|\bstarts?\b|\bwill\b|\bmust\b)|\bstart (?:here|with)\b|you are here|\bnatural next step\b|\bfirst thing to do\b|nächster schritt|prochaine étape|siguiente paso|próximo passo|prossimo passo|次にやること|다음 단계|下一步|следующий шаг",
    )
});
/// A "next step" that is no action at all: waiting for instructions,
/// "ready for new tasks", "nothing left to do".
static IDLE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^\W*(?:await(?:ing)?\b|wait(?:ing)? (?:for|on) (?:further |new |more |the )?(?:instructions|tasks|direction|input|feedback|user|requests?)|ready for (?:new|next|further|more) (?:tasks|work|instructions|features|requests)|(?:no|nothing) (?:further|more|else)\b|(?:none|n/?a|tbd|nothing)\W*$|(?:the )?(?:project|everything|all) (?:is )?(?:complete|done)\b|stand ?by\b)",
    )
});
/// Negative knowledge written inline: "tried X -> failed because Y", an item
/// that starts with "Never" or "Do not", "rejected", "ruled out", a root
/// cause found, "was really a", in the ten languages.
static NEGATIVE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\btried\b.{0,160}?(?:->|→|=>|\bbut\b|\bfail|\bdidn|\bdoes ?n|\bbecause\b)|\bdid(?:n'?t| not) work|^\s*(?:[-*+]\s+|\d+[.)]\s+)?\**(?:never|do not|don'?t)\b|\b(?:rejected|abandoned|reverted|discarded|dead end|ruled out|regressed|no win)\b|\broot cause\b|\bwas (?:really|actually) (?:a|an|the)\b|nicht wiederholen|verworfen|funktionierte nicht|n'a pas (?:marché|fonctionné)|no funcionó|não funcionou|non ha funzionato|не сработал|失敗|うまくいかなかった|실패|失败",
    )
});

pub(super) fn check(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    for (kind, points) in [
        (SectionKind::NextStep, SECTION_MISSING.weight),
        (SectionKind::Goal, MISSING_GOAL_POINTS),
        (SectionKind::Done, MISSING_CONTEXT_POINTS),
    ] {
        let dated_entries = kind == SectionKind::Done
            && doc
                .sections
                .iter()
                .any(|s| s.level >= 2 && DATED_ENTRY.is_match(s.heading));
        let inline_next = kind == SectionKind::NextStep
            && doc
                .current_prose()
                .any(|l| l.role == LineRole::Text && NEXT_INLINE.is_match(l.text));
        if !doc.has(kind) && !dated_entries && !inline_next {
            out.push(SECTION_MISSING.scaled(
                None,
                points,
                format!(
                    "no \"{}\" section: add `## {}`{}",
                    kind.heading(),
                    kind.heading(),
                    unrecognised(doc)
                ),
            ));
        }
    }
    if !doc.has(SectionKind::FailedApproaches)
        && !doc.current_prose().any(|l| {
            matches!(l.role, LineRole::Text | LineRole::Heading(_)) && NEGATIVE.is_match(l.text)
        })
    {
        out.push(FAILED_APPROACHES_MISSING.at(
            None,
            "nothing says what failed: add \"Failed approaches (DO NOT retry)\" with what was tried and why it failed, so the next session does not try it again (\"none\" if nothing failed)",
        ));
    }
    for (i, section) in doc.sections.iter().enumerate().filter(|(_, s)| !s.past) {
        let container = doc.sections.get(i + 1).is_some_and(|next| {
            next.level > section.level && (next.level <= 6 || !next.items.is_empty())
        });
        if section.kind.is_some() && section.items.is_empty() && !container {
            out.push(SECTION_EMPTY.at(
                Some(section.line),
                format!(
                    "\"{}\" is empty: write what applies, or \"none\"",
                    section.heading
                ),
            ));
        }
    }
    for kind in SectionKind::ALL {
        if !kind.is_required() && !doc.has(kind) {
            out.push(SECTION_RECOMMENDED.at(
                None,
                format!(
                    "no \"{}\" section: add one (\"none\" is an answer)",
                    kind.heading()
                ),
            ));
        }
    }
    check_next_step(doc, out);
}

/// Points for a missing done section (a missing next step costs the
/// rule's full weight).
const MISSING_CONTEXT_POINTS: u8 = 8;
/// Points for a missing goal section: real handoffs that are useful often
/// have none (the title, the status and the next step carry the goal), so
/// it costs less than a missing record of what was done.
const MISSING_GOAL_POINTS: u8 = 4;
/// A heading that opens a dated entry of a session log ("2026-06-03 —
/// Publish 0.1.2"): such entries record what was done.
static DATED_ENTRY: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^\W*(?:\d{4}-\d{2}-\d{2}|session\s+\d+\b)"));
/// How many unrecognised headings a missing-section message names.
const UNRECOGNISED_SHOWN: usize = 4;

/// ` (headings not recognised: "Where to start" (line 12), ...)`, or nothing.
fn unrecognised(doc: &HandoffDocument<'_>) -> String {
    let names: Vec<String> = doc
        .unrecognised()
        .take(UNRECOGNISED_SHOWN)
        .map(|s| format!("\"{}\" (line {})", snippet(s.heading, 40), s.line))
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!(" (headings not recognised: {})", names.join(", "))
    }
}

fn check_next_step(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    let steps: Vec<&Item> = doc.items_of(SectionKind::NextStep).collect();
    if steps.len() > 1
        && let Some(idle) = steps.iter().find(|s| IDLE.is_match(s.text.trim()))
    {
        out.push(NEXT_STEP_VAGUE.at(
            Some(idle.line),
            format!(
                "\"{}\" is no next action: say what the next session should do first",
                snippet(&idle.text, 60)
            ),
        ));
    }
    match steps.as_slice() {
        [] => {}
        [only] => {
            if is_vague(&only.text) {
                out.push(NEXT_STEP_VAGUE.at(
                    Some(only.line),
                    format!(
                        "the next step \"{}\" is vague: name the file, function, command or error to start from",
                        snippet(&only.text, 60)
                    ),
                ));
            }
        }
        [first, ..] => out.push(
            NEXT_STEP_NOT_SINGLE.scaled(
                Some(first.line),
                u8::try_from(steps.len() - 1)
                    .unwrap_or(u8::MAX)
                    .saturating_mul(NEXT_STEP_NOT_SINGLE.weight),
                format!(
                    "{} next steps: name the ONE next step and move the rest to \"{}\"",
                    steps.len(),
                    SectionKind::CanWait.heading()
                ),
            ),
        ),
    }
}

fn is_vague(step: &str) -> bool {
    let step = step.trim();
    if ANCHOR.is_match(step) {
        return false;
    }
    step.split_whitespace().count() < MIN_NEXT_STEP_WORDS
        || GENERIC.is_match(step)
        || IDLE.is_match(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules_fired(text: &str) -> Vec<&'static str> {
        let doc = HandoffDocument::parse(text);
        let mut out = Vec::new();
        check(&doc, &mut out);
        out.iter().map(|f| f.rule).collect()
    }

    const COMPLETE: &str = "## Goal\ng\n## Done\nd\n## Failed approaches\nf\n## Next step\nFix the off-by-one in `parse_header`\n## Not working\nn\n## Decisions\nd\n## Waiting on\nnone\n## Can wait\nc\n## Status\n3/9\n## Commands\n`cargo test`\n";

    #[test]
    fn a_complete_shape_fires_nothing() {
        assert!(
            rules_fired(COMPLETE).is_empty(),
            "{:?}",
            rules_fired(COMPLETE)
        );
    }

    #[test]
    fn missing_and_empty_sections() {
        let fired = rules_fired("## Goal\n\n## Next step\nRun `cargo test` and fix what fails\n");
        assert_eq!(
            fired.iter().filter(|r| **r == "section-missing").count(),
            1,
            "{fired:?}"
        );
        assert!(fired.contains(&"failed-approaches-missing"));
        assert!(fired.contains(&"section-empty"));
        assert_eq!(
            fired
                .iter()
                .filter(|r| **r == "section-recommended")
                .count(),
            6
        );
    }

    #[test]
    fn several_next_steps_fire_once() {
        let text = COMPLETE.replace(
            "Fix the off-by-one in `parse_header`",
            "- one `a`\n- two `b`\n- three `c`",
        );
        let doc = HandoffDocument::parse(&text);
        let mut out = Vec::new();
        check(&doc, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rule, "next-step-not-single");
        assert!(
            out[0].message.starts_with("3 next steps"),
            "{}",
            out[0].message
        );
    }

    #[test]
    fn vague_next_steps() {
        for vague in [
            "Continue working on the API",
            "finish up",
            "Look into the flaky tests again",
            "more tests",
            "Ready for new tasks",
            "Await further instructions or tasks from the user.",
            "No further implementation needed - project is complete",
        ] {
            assert!(is_vague(vague), "{vague}");
        }
        for concrete in [
            "Fix subscription webhook handler - map new field names in payments/webhooks/subscription.py line 45",
            "Continue with `cargo test --test crash` until the seed 1234 passes",
            "Ask Alice to review the schema change before merging it",
            "Rename parse_header to read_header",
        ] {
            assert!(!is_vague(concrete), "{concrete}");
        }
    }

    #[test]
    fn a_next_step_written_in_the_prose_counts() {
        // As real handoffs write it: a status line naming the next task.
        let text = "# HANDOFF — voxel upgrade\n\n**Status at handoff (2026-06-13): phases 0-1 are complete. Next task is Phase 2: procedural plant models.**\n\n## Where things stand\n\n- Phase 1 shipped in `336959d`\n";
        let fired = rules_fired(text);
        let doc = HandoffDocument::parse(text);
        let mut out = Vec::new();
        check(&doc, &mut out);
        assert!(
            !out.iter()
                .any(|f| f.rule == "section-missing" && f.message.contains("Next step")),
            "{fired:?}"
        );
        let without = text.replace("Next task is Phase 2: procedural plant models.", "");
        let doc = HandoffDocument::parse(&without);
        let mut out = Vec::new();
        check(&doc, &mut out);
        assert!(
            out.iter()
                .any(|f| f.rule == "section-missing" && f.message.contains("Next step"))
        );
    }

    #[test]
    fn waiting_for_instructions_is_no_next_step() {
        // A memory-bank file as real ones end: two chores and a wait.
        let text = "## Next Steps\n\n- Update `progress.md` to reflect the current state.\n- Complete the initial Memory Bank population task.\n- Await further instructions or tasks from the user.\n";
        let doc = HandoffDocument::parse(text);
        let mut out = Vec::new();
        check(&doc, &mut out);
        assert!(
            out.iter().any(|f| f.rule == "next-step-vague"),
            "{:?}",
            out.iter().map(|f| f.rule).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_root_cause_or_a_ruled_out_option_is_negative_knowledge() {
        // Lines as real handoffs write what did not work, without a section.
        for line in [
            "- TP=2 ruled out: the weights would not fit in 96 GB per card",
            "- Root cause: the cache lives in a node-local dir that snapshots never carry",
            "- A past \"flaky test\" was really a tooling break in twine",
            "- The MMA kernel regressed prefill by 11-18% on this rig",
            "## 3. Root Cause Analysis & Key Technical Insights",
        ] {
            let text = format!("## Status\n3/9\n{line}\n## Next step\nRun `cargo test`\n");
            assert!(
                !rules_fired(&text).contains(&"failed-approaches-missing"),
                "{line}"
            );
        }
    }
}
