//! The one step abstraction: every step kind ([`super::steps`]) implements
//! [`Step`], and the executor only ever talks to that trait.
//!
//! A step says how an attempt interrupted by a crash is settled
//! ([`AfterCrash`]), which folders it writes (swept of a killed writer's
//! temp files before the run goes on), what it needs from the run's inputs,
//! and runs to a typed outcome: `Ok` with a short description of what it
//! did, or a [`StepError`] (paused, failed, needs a human).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::probe::MetricsSample;
use super::process::TimeoutOutOfRange;
use crate::base::error::Result;
pub use crate::base::outcome::{AfterCrash, StepError};
use crate::workspace::Workspace;

/// The texts a run writes, staged beside the checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    /// The layer-1 session note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_note: Option<String>,
    /// The layer-2 current state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_state: Option<String>,
    /// Anything a library user wants to stage with the run.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, String>,
    /// What the handover covers: the `HEAD` and the work tree its note
    /// describes, taken when `run` was called (in a git repository). Work
    /// since the handover is measured from it, by ancestry
    /// ([`crate::workspace::activity::since_covered`]); staged here, not in
    /// the checkpoint every `check` reads, as it lists files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered: Option<crate::workspace::activity::Baseline>,
    /// The session's verdict on the handoff it started from, taken out of
    /// its texts or given with `--verdict`: recorded with the run when it
    /// completes ([`crate::domain::handoff::usefulness::Usefulness::verdict`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::domain::handoff::verdict::SessionVerdict>,
}

impl Inputs {
    /// Whether `other` stages the same texts (what the work tree looked
    /// like when each was asked for aside): the same handover asked again.
    pub fn same_texts(&self, other: &Inputs) -> bool {
        self.session_note == other.session_note
            && self.current_state == other.current_state
            && self.extra == other.extra
    }

    /// The `HEAD` the handover covers, if it recorded one.
    pub fn covered_head(&self) -> Option<String> {
        self.covered.as_ref().and_then(|c| c.head.clone())
    }
}

/// A step implemented by a Rust closure (a `library` step); `Ok` may carry a
/// short description of its output.
pub type StepFn =
    Box<dyn FnMut(&StepContext<'_>) -> std::result::Result<Option<String>, StepError> + Send>;

/// What a step sees when it runs.
pub struct StepContext<'a> {
    /// The run's id.
    pub run_id: &'a str,
    /// The step's name.
    pub step: &'a str,
    /// The run's staged inputs.
    pub inputs: &'a Inputs,
    /// The workspace the run belongs to.
    pub workspace: &'a Workspace,
    /// The run lets secrets through (`--allow-secret`): a publish commits
    /// files holding one instead of refusing.
    pub allow_secret: bool,
    /// The closure behind a `library` step, when this process registered one.
    pub(crate) library: Option<&'a mut StepFn>,
    /// Numbers the step measured, kept in its record (also when it failed).
    pub(crate) measured: Option<MetricsSample>,
}

impl std::fmt::Debug for StepContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StepContext")
            .field("run_id", &self.run_id)
            .field("step", &self.step)
            .field("allow_secret", &self.allow_secret)
            .field("has_library_step", &self.library.is_some())
            .finish()
    }
}

impl<'a> StepContext<'a> {
    /// The context of step `step` of run `run_id`.
    pub(crate) fn new(
        workspace: &'a Workspace,
        run_id: &'a str,
        step: &'a str,
        inputs: &'a Inputs,
    ) -> Self {
        StepContext {
            run_id,
            step,
            inputs,
            workspace,
            allow_secret: false,
            library: None,
            measured: None,
        }
    }

    /// The environment a step's child processes get: its run and step.
    pub fn env(&self) -> [(&'static str, &'a str); 2] {
        [
            ("AGENT_HANDOVER_RUN_ID", self.run_id),
            ("AGENT_HANDOVER_STEP", self.step),
        ]
    }

    /// Note the process group the step's command runs in, so that a resumer
    /// refuses to start it again while any of its processes lives. Best
    /// effort: the group watcher still ends it if this process dies.
    pub fn record_process_group(&self, pgid: u32) {
        let file = self.workspace.step_group_file(self.run_id, self.step);
        if let Some(dir) = file.parent()
            && crate::base::fsx::create_dir_durable(dir).is_ok()
        {
            let _ = crate::base::fsx::write_atomic(&file, pgid.to_string().as_bytes());
        }
    }

    /// Keep `sample` with the step's record.
    pub(crate) fn record_metrics(&mut self, sample: MetricsSample) {
        self.measured = Some(sample);
    }
}

/// A folder a step writes into, and the tree it must stay inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenDir {
    /// The tree (the memory dir): a folder that resolves outside it is never swept.
    pub root: PathBuf,
    /// The folder.
    pub dir: PathBuf,
}

/// A staged setting out of range (see [`Step::check_limits`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// The step's own timeout.
    #[error(transparent)]
    Timeout(#[from] TimeoutOutOfRange),
    /// The timeout of one of its metric probes.
    #[error("metric {metric:?}: {source}")]
    MetricTimeout {
        /// The probe's name.
        metric: String,
        /// Its timeout.
        source: TimeoutOutOfRange,
    },
}

/// One kind of step. Implement it in a module of `engine/steps/` and list
/// the type in that folder's registry (see ARCHITECTURE.md).
pub trait Step {
    /// How an attempt interrupted by a crash is settled. Required: a new
    /// kind must decide whether it is safe to run again.
    fn after_crash(&self) -> AfterCrash;

    /// The folders it writes files into; temp files a killed attempt left
    /// there are swept (under the run lock) before the run goes on.
    fn writes(&self) -> Vec<WrittenDir>;

    /// What it needs from the run's inputs: `Err` names the missing text
    /// ("a session note"), and the run is refused before it is staged.
    fn check_inputs(&self, _inputs: &Inputs) -> std::result::Result<(), &'static str> {
        Ok(())
    }

    /// Whether its staged settings are in range (a timeout a clock can
    /// hold, ...): checked when a run is planned and again before a staged
    /// one is executed. `Err` says which setting and its range.
    fn check_limits(&self) -> std::result::Result<(), LimitError> {
        Ok(())
    }

    /// Whether it maintains memory rather than handing over (compaction,
    /// retention): a run of only such steps is maintenance.
    fn is_maintenance(&self) -> bool {
        false
    }

    /// Checked before the step is marked running; an `Err` stops the run
    /// there and records nothing (e.g. a library step whose code this
    /// process lacks).
    fn preflight(&self, _ctx: &StepContext<'_>) -> Result<()> {
        Ok(())
    }

    /// Do the work.
    fn run(&self, ctx: &mut StepContext<'_>) -> std::result::Result<Option<String>, StepError>;
}
