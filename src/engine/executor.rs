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
use std::path::Path;
use std::time::Duration;

use chrono::{Local, Utc};
use serde::{Deserialize, Serialize};

use super::checkpoint::{
    Abandonment, Checkpoint, Owner, RunStatus, StepRecord, StepState, host_name,
};
use super::command;
use super::lock::RunLock;
use super::metrics::{self, MetricsSample};
use super::pause::ensure_not_paused;
use super::plan::{Inputs, RunRequest, StepAction, StepSpec};
use super::retention;
use crate::error::{Error, Result};
use crate::fsx;
use crate::memory::MemoryStore;
use crate::memory::compact;
use crate::memory::month::YearMonth;
use crate::workspace::{MemoryLayout, Workspace};

/// What a library step sees when it runs.
#[derive(Debug)]
pub struct StepContext<'a> {
    /// The run's id.
    pub run_id: &'a str,
    /// The step's name.
    pub step: &'a str,
    /// The run's staged inputs.
    pub inputs: &'a Inputs,
}

/// A step implemented in Rust; `Ok` may carry a short description of its output.
pub type StepFn =
    Box<dyn FnMut(&StepContext<'_>) -> std::result::Result<Option<String>, String> + Send>;

/// The outcome of an execution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunReport {
    /// The run executed (or found).
    pub run_id: Option<String>,
    /// Its status afterwards.
    pub status: RunStatus,
    /// Steps executed by this call, in order.
    pub executed: Vec<String>,
    /// An interrupted earlier run that was finished before this one started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_previous: Option<Box<RunReport>>,
}

/// The staged inputs file of a run.
#[derive(Debug, Serialize, Deserialize)]
struct StagedInputs {
    run_id: String,
    created_at: chrono::DateTime<Utc>,
    inputs: Inputs,
}

/// Decides whether a new run may be staged; an `Err` refuses it before anything is written.
pub type AdmitFn = Box<dyn Fn(&RunRequest) -> Result<()> + Send>;

