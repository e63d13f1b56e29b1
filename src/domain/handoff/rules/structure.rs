//! Shape rules: required sections present and non-empty (a missing one
//! names the headings that were not recognised), failed approaches written
//! down (a section, or inline "tried X -> failed because Y"), exactly one
//! concrete next step.

use std::sync::LazyLock;

use regex::Regex;

use super::{
    FAILED_APPROACHES_MISSING, Finding, NEXT_STEP_MISSING, NEXT_STEP_NOT_SINGLE,
    NEXT_STEP_PHASE_OR_MENU, NEXT_STEP_VAGUE, SECTION_EMPTY, SECTION_MISSING, SECTION_RECOMMENDED,
};
use crate::base::patterns::pattern;
use crate::domain::handoff::document::{
    HandoffDocument, Item, ItemShape, LineRole, Section, SectionKind,
};
use crate::domain::handoff::text::snippet;

/// A next step shorter than this many words is too thin to act on, unless
/// it names something concrete.
const MIN_NEXT_STEP_WORDS: usize = 4;

/// Something to start from: a code span, a path or file name, a number
/// (line, issue), a `::` path, a call, or an identifier with `_`.
static ANCHOR: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"`[^`]+`|\w/\w|\w\.[a-z]{1,5}\b|\d|::|\w\(\)|\w_\w"));
/// Openings that say "more of the same", or hedge, without saying what.
static GENERIC: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^\W*(?:(?:continue|keep (?:going|working)|carry on|finish(?: up)?|work on|look into|investigate|improve|fix (?:bugs|the bugs|stuff|things|issues|it)|make it work|see above|more of the same|whatever|debug|consider|potentially|possibly|maybe|perhaps|optional(?:ly)?|if (?:desired|needed|time permits|necessary|wanted)|weitermachen|weiter|continuer|seguir|continuar|continuare|продолжить)\b|続き|계속|继续)",
    )
});
/// Broad verbs that make a step only when it says more ("Add more tests",
/// "Monitor stability" are no step; "Review the migration plan with the
/// DBA before Friday" is one): vague under [`BROAD_STEP_WORDS`] words.
static BROAD: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^\W*(?:monitor|keep an eye|review|verify (?:everything|that (?:it|everything) works)|(?:add|write) (?:more |additional |unit |integration |some )?tests|optimi[sz]e|enhance|refactor|clean ?up|explore|research|evaluate|think about|plan|gather feedback|update (?:the )?(?:docs|documentation|readme)|documentation|deploy(?:ment)?)\b",
    )
});
/// Fewer words than this and a step that opens with a [`BROAD`] verb is
/// vague.
const BROAD_STEP_WORDS: usize = 7;
/// A next step written in the prose rather than under its own heading:
/// "Next task is Phase 2", "Next session starts with `go m1-1-0`", "Start
/// with mode sync", "<- you are here", "That is the natural next step".
static NEXT_INLINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bnext (?:session|agent|step|task|action|thing)s?\b[^.\n]{0,30}?(?::|\bis\b|\bshould\b|\bstarts?\b|\bwill\b|\bmust\b)|\bstart (?:here|with)\b|you are here|\bnatural next step\b|\bfirst thing to do\b|nächster schritt|prochaine étape|siguiente paso|próximo passo|prossimo passo|次にやること|다음 단계|下一步|следующий шаг",
    )
});
/// A heading that announces what comes next although it names another
/// section or none ("Not done yet (next tasks)", "If continuing from
/// here", "P1 deploy: exact steps", "Recomendação para amanhã"); not
/// "Next.js", "Context for the next agent" or "Todos os modelos".
static NEXT_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bnext (?:steps?|tasks?|actions?|session|phase|priorit\w*|up|work|moves?|things?|batch)\b|\bnext\s*(?::|$)|\bwhat'?s next\b|\bif continuing\b|\bcontinuing from here\b|\bopen (?:items|tasks|work)\b|\bwhat'?s left\b|\bleft to do\b|\bremaining\b|(?-i:\bTODOs?\b|\bTo-?Dos?\b|\bTo Do\b)|\bpriorit(?:y|ies)\s*\d|^\W*(?:priority\b|step\s*1\b|first (?:thing|action|task|step)s?\b)|\bhow to (?:start|continue|resume)\b|\bexact steps\b|\btomorrow\b|nächste|offene punkte|prochaine|à suivre|próxim[ao]|amanhã|recomenda|siguiente|prossim|次回|今後|次に|다음|향후|下一|下次|后续|优先|接下来|следующ|дальше|наступн|доробити",
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
/// cause found, "was really a"; and the traps a session must know of (a
/// gotcha, pitfall, caveat or workaround, a known issue or failing test,
/// "fails when", a lesson learned), in the ten languages.
static NEGATIVE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\btried\b.{0,160}?(?:->|→|=>|\bbut\b|\bfail|\bdidn|\bdoes ?n|\bbecause\b)|\bdid(?:n'?t| not) work|^\s*(?:[-*+]\s+|\d+[.)]\s+)?\**(?:never|do not|don'?t)\b|\b(?:rejected|abandoned|reverted|discarded|dead end|ruled out|regressed|no win|workarounds?)\b|\b(?:do not|don'?t|never)\s+(?:use|run|retry|revisit|re-?litigate|resume|add|call|rely|trust|start|merge|push|publish|delete|upgrade|downgrade)\b|\broot cause\b|\bwas (?:really|actually) (?:a|an|the)\b|\b(?:gotchas?|pitfalls?|traps|caveats?|footguns?|landmines?)\b|\btrap\s*:|\bknown (?:issues?|bugs?|failures?|failing|problems?|limitations?)\b|\blessons? learn|\b(?:beware|watch out)\b|\bfails (?:on|because)\b|\bbreaks because\b|\b(?:still|currently|sometimes|intermittently) (?:fails?|breaks?)\b|\bpre-?existing (?:failures?|errors?|warnings?)\b|nicht wiederholen|verworfen|funktionierte nicht|bekannte (?:probleme|fehler)|stolperstein|n'a pas (?:marché|fonctionné)|problèmes connus|piège|no funcionó|problemas conocidos|não funcionou|problemas conhecidos|armadilha|non ha funzionato|problemi noti|не сработал|известные проблемы|失敗|うまくいかなかった|既知の(?:問題|不具合)|ハマりどころ|注意点|실패|알려진 (?:문제|이슈)|주의\s*사항|주의점|失败|已知问题|注意事项|踩坑",
    )
});

