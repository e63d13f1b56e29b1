//! Reading what the dashboard shows, through the engine library (it never
//! reads or writes the workspace's files by itself). Runs off the UI thread.

use std::sync::Arc;

use agent_handover::Workspace;
use agent_handover::agent::hooks::session;
use agent_handover::base::{fsx, secrets};
use agent_handover::domain::handoff::context::newest_note;
use agent_handover::domain::handoff::{LintContext, lint};
use agent_handover::domain::inbox::{Inbox, QueueSummary};
use agent_handover::domain::memory::diff::StateDiff;
use agent_handover::domain::memory::history::VersionedFile;
use agent_handover::domain::memory::versions::{Version, list_versions, read_version};
use agent_handover::domain::memory::{MAX_MEMORY_FILE_BYTES, MemoryStore};
use agent_handover::domain::task::TaskStore;
use agent_handover::engine::Checkpoint;
use agent_handover::read::RunSnapshot;
use agent_handover::read::history::{latest_previous_handoff, load_runs, summarize};
use agent_handover::read::metrics::sessions;
use agent_handover::workspace::install_record::InstallRecord;

use super::model::{FullData, InboxData, LoadRequest, QualityData, Reviewed};

/// How many past runs the timeline shows.
pub const TIMELINE_LIMIT: usize = 500;

/// The run snapshot (cheap: the checkpoint, PAUSE and the lock).
pub fn run(ws: &Workspace) -> Result<RunSnapshot, String> {
    RunSnapshot::load(ws).map_err(|e| e.to_string())
}

/// How many messages of one agent the inbox view lists.
pub const MESSAGES_SHOWN: usize = 200;

/// How many of the newest measured sessions the metrics view plots.
pub const METRICS_LIMIT: usize = 200;

/// Everything else, as `request` asks.
pub fn full(ws: &Workspace, request: &LoadRequest) -> FullData {
    // The run records are read once, for the timeline and the metrics.
    let runs = load_runs(ws).map_err(|e| e.to_string());
    FullData {
        runs: Some(of_runs(&runs, |runs| Ok(summarize(runs, TIMELINE_LIMIT)))),
        versions: Some(list_versions(ws, VersionedFile::CurrentState).map_err(|e| e.to_string())),
        inbox: Some(inbox(ws, request.inbox_agent.as_deref()).map_err(|e| e.to_string())),
        quality: Some(quality(ws).map_err(|e| e.to_string())),
        metrics: Some(of_runs(&runs, |runs| {
            sessions(runs.iter().cloned().map(Ok), METRICS_LIMIT)
        })),
        tasks: Some(
            TaskStore::new(ws.tasks_dir())
                .list()
                .map_err(|e| e.to_string()),
        ),
    }
}

/// What `derive` makes of the run records, or why they could not be read.
fn of_runs<T>(
    runs: &Result<Vec<Checkpoint>, String>,
    derive: impl FnOnce(&[Checkpoint]) -> agent_handover::Result<T>,
) -> Result<T, String> {
    let runs = runs.as_ref().map_err(Clone::clone)?;
    derive(runs).map_err(|e| e.to_string())
}

/// The agents installed in `ws` and the one whose session started last.
fn own_agents(ws: &Workspace) -> std::collections::BTreeSet<String> {
    let mut agents = InstallRecord::load(&ws.install_record())
        .map(|r| r.agents())
        .unwrap_or_default();
    agents.extend(session::newest(ws, |_| true).map(|r| r.agent));
    agents
}

/// The inbox as `agent` sees it (default: the first agent).
fn inbox(ws: &Workspace, agent: Option<&str>) -> agent_handover::Result<InboxData> {
    let inbox = Inbox::new(ws);
    let mut queues = inbox.queues()?;
    // The workspace's own agents are offered before anyone wrote to them.
    for own in own_agents(ws) {
        if !queues.iter().any(|q| q.agent == own) {
            queues.push(QueueSummary {
                agent: own,
                total: 0,
                unread: 0,
            });
        }
    }
    let agent = agent
        .filter(|a| queues.iter().any(|q| q.agent == *a))
        .or_else(|| {
            queues
                .iter()
                .map(|q| q.agent.as_str())
                .find(|a| *a != "shared")
        })
        .map(str::to_string);
    let page = inbox.page(agent.as_deref(), false, MESSAGES_SHOWN)?;
    // `shared` counted as the agent shown reads it (by its own marks), as
    // its message list shows it, not as "read by anyone".
    if let Some(a) = &agent {
        let unread_by_agent = inbox.page(Some(a), true, 0)?.total;
        let own = queues
            .iter()
            .find(|q| q.agent == *a)
            .map_or(0, |q| q.unread);
        if let Some(shared) = queues.iter_mut().find(|q| q.agent == "shared") {
            shared.unread = unread_by_agent.saturating_sub(own);
        }
    }
    Ok(InboxData {
        queues,
        agent,
        messages: page.messages,
        total: page.total,
    })
}

/// The current state and the latest session note, scored as the next
/// session would get them (`None`: no current state yet).
fn quality(ws: &Workspace) -> agent_handover::Result<Option<QualityData>> {
    let store = MemoryStore::new(ws.memory.clone(), ws.state_history_dir());
    let Some(text) = store.read_current_state()? else {
        return Ok(None);
    };
    let ctx = LintContext::for_workspace(ws);
    // Scored as written, shown redacted (line for line), as `lint` shows it.
    let shown = |text: &str| secrets::redact_keeping_lines(text).into_owned();
    let mut docs = vec![Reviewed {
        title: "current state",
        path: ws.memory.current_state(),
        report: lint(&text, &ctx),
        text: shown(&text),
    }];
    if let Some(path) = newest_note(&ws.memory.layer1_dir())
        && let Some(text) = fsx::read_text_bounded(&path, MAX_MEMORY_FILE_BYTES, "move it aside")?
    {
        docs.push(Reviewed {
            title: "latest session note",
            report: lint(&text, &ctx),
            path,
            text: shown(&text),
        });
    }
    Ok(Some(QualityData {
        docs,
        min_score: ws.config.handover.min_score.unwrap_or(0),
        previous: latest_previous_handoff(ws),
    }))
}

