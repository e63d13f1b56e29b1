//! `task start | step | block | done | show | list`: multi-step task state
//! in `.agent-handover/tasks/<name>.json`.

use agent_handover::Result;
use agent_handover::domain::task::{Notes, StepChange, StepSize, TaskAction, TaskOutcome};
use agent_handover::ops::task;
use chrono::Utc;
use clap::{Args, Subcommand};
use serde_json::json;

use super::Target;
use super::exit;
use super::output::Output;

/// Subcommands of `task`.
#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// Start a task with its plan (the first step in progress); never replaces one.
    Start {
        /// Its name: letters, digits, -, _, . (e.g. migrate-stripe-v3).
        name: String,
        /// A step of the plan, in order (repeat).
        #[arg(long = "step", value_name = "STEP")]
        steps: Vec<String>,
        #[command(flatten)]
        notes: NoteArgs,
        #[command(flatten)]
        target: Target,
    },
    /// Mark a step in progress, or done (--done); a step not in the plan is added.
    Step {
        /// The task.
        name: String,
        /// The step: its number (1 = first) or its text.
        step: String,
        /// It is finished.
        #[arg(long)]
        done: bool,
        /// Back to pending.
        #[arg(long, conflicts_with = "done")]
        pending: bool,
        /// What it produced (a file, a commit, a number).
        #[arg(long)]
        output: Option<String>,
        /// What is in its way while it stays in progress.
        #[arg(long, conflicts_with_all = ["done", "pending"])]
        blocker: Option<String>,
        /// How big the step is: S (fits the end of a session), M, L (wants a
        /// fresh context). Given alone, the step's status is left as it is.
        #[arg(long, value_parser = ["S", "M", "L"], ignore_case = true)]
        size: Option<String>,
        #[command(flatten)]
        notes: NoteArgs,
        #[command(flatten)]
        target: Target,
    },
    /// Mark a step blocked, with the reason.
    Block {
        /// The task.
        name: String,
        /// The step: its number (1 = first) or its text.
        step: String,
        /// Why it cannot go on.
        #[arg(long)]
        reason: String,
        #[command(flatten)]
        notes: NoteArgs,
        #[command(flatten)]
        target: Target,
    },
    /// Mark the task done (its steps keep their statuses).
    Done {
        /// The task.
        name: String,
        #[command(flatten)]
        notes: NoteArgs,
        #[command(flatten)]
        target: Target,
    },
    /// Show a task's plan, findings and failed approaches [default: the active task].
    Show {
        /// The task [default: the most recently updated one not done].
        name: Option<String>,
        #[command(flatten)]
        target: Target,
    },
    /// Every task, most recently updated first.
    List(Target),
}

/// Findings and failed approaches to add with a change.
#[derive(Debug, Args)]
pub struct NoteArgs {
    /// Something learned along the way (repeat).
    #[arg(long = "finding", value_name = "TEXT")]
    findings: Vec<String>,
    /// An approach that failed and must not be retried (repeat).
    #[arg(long = "failed", value_name = "TEXT")]
    failed: Vec<String>,
}

impl NoteArgs {
    fn notes(&self) -> Notes {
        Notes {
            findings: self.findings.clone(),
            failed_approaches: self.failed.clone(),
        }
    }
}

/// `task ...`: the command as a [`TaskAction`], done by the library.
pub fn task(command: &TaskCommand, out: Output) -> Result<u8> {
    let (target, action, notes) = match command {
        TaskCommand::Start {
            name,
            steps,
            notes,
            target,
        } => (
            target,
            TaskAction::Start {
                name: name.clone(),
                steps: steps.clone(),
            },
            notes.notes(),
        ),
        TaskCommand::Step {
            name,
            step,
            done,
            pending,
            output,
            blocker,
            size,
            notes,
            target,
        } => {
            let size = size.as_deref().map(str::parse::<StepSize>).transpose()?;
            let change =
                StepChange::progress(*done, *pending, output.clone(), blocker.clone(), size)?;
            let action = TaskAction::Step {
                name: name.clone(),
                step: step.clone(),
                change,
            };
            (target, action, notes.notes())
        }
        TaskCommand::Block {
            name,
            step,
            reason,
            notes,
            target,
        } => {
            let change = StepChange::blocked(reason.clone());
            let action = TaskAction::Step {
                name: name.clone(),
                step: step.clone(),
                change,
            };
            (target, action, notes.notes())
        }
        TaskCommand::Done {
            name,
            notes,
            target,
        } => (
            target,
            TaskAction::Done { name: name.clone() },
            notes.notes(),
        ),
        TaskCommand::Show { name, target } => (
            target,
            TaskAction::Show { name: name.clone() },
            Notes::default(),
        ),
        TaskCommand::List(target) => (target, TaskAction::List, Notes::default()),
    };
    let outcome = task::apply(&target.workspace()?, action, notes, Utc::now())?;
    let json = match &outcome {
        TaskOutcome::Changed(task) => json!({ "task": task }),
        TaskOutcome::Shown(task) => json!({ "task": task }),
        TaskOutcome::Listed(tasks) => json!({ "tasks": tasks }),
    };
    out.emit(&json, || print!("{}", outcome.text()));
    Ok(exit::OK)
}