pub(super) fn check(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    for (kind, rule, points) in [
        (
            SectionKind::NextStep,
            NEXT_STEP_MISSING,
            NEXT_STEP_MISSING.weight,
        ),
        (SectionKind::Goal, SECTION_MISSING, MISSING_GOAL_POINTS),
        (SectionKind::Done, SECTION_MISSING, SECTION_MISSING.weight),
    ] {
        let dated_entries = kind == SectionKind::Done
            && doc
                .sections
                .iter()
                .any(|s| s.level >= 2 && DATED_ENTRY.is_match(s.heading));
        let inline_next = kind == SectionKind::NextStep
            && (doc
                .current_prose()
                .any(|l| l.role == LineRole::Text && NEXT_INLINE.is_match(l.text))
                || announced_next(doc));
        if !doc.has(kind) && !dated_entries && !inline_next {
            out.push(rule.scaled(
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
            "nothing says what failed or what to watch out for: add \"Failed approaches (DO NOT retry)\" with what was tried and why it failed, and the traps and known issues, so the next session does not walk into them again (\"none\" if nothing failed)",
        ));
    }
    for (i, section) in doc.sections.iter().enumerate().filter(|(_, s)| !s.past) {
        if section.kind.is_some() && !holds_something(doc, i) {
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

/// Whether section `i` holds something: items of its own, or sections
/// under it (a bold label below it counts only with items).
fn holds_something(doc: &HandoffDocument<'_>, i: usize) -> bool {
    let section = &doc.sections[i];
    !section.items.is_empty()
        || doc.sections.get(i + 1).is_some_and(|next| {
            next.level > section.level && (next.level <= 6 || !next.items.is_empty())
        })
}

/// Whether a current heading with something under it announces what comes
/// next ([`NEXT_HEADING`]).
fn announced_next(doc: &HandoffDocument<'_>) -> bool {
    doc.sections.iter().enumerate().any(|(i, section)| {
        !section.past && NEXT_HEADING.is_match(section.heading) && holds_something(doc, i)
    })
}

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

/// The next steps of the current next-step sections, and whether they are
/// ordered (so the first is the one to do first).
struct Steps {
    /// Each step's line and text.
    steps: Vec<(usize, String)>,
    /// A numbered list, numbered sub-headings, or a heading that says the
    /// order ("in dependency order", "Priorities").
    ordered: bool,
    /// Some steps are sub-headings, whose words may only group the steps
    /// under them ("High priority", "中期").
    headed: bool,
}

/// A choice offered rather than a step taken: "Option A", "Path B:",
/// "Alternative 2", "Variante A", "方案一", in the ten languages.
static MENU_CHOICE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^\W*(?:option|path|approach|alternative|choice|variant|variante|opción|opção|opzione|вариант|オプション|案|옵션|방안|方案|选项)\s*(?:[a-e]|[1-9]|[一二三四]|[ⅰ-ⅳ]|[а-г])(?:\W|$)",
    )
});
/// A whole phase named as the next step: "Phase 3: implement the backend",
/// "Milestone 2", "Sprint 4", "Fase 2", "Этап 3", "阶段二", "フェーズ2".
static PHASE_STEP: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)^\W*(?:(?:start|begin|move to|proceed (?:to|with)|continue (?:to|with)|on to|beginne|commencer|iniciar|começar|iniziare|начать)\s+(?:with\s+|the\s+)?)?(?:phase|milestone|stage|sprint|epic|fase|étape|etappe|этап|фаза|阶段|フェーズ|단계)\s*(?:[0-9]+[a-z]?|[ivx]+|[一二三四五六七八九十]+)\b\W*",
    )
});

