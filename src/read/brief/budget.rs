//! Fitting the brief into its token budget.
//!
//! Parts are trimmed least important first, until the Markdown fits:
//!
//! 1. message previews;
//! 2. the history asked for, oldest note first;
//! 3. the tail of the memory index (cut at a line break), then all of it;
//! 4. the tail of the current state, then all of it;
//! 5. the metrics;
//! 6. the active task's failed approaches (its next step and blockers stay);
//! 7. the shown messages, oldest first (their count stays);
//! 8. the tail of the identity, then all of it: it is loaded first and cut last.
//!
//! Recovery and the next steps are never cut, THE next step the last
//! handover left among them (its words are capped instead, the rest in its
//! file): a brief whose essentials alone exceed the budget says so with its
//! estimate. Everything left out is
//! listed in [`Brief::omitted`] with the command that shows it.

use super::{Brief, CHARS_PER_TOKEN, Excerpt, NEWEST_MESSAGES, render};

/// A current state cut shorter than this is left out instead.
const MIN_STATE_CHARS: usize = 200;
/// Room for the note that says the current state was cut.
const NOTE_CHARS: usize = 120;

/// Estimated tokens of `markdown`.
pub fn estimate_tokens(markdown: &str) -> usize {
    markdown.chars().count().div_ceil(CHARS_PER_TOKEN)
}

/// Trim `b` until its Markdown fits `b.max_tokens`, or nothing trimmable is left.
pub fn fit(b: &mut Brief) {
    loop {
        b.omitted = omissions(b);
        measure(b);
        let over = b.estimated_tokens.saturating_sub(b.max_tokens);
        if over == 0
            || !(drop_previews(b)
                || drop_history_note(b)
                || drop_workstream(b)
                || b.index.as_mut().is_some_and(|i| cut(i, over))
                || cut(&mut b.current_state, over)
                || drop_metrics(b)
                || drop_failed_approaches(b)
                || drop_oldest_message(b)
                || b.identity.as_mut().is_some_and(|i| cut(i, over)))
        {
            break;
        }
    }
}

/// Set `b.estimated_tokens` to the estimate of the Markdown that shows it.
fn measure(b: &mut Brief) {
    // The estimate is printed in the brief, so its own digits count; two
    // rounds settle it (one more digit is at most one more token).
    for _ in 0..3 {
        let tokens = estimate_tokens(&render::markdown(b));
        if tokens == b.estimated_tokens {
            return;
        }
        b.estimated_tokens = tokens;
    }
}

fn drop_previews(b: &mut Brief) -> bool {
    let shown = &mut b.mail.shown;
    if shown.iter().all(|m| m.preview.is_empty()) {
        return false;
    }
    shown.iter_mut().for_each(|m| m.preview.clear());
    b.mail.previews_omitted = true;
    true
}

fn drop_history_note(b: &mut Brief) -> bool {
    b.history
        .as_mut()
        .and_then(|h| h.notes.iter_mut().rev().find(|n| n.text.is_some()))
        .is_some_and(|n| {
            n.text = None;
            n.shown_lines = 0;
            n.truncated = true;
            true
        })
}

/// The oldest other workstream left out (`status -v` lists them all).
fn drop_workstream(b: &mut Brief) -> bool {
    let dropped = b.workstreams.pop().is_some();
    if dropped {
        b.workstreams_omitted += 1;
    }
    dropped
}

fn drop_failed_approaches(b: &mut Brief) -> bool {
    match &mut b.task {
        Some(t) if !t.failed_omitted && !t.failed_approaches.is_empty() => {
            t.failed_omitted = true;
            true
        }
        _ => false,
    }
}

