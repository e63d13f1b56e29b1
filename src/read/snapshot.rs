//! A read-only view of a workspace's handover for display: the checkpoint
//! with each step's effective state, whether PAUSE is on and who holds the
//! run lock, and the run's one [`RunState`]. `status`, `check --json`, the
//! brief and the dashboard all show this.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::run_state::{Facts, RunState, StepFacts};
use crate::base::error::Result;
use crate::base::outcome::AfterCrash;
use crate::base::secrets;
use crate::domain::memory::history::{self, Drift};
use crate::engine::checkpoint::{Abandonment, Checkpoint, RunStatus, StepState};
use crate::engine::identity::Owner;
use crate::engine::lock::RunLock;
use crate::engine::pause::{PauseInfo, active_pause};
use crate::engine::process::LiveOutput;
use crate::engine::queue::{QueuedView, RunQueue};
use crate::workspace::Workspace;

/// Everything worth showing about the current handover.
#[derive(Debug, Clone, Serialize)]
pub struct RunSnapshot {
    /// The checkpoint file.
    pub checkpoint: PathBuf,
    /// The run's state and what to do about it: the one answer every face
    /// shows.
    pub state: RunState,
    /// 0.5.1's `check` code: 0 none, 1 resume needed, 2 completed
    /// ([`RunState::check_code`]).
    pub resume_code: u8,
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
    /// The latest drift of current-state.md and of identity.md (merges that
    /// superseded text of either), newest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub drift: Vec<Drift>,
    /// The run lets secrets through (`run --allow-secret`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allow_secret: bool,
    /// Where the memory is kept.
    pub memory: MemoryPlace,
}

/// Where a workspace's memory is kept: the folder a person or an agent
/// reads, and, when it is on the repository's own ref, that ref and the
/// workstreams.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MemoryPlace {
    /// The memory folder (plain Markdown).
    pub dir: PathBuf,
    /// The ref it is committed to, when it is on the repository's own ref
    /// (shared by every worktree); absent: in the project.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub on_ref: Option<String>,
    /// This worktree's workstream (its branch), on the ref.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workstream: Option<String>,
    /// Every workstream with a current state, on the ref.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub workstreams: Vec<String>,
    /// A push left for later, in a few words (`sync` sends it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub push_pending: Option<String>,
    /// In the project, in a git work tree, committed by the git backend:
    /// 0.5.1's layout, which `migrate` moves to the ref.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub on_code_branch: bool,
}

impl MemoryPlace {
    /// Where `ws` keeps its memory.
    pub fn of(ws: &Workspace) -> Self {
        let on_ref = ws.shared.is_some();
        MemoryPlace {
            dir: ws.memory.root.clone(),
            on_ref: on_ref.then(|| crate::workspace::store::MEMORY_REF.to_string()),
            workstream: ws.memory.stream.clone(),
            workstreams: if on_ref {
                ws.memory.workstreams()
            } else {
                Vec::new()
            },
            push_pending: crate::domain::backend::BackendSpec::of_workspace(ws, false)
                .ok()
                .and_then(|b| b.backend().pending()),
            on_code_branch: !on_ref
                && ws.memory_in_project()
                && ws.config.backend.kind.as_deref() != Some("null")
                && crate::workspace::store::GitDirs::discover(&ws.root).is_some(),
        }
    }

    /// The push left pending, and what sends it (every face words it so).
    pub fn pending_advice(&self) -> Option<String> {
        self.push_pending
            .as_deref()
            .map(|p| format!("{p} (`agent-handover sync` sends it)"))
    }

