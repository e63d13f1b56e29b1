//! The live and recent agent sessions of a workspace: what their hooks
//! recorded (`.agent-handover/sessions/`), each with its context read now
//! from the agent's own transcript, and whether work followed its
//! handover (the library's one answer, [`crate::read::work`]). One answer
//! for `agent-handover sessions` and the dashboard.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::agent::adapters;
use crate::agent::hooks::session::{self, SessionRecord};
use crate::domain::capacity::{ContextUse, Windows};
use crate::read::history::{LastHandover, last_handover};
use crate::workspace::Workspace;

/// One session as the supervisor sees it.
#[derive(Debug, Clone, Serialize)]
pub struct SessionView {
    /// The agent.
    pub agent: String,
    /// The agent's session id, if it gave one.
    pub session_id: Option<String>,
    /// When its session-start hook ran.
    pub started_at: DateTime<Utc>,
    /// Why it started (`startup`, `resume`, `compact`, ...).
    pub source: Option<String>,
    /// The newest of: its record written, its transcript written.
    pub last_activity: DateTime<Utc>,
    /// Its context now, when the agent records it where we can read it.
    pub context: Option<ContextUse>,
    /// `context` as a share of the window, when the window is known.
    pub context_percent: Option<u8>,
    /// Compactions seen (pre-compact hooks).
    pub compactions: u32,
    /// When it was asked to hand over, if it was.
    pub asked_at: Option<DateTime<Utc>>,
    /// Whether a handover completed after it started.
    pub handed_over: bool,
    /// Whether it handed over and work followed the handover (the work since
    /// the last handover, [`crate::read::work`]): the memory misses it.
    pub work_since_handover: bool,
    /// Its draft, while no handover has used it.
    pub draft: Option<PathBuf>,
    /// What it was told of its context ("75%", "compacted").
    pub capacity_told: Vec<String>,
    /// The tmux pane it runs in, if any.
    pub tmux_pane: Option<String>,
}

/// Every recorded session of `ws`, the most recently active first.
pub fn sessions(ws: &Workspace) -> crate::Result<Vec<SessionView>> {
    views(ws, |_| true)
}

/// The sessions last active at or after `since` (by their record's and
/// transcript's times, read before any transcript is), most recent first.
fn views(
    ws: &Workspace,
    active_since: impl Fn(SystemTime) -> bool,
) -> crate::Result<Vec<SessionView>> {
    let windows = Windows::with_overrides(&ws.config.capacity.windows);
    let last = last_handover(ws)?;
    let mut views: Vec<SessionView> = session::all(ws)?
        .into_iter()
        .filter_map(|(record, written)| {
            let transcript_written = record.transcript.as_deref().and_then(modified);
            let active = transcript_written.map_or(written, |t| t.max(written));
            active_since(active).then(|| view(ws, record, active, last.as_ref(), &windows))
        })
        .collect();
    // Measured once, and only when a session handed over: the work since
    // the last handover is the same for every session of the work tree.
    if views.iter().any(|v| v.handed_over) {
        let more = !crate::read::work::since(ws, last.as_ref()).is_empty();
        for v in views.iter_mut().filter(|v| v.handed_over) {
            v.work_since_handover = more;
        }
    }
    views.sort_by_key(|v| std::cmp::Reverse(v.last_activity));
    Ok(views)
}

/// How long a session's last activity counts as "now" ([`live`]).
const LIVE_SECS: u64 = 15 * 60;

/// The context of the agent session that is handing over now: the most
/// recently active session of `ws` at work ([`live`]), when its agent
/// records its context. None for a handover typed by a person with no
/// agent at work.
pub fn handing_over_context(ws: &Workspace) -> Option<ContextUse> {
    live(ws).into_iter().next()?.context
}

/// The sessions of `ws` at work now: active in the last quarter of an
/// hour, and not handed over since they started or worked on after their
/// handover, the most recent first.
pub fn live(ws: &Workspace) -> Vec<SessionView> {
    let since = SystemTime::now() - std::time::Duration::from_secs(LIVE_SECS);
    views(ws, |active| active >= since)
        .unwrap_or_default()
        .into_iter()
        .filter(|s| !s.handed_over || s.work_since_handover)
        .collect()
}

fn view(
    ws: &Workspace,
    record: SessionRecord,
    last_activity: SystemTime,
    last_handover: Option<&LastHandover>,
    windows: &Windows,
) -> SessionView {
    let format = adapters::find(&record.agent)
        .ok()
        .and_then(|a| a.protocol.input.transcript)
        .map(|(_, format)| format);
    let context = match (&record.transcript, format) {
        (Some(path), Some(format)) => crate::agent::capacity::read(format, path),
        _ => record.context.clone(),
    }
    .map(|c| c.with_window(windows));
    let draft = record
        .draft
        .as_ref()
        .map(|d| d.path.clone())
        .filter(|path| crate::read::draft::is_pending(ws, path).unwrap_or(false));
    SessionView {
        context_percent: context.as_ref().and_then(ContextUse::percent),
        context,
        handed_over: last_handover.is_some_and(|h| h.finished_at > record.started_at),
        work_since_handover: false,
        last_activity: last_activity.into(),
        draft,
        agent: record.agent,
        session_id: record.session_id,
        started_at: record.started_at,
        source: record.source,
        compactions: record.compactions,
        asked_at: record.asked_at,
        capacity_told: record.capacity_told,
        tmux_pane: record.tmux_pane,
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).ok()?.modified().ok()
}
