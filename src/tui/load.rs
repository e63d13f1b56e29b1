//! Reading what the dashboard shows, through the engine library (it never
//! reads or writes the workspace's files by itself). Runs off the UI thread.

use std::sync::Arc;

use agent_handover::Workspace;
use agent_handover::agent::hooks::session;
use agent_handover::domain::inbox::{Inbox, QueueSummary};
use agent_handover::domain::memory::diff::StateDiff;
use agent_handover::domain::memory::history::VersionedFile;
use agent_handover::domain::memory::versions::{Version, list_versions, read_version};
use agent_handover::engine::Checkpoint;
use agent_handover::ops::{review, task};
use agent_handover::read::RunSnapshot;
use agent_handover::read::history::{load_runs, summarize};
use agent_handover::read::metrics::sessions;
use agent_handover::workspace::install_record::InstallRecord;

use super::model::{FullData, InboxData, LiveContext, LoadRequest};

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
        quality: Some(review::quality(ws).map_err(|e| e.to_string())),
        metrics: Some(of_runs(&runs, |runs| {
            sessions(runs.iter().cloned().map(Ok), METRICS_LIMIT)
        })),
        tasks: Some(task::list(ws).map_err(|e| e.to_string())),
        context: context(ws),
    }
}

/// The live agent sessions' context, as the fleet's context column reads it.
pub fn context(ws: &Workspace) -> Vec<LiveContext> {
    let warn = agent_handover::domain::capacity::warn_at(ws);
    agent_handover::agent::sessions::live(ws)
        .into_iter()
        .filter_map(|s| {
            let percent = s.context_percent?;
            Some(LiveContext {
                agent: s.agent,
                percent,
                low: percent >= warn,
            })
        })
        .collect()
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
