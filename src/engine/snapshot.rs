//! A read-only view of a workspace's handover for display: the checkpoint
//! with each step's effective state, whether PAUSE is on and who holds the
//! run lock. `status`, `check --json` and the dashboard all show this.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::checkpoint::{Abandonment, Checkpoint, RunStatus, StepState};
use super::identity::Owner;
use super::lock::RunLock;
use super::pause::{PauseInfo, active_pause};
use super::process::LiveOutput;
use super::queue::{self, QueuedView, RunQueue};
use crate::error::Result;
use crate::memory::history::{Drift, StateHistory};
use crate::outcome::AfterCrash;
use crate::secrets;
use crate::workspace::Workspace;

/// Everything worth showing about the current handover.
#[derive(Debug, Clone, Serialize)]
pub struct RunSnapshot {
    /// The checkpoint file.
    pub checkpoint: PathBuf,
    /// 0.5.1's `check` code: 0 none, 1 resume needed, 2 completed.
    pub resume_code: i32,
    /// Run status.
    pub status: RunStatus,
    /// Run id (absent for 0.5.1 files).
    pub run_id: Option<String>,
    /// When the run started.
    pub started_at: Option<String>,
    /// When it completed.
    pub finished_at: Option<String>,
    /// Steps in plan order.
    pub steps: Vec<StepView>,
    /// Names of the steps not done.
    pub pending: Vec<String>,
    /// The active PAUSE file, if any.
    pub paused: Option<PauseInfo>,
    /// Who executes the run right now, if anyone.
    pub lock_holder: Option<String>,
    /// Who abandoned the run, when and why.
    pub abandoned: Option<Abandonment>,
    /// Handovers staged behind this one, oldest first: `resume` runs them
    /// after it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queued: Vec<QueuedView>,
    /// The latest state drift (a merge that superseded text of
    /// current-state.md), if there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift: Option<Drift>,
    /// The run lets secrets through (`run --allow-secret`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allow_secret: bool,
}

/// One step, for display.
#[derive(Debug, Clone, Serialize)]
pub struct StepView {
    /// Name.
    pub name: String,
    /// Kind (`session_note`, `command`, ...), unknown for 0.5.1 files.
    pub kind: Option<String>,
    /// Whether an interrupted attempt is simply re-run.
    pub idempotent: Option<bool>,
    /// How an attempt interrupted by a crash is settled (unknown for 0.5.1 files).
    pub after_crash: Option<AfterCrash>,
    /// Effective state (`running` with a dead owner reads `interrupted`).
    pub state: StepState,
    /// Whether the run waits for a human about this step: it was interrupted
    /// and running it again may repeat what it already did (`retry` or
    /// `abandon`). The one answer `status`, `brief` and the dashboard show.
    pub needs_human: bool,
    /// Attempts so far.
    pub attempts: u32,
    /// Error of the last failed attempt (a command's output may be in it:
    /// secrets redacted).
    pub last_error: Option<String>,
    /// Start of the last attempt.
    pub started_at: Option<DateTime<Utc>>,
    /// End of the last attempt.
    pub finished_at: Option<DateTime<Utc>>,
    /// Duration of the last finished attempt.
    pub duration_ms: Option<i64>,
    /// Who ran the last attempt.
    pub owner: Option<Owner>,
    /// What it produced (secrets redacted).
    pub output: Option<String>,
}

impl RunSnapshot {
    /// Build the view of a loaded checkpoint in `ws`.
    pub fn of(ws: &Workspace, cp: &Checkpoint) -> Self {
        Self::build(ws, cp, false)
    }

