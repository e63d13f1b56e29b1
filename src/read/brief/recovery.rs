//! Section 1 of the brief: what the last handover left behind, and what to
//! do about it.

use serde::Serialize;

use crate::domain::memory::history::{self, Drift};
use crate::engine::checkpoint::Abandonment;
use crate::engine::lock::RunLock;
use crate::engine::pause::PauseInfo;
use crate::engine::sync::{self, SyncReport};
use crate::read::{Condition, NextAction, RunSnapshot, RunState, run_state};
use crate::workspace::Workspace;

/// Where the last handover stands: the run state's condition in the
/// brief's words ([`RecoveryState::of`]; the run state decides).
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
    /// Handovers wait in the queue, none in progress.
    Queued,
    /// The last handover was given up; its files are kept.
    Abandoned,
    /// The checkpoint cannot be read.
    Unreadable,
}

impl RecoveryState {
    /// The brief's word for `state`'s condition.
    pub fn of(state: &RunState) -> Self {
        match state.condition {
            Condition::None => RecoveryState::NoHandover,
            Condition::Running { .. } => RecoveryState::Running,
            Condition::Interrupted { .. }
            | Condition::Lingering { .. }
            | Condition::NeedsDecision { .. }
            | Condition::Failed { .. }
            | Condition::Newer { .. }
            | Condition::Legacy { .. } => RecoveryState::Interrupted,
            Condition::Queued { .. } => RecoveryState::Queued,
            Condition::Completed { .. } => RecoveryState::Completed,
            Condition::Abandoned { .. } => RecoveryState::Abandoned,
            Condition::Unreadable { .. } => RecoveryState::Unreadable,
        }
    }
}

/// Section 1 of the brief.
#[derive(Debug, Clone, Serialize)]
pub struct Recovery {
    /// The verdict, in the brief's words.
    pub state: RecoveryState,
    /// The run state it comes from, with the next action.
    pub run: RunState,
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
    /// Recent drift: merges of the last week that superseded text of
    /// current-state.md or identity.md (newest first, at most three).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub drift: Vec<Drift>,
}

/// How far back the brief looks for drift.
const DRIFT_DAYS: i64 = 7;
/// Drift records the brief names at most.
const DRIFT_SHOWN: usize = 3;

/// The drift of the last [`DRIFT_DAYS`], newest first, at most [`DRIFT_SHOWN`].
pub fn recent_drift(ws: &Workspace) -> Vec<Drift> {
    let since = chrono::Utc::now() - chrono::Duration::days(DRIFT_DAYS);
    history::workspace_drifts(ws)
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
        Err(e) => {
            let run = run_state(ws);
            Recovery {
                state: RecoveryState::of(&run),
                paused: run.pause.clone(),
                queued: run.queued.clone(),
                run,
                run_id: None,
                finished_at: None,
                pending: Vec::new(),
                needs_human: Vec::new(),
                lock_holder: RunLock::holder(&ws.lock_file()),
                abandoned: None,
                error: Some(e.to_string()),
                sync: None,
                drift: Vec::new(),
            }
        }
    };
    recovery.sync = sync;
    recovery.drift = recent_drift(ws);
    let steps = next_steps(&recovery);
    (recovery, steps)
}

fn from_snapshot(snap: RunSnapshot) -> Recovery {
    let needs_human = snap
        .steps
        .iter()
        .filter(|s| s.needs_human)
        .map(|s| s.name.clone())
        .collect();
    Recovery {
        state: RecoveryState::of(&snap.state),
        run: snap.state,
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

/// The brief's next steps: PAUSE first, then the run state's next action
/// in the brief's words, then drift.
fn next_steps(r: &Recovery) -> Vec<String> {
    let mut steps = Vec::new();
    let mut action = r.run.next_action();
    if let Some(p) = &r.paused {
        steps.push(format!(
            "Automation is paused by `{}`: run no handover until a human removes it (`{}`); ask before you do.",
            p.file.display(),
            p.unpause_command()
        ));
        if let NextAction::Unpause { then, .. } = action {
            action = *then;
        }
    }
    let queued = r.queued.len();
    match action {
        NextAction::Nothing | NextAction::Unpause { .. } => {}
        NextAction::Repair { .. } => steps.push(
            "Repair or move aside the checkpoint (see Recovery) before running a handover."
                .to_string(),
        ),
        NextAction::Wait { why } => steps.push(format!(
            "Do not start another handover; wait: {why}."
        )),
        NextAction::Decide { .. } => steps.push(format!(
            "Decide about {}: `agent-handover retry <step>` if running it again is safe, else `agent-handover abandon --reason \"...\"`.",
            r.needs_human.join(", ")
        )),
        NextAction::Upgrade { .. } => steps.push(format!("{}.", capitalized(&action.sentence()))),
        NextAction::Run { command } => steps.push(format!(
            "Finish the interrupted handover (written by agent-handover 0.5.x): `{command}`."
        )),
        NextAction::RunWithNote { .. } => steps.push(format!(
            "Finish the interrupted handover (written by agent-handover 0.5.x): {}.",
            action.sentence()
        )),
        NextAction::Resume if matches!(r.run.condition, Condition::Queued { .. }) => {
            steps.push(format!(
                "Run the {queued} handover(s) queued: `agent-handover resume` (their notes are staged; do not write them again)."
            ))
        }
        NextAction::Resume if queued > 0 => steps.push(format!(
            "Finish the interrupted handover first: `agent-handover resume` (done steps are not redone; it then runs the {queued} handover(s) queued behind it, whose notes are staged: do not write them again)."
        )),
        NextAction::Resume => steps.push(
            "Finish the interrupted handover first: `agent-handover resume` (done steps are not redone)."
                .to_string(),
        ),
    }
    if let Some(d) = r.drift.first() {
        steps.push(format!(
            "Check the {} drift: a merge kept the newer text of {} and superseded {}'s (`{}`); fix {} if the newer text lost something.",
            d.file.command(),
            d.section_names(),
            d.from,
            d.diff_command(),
            d.file.file_name()
        ));
    }
    steps
}

/// `text` with its first letter upper case.
pub(super) fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
