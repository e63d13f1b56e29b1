//! Section 1 of the brief: what the last handover left behind, and what to
//! do about it.

use serde::Serialize;

use crate::engine::checkpoint::Abandonment;
use crate::engine::lock::RunLock;
use crate::engine::pause::{PauseInfo, active_pause};
use crate::engine::queue::RunQueue;
use crate::engine::{RunSnapshot, RunStatus};
use crate::memory::history::{Drift, StateHistory};
use crate::sync::{self, SyncReport};
use crate::workspace::Workspace;

/// Where the last handover stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryState {
    /// No handover was ever recorded.
    NoHandover,
    /// The last handover finished.
    Completed,
    /// The last handover stopped halfway and nobody is finishing it.
    Interrupted,
    /// A handover is being executed right now by another process.
    Running,
    /// The last handover was given up; its files are kept.
    Abandoned,
    /// The checkpoint cannot be read.
    Unreadable,
}

/// Section 1 of the brief.
#[derive(Debug, Clone, Serialize)]
pub struct Recovery {
    /// The verdict.
    pub state: RecoveryState,
    /// The run's id, if it has one.
    pub run_id: Option<String>,
    /// When the last run finished, if it did.
    pub finished_at: Option<String>,
    /// Steps not done.
    pub pending: Vec<String>,
    /// Interrupted steps that are not safe to re-run blindly.
    pub needs_human: Vec<String>,
    /// The active PAUSE file, if any.
    pub paused: Option<PauseInfo>,
    /// Who executes the run right now, if anyone.
    pub lock_holder: Option<String>,
    /// Who abandoned the last run, when and why.
    pub abandoned: Option<Abandonment>,
    /// Why the checkpoint cannot be read (with the fix).
    pub error: Option<String>,
    /// Handovers staged behind the last one, waiting their turn (run ids, oldest first).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queued: Vec<String>,
    /// The sync made first (`[backend].sync_before_brief`), if one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncReport>,
    /// Recent state drift: merges of the last week that superseded text of
    /// current-state.md (newest first, at most three).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub drift: Vec<Drift>,
}

/// How far back the brief looks for state drift.
const DRIFT_DAYS: i64 = 7;
/// Drift records the brief names at most.
const DRIFT_SHOWN: usize = 3;

/// The drift of the last [`DRIFT_DAYS`], newest first, at most [`DRIFT_SHOWN`].
pub fn recent_drift(ws: &Workspace) -> Vec<Drift> {
    let since = chrono::Utc::now() - chrono::Duration::days(DRIFT_DAYS);
    StateHistory::new(ws.state_history_dir())
        .drifts()
        .into_iter()
        .filter(|d| d.at >= since)
        .take(DRIFT_SHOWN)
        .collect()
}

/// Look at the checkpoint, the PAUSE files and the run lock; returns the
/// section and the next steps it calls for, most urgent first.
pub fn gather(ws: &Workspace) -> (Recovery, Vec<String>) {
    let sync = sync::before_brief(ws);
    let mut recovery = match RunSnapshot::load(ws) {
        Ok(snap) => from_snapshot(snap),
        Err(e) => Recovery {
            state: RecoveryState::Unreadable,
            run_id: None,
            finished_at: None,
            pending: Vec::new(),
            needs_human: Vec::new(),
            paused: active_pause(&ws.pause_files()),
            lock_holder: RunLock::holder(&ws.lock_file()),
            abandoned: None,
            error: Some(e.to_string()),
            queued: RunQueue::of(ws)
                .views(ws)
                .into_iter()
                .map(|q| q.run_id)
                .collect(),
            sync: None,
            drift: Vec::new(),
        },
    };
    recovery.sync = sync;
    recovery.drift = recent_drift(ws);
    let steps = next_steps(&recovery);
    (recovery, steps)
}

fn from_snapshot(snap: RunSnapshot) -> Recovery {
    let state = match snap.status {
        RunStatus::InProgress if snap.pending.is_empty() => RecoveryState::Completed,
        RunStatus::InProgress if snap.lock_holder.is_some() => RecoveryState::Running,
        RunStatus::InProgress => RecoveryState::Interrupted,
        RunStatus::Completed => RecoveryState::Completed,
        RunStatus::Abandoned => RecoveryState::Abandoned,
        _ => RecoveryState::NoHandover,
    };
    let needs_human = snap
        .steps
        .iter()
        .filter(|s| s.needs_human)
        .map(|s| s.name.clone())
        .collect();
    Recovery {
        state,
        run_id: snap.run_id,
        finished_at: snap.finished_at,
        pending: snap.pending,
        needs_human,
        paused: snap.paused,
        lock_holder: snap.lock_holder,
        abandoned: snap.abandoned,
        error: None,
        queued: snap.queued.into_iter().map(|q| q.run_id).collect(),
        sync: None,
        drift: Vec::new(),
    }
}

fn next_steps(r: &Recovery) -> Vec<String> {
    let mut steps = Vec::new();
    if let Some(p) = &r.paused {
        steps.push(format!(
            "Automation is paused by `{}`: run no handover until a human removes it (`agent-handover unpause`); ask before you do.",
            p.file.display()
        ));
    }
    match r.state {
        RecoveryState::Unreadable => steps.push(
            "Repair or move aside the checkpoint (see Recovery) before running a handover."
                .to_string(),
        ),
        RecoveryState::Running => steps.push(
            "Let the running handover finish (`agent-handover status` shows progress); do not start another."
                .to_string(),
        ),
        RecoveryState::Interrupted if !r.needs_human.is_empty() => steps.push(format!(
            "Decide about {}: `agent-handover retry <step>` if running it again is safe, else `agent-handover abandon --reason \"...\"`.",
            r.needs_human.join(", ")
        )),
        RecoveryState::Interrupted if r.run_id.is_none() => steps.push(
            "Finish the interrupted handover (written by agent-handover 0.5.x): `agent-handover run --config <your handover.toml>`."
                .to_string(),
        ),
        RecoveryState::Interrupted => steps.push(
            "Finish the interrupted handover first: `agent-handover resume` (done steps are not redone)."
                .to_string(),
        ),
        RecoveryState::NoHandover | RecoveryState::Completed | RecoveryState::Abandoned => {}
    }
    if let Some(d) = r.drift.first() {
        steps.push(format!(
            "Check the state drift: a merge kept the newer text of {} and superseded {}'s (`{}`); fix current-state.md if the newer text lost something.",
            d.sections.join(", "),
            d.from,
            d.diff_command()
        ));
    }
    if !r.queued.is_empty() && r.state != RecoveryState::Running {
        steps.push(format!(
            "Run the {} handover(s) queued behind it: `agent-handover resume` (their notes are staged; do not write them again).",
            r.queued.len()
        ));
    }
    steps
}