/// Cut the tail of `s` by about `over_tokens` (all of it when what would
/// be left is too short to help).
fn cut(s: &mut Excerpt, over_tokens: usize) -> bool {
    let Some(text) = &s.text else {
        return false;
    };
    let keep = text
        .chars()
        .count()
        .saturating_sub(over_tokens * CHARS_PER_TOKEN + NOTE_CHARS);
    s.truncated = true;
    if keep < MIN_STATE_CHARS {
        s.text = None;
        s.shown_lines = 0;
        return true;
    }
    let end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    let head = match head.rfind('\n') {
        Some(nl) if nl > 0 => &head[..nl],
        _ => head,
    };
    s.shown_lines = head.lines().count();
    s.text = Some(head.to_string());
    true
}

fn drop_metrics(b: &mut Brief) -> bool {
    match &mut b.metrics {
        Some(m) if !m.omitted && m.error.is_none() => {
            m.omitted = true;
            m.changes.clear();
            m.failed.clear();
            true
        }
        _ => false,
    }
}

fn drop_oldest_message(b: &mut Brief) -> bool {
    b.mail.shown.pop().is_some()
}

fn omissions(b: &Brief) -> Vec<String> {
    let mut left_out = Vec::new();
    if b.mail.previews_omitted {
        left_out.push("message previews (`agent-handover inbox read <id>`)".to_string());
    }
    let dropped = b.mail.unread.min(NEWEST_MESSAGES) - b.mail.shown.len();
    if dropped > 0 {
        left_out.push(format!(
            "{dropped} of the newest unread messages (`agent-handover inbox list --unread`)"
        ));
    }
    if b.workstreams_omitted > 0 {
        left_out.push(format!(
            "{} other workstream(s) (`agent-handover status -v`)",
            b.workstreams_omitted
        ));
    }
    let excerpts = [
        ("the current state", Some(&b.current_state)),
        ("the memory index", b.index.as_ref()),
        ("the identity", b.identity.as_ref()),
    ]
    .into_iter()
    .chain(
        b.history
            .iter()
            .flat_map(|h| h.notes.iter().map(|n| ("the session note", Some(n)))),
    );
    for (noun, s) in excerpts {
        let Some(s) = s.filter(|s| s.truncated) else {
            continue;
        };
        let part = match s.text {
            Some(_) => format!("{noun} after line {} of {}", s.shown_lines, s.total_lines),
            None => noun.to_string(),
        };
        left_out.push(format!("{part} (`cat {}`)", s.path.display()));
    }
    if b.metrics.as_ref().is_some_and(|m| m.omitted) {
        left_out.push("the metrics (`agent-handover metrics`)".to_string());
    }
    if let Some(t) = b.task.as_ref().filter(|t| t.failed_omitted) {
        left_out.push(format!(
            "the task's failed approaches (`agent-handover task show {}`)",
            t.name
        ));
    }
    left_out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::inbox::MessageSummary;
    use crate::read::brief::{CurrentState, Mail, Metrics, Recovery, RecoveryState};
    use crate::read::metrics::Change;
    use crate::read::{Condition, RunState};

    fn brief(max_tokens: usize, unread: usize, state_lines: usize) -> Brief {
        let shown = (0..unread.min(NEWEST_MESSAGES))
            .map(|i| MessageSummary {
                id: format!("m{i}"),
                subject: format!("subject {i}"),
                preview: "a preview of the message body ".repeat(6),
                ..Default::default()
            })
            .collect();
        let text = (1..=state_lines)
            .map(|i| format!("- line {i} of the current state, with some words in it"))
            .collect::<Vec<_>>()
            .join("\n");
        Brief {
            agent: "codex".into(),
            generated_at: chrono::Utc::now(),
            max_tokens,
            estimated_tokens: 0,
            recovery: Recovery {
                state: RecoveryState::Completed,
                run: RunState {
                    condition: Condition::Completed { finished_at: None },
                    run_id: None,
                    pause: None,
                    queued: Vec::new(),
                    config: None,
                    config_has_note: false,
                },
                run_id: None,
                finished_at: None,
                pending: Vec::new(),
                needs_human: Vec::new(),
                paused: None,
                lock_holder: None,
                abandoned: None,
                error: None,
                queued: Vec::new(),
                sync: None,
                drift: Vec::new(),
            },
            mail: Mail {
                unread,
                shown,
                previews_omitted: false,
                error: None,
            },
            current_state: CurrentState {
                path: "memory/layer2/current-state.md".into(),
                text: Some(text),
                total_lines: state_lines,
                shown_lines: state_lines,
                truncated: false,
                error: None,
                conflict: None,
            },
            handed_over_step: None,
            workstreams: Vec::new(),
            workstreams_omitted: 0,
            task: None,
            metrics: None,
            identity: None,
            index: None,
            history: None,
            next_steps: vec!["Continue.".into()],
            omitted: Vec::new(),
        }
    }

    #[test]
    fn a_brief_within_budget_is_untouched() {
        let mut b = brief(1500, 2, 10);
        fit(&mut b);
        assert!(b.omitted.is_empty(), "{:?}", b.omitted);
        assert_eq!(b.current_state.shown_lines, 10);
        assert!(b.estimated_tokens <= 1500);
        assert_eq!(b.estimated_tokens, estimate_tokens(&b.to_markdown()));
    }

    #[test]
    fn previews_go_first_then_the_state_tail_then_messages() {
        let mut b = brief(600, 8, 100);
        fit(&mut b);
        assert!(b.mail.previews_omitted);
        assert_eq!(
            b.mail.shown.len(),
            NEWEST_MESSAGES,
            "messages kept while the state can shrink"
        );
        let s = &b.current_state;
        assert!(
            s.truncated && s.shown_lines > 0 && s.shown_lines < 100,
            "{s:?}"
        );
        assert!(b.estimated_tokens <= 600, "{}", b.estimated_tokens);
        let md = b.to_markdown();
        assert!(
            md.contains("_Left out to fit 600 tokens: message previews"),
            "{md}"
        );
        assert!(
            md.contains(&format!("after line {} of 100", s.shown_lines)),
            "{md}"
        );

        let mut b = brief(150, 8, 100);
        fit(&mut b);
        assert!(b.current_state.text.is_none());
        assert!(b.mail.shown.len() < NEWEST_MESSAGES);
        assert!(
            b.omitted.iter().any(|o| o.contains("of the newest unread")),
            "{:?}",
            b.omitted
        );
    }

    #[test]
    fn the_index_goes_before_the_state_and_the_identity_last() {
        let excerpt = |path: &str, lines: usize| Excerpt {
            path: path.into(),
            text: Some(
                (1..=lines)
                    .map(|i| format!("- {path} line {i} with a few words in it"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            total_lines: lines,
            shown_lines: lines,
            truncated: false,
            error: None,
            conflict: None,
        };
        let mut b = brief(700, 0, 40);
        b.index = Some(excerpt("memory/MEMORY.md", 60));
        b.identity = Some(excerpt("memory/identity.md", 10));
        fit(&mut b);
        let index = b.index.as_ref().unwrap();
        assert!(index.truncated, "{index:?}");
        assert!(!b.identity.as_ref().unwrap().truncated);
        assert!(
            b.omitted.iter().any(|o| o.starts_with("the memory index")),
            "{:?}",
            b.omitted
        );
        // A budget that only the identity and the essentials fit: the index
        // and the state go, the identity stays whole.
        let mut lean = b.clone();
        for e in [lean.index.as_mut().unwrap(), &mut lean.current_state] {
            e.text = None;
            e.truncated = true;
        }
        lean.omitted = omissions(&lean);
        let mut tight = b.clone();
        tight.max_tokens = estimate_tokens(&render::markdown(&lean)) + 10;
        fit(&mut tight);
        assert!(tight.index.as_ref().unwrap().text.is_none());
        assert!(tight.current_state.text.is_none());
        assert!(!tight.identity.as_ref().unwrap().truncated);
        let md = tight.to_markdown();
        assert!(
            md.contains("## 5. Memory index\n\nLeft out to fit the budget"),
            "{md}"
        );
        assert!(md.contains("memory/identity.md line 10"), "{md}");
    }

    #[test]
    fn essentials_stay_even_over_budget() {
        let mut b = brief(10, 3, 5);
        fit(&mut b);
        assert!(b.mail.shown.is_empty() && b.current_state.text.is_none());
        assert!(b.estimated_tokens > 10);
        let md = b.to_markdown();
        assert!(
            md.contains("## 1. Recovery")
                && md.contains("## 4. Next step")
                && md.contains("Continue.")
        );
    }

    /// Issue 40: the next step lived in the current state, which the
    /// budget cuts; named in the next steps, it survives every cut.
    #[test]
    fn the_handed_over_next_step_survives_every_cut() {
        let step = crate::read::brief::HandedOverStep {
            text: "Wire the parser into `lint` (src/lint.rs)".into(),
            cut: false,
            path: "memory/layer2/current-state.md".into(),
            line: 12,
            later_commit: None,
        };
        for max_tokens in [1500, 600, 250, 100, 10] {
            let mut b = brief(max_tokens, 8, 200);
            b.next_steps.insert(0, step.sentence());
            b.handed_over_step = Some(step.clone());
            fit(&mut b);
            let md = b.to_markdown();
            assert!(
                md.contains("**The last handover's next step** (`memory/layer2/current-state.md`, line 12): Wire the parser into `lint` (src/lint.rs)"),
                "{max_tokens}: {md}"
            );
        }
    }

    #[test]
    fn metrics_are_shown_before_the_next_step_and_cut_after_the_state() {
        let mut b = brief(1500, 2, 10);
        b.metrics = Some(Metrics {
            run_id: Some("20261121-100000-aaaa".into()),
            started_at: Some("2026-11-21T10:00:00.000000+00:00".into()),
            changes: vec![Change {
                name: "passed".into(),
                value: Some(30.0),
                previous: Some(25.0),
            }],
            failed: vec!["tests failed (exit 1)".into()],
            omitted: false,
            error: None,
        });
        fit(&mut b);
        let md = b.to_markdown();
        let at = |h: &str| md.find(h).unwrap_or_else(|| panic!("no {h:?} in\n{md}"));
        assert!(at("## 3. Current state") < at("## 4. Metrics"));
        assert!(at("## 4. Metrics") < at("## 5. Next step"));
        assert!(
            md.contains("handover of 2026-11-21T10:00 (`20261121-100000-aaaa`)"),
            "{md}"
        );
        assert!(md.contains("\n- passed 30 (+5)\n"), "{md}");
        assert!(md.contains("- **Failed:** tests failed (exit 1);"), "{md}");

        // Tighter and tighter: the state goes before the metrics, the
        // metrics before any message.
        let mut cut = false;
        for max_tokens in (50..estimate_tokens(&md)).rev().step_by(5) {
            let mut small = b.clone();
            small.max_tokens = max_tokens;
            fit(&mut small);
            let omitted = small.metrics.as_ref().unwrap().omitted;
            assert!(
                !omitted || small.current_state.text.is_none(),
                "{max_tokens}"
            );
            assert!(omitted || small.mail.shown.len() == 2, "{max_tokens}");
            if omitted {
                cut = true;
                assert!(small.metrics.as_ref().unwrap().changes.is_empty());
                assert!(
                    small
                        .omitted
                        .iter()
                        .any(|o| o.contains("`agent-handover metrics`")),
                    "{:?}",
                    small.omitted
                );
                let md = small.to_markdown();
                assert!(
                    md.contains("## 4. Metrics\n\nLeft out to fit the budget"),
                    "{md}"
                );
            }
        }
        assert!(cut, "some budget cuts the metrics");
    }
}