/// A heading that says its steps are in order.
static ORDER_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\border(?:ed)?\b|\bpriorit|\bsequen|\branked\b|reihenfolge|\bordre\b|\borden\b|\bordem\b|\bordine\b|順|순서|顺序|порядк|приоритет",
    )
});
/// A sub-heading that numbers its step: "1. Mode sync", "Priority 2:",
/// "Step 3", "Phase 2", "FIX-01".
static NUMBERED_STEP: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)^\W*(?:\d|(?:priority|step|phase|fix|p)[\s-]*\d)"));

/// The steps a next-step section lists: one per sub-heading when it has
/// sub-headings, one per bold-led paragraph when two or more group the
/// details ("**Path A** ... **Path B** ..."), else one per list item (a
/// lead-in such as "In dependency order:" is no step), else its items.
fn steps_of(doc: &HandoffDocument<'_>, section: &Section<'_>) -> Steps {
    let said_in_order = ORDER_WORDS.is_match(section.heading);
    let sub: Vec<(usize, String)> = doc.lines[section.body.clone()]
        .iter()
        .filter_map(|l| match l.role {
            LineRole::Heading(level) if level > section.level => {
                Some((l.number, l.text.trim_start_matches('#').trim().to_string()))
            }
            _ => None,
        })
        .collect();
    if !sub.is_empty() {
        return Steps {
            ordered: said_in_order || sub.iter().all(|(_, t)| NUMBERED_STEP.is_match(t)),
            steps: sub,
            headed: true,
        };
    }
    let pick = |keep: &dyn Fn(&Item) -> bool| -> Vec<(usize, String)> {
        section
            .items
            .iter()
            .filter(|i| keep(i))
            .map(|i| (i.line, i.text.clone()))
            .collect()
    };
    let bold_led = pick(&|i| i.shape == ItemShape::Paragraph && i.text.starts_with("**"));
    if bold_led.len() >= 2 {
        return Steps {
            ordered: said_in_order,
            steps: bold_led,
            headed: false,
        };
    }
    let listed = pick(&|i| matches!(i.shape, ItemShape::Bullet | ItemShape::Numbered));
    if !listed.is_empty() {
        return Steps {
            ordered: said_in_order || section.items.iter().any(|i| i.shape == ItemShape::Numbered),
            steps: listed,
            headed: false,
        };
    }
    Steps {
        ordered: said_in_order,
        steps: pick(&|_| true),
        headed: false,
    }
}

/// Every current next-step section's steps, in order: ordered when each
/// section of more than one step is.
fn next_steps(doc: &HandoffDocument<'_>) -> Steps {
    let mut all = Steps {
        steps: Vec::new(),
        ordered: true,
        headed: false,
    };
    for section in doc.sections_of(SectionKind::NextStep) {
        let steps = steps_of(doc, section);
        all.ordered &= steps.ordered || steps.steps.len() < 2;
        all.headed |= steps.headed;
        all.steps.extend(steps.steps);
    }
    all
}