    /// The view of `cp`; `lock_was_free`: the run lock was free before `cp`
    /// was read.
    fn build(ws: &Workspace, cp: &Checkpoint, lock_was_free: bool) -> Self {
        let lock_holder = RunLock::holder(&ws.lock_file());
        let steps = cp
            .step_records
            .iter()
            .map(|(name, r)| {
                let spec = cp.plan.iter().find(|s| &s.name == name);
                let after_crash = spec.map(|s| s.action.after_crash());
                // The executor holds the run lock for as long as a step
                // runs and the kernel frees it when the process dies: a
                // step still marked running in a checkpoint read between
                // two moments the lock was free was interrupted, whatever
                // its pid says now (reaped late, or reused). (A run that
                // took the lock meanwhile and let it go wrote a newer
                // checkpoint: the next read shows it.)
                let state = match r.effective_state() {
                    StepState::Running if lock_was_free && lock_holder.is_none() => {
                        StepState::Interrupted
                    }
                    state => state,
                };
                StepView {
                    name: name.clone(),
                    kind: spec.map(|s| s.action.kind().to_string()),
                    idempotent: spec.map(|s| s.action.is_idempotent()),
                    after_crash,
                    needs_human: state == StepState::Interrupted
                        && after_crash.is_some_and(|a| !a.resumes_safely()),
                    state,
                    attempts: r.attempts,
                    last_error: r
                        .last_error
                        .as_deref()
                        .map(|e| secrets::redact(e).into_owned()),
                    started_at: r.started_at,
                    finished_at: r.finished_at,
                    duration_ms: r
                        .started_at
                        .zip(r.finished_at)
                        .map(|(s, f)| (f - s).num_milliseconds()),
                    owner: r.owner.clone(),
                    // A step killed (or still running) has no recorded
                    // output: what its command printed so far, if any.
                    output: match (&r.output, state, &cp.run_id) {
                        (Some(o), _, _) => Some(o.clone()),
                        (None, StepState::Interrupted | StepState::Running, Some(run)) => {
                            LiveOutput::of_step(ws, run, name).tail()
                        }
                        _ => None,
                    }
                    .map(|o| secrets::redact(&o).into_owned()),
                }
            })
            .collect();
        RunSnapshot {
            checkpoint: ws.checkpoint.clone(),
            resume_code: queue::resume_code(ws, cp),
            status: cp.status,
            run_id: cp.run_id.clone(),
            started_at: cp.started_at.clone(),
            finished_at: cp.finished_at.clone(),
            steps,
            pending: cp.pending_steps().into_iter().map(String::from).collect(),
            paused: active_pause(&ws.pause_files()),
            lock_holder,
            abandoned: cp.abandoned.clone(),
            queued: RunQueue::of(ws).views(ws),
            drift: StateHistory::new(ws.state_history_dir())
                .drifts()
                .into_iter()
                .next(),
            allow_secret: cp.allow_secret,
        }
    }

    /// The run's state in one word, as every face shows it: `running`
    /// while an executor holds the run (or a step runs); when it stopped
    /// with steps left (resume needed), `failed` if a step failed and none
    /// was interrupted, else `interrupted`; else the checkpoint's status
    /// (`completed`, `abandoned`, `none`).
    pub fn state_word(&self) -> &'static str {
        let running =
            self.lock_holder.is_some() || self.steps.iter().any(|s| s.state == StepState::Running);
        match self.status {
            RunStatus::InProgress if running => "running",
            RunStatus::InProgress
                if self.steps.iter().any(|s| s.state == StepState::Failed)
                    && !self.steps.iter().any(|s| s.state == StepState::Interrupted) =>
            {
                "failed"
            }
            RunStatus::InProgress => "interrupted",
            RunStatus::Completed => "completed",
            RunStatus::Abandoned => "abandoned",
            RunStatus::None => "none",
        }
    }

    /// Load the checkpoint of `ws` and build its view.
    pub fn load(ws: &Workspace) -> Result<Self> {
        let lock_was_free = RunLock::holder(&ws.lock_file()).is_none();
        Ok(Self::build(
            ws,
            &Checkpoint::load(&ws.checkpoint)?,
            lock_was_free,
        ))
    }
}
