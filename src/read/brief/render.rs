//! The brief as Markdown.

use std::fmt::Write as _;

use super::recovery::{Recovery, RecoveryState, capitalized};
use super::{ActiveTask, Brief, Excerpt, History, Mail, Metrics};
use crate::engine::sync::SyncState;

/// Render `b` as the Markdown an agent reads.
pub fn markdown(b: &Brief) -> String {
    let mut out = format!(
        "# Session brief for {}\n\n_{} · `agent-handover brief` · ~{} of {} tokens_\n\n",
        b.agent,
        b.generated_at.format("%Y-%m-%d %H:%M UTC"),
        b.estimated_tokens,
        b.max_tokens
    );
    let mut number = 0;
    let mut heading = |out: &mut String, title: &str| {
        number += 1;
        let gap = if number == 1 { "" } else { "\n" };
        let _ = write!(out, "{gap}## {number}. {title}\n\n");
    };
    heading(&mut out, "Recovery");
    recovery(&mut out, &b.recovery);
    heading(&mut out, &format!("Messages for {}", b.agent));
    mail(&mut out, &b.mail);
    heading(&mut out, "Current state");
    excerpt(&mut out, &b.current_state, "current state");
    if !b.workstreams.is_empty() {
        heading(&mut out, "Other workstreams");
        workstreams(&mut out, b);
    }
    if let Some(t) = &b.task {
        heading(&mut out, "Active task");
        task(&mut out, t);
    }
    if let Some(m) = &b.metrics {
        heading(&mut out, "Metrics");
        metrics(&mut out, m);
    }
    if let Some(i) = &b.identity {
        heading(&mut out, "Identity");
        excerpt(&mut out, i, "identity");
    }
    if let Some(i) = &b.index {
        heading(&mut out, "Memory index");
        excerpt(&mut out, i, "memory index");
    }
    if let Some(h) = &b.history {
        heading(&mut out, "History");
        history(&mut out, h);
    }
    heading(&mut out, "Next step");
    for (i, step) in b.next_steps.iter().enumerate() {
        let _ = writeln!(out, "{}. {step}", i + 1);
    }
    if !b.omitted.is_empty() {
        let _ = write!(
            out,
            "\n_Left out to fit {} tokens: {}._\n",
            b.max_tokens,
            b.omitted.join("; ")
        );
    }
    out
}

fn workstreams(out: &mut String, b: &Brief) {
    let _ = writeln!(
        out,
        "Other agents work on these branches of the repository; leave their next steps to them:\n"
    );
    for w in &b.workstreams {
        let when = w
            .updated
            .map(|t| format!(", state of {}", t.format("%Y-%m-%d %H:%M UTC")))
            .unwrap_or_default();
        let step = w.next_step.as_deref().map_or_else(
            || "no next step written".to_string(),
            |s| format!("next: {s}"),
        );
        let _ = writeln!(out, "- `{}`{when}: {step}", w.name);
    }
}

fn recovery(out: &mut String, r: &Recovery) {
    let run = r
        .run_id
        .as_deref()
        .map(|id| format!(" ({id})"))
        .unwrap_or_default();
    let pending = r.pending.join(", ");
    let line = match r.state {
        RecoveryState::NoHandover => "No handover recorded yet: nothing to recover.".to_string(),
        RecoveryState::Completed => format!(
            "The last handover{run} completed{}: nothing to recover.",
            r.finished_at
                .as_deref()
                .map(|t| format!(" at {}", t.get(..16).unwrap_or(t)))
                .unwrap_or_default()
        ),
        RecoveryState::Interrupted => {
            format!("**The last handover{run} was interrupted.** Not done: {pending}.")
        }
        RecoveryState::Queued => {
            "No handover in progress; handovers wait in the queue (below).".to_string()
        }
        RecoveryState::Running => format!(
            "**A handover{run} is being executed right now** by {}. Not done yet: {pending}.",
            r.lock_holder.as_deref().unwrap_or("another process")
        ),
        RecoveryState::Abandoned => match &r.abandoned {
            Some(a) => format!(
                "The last handover{run} was abandoned by {} at {}{}; its files are kept. Nothing to recover.",
                a.by,
                a.at.format("%Y-%m-%d %H:%M UTC"),
                a.reason
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default()
            ),
            None => format!("The last handover{run} was abandoned. Nothing to recover."),
        },
        RecoveryState::Unreadable => format!(
            "**The checkpoint cannot be read:** {}",
            r.error.as_deref().unwrap_or("unknown error")
        ),
    };
    if let Some(sync) = &r.sync {
        let line = match sync.state {
            SyncState::Synced => format!("Memory synced: {}.", sync.detail),
            SyncState::Offline => format!(
                "**Offline:** {}; the memory below is this machine's as it was.",
                sync.detail
            ),
            SyncState::Local => format!("Not synced: {}.", sync.detail),
            SyncState::NotSynced => format!("**Not synced:** {}", sync.detail),
        };
        let _ = writeln!(out, "- {line}");
    }
    let _ = writeln!(out, "- {line}");
    for d in &r.drift {
        let _ = writeln!(
            out,
            "- **{} drift** {}: {} of {} superseded by a newer text; see `{}`.",
            capitalized(d.file.command()),
            d.at.format("%Y-%m-%d %H:%M UTC"),
            d.section_names(),
            d.from,
            d.diff_command()
        );
    }
    if !r.queued.is_empty() {
        let _ = writeln!(
            out,
            "- **Queued behind it:** {} (staged, waiting their turn).",
            r.queued.join(", ")
        );
    }
    if !r.needs_human.is_empty() {
        let _ = writeln!(
            out,
            "- **Needs a decision:** {} stopped halfway and may not be safe to run twice.",
            r.needs_human.join(", ")
        );
    }
    if let Some(p) = &r.paused {
        let _ = writeln!(
            out,
            "- **Automation is paused** by `{}`{}.",
            p.file.display(),
            p.reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        );
    }
}

