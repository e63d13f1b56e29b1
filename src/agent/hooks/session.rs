//! Per-session records of the agents' hooks, in `.agent-handover/sessions/`:
//! when the session started (so "a handover was written this session" can
//! be told) and the work tree as it found it (so only this session's work
//! counts), whether its stop hook already asked for a handover and about
//! the work since what (so it asks once per new piece of work: once before
//! the session hands over, once after each handover of its own that more
//! work followed, whatever the agent reports), and its one draft.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use crate::base::error::{Error, Result};
use crate::base::fsx;
use crate::domain::capacity::ContextUse;
use crate::workspace::Workspace;
use crate::workspace::activity::Baseline;

/// Records kept; the oldest are removed beyond this.
const KEEP: usize = 200;
/// Largest record read.
const MAX_BYTES: u64 = 64 * 1024;

/// One agent session as its hooks saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The agent.
    pub agent: String,
    /// The agent's session id, if it gave one.
    pub session_id: Option<String>,
    /// When its session-start hook ran.
    pub started_at: DateTime<Utc>,
    /// Why it started (`startup`, `resume`, ...).
    pub source: Option<String>,
    /// The tmux pane the agent runs in (`$TMUX_PANE`), if any.
    pub tmux_pane: Option<String>,
    /// When its stop hook last asked for a handover, if it did.
    pub asked_at: Option<DateTime<Utc>>,
    /// The handover (its run id) whose later work the stop hook asked
    /// about; absent: the work since the session started (or a record
    /// older than this key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_after: Option<String>,
    /// The work tree when it started (absent in records of 0.6.0 and of
    /// sessions whose start was not seen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Baseline>,
    /// Its draft, if a hook saved one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft: Option<SessionDraft>,
    /// The agent's transcript, where its context use is read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<PathBuf>,
    /// Its context as its hooks were last told it, for an agent whose
    /// transcript we do not read (OpenCode's plugin passes it at each idle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextUse>,
    /// How many times its context was compacted (pre-compact hooks seen).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub compactions: u32,
    /// What it was told of its context, once each: the threshold it
    /// crossed ("75%"), and "compacted" after its first compaction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capacity_told: Vec<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The one draft of a session: updated in place while nobody edited it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionDraft {
    /// The file.
    pub path: PathBuf,
    /// SHA-1 (hex) of the text a hook last wrote there: another text means
    /// the agent has been completing it, and it is left alone.
    pub written: String,
}

impl SessionRecord {
    /// A record of `agent`'s session `id` whose start was not seen.
    pub fn unseen(agent: &str, id: Option<&str>) -> Self {
        SessionRecord {
            agent: agent.to_string(),
            session_id: id.map(String::from),
            started_at: Utc::now(),
            source: None,
            tmux_pane: None,
            asked_at: None,
            asked_after: None,
            baseline: None,
            draft: None,
            transcript: None,
            context: None,
            compactions: 0,
            capacity_told: Vec::new(),
        }
    }
}