    /// One line for a person: where, and how it is shared (and a push
    /// pending, on a line of its own).
    pub fn sentence(&self) -> String {
        let pending = self
            .pending_advice()
            .map(|p| format!("\n{p}"))
            .unwrap_or_default();
        let place = match &self.on_ref {
            Some(git_ref) => {
                let others = self
                    .workstreams
                    .iter()
                    .filter(|w| Some(*w) != self.workstream.as_ref())
                    .cloned()
                    .collect::<Vec<_>>();
                format!(
                    "memory: {} (on {git_ref}, shared by every worktree; workstream {}{})",
                    self.dir.display(),
                    self.workstream.as_deref().unwrap_or("?"),
                    match others.len() {
                        0 => String::new(),
                        _ => format!("; others: {}", others.join(", ")),
                    }
                )
            }
            None if self.on_code_branch => format!(
                "memory: {} (in the project, committed on the code branch: `agent-handover migrate` moves it to the repository's own ref)",
                self.dir.display()
            ),
            None => format!("memory: {} (in the project)", self.dir.display()),
        };
        format!("{place}{pending}")
    }
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

impl StepView {
    /// Whether running the step again may repeat what it did (it waits for
    /// a human, or is not idempotent): a face asks before it retries it.
    pub fn retry_needs_confirmation(&self) -> bool {
        self.needs_human || self.idempotent == Some(false)
    }
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
                let (state, needs_human) = effective(cp, name, r, lock_was_free, &lock_holder);
                StepView {
                    name: name.clone(),
                    kind: spec.map(|s| s.action.kind().to_string()),
                    idempotent: spec.map(|s| s.action.is_idempotent()),
                    after_crash,
                    needs_human,
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
            .collect::<Vec<StepView>>();
        let paused = active_pause(&ws.pause_files());
        let queued = RunQueue::of(ws).views(ws);
        let state = decide(
            ws,
            cp,
            lock_was_free,
            &lock_holder,
            paused.clone(),
            RunQueue::of(ws).ids(),
        );
        RunSnapshot {
            checkpoint: ws.checkpoint.clone(),
            resume_code: state.check_code(),
            state,
            status: cp.status,
            run_id: cp.run_id.clone(),
            started_at: cp.started_at.clone(),
            finished_at: cp.finished_at.clone(),
            steps,
            pending: cp.pending_steps().into_iter().map(String::from).collect(),
            paused,
            lock_holder,
            abandoned: cp.abandoned.clone(),
            queued,
            drift: history::latest_drifts(ws),
            allow_secret: cp.allow_secret,
            memory: MemoryPlace::of(ws),
        }
    }

    /// The run's own state in one word, PAUSE aside (the dashboard's run
    /// panel and timeline, beside the header's PAUSED badge):
    /// [`RunState::own_kind`]'s word. The workspace's word, PAUSE included,
    /// is [`RunState::word`].
    pub fn state_word(&self) -> &'static str {
        self.state.own_kind().word()
    }