/// Executes the runs of one workspace.
pub struct Engine {
    ws: Workspace,
    library_steps: HashMap<String, StepFn>,
    admit: Option<AdmitFn>,
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
            admit: None,
        }
    }

    /// Check every new run before it is staged (`start` with new inputs, or
    /// adopting a 0.5.1 run); a resumed run is not checked again. An `Err`
    /// refuses the run with nothing of it written (when no run is in
    /// progress, it is checked before the lock, so not even `run.lock` is
    /// created; it is checked again under the lock). The CLI's
    /// handoff-quality gate (`run --min-score`) is one.
    pub fn with_admission(
        mut self,
        check: impl Fn(&RunRequest) -> Result<()> + Send + 'static,
    ) -> Self {
        self.admit = Some(Box::new(check));
        self
    }

    /// Register the closure behind a `library` step named `name`. A process
    /// resuming a run with library steps must register them again.
    pub fn with_library_step(
        mut self,
        name: impl Into<String>,
        step: impl FnMut(&StepContext<'_>) -> std::result::Result<Option<String>, String>
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

    /// Start the handover `request` describes (0.5.1's `run`).
    ///
    /// If a run is in progress with the same inputs, it is resumed. If its
    /// inputs differ, it is finished first, then the new one runs. A run
    /// started by 0.5.1 is adopted: its done steps stay done.
    pub fn start(&mut self, request: RunRequest) -> Result<RunReport> {
        ensure_not_paused(&self.ws.pause_files())?;
        request.validate()?;
        if let Some(admit) = &self.admit
            && self.checkpoint()?.status != RunStatus::InProgress
        {
            admit(&request)?; // refused before the lock: not even run.lock is created
        }
        let _lock = RunLock::acquire(&self.ws.lock_file())?;
        let cp = Checkpoint::load(&self.ws.checkpoint)?;
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
            if same_steps && staged == request.inputs {
                return self.execute(cp, &staged, None);
            }
            finished_previous = Some(Box::new(self.execute(cp, &staged, None)?));
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
        let _lock = RunLock::acquire(&self.ws.lock_file())?;
        let cp = Checkpoint::load(&self.ws.checkpoint)?;
        if cp.status != RunStatus::InProgress {
            return Ok(RunReport {
                run_id: cp.run_id,
                status: cp.status,
                executed: Vec::new(),
                finished_previous: None,
            });
        }
        self.refuse_legacy(&cp)?;
        let inputs = self.load_inputs(&cp)?;
        self.execute(cp, &inputs, None)
    }

    /// Run `step` again even if it is not idempotent (after a failure or an
    /// interruption a human has looked at), then continue the run.
    pub fn retry(&mut self, step: &str) -> Result<RunReport> {
        ensure_not_paused(&self.ws.pause_files())?;
        let _lock = RunLock::acquire(&self.ws.lock_file())?;
        let cp = Checkpoint::load(&self.ws.checkpoint)?;
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
            return Err(Error::NoSuchRun(format!(
                "step '{step}' is already done; done steps never run again"
            )));
        }
        let inputs = self.load_inputs(&cp)?;
        self.execute(cp, &inputs, Some(step))
    }

    /// Give the interrupted run up: its record (who, when, why) and every file
    /// it wrote are kept; `check` then reports no run in progress.
    pub fn abandon(&self, reason: Option<&str>) -> Result<Checkpoint> {
        let _lock = RunLock::acquire(&self.ws.lock_file())?;
        let cp = Checkpoint::load(&self.ws.checkpoint)?;
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

    fn require_in_progress(&self, cp: Checkpoint, verb: &str) -> Result<Checkpoint> {
        if cp.status == RunStatus::InProgress {
            Ok(cp)
        } else {
            Err(Error::NoSuchRun(format!(
                "nothing to {verb}: no handover is in progress (last status: {})",
                serde_json::to_value(cp.status)
                    .expect("status serializes")
                    .as_str()
                    .unwrap_or("?")
            )))
        }
    }

    fn refuse_legacy(&self, cp: &Checkpoint) -> Result<()> {
        if cp.is_legacy() {
            return Err(Error::NoSuchRun(format!(
                "{} was written by agent-handover 0.5.x and has no staged plan\n  fix: finish it with `agent-handover run --config <your handover.toml>` (done steps stay done)",
                self.ws.checkpoint.display()
            )));
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
        if let Some(admit) = &self.admit {
            admit(&request)?;
        }
        let staged = StagedInputs {
            run_id: run_id.into(),
            created_at: Utc::now(),
            inputs: request.inputs,
        };
        let json = serde_json::to_vec_pretty(&staged).expect("inputs serialize");
        fsx::write_atomic(&self.ws.run_inputs_file(run_id), &json)?;
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
            extra,
            ..Checkpoint::default()
        })
    }

    fn load_inputs(&self, cp: &Checkpoint) -> Result<Inputs> {
        let run_id = cp.run_id.as_deref().unwrap_or_default();
        let path = self.ws.run_inputs_file(run_id);
        let fix = || {
            format!(
                "the staged inputs of run {run_id} are missing or damaged; `agent-handover abandon` it and run the handover again (nothing else is lost)"
            )
        };
        let text = fsx::read_text_bounded(
            &path,
            4 * crate::memory::MAX_MEMORY_FILE_BYTES,
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

    /// Sweep temp files left by a crashed writer from the directories this
    /// run writes. Only lock holders write there, so any temp file is an
    /// orphan (the state dir also gets PAUSE writes, so only old ones go).
    fn sweep_orphans(&self, plan: &[StepSpec]) {
        for dir in [self.ws.runs_dir(), self.ws.state_history_dir()] {
            fsx::remove_orphan_temps(&dir, Duration::ZERO);
        }
        for spec in plan {
            let (root, dir) = match &spec.action {
                StepAction::SessionNote {
                    memory_dir, date, ..
                } => (memory_dir, layout(memory_dir).layer1_month_dir(*date)),
                StepAction::CurrentState { memory_dir, .. } => {
                    let file = layout(memory_dir).current_state();
                    (memory_dir, file.parent().map(Into::into).unwrap_or(file))
                }
                StepAction::Compact { memory_dir, .. } => {
                    (memory_dir, layout(memory_dir).layer3_dir())
                }
                _ => continue,
            };
            // Never sweep through a symlink out of the memory tree.
            if fsx::ensure_within(root, &dir).is_ok() {
                fsx::remove_orphan_temps(&dir, Duration::ZERO);
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
            match record.state {
                StepState::Done => continue,
                StepState::Running | StepState::Interrupted
                    if !spec.action.resumes_safely() && retry != Some(spec.name.as_str()) =>
                {
                    record.state = StepState::Interrupted;
                    cp.save(&self.ws.checkpoint)?;
                    return Err(Error::NeedsHuman {
                        step: spec.name.clone(),
                        why: "was interrupted while running and is not idempotent, so it may already have taken effect".into(),
                        fix: format!(
                            "check its effects, then `agent-handover retry {0}` to run it again, or `agent-handover abandon --reason \"...\"`",
                            spec.name
                        ),
                    });
                }
                _ => {}
            }
            if let StepAction::Library { .. } = spec.action
                && !self.library_steps.contains_key(&spec.name)
            {
                if unsaved {
                    cp.save(&self.ws.checkpoint)?;
                }
                return Err(Error::NeedsHuman {
                    step: spec.name.clone(),
                    why: "is a library step whose code this process does not have".into(),
                    fix: "resume the run from the program that defines the step".into(),
                });
            }
            if let Err(paused) = ensure_not_paused(&self.ws.pause_files()) {
                if unsaved {
                    cp.save(&self.ws.checkpoint)?;
                }
                return Err(paused);
            }
            let record = cp.step_records.get_mut(&spec.name).expect("inserted above");
            record.state = StepState::Running;
            record.attempts += 1;
            record.started_at = Some(Utc::now());
            record.finished_at = None;
            record.owner = Some(Owner::current());
            cp.save(&self.ws.checkpoint)?;

            let (outcome, metrics) = self.run_step(spec, inputs, &run_id);
            let record = cp.step_records.get_mut(&spec.name).expect("inserted above");
            record.finished_at = Some(Utc::now());
            record.metrics = metrics;
            match outcome {
                Ok(output) => {
                    record.state = StepState::Done;
                    record.last_error = None;
                    record.output = output;
                    unsaved = true;
                    executed.push(spec.name.clone());
                }
                Err(message) => {
                    record.state = StepState::Failed;
                    record.last_error = Some(message.clone());
                    cp.save(&self.ws.checkpoint)?;
                    return Err(Error::StepFailed {
                        step: spec.name.clone(),
                        message,
                    });
                }
            }
        }
        cp.status = RunStatus::Completed;
        cp.finished_at = Some(iso_now());
        cp.save(&self.ws.checkpoint)?;
        self.archive(&mut cp)?;
        Ok(RunReport {
            run_id: Some(run_id),
            status: cp.status,
            executed,
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

    /// Run one step: its outcome (`Ok` with a short description of what it
    /// did) and, for a `metrics` step, the numbers it measured.
    fn run_step(
        &mut self,
        spec: &StepSpec,
        inputs: &Inputs,
        run_id: &str,
    ) -> (
        std::result::Result<Option<String>, String>,
        Option<MetricsSample>,
    ) {
        let env = [
            ("AGENT_HANDOVER_RUN_ID", run_id),
            ("AGENT_HANDOVER_STEP", spec.name.as_str()),
        ];
        if let StepAction::Metrics { probes, cwd } = &spec.action {
            return match metrics::run_probes(probes, cwd, &env) {
                Ok(sample) => (Ok(Some(sample.describe())), Some(sample)),
                Err((message, sample)) => (Err(message), Some(sample)),
            };
        }
        (self.run_plain_step(spec, inputs, run_id, &env), None)
    }

    fn run_plain_step(
        &mut self,
        spec: &StepSpec,
        inputs: &Inputs,
        run_id: &str,
        env: &[(&str, &str)],
    ) -> std::result::Result<Option<String>, String> {
        let store = |memory_dir: &std::path::Path| {
            MemoryStore::new(
                MemoryLayout {
                    root: memory_dir.to_path_buf(),
                },
                self.ws.state_history_dir(),
            )
        };
        let text = |t: &Option<String>| t.clone().unwrap_or_default();
        match &spec.action {
            StepAction::SessionNote {
                memory_dir,
                tag,
                date,
            } => store(memory_dir)
                .write_session_note(tag, *date, &text(&inputs.session_note))
                .map(|p| Some(p.display().to_string()))
                .map_err(|e| e.to_string()),
            StepAction::CurrentState { memory_dir, date } => store(memory_dir)
                .write_current_state(*date, &text(&inputs.current_state), run_id)
                .map(|p| Some(p.display().to_string()))
                .map_err(|e| e.to_string()),
            StepAction::Publish { backend, message } => {
                let pause_files = self.ws.pause_files();
                let gate = || ensure_not_paused(&pause_files).map_err(|e| e.to_string());
                backend.publish(message, &gate).map(Some)
            }
            StepAction::Command {
                argv,
                cwd,
                timeout_secs,
                ..
            } => command::run(argv, cwd, Duration::from_secs(*timeout_secs), env).map(Some),
            StepAction::Compact {
                memory_dir,
                before,
                month,
                date,
            } => compact_step(memory_dir, *before, *month, *date)
                .map(Some)
                .map_err(|e| e.to_string()),
            StepAction::Prune { policy } => retention::plan(&self.ws, policy, Some(run_id))
                .and_then(|plan| {
                    retention::apply(&plan)?;
                    Ok(Some(plan.describe("removed")))
                })
                .map_err(|e| e.to_string()),
            StepAction::Metrics { .. } => unreachable!("handled by run_step"),
            StepAction::Library { .. } => {
                let step = self
                    .library_steps
                    .get_mut(&spec.name)
                    .expect("checked before the step started");
                step(&StepContext {
                    run_id,
                    step: &spec.name,
                    inputs,
                })
            }
        }
    }
}

/// The memory layout rooted at `memory_dir`.
fn layout(memory_dir: &Path) -> MemoryLayout {
    MemoryLayout {
        root: memory_dir.to_path_buf(),
    }
}

/// Fold the chosen months of layer 1 into layer 3; a one-line account.
fn compact_step(
    memory_dir: &Path,
    before: YearMonth,
    only: Option<YearMonth>,
    date: chrono::NaiveDate,
) -> Result<String> {
    let layout = layout(memory_dir);
    let months = match only {
        Some(month) => vec![month],
        None => compact::layer1_months(&layout)?
            .into_iter()
            .filter(|m| *m < before)
            .collect(),
    };
    let (mut appended, mut removed, mut skipped) = (0, 0, 0);
    for month in &months {
        let report = compact::compact_month(&layout, *month, date)?;
        appended += report.appended();
        removed += report.removed;
        skipped += report.skipped.len();
    }
    let mut summary = format!(
        "{} month{}: {appended} note{} archived, {removed} removed from layer 1",
        months.len(),
        if months.len() == 1 { "" } else { "s" },
        if appended == 1 { "" } else { "s" },
    );
    if skipped > 0 {
        summary.push_str(&format!(
            "; {skipped} file{} left in layer 1 (see `agent-handover compact --dry-run`)",
            if skipped == 1 { "" } else { "s" }
        ));
    }
    Ok(summary)
}

/// A new, time-sortable run id: `YYYYMMDD-HHMMSS-xxxx`.
pub fn new_run_id() -> String {
    let now = Local::now();
    let salt = (u64::from(std::process::id()) << 20) ^ u64::from(now.timestamp_subsec_nanos());
    format!("{}-{:04x}", now.format("%Y%m%d-%H%M%S"), salt % 0xffff)
}

/// Now, as Python's `datetime.now(timezone.utc).isoformat()` writes it (0.5.1's format).
fn iso_now() -> String {
    Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, false)
}

/// `user@host (pid N)`: who is acting, for records.
pub fn who() -> String {
    let user = std::env::var("USER")
        .unwrap_or_else(|_| format!("uid{}", rustix::process::getuid().as_raw()));
    format!("{user}@{} (pid {})", host_name(), std::process::id())
}