/// SHA-1 (hex) of `text`, as [`SessionDraft::written`] keeps it.
pub fn text_hash(text: &str) -> String {
    Sha1::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The record file of `agent`'s session `id` (ids are hashed: they come from outside).
fn file(ws: &Workspace, agent: &str, id: Option<&str>) -> PathBuf {
    let digest = Sha1::digest(id.unwrap_or("").as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    ws.sessions_dir().join(format!("{agent}-{hex}.json"))
}

/// The record of `agent`'s session `id`, if its hooks saw it start.
pub fn load(ws: &Workspace, agent: &str, id: Option<&str>) -> Result<Option<SessionRecord>> {
    let path = file(ws, agent, id);
    let Some(text) = fsx::read_text_within(
        &ws.root,
        &path,
        MAX_BYTES,
        "remove the oversized session record",
    )?
    else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| Error::Corrupt {
            path,
            detail: format!("invalid session record ({e})"),
            fix: "remove it; the next session start writes a new one".into(),
        })
}

/// Save `record` atomically, keeping the newest [`KEEP`] records.
pub fn save(ws: &Workspace, record: &SessionRecord) -> Result<()> {
    fsx::check_name("agent", &record.agent)?;
    let dir = ws.sessions_dir();
    fsx::create_dir_durable(&dir)?;
    let text = serde_json::to_string_pretty(record).expect("record serializes") + "\n";
    fsx::write_atomic(
        &file(ws, &record.agent, record.session_id.as_deref()),
        text.as_bytes(),
    )?;
    prune(&dir);
    Ok(())
}

/// The newest session record (by when it was written) that `wanted`
/// accepts, reading newest first and stopping at the first; unreadable
/// records are skipped. For the dashboard: who works here and in which
/// tmux pane.
pub fn newest(ws: &Workspace, wanted: impl Fn(&SessionRecord) -> bool) -> Option<SessionRecord> {
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(ws.sessions_dir())
        .ok()?
        .flatten()
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .filter(|(_, p)| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort_by(|a, b| b.cmp(a));
    files.into_iter().find_map(|(_, path)| {
        let text = fsx::read_text_bounded(&path, MAX_BYTES, "remove it").ok()??;
        serde_json::from_str::<SessionRecord>(&text)
            .ok()
            .filter(|r| wanted(r))
    })
}

/// Every readable session record of `ws`, with when it was last written;
/// unreadable ones are skipped (the next session start replaces them).
pub fn all(ws: &Workspace) -> Result<Vec<(SessionRecord, std::time::SystemTime)>> {
    let entries = match std::fs::read_dir(ws.sessions_dir()) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io("read the sessions folder", ws.sessions_dir(), e)),
    };
    Ok(entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| {
            let written = e.metadata().ok()?.modified().ok()?;
            let text = fsx::read_text_bounded(&e.path(), MAX_BYTES, "remove it").ok()??;
            Some((serde_json::from_str(&text).ok()?, written))
        })
        .collect())
}

fn prune(dir: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    // Records only: the stop hooks' lock file stays (it must never change inode).
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .filter(|(_, p)| p.extension().is_some_and(|x| x == "json"))
        .collect();
    if files.len() <= KEEP {
        return;
    }
    files.sort();
    for (_, path) in &files[..files.len() - KEEP] {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_record_with_a_tmux_pane_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::in_dir(dir.path());
        assert_eq!(newest(&ws, |_| true), None, "no sessions folder");
        let record = |agent: &str, pane: Option<&str>| SessionRecord {
            agent: agent.into(),
            session_id: Some(agent.into()),
            started_at: Utc::now(),
            source: None,
            tmux_pane: pane.map(Into::into),
            ..SessionRecord::unseen(agent, Some(agent))
        };
        save(&ws, &record("claude", Some("%3"))).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        save(&ws, &record("codex", None)).unwrap();
        assert_eq!(newest(&ws, |_| true).unwrap().agent, "codex");
        let paned = newest(&ws, |r| r.tmux_pane.is_some()).unwrap();
        assert_eq!(paned.tmux_pane.as_deref(), Some("%3"));
    }

    #[test]
    fn records_round_trip_per_agent_and_session() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::in_dir(dir.path());
        let r = SessionRecord {
            agent: "claude".into(),
            session_id: Some("../../etc/passwd".into()),
            started_at: Utc::now(),
            source: Some("startup".into()),
            ..SessionRecord::unseen("claude", None)
        };
        save(&ws, &r).unwrap();
        assert_eq!(
            load(&ws, "claude", Some("../../etc/passwd")).unwrap(),
            Some(r)
        );
        assert_eq!(load(&ws, "codex", Some("../../etc/passwd")).unwrap(), None);
        assert_eq!(load(&ws, "claude", Some("other")).unwrap(), None);
    }
}