/// A past run whole, for the Timeline's Enter: its state, each step with
/// its error and output, the session note it wrote with that note's score
/// and worst findings, how useful the handoff it started from was, and the
/// context of the session that handed over. Secrets redacted.
pub fn run_details(ws: &Workspace, id: &str) -> (String, Vec<String>) {
    let title = format!("Run {id}");
    let runs = match load_runs(ws) {
        Ok(runs) => runs,
        Err(e) => return (title, vec![e.to_string()]),
    };
    let Some(cp) = runs.iter().find(|c| c.run_id.as_deref() == Some(id)) else {
        return (
            title,
            vec![format!("no run {id} in this workspace's records")],
        );
    };
    let snap = RunSnapshot::of(ws, cp);
    let mut lines = vec![format!("state: {}", snap.state.describe())];
    if let Some(s) = summarize(std::slice::from_ref(cp), 1).into_iter().next() {
        lines.push(format!(
            "started {} · finished {} · {} of {} steps done",
            s.started_at.as_deref().unwrap_or("?"),
            s.finished_at.as_deref().unwrap_or("—"),
            s.steps_done,
            s.steps_total
        ));
        if let Some(u) = &s.previous_handoff {
            lines.push(format!("the handoff it started from: {}", u.describe()));
        }
        if let Some(c) = &s.context {
            lines.push(format!("context at hand-over: {}", c.describe()));
        }
        if let Some(a) = &s.abandoned {
            lines.push(format!("abandoned: {a}"));
        }
    }
    lines.push(String::new());
    let mut note = None;
    for step in &snap.steps {
        lines.push(format!(
            "{} — {} ({} attempt{})",
            step.name,
            step.state.as_str(),
            step.attempts,
            if step.attempts == 1 { "" } else { "s" }
        ));
        if let Some(e) = &step.last_error {
            lines.extend(secrets::redact(e).lines().map(|l| format!("    {l}")));
        }
        if let Some(o) = &step.output {
            lines.extend(secrets::redact(o).lines().map(|l| format!("    {l}")));
            if step.name == "session_note" {
                note = o.lines().next().map(|p| ws.root.join(p.trim()));
            }
        }
    }
    if let Some(path) = note
        && let Ok(Some(text)) = fsx::read_text_bounded(&path, MAX_MEMORY_FILE_BYTES, "")
    {
        let report = lint(&text, &LintContext::for_workspace(ws));
        lines.push(String::new());
        lines.push(format!(
            "its session note {}: score {}/100{}",
            path.strip_prefix(&ws.root).unwrap_or(&path).display(),
            report.score,
            report
                .low_confidence
                .as_ref()
                .map(|w| format!(" (low confidence: {w})"))
                .unwrap_or_default()
        ));
        let mut worst: Vec<_> = report.findings.iter().filter(|f| f.points > 0).collect();
        worst.sort_by_key(|f| std::cmp::Reverse(f.points));
        for f in worst.iter().take(3) {
            lines.push(format!("  -{} {}", f.points, f));
        }
        lines.push(String::new());
        lines.extend(secrets::redact(&text).lines().map(str::to_string));
    }
    (title, lines)
}

/// One message whole (body redacted by the library), for the reader.
pub fn message(ws: &Workspace, id: &str) -> Result<agent_handover::domain::inbox::Message, String> {
    Inbox::new(ws).read(id).map_err(|e| e.to_string())
}

/// The diff between two versions.
pub fn diff(ws: &Workspace, from: &Version, to: &Version) -> Result<Arc<StateDiff>, String> {
    let old = read_version(ws, VersionedFile::CurrentState, from).map_err(|e| e.to_string())?;
    let new = read_version(ws, VersionedFile::CurrentState, to).map_err(|e| e.to_string())?;
    Ok(Arc::new(StateDiff::new(old, new)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_handover::WorkspaceOptions;
    use agent_handover::domain::inbox::NewMessage;

    /// Issue 14, seen 9: the queue list said "shared 0/1" (read by someone)
    /// while the agent's list showed the message unread.
    #[test]
    fn shared_is_counted_as_the_agent_shown_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::resolve(WorkspaceOptions {
            cwd: Some(dir.path().to_path_buf()),
            home: Some(dir.path().join("home")),
            ..Default::default()
        })
        .unwrap();
        let inbox = Inbox::new(&ws);
        let send = |to: &str| {
            inbox
                .send(&NewMessage {
                    from: "lead".into(),
                    to: to.into(),
                    body: "freeze".into(),
                    ..NewMessage::default()
                })
                .unwrap()
        };
        let shared = send("shared");
        send("codex");
        send("claude");
        inbox
            .mark_read("claude", &[format!("shared/{}", shared.id)])
            .unwrap();
        let data = super::inbox(&ws, Some("codex")).unwrap();
        let row = |name: &str| data.queues.iter().find(|q| q.agent == name).unwrap().unread;
        assert_eq!(row("shared"), 1, "codex has not read it");
        assert_eq!(
            data.messages.iter().filter(|m| !m.read).count(),
            row("shared") + row("codex")
        );
        let data = super::inbox(&ws, Some("claude")).unwrap();
        let shared_row = data.queues.iter().find(|q| q.agent == "shared").unwrap();
        assert_eq!(shared_row.unread, 0);
    }
}
