//! The executor: run, resume, retry and abandon handovers.
//!
//! Rules it keeps:
//! * one executor at a time ([`RunLock`], held for the whole execution;
//!   the checkpoint is only read after the lock is taken);
//! * PAUSE is checked before the run and before every step;
//! * a step is recorded `running` (durably) before it starts, and `done`
//!   never reverts;
//! * a step found `running` under the lock has no live owner: it is
//!   `interrupted`, re-run if idempotent or reconciling (git publish checks
//!   what the attempt already committed and pushed), otherwise left for a
//!   human (`retry` or `abandon`);
//! * abandoning keeps the record and deletes nothing.
//!
//! To save fsyncs, "step k done" and "step k+1 running" are one checkpoint
//! write, and so are "last step done" and "run completed".

use std::collections::HashMap;
use std::time::Duration;

use chrono::Utc;

use super::checkpoint::{Abandonment, Checkpoint, RunStatus, StepRecord, StepState};
use super::identity::{Owner, iso_now, new_run_id, who};
use super::inputs::{StagedInputs, write_inputs};
use super::lock::RunLock;
use super::pause::ensure_not_paused;
use super::plan::RunRequest;
use super::queue::{QueuedRun, RunQueue};
use super::report::{RunOrigin, RunReport};
use super::step::{Inputs, StepContext, StepError, StepFn};
use super::steps::StepSpec;
use crate::base::error::{Error, Result};
use crate::base::fsx;
use crate::workspace::Workspace;

/// How long a resumer waits for the processes of a just-killed step to end
/// before refusing to start it again.
const GROUP_EXIT_GRACE: Duration = Duration::from_secs(2);

/// Put `first` at the start of `report`'s chain of finished runs.
fn chain_first(report: &mut RunReport, first: RunReport) {
    match &mut report.finished_previous {
        Some(earlier) => chain_first(earlier, first),
        None => report.finished_previous = Some(Box::new(first)),
    }
}