fn check_next_step(doc: &HandoffDocument<'_>, out: &mut Vec<Finding>) {
    let Steps {
        steps,
        ordered,
        headed,
    } = next_steps(doc);
    check_phase_or_menu(doc, &steps, ordered, out);
    if steps.len() > 1
        && let Some((line, idle)) = steps.iter().find(|(_, s)| IDLE.is_match(s.trim()))
    {
        out.push(NEXT_STEP_VAGUE.at(
            Some(*line),
            format!(
                "\"{}\" is no next action: say what the next session should do first",
                snippet(idle, 60)
            ),
        ));
    }
    let Some((first_line, first)) = steps.first() else {
        return;
    };
    if (steps.len() == 1 || ordered) && is_vague(first) {
        out.push(NEXT_STEP_VAGUE.at(
            Some(*first_line),
            format!(
                "the next step \"{}\" is vague: name the file, function, command or error to start from",
                snippet(first, 60)
            ),
        ));
    } else if steps.len() > 1 && !ordered && !headed {
        // No step comes first, so the list as a whole must be concrete:
        // its vague share costs.
        let considered = &steps[..steps.len().min(ORDERED_QUEUE)];
        let vague: Vec<&(usize, String)> = considered.iter().filter(|(_, s)| is_vague(s)).collect();
        if vague.len() * 2 > considered.len() {
            let share = vague.len() as f64 / considered.len() as f64;
            out.push(NEXT_STEP_VAGUE.scaled(
                Some(vague[0].0),
                (share * f64::from(NEXT_STEP_VAGUE.weight)).round() as u8,
                format!(
                    "{} of the {} next steps are vague (\"{}\"): name the file, function, command or error each starts from",
                    vague.len(),
                    considered.len(),
                    snippet(&vague[0].1, 50)
                ),
            ));
        }
    }
    // An ordered list names its first step as the next one; only a queue
    // longer than a session's worth is too long. An unordered one leaves
    // the choice to the next session: every step beyond the first costs.
    let free = if ordered { ORDERED_QUEUE } else { 1 };
    if steps.len() > free {
        out.push(NEXT_STEP_NOT_SINGLE.scaled(
            Some(*first_line),
            u8::try_from(steps.len() - free)
                .unwrap_or(u8::MAX)
                .saturating_mul(NEXT_STEP_NOT_SINGLE.weight),
            if ordered {
                format!(
                    "{} next steps in order: keep the first {ORDERED_QUEUE} and move the rest to \"{}\"",
                    steps.len(),
                    SectionKind::CanWait.heading()
                )
            } else {
                format!(
                    "{} next steps and no order: name the ONE next step (or number them in order) and move the rest to \"{}\"",
                    steps.len(),
                    SectionKind::CanWait.heading()
                )
            },
        ));
    }
}

/// The next step is a menu ("Option A / Option B / Option C": two or
/// more choices on the lines of the next-step sections) or a whole phase
/// ("Phase 3: implement the backend": the first step names a phase and,
/// after its label, nothing to start from).
fn check_phase_or_menu(
    doc: &HandoffDocument<'_>,
    steps: &[(usize, String)],
    ordered: bool,
    out: &mut Vec<Finding>,
) {
    let choices: Vec<(usize, &str)> = doc
        .sections_of(SectionKind::NextStep)
        .flat_map(|s| {
            std::iter::once((s.line, s.heading)).chain(
                doc.lines[s.body.clone()]
                    .iter()
                    .filter(|l| !l.fenced)
                    .map(|l| (l.number, l.text)),
            )
        })
        .map(|(n, t)| (n, t.trim_start_matches(['#', '-', '*', '+', ' ', '\t'])))
        .filter(|(_, t)| MENU_CHOICE.is_match(t))
        .collect();
    if choices.len() >= 2 {
        out.push(NEXT_STEP_PHASE_OR_MENU.at(
            Some(choices[0].0),
            format!(
                "the next step is a menu of {} options (\"{}\", …): choose one, say why, and make it the next step",
                choices.len(),
                snippet(choices[0].1, 40)
            ),
        ));
        return;
    }
    let Some((line, first)) = steps.first() else {
        return;
    };
    if steps.len() > 1 && !ordered {
        return;
    }
    let first = first.trim_start_matches(['*', ' ']);
    if let Some(m) = PHASE_STEP.find(first) {
        let rest = first[m.end()..].trim_start_matches(['*', ' ', ':', '—', '–', '-', '(', ')']);
        // What the phase label leaves: a concrete start, or only its scope.
        let first_line = rest.lines().next().unwrap_or("");
        let scope_only = !ANCHOR.is_match(first_line)
            && first_line.split_whitespace().count() < BROAD_STEP_WORDS;
        if scope_only {
            out.push(NEXT_STEP_PHASE_OR_MENU.at(
                Some(*line),
                format!(
                    "the next step \"{}\" is a whole phase: name its first concrete step (the file, command or function to start from)",
                    snippet(first, 60)
                ),
            ));
        }
    }
}