fn mail(out: &mut String, m: &Mail) {
    if let Some(e) = &m.error {
        let _ = writeln!(out, "**The inbox cannot be read:** {e}");
        return;
    }
    if m.unread == 0 {
        out.push_str("No unread messages.\n");
        return;
    }
    let _ = writeln!(out, "{} unread, newest first:\n", m.unread);
    for s in &m.shown {
        let to = if s.queue == "shared" {
            " to shared"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "- **{}** from {}{to}, {} (`{}`)",
            s.subject,
            s.from,
            s.created.format("%Y-%m-%d %H:%M UTC"),
            s.id
        );
        if !s.preview.is_empty() && s.preview != s.subject {
            let _ = writeln!(out, "  > {}", s.preview);
        }
    }
    let more = m.unread - m.shown.len();
    if more > 0 {
        let which = if m.shown.is_empty() {
            "none shown".to_string()
        } else {
            format!("… and {more} older")
        };
        let _ = writeln!(out, "- {which}: `agent-handover inbox list --unread`");
    }
}

fn excerpt(out: &mut String, s: &Excerpt, noun: &str) {
    if let Some(e) = &s.error {
        let _ = writeln!(out, "**The {noun} cannot be read:** {e}");
        return;
    }
    if let Some(c) = &s.conflict {
        let _ = writeln!(out, "**Not shown:** {c}.");
        return;
    }
    let Some(text) = &s.text else {
        let what = if s.truncated {
            "Left out to fit the budget".to_string()
        } else {
            format!("No {noun} yet")
        };
        let _ = writeln!(out, "{what}: `{}`.", s.path.display());
        return;
    };
    let _ = writeln!(out, "From `{}`:\n", s.path.display());
    out.push_str(text.trim_end());
    out.push('\n');
    if s.truncated {
        let _ = writeln!(
            out,
            "\n_… cut at line {} of {}; the rest is in the file._",
            s.shown_lines, s.total_lines
        );
    }
}

fn task(out: &mut String, t: &ActiveTask) {
    if let Some(e) = &t.error {
        let _ = writeln!(out, "**The task files cannot be read:** {e}");
        return;
    }
    let _ = writeln!(
        out,
        "`{}` ({} of {} steps done; `{}`):\n",
        t.name,
        t.done,
        t.steps,
        t.path.display()
    );
    match &t.next_step {
        Some((n, step)) => {
            let _ = writeln!(out, "- **Next pending step:** {n}. {step}");
        }
        None => out.push_str("- No step left: mark it done with `agent-handover task done`.\n"),
    }
    for b in &t.blockers {
        let _ = writeln!(out, "- **Blocker:** {b}");
    }
    if t.failed_omitted {
        let _ = writeln!(
            out,
            "- {} failed approaches left out: `agent-handover task show {}`",
            t.failed_approaches.len(),
            t.name
        );
    } else {
        for f in &t.failed_approaches {
            let _ = writeln!(out, "- **Do not retry:** {f}");
        }
    }
}

fn history(out: &mut String, h: &History) {
    if let Some(e) = &h.error {
        let _ = writeln!(out, "**The session notes cannot be read:** {e}");
        return;
    }
    if h.notes.is_empty() {
        out.push_str("No session notes yet.\n");
    }
    for (i, note) in h.notes.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        excerpt(out, note, "session note");
    }
}

fn metrics(out: &mut String, m: &Metrics) {
    if let Some(e) = &m.error {
        let _ = writeln!(out, "**The run records cannot be read:** {e}");
        return;
    }
    if m.omitted {
        out.push_str("Left out to fit the budget: `agent-handover metrics`.\n");
        return;
    }
    let when = m
        .started_at
        .as_deref()
        .map(|t| format!(" of {}", t.get(..16).unwrap_or(t)))
        .unwrap_or_default();
    let run = m
        .run_id
        .as_deref()
        .map(|id| format!(" (`{id}`)"))
        .unwrap_or_default();
    let compared = if m.changes.iter().any(|c| c.previous.is_some()) {
        "; the change since the one before in parentheses"
    } else {
        ""
    };
    let _ = writeln!(out, "Measured by the handover{when}{run}{compared}:\n");
    for c in &m.changes {
        let _ = writeln!(out, "- {}", c.describe());
    }
    if m.changes.is_empty() {
        out.push_str("- No numbers found in the output.\n");
    }
    if !m.failed.is_empty() {
        let _ = writeln!(
            out,
            "- **Failed:** {}; its numbers may be missing or partial.",
            m.failed.join("; ")
        );
    }
}