    /// The view with its state decided again from its own fields, for a
    /// view built or changed by hand (the dashboard's fixtures): steps,
    /// status, lock holder, queue and PAUSE as they stand (a view names no
    /// process group or config, so neither is considered).
    pub fn restated(mut self) -> Self {
        let steps = self
            .steps
            .iter()
            .map(|s| StepFacts {
                name: &s.name,
                state: s.state,
                needs_human: s.needs_human,
                last_error: s.last_error.as_deref(),
                owner_pid: s.owner.as_ref().map(|o| o.pid),
                started_at: s.started_at,
            })
            .collect();
        let state = RunState::decide(Facts {
            status: self.status,
            run_id: self.run_id.as_deref(),
            legacy: self.run_id.is_none() && self.steps.iter().all(|s| s.kind.is_none()),
            steps,
            newer: None,
            finished_at: self.finished_at.as_deref(),
            abandoned: self
                .abandoned
                .as_ref()
                .map(|a| (a.by.as_str(), a.reason.as_deref())),
            lock_holder: self.lock_holder.as_deref(),
            queued: self.queued.iter().map(|q| q.run_id.clone()).collect(),
            pause: self.paused.clone(),
            lingering: None,
            config: None,
            config_has_note: false,
        });
        self.resume_code = state.check_code();
        self.state = state;
        self
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

/// The run state of `ws` (what [`RunSnapshot::load`] holds, read without
/// the rest of the view: `check` reads only this), or
/// [`RunState::unreadable`] naming the file and the fix when the checkpoint
/// cannot be read.
pub fn run_state(ws: &Workspace) -> RunState {
    let lock_was_free = RunLock::holder(&ws.lock_file()).is_none();
    let paused = active_pause(&ws.pause_files());
    let queued = RunQueue::of(ws).ids();
    match Checkpoint::load(&ws.checkpoint) {
        Ok(cp) => {
            let holder = RunLock::holder(&ws.lock_file());
            decide(ws, &cp, lock_was_free, &holder, paused, queued)
        }
        Err(e) => RunState::unreadable(&e, paused, queued),
    }
}

/// A step's effective state and whether it waits for a human. The executor
/// holds the run lock for as long as a step runs and the kernel frees it
/// when the process dies: a step still marked running in a checkpoint read
/// between two moments the lock was free was interrupted, whatever its pid
/// says now (reaped late, or reused). (A run that took the lock meanwhile
/// and let it go wrote a newer checkpoint: the next read shows it.)
fn effective(
    cp: &Checkpoint,
    name: &str,
    record: &crate::engine::StepRecord,
    lock_was_free: bool,
    lock_holder: &Option<String>,
) -> (StepState, bool) {
    let state = match record.effective_state() {
        StepState::Running if lock_was_free && lock_holder.is_none() => StepState::Interrupted,
        state => state,
    };
    let resumes_safely = cp
        .plan
        .iter()
        .find(|s| s.name == name)
        .map(|s| s.action.after_crash().resumes_safely());
    let needs_human = state == StepState::Interrupted && resumes_safely == Some(false);
    (state, needs_human)
}

/// Decide the run state of `cp` from the facts read around it.
fn decide(
    ws: &Workspace,
    cp: &Checkpoint,
    lock_was_free: bool,
    lock_holder: &Option<String>,
    pause: Option<PauseInfo>,
    queued: Vec<String>,
) -> RunState {
    // A damaged queue entry: its run would be lost silently if any face
    // counted past it (`resume` names the file too).
    if !queued.is_empty()
        && let Err(e) = RunQueue::of(ws).list()
    {
        return RunState::unreadable(&e, pause, queued);
    }
    let steps: Vec<StepFacts<'_>> = cp
        .step_records
        .iter()
        .map(|(name, r)| {
            let (state, needs_human) = effective(cp, name, r, lock_was_free, lock_holder);
            StepFacts {
                name,
                state,
                needs_human,
                last_error: r.last_error.as_deref(),
                owner_pid: r.owner.as_ref().map(|o| o.pid),
                started_at: r.started_at,
            }
        })
        .collect();
    let lingering = lingering_group(ws, cp.run_id.as_deref(), &steps);
    RunState::decide(Facts {
        status: cp.status,
        run_id: cp.run_id.as_deref(),
        legacy: cp.is_legacy(),
        steps,
        newer: newer_step(cp),
        finished_at: cp.finished_at.as_deref(),
        abandoned: cp
            .abandoned
            .as_ref()
            .map(|a| (a.by.as_str(), a.reason.as_deref())),
        lock_holder: lock_holder.as_deref(),
        queued,
        pause,
        lingering,
        config: ws.config_path.clone(),
        config_has_note: ws.config.note.session.is_some(),
    })
}

/// The first step not done whose kind only a newer agent-handover knows:
/// (step, kind).
fn newer_step(cp: &Checkpoint) -> Option<(String, String)> {
    cp.plan
        .iter()
        .filter(|spec| {
            cp.step_records
                .get(&spec.name)
                .is_none_or(|r| r.state != StepState::Done)
        })
        .find(|spec| spec.action.step().is_none())
        .map(|spec| (spec.name.clone(), spec.action.kind().to_string()))
}

/// The live process group an interrupted step left, if any: (step, pgid,
/// pids). Only interrupted steps are looked at (a few `stat`s at most).
fn lingering_group(
    ws: &Workspace,
    run_id: Option<&str>,
    steps: &[StepFacts<'_>],
) -> Option<(String, u32, Vec<u32>)> {
    let run_id = run_id?;
    steps
        .iter()
        .filter(|s| s.state == StepState::Interrupted)
        .find_map(|s| {
            let pgid = std::fs::read_to_string(ws.step_group_file(run_id, s.name))
                .ok()?
                .trim()
                .parse::<u32>()
                .ok()?;
            let pids = crate::engine::process::live_group_members(pgid);
            (!pids.is_empty()).then(|| (s.name.to_string(), pgid, pids))
        })
}
