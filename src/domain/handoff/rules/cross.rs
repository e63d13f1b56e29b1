//! Cross-session rules: the handoff against the previous one and the
//! workspace. Completion blindness (work the previous handoff listed as done,
//! or the active task marks done, is the next step again), retrying a failed
//! approach (this handoff's, the previous one's or the active task's), waiting on someone who has since written to the inbox,
//! and many commits since the handoff was written.
//!
//! "Since the handoff" is after its time when it gives one, else after the
//! end of its day ([`HandoffDate::since`]); an undated handoff skips the
//! time-based rules (and is flagged `undated`).

use std::collections::HashSet;

use chrono::{DateTime, Local, Utc};

use super::{COMPLETION_BLINDNESS, Finding, RETRY_FAILED_APPROACH, STALE_HANDOFF, STALE_WAIT};
use crate::domain::handoff::context::{InboxMessage, LintContext, MAX_COMMITS_READ};
use crate::domain::handoff::document::{HandoffDocument, Item, SectionKind};
use crate::domain::handoff::text::{content_words, proposes_again, snippet};

/// This many commits since a handoff make it stale.
pub const STALE_AFTER_COMMITS: usize = 10;

/// Words of an inbox file name that never name a sender.
const NOT_A_SENDER: &[&str] = &[
    "from", "to", "re", "msg", "message", "reply", "md", "txt", "json", "eml", "new", "cur", "tmp",
    "note", "notes", "the", "and", "for", "shared", "inbox",
];

pub(super) fn check(doc: &HandoffDocument<'_>, ctx: &LintContext, out: &mut Vec<Finding>) {
    let previous_text = ctx
        .previous
        .iter()
        .find(|p| p.text.trim() != doc.text.trim())
        .map(|p| p.text.as_str());
    let previous = previous_text.map(HandoffDocument::parse);
    let next: Vec<(&Item, HashSet<String>)> = doc
        .items_of(SectionKind::NextStep)
        .map(|item| (item, content_words(&item.text)))
        .collect();
    for (item, words) in &next {
        if let Some(failed) = doc
            .items_of(SectionKind::FailedApproaches)
            .chain(
                previous
                    .iter()
                    .flat_map(|p| p.items_of(SectionKind::FailedApproaches)),
            )
            .find(|f| proposes_again(&f.text, words))
        {
            out.push(RETRY_FAILED_APPROACH.at(
                Some(item.line),
                format!(
                    "the next step \"{}\" retries a failed approach: \"{}\"; pick another, or say what is different this time",
                    snippet(&item.text, 60),
                    snippet(&failed.text, 60)
                ),
            ));
        } else if let Some((task, failed)) = ctx.task.as_ref().and_then(|t| {
            let f = t
                .failed_approaches
                .iter()
                .find(|f| proposes_again(f, words))?;
            Some((&t.name, f))
        }) {
            out.push(RETRY_FAILED_APPROACH.at(
                Some(item.line),
                format!(
                    "the next step \"{}\" retries an approach task `{task}` records as failed: \"{}\"; pick another, or say what is different this time",
                    snippet(&item.text, 60),
                    snippet(failed, 60)
                ),
            ));
        } else if let Some((task, done)) = ctx.task.as_ref().and_then(|t| {
            let d = t.done_steps.iter().find(|d| proposes_again(d, words))?;
            Some((&t.name, d))
        }) {
            out.push(COMPLETION_BLINDNESS.at(
                Some(item.line),
                format!(
                    "the next step \"{}\" is a step task `{task}` marks done (\"{}\"): check before redoing it",
                    snippet(&item.text, 60),
                    snippet(done, 60)
                ),
            ));
        } else if let Some(done) = previous
            .iter()
            .flat_map(|p| p.items_of(SectionKind::Done))
            .find(|d| proposes_again(&d.text, words))
        {
            out.push(COMPLETION_BLINDNESS.at(
                Some(item.line),
                format!(
                    "the next step \"{}\" was listed as done in the previous handoff (\"{}\"): check before redoing it",
                    snippet(&item.text, 60),
                    snippet(&done.text, 60)
                ),
            ));
        }
    }
    let Some(since) = doc
        .date
        .and_then(|d| d.since().and_local_timezone(Local).earliest())
    else {
        return;
    };
    let since = since.with_timezone(&Utc);
    check_waits(doc, &ctx.inbox, since, out);
    if let Some(commits) = &ctx.commits {
        let after = commits.iter().filter(|t| **t > since).count();
        if after >= STALE_AFTER_COMMITS {
            let plus = if after == commits.len() && after >= MAX_COMMITS_READ {
                "+"
            } else {
                ""
            };
            out.push(STALE_HANDOFF.at(
                None,
                format!(
                    "{after}{plus} commits since this handoff was written: the project has moved on; check `git log` and refresh it"
                ),
            ));
        }
    }
}