/// Executes the runs of one workspace.
pub struct Engine {
    ws: Workspace,
    library_steps: HashMap<String, StepFn>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("checkpoint", &self.ws.checkpoint)
            .field(
                "library_steps",
                &self.library_steps.keys().collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Engine {
    /// An engine over `ws`.
    pub fn new(ws: Workspace) -> Self {
        Engine {
            ws,
            library_steps: HashMap::new(),
        }
    }

    /// Register the closure behind a `library` step named `name`. A process
    /// resuming a run with library steps must register them again.
    pub fn with_library_step(
        mut self,
        name: impl Into<String>,
        step: impl FnMut(&StepContext<'_>) -> std::result::Result<Option<String>, StepError>
        + Send
        + 'static,
    ) -> Self {
        self.library_steps.insert(name.into(), Box::new(step));
        self
    }

    /// Read the checkpoint (no lock; for display and `check`).
    pub fn checkpoint(&self) -> Result<Checkpoint> {
        Checkpoint::load(&self.ws.checkpoint)
    }

    /// The workspace this engine runs.
    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    /// Start the handover `request` describes (0.5.1's `run`).
    ///
    /// If a run is in progress with the same inputs, it is resumed.
    /// Otherwise the new run is admitted ([`RunRequest::admit`]; a refused
    /// one leaves nothing on disk). With nothing ahead of it, it is staged
    /// and run at once. Else (PAUSE is on, another process holds the lock,
    /// an older handover is unfinished or queued) it is staged in the
    /// [`RunQueue`] first, plan and texts durable; then, if the lock is
    /// ours, the older handover is finished and the queue drained in order.
    /// If the new run cannot run now, the error is [`Error::Queued`] (with
    /// the cause's exit code): its text is safe and `resume` finishes it
    /// later. A run started by 0.5.1 is adopted: its done steps stay done.
    /// A request whose texts hold a secret is refused before anything else
    /// unless it allows them; one that allows them and resumes the run in
    /// progress records that with it.
    pub fn start(&mut self, request: RunRequest) -> Result<RunReport> {
        request.validate()?;
        request.refuse_secrets()?;
        if let Ok(seen) = self.checkpoint()
            && seen.status == RunStatus::InProgress
            && !seen.is_legacy()
            && self.same_run(&seen, &request)
        {
            ensure_not_paused(&self.ws.pause_files())?;
            let (lock, cp) = self.lock()?;
            if cp.run_id == seen.run_id {
                if cp.status == RunStatus::InProgress {
                    let report = self.start_locked(cp, request)?;
                    let report = self.then_drain(report)?;
                    drop(lock);
                    return self.drain_leftovers(report);
                }
                // Finished by another process meanwhile: not run twice.
                return Ok(RunReport {
                    run_id: cp.run_id,
                    status: cp.status,
                    executed: Vec::new(),
                    origin: RunOrigin::Requested,
                    finished_previous: None,
                });
            }
            // Another run took its place meanwhile: this one queues below.
        }
        request.admit(&self.ws)?;
        let (lock, cp) = match ensure_not_paused(&self.ws.pause_files()).and_then(|()| self.lock())
        {
            Ok(held) => held,
            Err(stop) => {
                let (run_id, inputs) = self.enqueue(&request)?;
                // A holder that runs handovers drains the queue before it
                // lets go and looks again after, until it is empty: either it
                // sees this entry, or the lock is free by now and this call
                // runs the queue itself. (Another holder, such as `sync`,
                // does not: the advice then says to `resume` once it is done.)
                if matches!(stop, Error::Busy { .. })
                    && let Ok((lock, cp)) = self.lock()
                {
                    return self.drain_requested(lock, cp, &run_id, &inputs);
                }
                return Err(self.queued(run_id, inputs, stop));
            }
        };
        let queue = RunQueue::of(&self.ws);
        let ahead = cp.status == RunStatus::InProgress && !cp.is_legacy();
        if !ahead && queue.is_empty() {
            // Nothing ahead of it: staged and run at once (then whatever
            // was queued behind it meanwhile).
            let report = self.start_locked(cp, request)?;
            let report = self.then_drain(report)?;
            drop(lock);
            return self.drain_leftovers(report);
        }
        let (run_id, inputs) = self.enqueue(&request)?;
        self.drain_requested(lock, cp, &run_id, &inputs)
    }

    /// With `lock` held and `cp` read under it, run the queue, in which
    /// `run_id` (staged with `inputs`) waits; then let go.
    fn drain_requested(
        &mut self,
        lock: RunLock,
        cp: Checkpoint,
        run_id: &str,
        inputs: &std::path::Path,
    ) -> Result<RunReport> {
        let outcome = self.drain(cp, RunOrigin::Interrupted);
        drop(lock);
        match outcome {
            Ok(mut report) => {
                report.mark_requested(run_id);
                self.drain_leftovers(report)
            }
            Err(source) => {
                let still_queued = RunQueue::of(&self.ws)
                    .list()
                    .is_ok_and(|runs| runs.iter().any(|q| q.run_id == run_id));
                if still_queued {
                    Err(self.queued(run_id.into(), inputs.into(), source))
                } else {
                    Err(source)
                }
            }
        }
    }

    /// The error for a run staged in the queue because of `source` (what
    /// to do next is the run state's to say: `ops::handover::hand_over`).
    fn queued(&self, run_id: String, inputs: std::path::PathBuf, source: Error) -> Error {
        Error::Queued {
            run_id,
            inputs,
            source: Box::new(source),
            next: None,
        }
    }

    /// After the lock was let go: a run queued in the moment between the
    /// last look at the queue and the release is run now, and so on until
    /// the queue is empty after a release (unless PAUSE is on, or another
    /// process took the lock: that one looks after it the same way, or its
    /// caller is told to `resume`).
    fn drain_leftovers(&mut self, mut report: RunReport) -> Result<RunReport> {
        loop {
            if RunQueue::of(&self.ws).is_empty()
                || ensure_not_paused(&self.ws.pause_files()).is_err()
            {
                return Ok(report);
            }
            let Ok((lock, cp)) = self.lock() else {
                return Ok(report);
            };
            if RunQueue::of(&self.ws).is_empty() {
                return Ok(report);
            }
            let mut after = self.drain(cp, RunOrigin::Interrupted)?;
            drop(lock);
            chain_first(&mut after, report);
            report = after;
        }
    }

    /// Stage `request` in the queue (or find it there, asked again);
    /// returns its run id and staged inputs file.
    fn enqueue(&self, request: &RunRequest) -> Result<(String, std::path::PathBuf)> {
        let queue = RunQueue::of(&self.ws);
        if let Some(q) = queue
            .list()?
            .into_iter()
            .find(|q| self.same_queued(q, request))
        {
            let inputs = self.ws.run_inputs_file(&q.run_id);
            return Ok((q.run_id, inputs));
        }
        let run_id = new_run_id();
        let (_, inputs) = queue.push(&self.ws, &run_id, request)?;
        Ok((run_id, inputs))
    }

    /// Whether `request` is the run `cp` holds (same steps, same texts).
    fn same_run(&self, cp: &Checkpoint, request: &RunRequest) -> bool {
        cp.plan
            .iter()
            .map(|s| &s.name)
            .eq(request.plan.iter().map(|s| &s.name))
            && self
                .load_inputs(cp)
                .is_ok_and(|i| i.same_texts(&request.inputs))
    }

    /// Whether `request` is the queued run `q` (asked again: not queued twice).
    fn same_queued(&self, q: &QueuedRun, request: &RunRequest) -> bool {
        q.plan
            .iter()
            .map(|s| &s.name)
            .eq(request.plan.iter().map(|s| &s.name))
            && self
                .load_inputs_of(&q.run_id)
                .is_ok_and(|i| i.same_texts(&request.inputs))
    }

    /// With the lock held: finish the run in progress (its report marked
    /// `first`), then every queued run in order. Returns the report of the
    /// last one executed (with the earlier ones chained in
    /// `finished_previous`).
    fn drain(&mut self, cp: Checkpoint, first: RunOrigin) -> Result<RunReport> {
        let queue = RunQueue::of(&self.ws);
        let mut last = None;
        let mut cp = cp;
        if cp.status == RunStatus::InProgress && !cp.is_legacy() {
            let inputs = self.load_inputs(&cp)?;
            let mut report = self.execute(cp, &inputs, None)?;
            report.origin = first;
            last = Some(report);
            cp = self.checkpoint()?;
        }
        // Listed again after each run: one queued meanwhile runs too.
        while let Some(queued) = queue.list()?.into_iter().next() {
            let settled = cp.run_id.as_deref() == Some(queued.run_id.as_str())
                || self.ws.run_record_file(&queued.run_id).exists();
            if settled {
                queue.remove(&queued.run_id)?; // promoted before a crash
                continue;
            }
            let run_id = queued.run_id.clone();
            let mut next = self.promote(queued, &cp)?;
            next.save(&self.ws.checkpoint)?;
            queue.remove(&run_id)?;
            let inputs = self.load_inputs(&next)?;
            let mut report = self.execute(next, &inputs, None)?;
            report.origin = RunOrigin::Queued;
            report.finished_previous = last.map(Box::new);
            last = Some(report);
            cp = self.checkpoint()?;
        }
        match last {
            Some(report) => Ok(report),
            None => {
                self.refuse_legacy(&cp)?;
                Ok(RunReport {
                    run_id: cp.run_id,
                    status: cp.status,
                    executed: Vec::new(),
                    origin: RunOrigin::Requested,
                    finished_previous: None,
                })
            }
        }
    }

    /// The checkpoint of queued run `queued`, taking the place of `cp`. A
    /// 0.5.1 run left in progress is superseded, not adopted: the queued run
    /// was staged with its own note, so it runs every step (its current
    /// state and publish cover the old run's pending ones; the old run's
    /// note was written when its step was done).
    fn promote(&self, queued: QueuedRun, cp: &Checkpoint) -> Result<Checkpoint> {
        Ok(Checkpoint {
            status: RunStatus::InProgress,
            started_at: Some(iso_now()),
            run_id: Some(queued.run_id),
            step_records: queued
                .plan
                .iter()
                .map(|s| (s.name.clone(), StepRecord::pending()))
                .collect(),
            plan: queued.plan,
            allow_secret: queued.allow_secret,
            context: queued.context,
            covered_head: queued.covered_head,
            next_step: queued.next_step,
            extra: cp.extra.clone(),
            ..Checkpoint::default()
        })
    }

    /// Take the run lock and read the checkpoint under it.
    pub(crate) fn lock(&self) -> Result<(RunLock, Checkpoint)> {
        let lock = RunLock::acquire(&self.ws.lock_file())?;
        let cp = self.close_finished_legacy(Checkpoint::load(&self.ws.checkpoint)?)?;
        Ok((lock, cp))
    }

    /// Run `request` with the lock held and `cp` read under it: resume `cp`
    /// if it is the same run, else finish it first (the maintenance path and
    /// [`Engine::start`]'s resume of the same run; handovers queue instead).
    pub(crate) fn start_locked(
        &mut self,
        cp: Checkpoint,
        request: RunRequest,
    ) -> Result<RunReport> {
        let extra = cp.extra.clone();
        let mut finished_previous = None;
        if cp.status == RunStatus::InProgress {
            if cp.is_legacy() {
                return self.adopt_legacy(cp, request);
            }
            let staged = self.load_inputs(&cp)?;
            let same_steps = cp
                .plan
                .iter()
                .map(|s| &s.name)
                .eq(request.plan.iter().map(|s| &s.name));
            if same_steps && staged.same_texts(&request.inputs) {
                let mut cp = cp;
                cp.allow_secret |= request.allow_secret;
                return self.execute(cp, &staged, None);
            }
            let mut previous = self.execute(cp, &staged, None)?;
            previous.origin = RunOrigin::Interrupted;
            finished_previous = Some(Box::new(previous));
        }
        let run_id = new_run_id();
        let cp = self.stage(&run_id, request, extra)?;
        let inputs = self.load_inputs(&cp)?;
        let mut report = self.execute(cp, &inputs, None)?;
        report.finished_previous = finished_previous;
        Ok(report)
    }

    /// Resume the interrupted run, if any (nothing to do is not an error).
    pub fn resume(&mut self) -> Result<RunReport> {
        ensure_not_paused(&self.ws.pause_files())?;
        let (lock, cp) = self.lock()?;
        let report = self.resume_locked(cp)?;
        drop(lock);
        self.drain_leftovers(report)
    }

    /// [`Engine::resume`] with the lock held and `cp` read under it: the run
    /// in progress, then every queued one.
    pub(crate) fn resume_locked(&mut self, cp: Checkpoint) -> Result<RunReport> {
        self.drain(cp, RunOrigin::Requested)
    }

    /// Run `step` again even if it is not idempotent (after a failure or an
    /// interruption a human has looked at), then continue the run.
    pub fn retry(&mut self, step: &str) -> Result<RunReport> {
        ensure_not_paused(&self.ws.pause_files())?;
        let (lock, cp) = self.lock()?;
        let cp = self.require_in_progress(cp, "retry")?;
        self.refuse_legacy(&cp)?;
        let record = cp
            .step_records
            .get(step)
            .ok_or_else(|| Error::UnknownStep {
                name: step.into(),
                run_id: cp.run_id.clone().unwrap_or_default(),
                known: cp
                    .step_records
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        if record.state == StepState::Done {
            return Err(Error::StepAlreadyDone { step: step.into() });
        }
        let inputs = self.load_inputs(&cp)?;
        let report = self.execute(cp, &inputs, Some(step))?;
        let report = self.then_drain(report)?;
        drop(lock);
        self.drain_leftovers(report)
    }

    /// After a run finished (`report`), with the lock still held: the runs
    /// queued meanwhile, chained after it.
    fn then_drain(&mut self, report: RunReport) -> Result<RunReport> {
        if RunQueue::of(&self.ws).is_empty() {
            return Ok(report);
        }
        let mut after = self.drain(self.checkpoint()?, RunOrigin::Interrupted)?;
        chain_first(&mut after, report);
        Ok(after)
    }

    /// Give the interrupted run up: its record (who, when, why) and every file
    /// it wrote are kept; `check` then reports no run in progress.
    pub fn abandon(&self, reason: Option<&str>) -> Result<Checkpoint> {
        let (_lock, cp) = self.lock()?;
        let mut cp = self.require_in_progress(cp, "abandon")?;
        for record in cp.step_records.values_mut() {
            if record.state == StepState::Running {
                record.state = StepState::Interrupted;
            }
        }
        cp.status = RunStatus::Abandoned;
        cp.abandoned = Some(Abandonment {
            by: who(),
            at: Utc::now(),
            reason: reason.map(Into::into),
        });
        cp.save(&self.ws.checkpoint)?;
        self.archive(&mut cp)?;
        Ok(cp)
    }

    fn require_in_progress(&self, cp: Checkpoint, verb: &'static str) -> Result<Checkpoint> {
        if cp.status == RunStatus::InProgress {
            Ok(cp)
        } else {
            Err(Error::NothingInProgress {
                verb,
                last_status: cp.status.as_str(),
            })
        }
    }

    /// A 0.5.1 run that did every step but was never marked completed (a
    /// crash before the last write): 0.5.1 and `check` call it completed,
    /// so it is closed as such, with the lock held, before anything reads
    /// it as a run to adopt ([`Engine::lock`]).
    fn close_finished_legacy(&self, mut cp: Checkpoint) -> Result<Checkpoint> {
        if cp.status == RunStatus::InProgress && cp.is_legacy() && cp.pending_steps().is_empty() {
            cp.status = RunStatus::Completed;
            cp.finished_at = cp.finished_at.clone().or_else(|| Some(iso_now()));
            cp.save(&self.ws.checkpoint)?;
        }
        Ok(cp)
    }

    fn refuse_legacy(&self, cp: &Checkpoint) -> Result<()> {
        if cp.is_legacy() {
            return Err(Error::LegacyCheckpoint {
                path: self.ws.checkpoint.clone(),
            });
        }
        Ok(())
    }

    /// Adopt a 0.5.1 in-progress checkpoint: steps it marked done stay done.
    fn adopt_legacy(&mut self, legacy: Checkpoint, request: RunRequest) -> Result<RunReport> {
        let run_id = new_run_id();
        let started_at = legacy.started_at.clone();
        let mut cp = self.stage(&run_id, request, legacy.extra.clone())?;
        cp.started_at = started_at.or(cp.started_at);
        for (name, record) in cp.step_records.iter_mut() {
            if legacy
                .step_records
                .get(name)
                .is_some_and(|r| r.state == StepState::Done)
            {
                record.state = StepState::Done;
            }
        }
        let inputs = self.load_inputs(&cp)?;
        self.execute(cp, &inputs, None)
    }

    /// Admit, then stage a new run's inputs durably and return its (unsaved) checkpoint.
    fn stage(
        &self,
        run_id: &str,
        request: RunRequest,
        extra: serde_json::Map<String, serde_json::Value>,
    ) -> Result<Checkpoint> {
        request.admit(&self.ws)?;
        write_inputs(&self.ws, run_id, &request.inputs)?;
        Ok(Checkpoint {
            status: RunStatus::InProgress,
            started_at: Some(iso_now()),
            run_id: Some(run_id.into()),
            step_records: request
                .plan
                .iter()
                .map(|s| (s.name.clone(), StepRecord::pending()))
                .collect(),
            plan: request.plan,
            allow_secret: request.allow_secret,
            context: request.context,
            covered_head: request.inputs.covered_head(),
            next_step: request.next_step,
            extra,
            ..Checkpoint::default()
        })
    }

    fn load_inputs(&self, cp: &Checkpoint) -> Result<Inputs> {
        self.load_inputs_of(cp.run_id.as_deref().unwrap_or_default())
    }

    fn load_inputs_of(&self, run_id: &str) -> Result<Inputs> {
        let path = self.ws.run_inputs_file(run_id);
        let fix = || {
            format!(
                "the staged inputs of run {run_id} are missing or damaged; `agent-handover abandon` it and run the handover again (nothing else is lost)"
            )
        };
        let text = fsx::read_text_within(
            &self.ws.root,
            &path,
            4 * crate::domain::memory::MAX_MEMORY_FILE_BYTES,
            "move it aside",
        )?
        .ok_or_else(|| Error::Corrupt {
            path: path.clone(),
            detail: "file missing".into(),
            fix: fix(),
        })?;
        let staged: StagedInputs = serde_json::from_str(&text).map_err(|e| Error::Corrupt {
            path: path.clone(),
            detail: e.to_string(),
            fix: fix(),
        })?;
        Ok(staged.inputs)
    }

    /// Refuse a staged plan with a setting out of range (staged by an older
    /// version, or edited by hand) before any of it runs: it would fail the
    /// same way on every resume.
    fn check_staged_limits(&self, cp: &Checkpoint) -> Result<()> {
        for spec in &cp.plan {
            if let Some(step) = spec.action.step()
                && let Err(why) = step.check_limits()
            {
                return Err(Error::Corrupt {
                    path: self.ws.checkpoint.clone(),
                    detail: format!("its staged step {:?} has {why}", spec.name),
                    fix: "give the handover up (`agent-handover abandon --reason \"bad setting\"`), fix the config, and hand over again".into(),
                });
            }
        }
        Ok(())
    }

    /// Refuse to start `step` again while a process of the group its
    /// interrupted attempt ran in is still alive (a grandchild the killed
    /// handover left behind): two copies must never run at once.
    fn refuse_live_group(
        &self,
        group_file: &std::path::Path,
        step: &str,
        cp: &mut Checkpoint,
        unsaved: bool,
    ) -> Result<()> {
        let Some(pgid) = std::fs::read_to_string(group_file)
            .ok()
            .and_then(|t| t.trim().parse::<u32>().ok())
        else {
            return Ok(());
        };
        // A handover killed a moment ago: its group watcher is ending the
        // group right now. Give it a moment before calling the step busy.
        let patience = std::time::Instant::now() + GROUP_EXIT_GRACE;
        let live = loop {
            let live = super::process::live_group_members(pgid);
            if live.is_empty() {
                return Ok(());
            }
            if std::time::Instant::now() >= patience {
                break live;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        if unsaved {
            cp.save(&self.ws.checkpoint)?;
        }
        let pids: Vec<String> = live.iter().map(u32::to_string).collect();
        Err(Error::Busy {
            holder: format!(
                "the interrupted attempt of step '{step}': pid {} (process group {pgid}) still running; wait for it to end, or end it (`kill -TERM -{pgid}`), then try again",
                pids.join(", ")
            ),
        })
    }

    /// Sweep temp files left by a crashed writer from the directories this
    /// run writes. Only lock holders write there, so any temp file is an
    /// orphan (the state dir also gets PAUSE writes, so only old ones go).
    fn sweep_orphans(&self, plan: &[StepSpec]) {
        for dir in [
            self.ws.runs_dir(),
            self.ws.queue_dir(),
            self.ws.state_history_dir(),
        ] {
            fsx::remove_orphan_temps(&dir, Duration::ZERO);
        }
        for written in plan.iter().flat_map(|spec| spec.action.writes()) {
            // Never sweep through a symlink out of the memory tree.
            if fsx::ensure_within(&written.root, &written.dir).is_ok() {
                fsx::remove_orphan_temps(&written.dir, Duration::ZERO);
            }
        }
        fsx::remove_orphan_temps(self.ws.state_dir(), Duration::from_secs(60));
    }

    /// Execute every step that is not done, in plan order.
    fn execute(
        &mut self,
        mut cp: Checkpoint,
        inputs: &Inputs,
        retry: Option<&str>,
    ) -> Result<RunReport> {
        self.check_staged_limits(&cp)?;
        self.sweep_orphans(&cp.plan);
        let run_id = cp.run_id.clone().unwrap_or_default();
        let mut executed = Vec::new();
        let plan = cp.plan.clone();
        let mut unsaved = false;
        for spec in &plan {
            let record = cp
                .step_records
                .entry(spec.name.clone())
                .or_insert_with(StepRecord::pending);
            if record.state == StepState::Done {
                continue;
            }
            let step = match spec.runnable(&self.ws.checkpoint) {
                Ok(step) => step,
                Err(newer) => {
                    if unsaved {
                        cp.save(&self.ws.checkpoint)?;
                    }
                    return Err(newer);
                }
            };
            if matches!(record.state, StepState::Running | StepState::Interrupted)
                && !spec.action.resumes_safely()
                && retry != Some(spec.name.as_str())
            {
                record.state = StepState::Interrupted;
                cp.save(&self.ws.checkpoint)?;
                return Err(Error::NeedsHuman {
                    step: spec.name.clone(),
                    why: "was interrupted while running and is not idempotent, so it may already have taken effect".into(),
                    fix: crate::base::outcome::decide_fix(&spec.name),
                });
            }
            let group_file = self.ws.step_group_file(&run_id, &spec.name);
            if matches!(record.state, StepState::Running | StepState::Interrupted) {
                self.refuse_live_group(&group_file, &spec.name, &mut cp, unsaved)?;
            }
            let mut ctx = StepContext::new(&self.ws, &run_id, &spec.name, inputs);
            ctx.library = self.library_steps.get_mut(&spec.name);
            ctx.allow_secret = cp.allow_secret;
            let ready = step
                .preflight(&ctx)
                .and_then(|()| ensure_not_paused(&self.ws.pause_files()));
            if let Err(stop) = ready {
                if unsaved {
                    cp.save(&self.ws.checkpoint)?;
                }
                return Err(stop);
            }
            let record = cp.step_records.get_mut(&spec.name).expect("inserted above");
            record.state = StepState::Running;
            record.attempts += 1;
            record.started_at = Some(Utc::now());
            record.finished_at = None;
            record.owner = Some(Owner::current());
            cp.save(&self.ws.checkpoint)?;

            let outcome = step.run(&mut ctx);
            // Its processes have ended (or were killed): nothing left to guard.
            let _ = std::fs::remove_file(&group_file);
            let record = cp.step_records.get_mut(&spec.name).expect("inserted above");
            record.finished_at = Some(Utc::now());
            record.metrics = ctx.measured.take();
            let stop = match outcome {
                Ok(output) => {
                    record.state = StepState::Done;
                    record.last_error = None;
                    record.output = output;
                    unsaved = true;
                    executed.push(spec.name.clone());
                    continue;
                }
                Err(StepError::Paused { file, reason }) => {
                    // Nothing is lost: the step runs again (reconciling) on resume.
                    record.state = StepState::Pending;
                    Error::Paused { file, reason }
                }
                Err(StepError::Failed { message }) => {
                    record.state = StepState::Failed;
                    record.last_error = Some(message.clone());
                    Error::StepFailed {
                        step: spec.name.clone(),
                        message,
                    }
                }
                Err(StepError::NeedsHuman { why, fix }) => {
                    record.state = StepState::Failed;
                    record.last_error = Some(why.clone());
                    Error::NeedsHuman {
                        step: spec.name.clone(),
                        why,
                        fix,
                    }
                }
                Err(StepError::SecretFound(found)) => {
                    // Its message quotes the line redacted: safe to record.
                    record.state = StepState::Failed;
                    record.last_error = Some(found.to_string());
                    Error::SecretFound(found)
                }
            };
            cp.save(&self.ws.checkpoint)?;
            return Err(stop);
        }
        cp.status = RunStatus::Completed;
        cp.finished_at = Some(iso_now());
        cp.previous_handoff = crate::domain::handoff::usefulness::judge_run(
            &self.ws,
            &run_id,
            inputs.verdict.clone(),
            |judged| super::inputs::staged_inputs(&self.ws, judged).and_then(|i| i.covered),
        );
        cp.save(&self.ws.checkpoint)?;
        self.archive(&mut cp)?;
        Ok(RunReport {
            run_id: Some(run_id),
            status: cp.status,
            executed,
            origin: RunOrigin::Requested,
            finished_previous: None,
        })
    }

    /// Keep the final record of a finished or abandoned run in the run archive.
    fn archive(&self, cp: &mut Checkpoint) -> Result<()> {
        match cp.run_id.clone() {
            Some(id) => cp.save(&self.ws.run_record_file(&id)),
            None => Ok(()),
        }
    }
}