/// Steps an ordered next-step list may hold before it is too long: the
/// first is the next step, the rest the queue behind it.
const ORDERED_QUEUE: usize = 5;

fn is_vague(step: &str) -> bool {
    let step = step.trim();
    if ANCHOR.is_match(step) {
        return false;
    }
    let words = step.split_whitespace().count();
    words < MIN_NEXT_STEP_WORDS
        || GENERIC.is_match(step)
        || IDLE.is_match(step)
        || (words < BROAD_STEP_WORDS && BROAD.is_match(step))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the structure rules find in `text`.
    fn findings(text: &str) -> Vec<Finding> {
        let doc = HandoffDocument::parse(text);
        let mut out = Vec::new();
        check(&doc, &mut out);
        out
    }

    fn rules_fired(text: &str) -> Vec<&'static str> {
        findings(text).iter().map(|f| f.rule).collect()
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
        let out = findings(&text);
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
            // Hedged or generic: a wish, not a step.
            "Consider adding caching",
            "Potentially publish or start a new cycle",
            "Monitor stability over the next days",
            "Add more tests",
            "Optimize performance",
        ] {
            assert!(is_vague(vague), "{vague}");
        }
        for concrete in [
            "Fix subscription webhook handler - map new field names in payments/webhooks/subscription.py line 45",
            "Continue with `cargo test --test crash` until the seed 1234 passes",
            "Ask Alice to review the schema change before merging it",
            "Rename parse_header to read_header",
            // A broad verb that goes on to say what, and words that only
            // begin like a hedge.
            "Review the migration plan with the DBA before Friday",
            "Refactor the session store so the worker can share it",
            "Add tests for the login redirect when the session expires",
            "If timeouts persist on the CI runner, raise the pool size",
            "Verify that items are rounded to cents in the invoice total",
            "Explorer panel should list the new node types",
        ] {
            assert!(!is_vague(concrete), "{concrete}");
        }
    }

    #[test]
    fn a_next_step_written_in_the_prose_counts() {
        // As real handoffs write it: a status line naming the next task.
        let text = "# HANDOFF — voxel upgrade\n\n**Status at handoff (2026-06-13): phases 0-1 are complete. Next task is Phase 2: procedural plant models.**\n\n## Where things stand\n\n- Phase 1 shipped in `336959d`\n";
        let fired = rules_fired(text);
        assert!(!fired.contains(&"next-step-missing"), "{fired:?}");
        let without = text.replace("Next task is Phase 2: procedural plant models.", "");
        assert!(rules_fired(&without).contains(&"next-step-missing"));
    }

    fn steps(text: &str) -> (Vec<String>, bool) {
        let doc = HandoffDocument::parse(text);
        let Steps { steps, ordered, .. } = next_steps(&doc);
        (steps.into_iter().map(|(_, t)| t).collect(), ordered)
    }

    #[test]
    fn sub_headings_are_the_steps_and_their_details_are_not() {
        // As real handoffs write priorities: each with its own commands.
        let text = "## Next Session Priorities\n\n### Priority 1: Configure the agents\n\n**Steps:**\n```bash\ncurl -s localhost:8081\n```\n- validation-specialist\n- tool-creator\n\n### Priority 2: Test tool creation end-to-end\n\n1. Reset the system\n2. Watch the logs\n";
        let (found, ordered) = steps(text);
        assert_eq!(
            found,
            [
                "Priority 1: Configure the agents",
                "Priority 2: Test tool creation end-to-end"
            ]
        );
        assert!(ordered);
    }

    #[test]
    fn bold_led_paragraphs_group_their_bullets() {
        let text = "## Next steps\n\n**Path A: CI** (not blocked)\n- a workflow\n- baselines\n\n**Path B: data strategy**\n- four options\n";
        let (found, ordered) = steps(text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(!ordered);
    }

    #[test]
    fn a_lead_in_is_no_step_and_a_numbered_list_is_ordered() {
        let text = "## Specific TODOs the next agent can pick up\n\nIn dependency order:\n\n1. **`just preflight`** on a quiet system\n2. Decide on the 3 footguns\n";
        let (found, ordered) = steps(text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(ordered);
        let (found, ordered) = steps("## Next steps\n\n- one `a`\n- two `b`\n");
        assert_eq!(found.len(), 2);
        assert!(!ordered);
        let (_, ordered) = steps("## Next steps (recommended order)\n\n- one `a`\n- two `b`\n");
        assert!(ordered, "the heading says the order");
    }

    #[test]
    fn the_first_of_an_ordered_list_must_be_concrete() {
        let text = "## Next steps\n\n1. Continue working on the API\n2. Fix `parse_header` in `src/lib.rs`\n";
        assert!(rules_fired(text).contains(&"next-step-vague"));
        let text = "## Next steps\n\n- Continue working on the API\n- Fix `parse_header` in `src/lib.rs`\n";
        assert!(
            !rules_fired(text).contains(&"next-step-vague"),
            "no order: no first step"
        );
    }

    #[test]
    fn a_list_of_mostly_vague_steps_is_vague() {
        let text = "## Next steps\n\n- Monitor stability\n- Consider adding caching\n- Add more tests\n- Fix `parse_header` in `src/lib.rs`\n";
        let out = findings(text);
        let vague = out
            .iter()
            .find(|f| f.rule == "next-step-vague")
            .expect("three of four vague");
        assert!(vague.message.starts_with("3 of the 4 next steps are vague"));
        assert_eq!(vague.points, 9, "three quarters of the rule's weight");
        let text = "## Next steps\n\n- Monitor stability\n- Wire `retry` into `src/net.rs`\n- Fix `parse_header` in `src/lib.rs`\n";
        assert!(!rules_fired(text).contains(&"next-step-vague"));
    }

    #[test]
    fn a_heading_that_announces_what_comes_next_is_a_next_step() {
        for heading in [
            "Not done yet (next tasks)",
            "If continuing from here",
            "P1 deploy — exact steps",
            "Priority: Race HUD",
            "🎯 Recomendação para Amanhã",
            "下一批优先工作",
            "🎯 Наступні кроки",
        ] {
            let text = format!("## Status\n3/9\n## {heading}\n- Wire `retry` into `src/net.rs`\n");
            assert!(
                !rules_fired(&text).contains(&"next-step-missing"),
                "{heading}"
            );
        }
        for heading in [
            "Architecture",
            "Build stages",
            "Key files",
            "Next.js dashboard handoff 2026-11-20",
            "Context for the next agent",
            "First run output",
            "Continuing from session 12",
            "P0 (MVP) Implementation ✅",
            "Todos os modelos suportam:",
        ] {
            let text = format!("## Status\n3/9\n## {heading}\n- `src/net.rs`\n");
            assert!(
                rules_fired(&text).contains(&"next-step-missing"),
                "{heading}"
            );
        }
    }

    #[test]
    fn an_announcing_heading_with_nothing_under_it_is_no_next_step() {
        assert!(
            rules_fired("## Status\n3/9\n## If continuing from here\n\n## Notes\n- `a.rs`\n")
                .contains(&"next-step-missing")
        );
    }

    #[test]
    fn only_an_unordered_list_of_steps_is_judged_by_its_vague_share() {
        // In order, the first step is the next one, and it is concrete.
        let ordered = "## Next steps\n\n1. Fix `parse_header` in `src/lib.rs`\n2. Consider adding caching\n3. Monitor stability\n4. Add more tests\n";
        assert!(!rules_fired(ordered).contains(&"next-step-vague"));
        // Sub-headings that group the steps are no steps to judge.
        let grouped = "## Next steps\n\n### High Priority\n- Wire `retry` into `src/net.rs`\n### Medium Priority\n- Add `--json` to `cmd/version.go`\n### Later\n- Port `cli.rs`\n";
        assert!(!rules_fired(grouped).contains(&"next-step-vague"));
    }

    #[test]
    fn a_menu_of_options_is_no_next_step() {
        let text = "## Next steps\n\n**Option A: port the parser** (two days)\n- rewrite `parse.rs`\n\n**Option B: wrap the old one**\n- keep `legacy.rs`\n\n**Option C: drop the feature**\n";
        let out = findings(text);
        let f = out
            .iter()
            .find(|f| f.rule == "next-step-phase-or-menu")
            .expect("a menu");
        assert_eq!(f.line, Some(3));
        assert!(f.message.contains("menu of 3 options"), "{}", f.message);
        let text =
            "## Próximos passos\n\n### Opção A — migrar `db.rs`\n- x\n### Opção B — manter\n- y\n";
        assert!(rules_fired(text).contains(&"next-step-phase-or-menu"));
    }

    #[test]
    fn a_whole_phase_is_no_next_step() {
        for step in [
            "Phase 3: implement the backend",
            "Start Phase 2",
            "**Milestone 4** — the dashboard",
            "Этап 2: интерфейс",
        ] {
            let text = format!("## Next step\n{step}\n");
            assert!(
                rules_fired(&text).contains(&"next-step-phase-or-menu"),
                "{step}"
            );
        }
        for step in [
            "Phase 3: wire `retry` into src/net.rs and rerun `cargo test --test net`",
            "Phase 2 starts with the schema migration in db/migrations/0042.sql",
            "Fix the off-by-one in `parse_header`",
        ] {
            let text = format!("## Next step\n{step}\n");
            assert!(
                !rules_fired(&text).contains(&"next-step-phase-or-menu"),
                "{step}"
            );
        }
        assert!(
            !rules_fired(COMPLETE).contains(&"next-step-phase-or-menu"),
            "a good handoff"
        );
    }

    #[test]
    fn a_generated_file_banner_is_no_negative_knowledge() {
        let text = "> This file is auto-generated from the code. Do not edit manually.\n## Status\n3/9\n## Next step\nRun `cargo test`\n";
        assert!(rules_fired(text).contains(&"failed-approaches-missing"));
    }

    #[test]
    fn waiting_for_instructions_is_no_next_step() {
        // A memory-bank file as real ones end: two chores and a wait.
        let text = "## Next Steps\n\n- Update `progress.md` to reflect the current state.\n- Complete the initial Memory Bank population task.\n- Await further instructions or tasks from the user.\n";
        let fired = rules_fired(text);
        assert!(fired.contains(&"next-step-vague"), "{fired:?}");
    }

    /// Whether `line`, in an otherwise plain handoff, counts as saying
    /// what failed (`failed-approaches-missing` stays silent).
    fn says_what_failed(line: &str) -> bool {
        let text = format!("## Status\n3/9\n{line}\n## Next step\nRun `cargo test`\n");
        !rules_fired(&text).contains(&"failed-approaches-missing")
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
            "- The pooler fails to raise its ulimit on CI. Workaround: start it with `--exclude supavisor`",
            "2. Prefer the debugger for 1.1 — do not re-litigate phases 0-10",
        ] {
            assert!(says_what_failed(line), "{line}");
        }
    }

    /// Issue 27: the traps a handoff names in its own words are negative
    /// knowledge. Lines from the real corpus (tuning part) whose raters
    /// credited their traps or known failures, where the rule said
    /// "nothing says what failed".
    #[test]
    fn traps_known_issues_and_caveats_are_negative_knowledge() {
        for line in [
            "## Assumptions & Workarounds",
            "Important caveat:",
            "### 🚧 Known Issues Requiring Immediate Attention",
            "- cargo clippy -p oxide-agent-core --lib --tests fails on clippy::too_many_lines in:",
            "building it from source fails on this machine's outdated Xcode",
            "Gotcha terrain : **écraser les fichiers d'un cours ne re-pointe pas une inscription existante**",
            "## 환경 주의사항",
            "## ⚠️ 注意事项",
            "- [2. 実装済み機能の要点（ハマりどころ）](#2)",
        ] {
            assert!(says_what_failed(line), "{line}");
        }
        // Words of the same look that say nothing about what failed.
        for line in [
            "Next: make `lint --strict` fail if any warning fires",
            "- CI fails when coverage drops below 80 %",
            "- Added a cleanup `trap` in run.sh",
            "- Insert line breaks on every 80th column",
            "- 민주주의 모듈 추가",
        ] {
            assert!(!says_what_failed(line), "{line}");
        }
    }
}