fn check_waits(
    doc: &HandoffDocument<'_>,
    inbox: &[InboxMessage],
    since: DateTime<Utc>,
    out: &mut Vec<Finding>,
) {
    let fresh: Vec<&InboxMessage> = inbox.iter().filter(|m| m.created > since).collect();
    if fresh.is_empty() {
        return;
    }
    for item in doc.items_of(SectionKind::WaitingOn) {
        let words: HashSet<String> = item
            .text
            .split(|c: char| !c.is_alphanumeric())
            .map(str::to_lowercase)
            .collect();
        let answered = fresh
            .iter()
            .find(|m| sender_words(&m.from).any(|w| words.contains(&w)));
        if let Some(m) = answered {
            out.push(STALE_WAIT.at(
                Some(item.line),
                format!(
                    "waiting on \"{}\", but {} wrote since this handoff ({}/{}): read it and update the wait",
                    snippet(&item.text, 60),
                    m.from,
                    m.queue,
                    m.id
                ),
            ));
        }
    }
}

/// Words of a message file name that could name its sender: letters first,
/// 3+ characters, not a generic word or a timestamp piece.
fn sender_words(name: &str) -> impl Iterator<Item = String> + '_ {
    name.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 3 && w.starts_with(|c: char| c.is_alphabetic()))
        .map(str::to_lowercase)
        .filter(|w| !NOT_A_SENDER.contains(&w.as_str()) && !is_time_piece(w))
}

/// `t103000`-like pieces of an ISO timestamp.
fn is_time_piece(word: &str) -> bool {
    word.strip_prefix('t')
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::handoff::context::PreviousHandoff;

    fn fired(text: &str, ctx: &LintContext) -> Vec<Finding> {
        let doc = HandoffDocument::parse(text);
        let mut out = Vec::new();
        check(&doc, ctx, &mut out);
        out
    }

    fn with_previous(text: &str) -> LintContext {
        LintContext {
            previous: vec![PreviousHandoff {
                source: "prev".into(),
                text: text.into(),
            }],
            ..LintContext::default()
        }
    }

    const PREVIOUS: &str = "# 2026-01-01\n## Done\n- Implemented the retry queue for webhook deliveries (`src/retry.rs`)\n## Failed approaches\n- Raising the HTTP client timeout to 60s -> still times out\n";

    #[test]
    fn completion_blindness_against_the_previous_done() {
        let ctx = with_previous(PREVIOUS);
        let f = fired(
            "# 2026-01-02\n## Next step\nImplement the retry queue for webhook deliveries\n",
            &ctx,
        );
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, "completion-blindness");
        assert_eq!(f[0].line, Some(3));
        let f = fired(
            "# 2026-01-02\n## Next step\nAdd jitter to the backoff in `src/retry.rs`\n",
            &ctx,
        );
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn a_failed_approach_as_next_step_from_either_handoff() {
        let ctx = with_previous(PREVIOUS);
        let f = fired(
            "# 2026-01-02\n## Next step\nRaise the HTTP client timeout to 60s\n",
            &ctx,
        );
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, "retry-failed-approach");
        let own = "# 2026-01-02\n## Failed approaches\n- pinning serde to 1.0.180: breaks derive\n## Next step\nPin serde to 1.0.180 in Cargo.toml\n";
        let f = fired(own, &LintContext::default());
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].rule, "retry-failed-approach");
    }

    #[test]
    fn the_active_task_knows_done_steps_and_failed_approaches() {
        let ctx = LintContext {
            task: Some(crate::domain::handoff::context::TaskContext {
                name: "parser".into(),
                done_steps: vec!["write the lexer for the config parser".into()],
                failed_approaches: vec!["generate the parser with a PEG generator".into()],
            }),
            ..LintContext::default()
        };
        let done = fired(
            "## Next step\n- Write the lexer for the config parser\n",
            &ctx,
        );
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].rule, "completion-blindness");
        assert!(
            done[0].message.contains("task `parser` marks done"),
            "{}",
            done[0].message
        );
        let retry = fired(
            "## Next step\n- Generate the parser with a PEG generator again\n",
            &ctx,
        );
        assert_eq!(retry[0].rule, "retry-failed-approach");
        assert!(fired("## Next step\n- Document the CLI flags\n", &ctx).is_empty());
    }

    #[test]
    fn the_previous_handoff_is_the_first_that_differs() {
        let text = "# 2026-01-02\n## Next step\nImplement the retry queue for webhook deliveries\n";
        let mut ctx = with_previous(PREVIOUS);
        ctx.previous.insert(
            0,
            PreviousHandoff {
                source: "same".into(),
                text: text.into(),
            },
        );
        assert_eq!(fired(text, &ctx).len(), 1);
    }

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    #[test]
    fn waits_answered_in_the_inbox() {
        let ctx = LintContext {
            inbox: vec![
                InboxMessage {
                    queue: "me".into(),
                    id: "20260105T101500.000000000Z-alice-0a1b2c3d".into(),
                    from: "alice".into(),
                    created: at("2026-01-05T10:15:00Z"),
                },
                InboxMessage {
                    queue: "shared".into(),
                    id: "20251201T101500.000000000Z-bob-0a1b2c3d".into(),
                    from: "bob".into(),
                    created: at("2025-12-01T10:15:00Z"),
                },
            ],
            ..LintContext::default()
        };
        let text = "# Handoff 2026-01-02\n## Waiting on\n- Alice: review of the schema PR\n- Bob: the staging credentials\n";
        let f = fired(text, &ctx);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].rule, "stale-wait");
        assert_eq!(f[0].line, Some(3));
        // Written after the message: nothing is stale.
        assert!(fired(&text.replace("2026-01-02", "2026-01-06"), &ctx).is_empty());
        // Undated: cannot tell.
        assert!(fired(&text.replace(" 2026-01-02", ""), &ctx).is_empty());
    }

    #[test]
    fn many_commits_since_make_it_stale() {
        let commits: Vec<_> = (0..STALE_AFTER_COMMITS)
            .map(|i| at("2026-01-10T00:00:00Z") - chrono::Duration::hours(i as i64))
            .collect();
        let mut ctx = LintContext {
            commits: Some(commits),
            ..LintContext::default()
        };
        let f = fired("# 2026-01-02\n", &ctx);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, "stale-handoff");
        assert!(f[0].message.starts_with("10 commits"), "{}", f[0].message);
        assert!(fired("# 2026-01-10 23:00\n", &ctx).is_empty());
        ctx.commits = None;
        assert!(fired("# 2026-01-02\n", &ctx).is_empty());
    }

    #[test]
    fn sender_words_skip_timestamps_and_generic_words() {
        let words: Vec<_> = sender_words("20260105T101500-from-alice--re-schema.md").collect();
        assert_eq!(words, ["alice", "schema"]);
    }
}
