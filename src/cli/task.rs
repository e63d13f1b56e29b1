//! `task start | step | block | done | show | list`: multi-step task state
//! in `.agent-handover/tasks/<name>.json`.

use agent_handover::task::{Notes, StepChange, StepStatus, Task, TaskStatus, TaskStore};
use agent_handover::{Result, secrets};
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

/// `task ...`: dispatch.
pub fn task(command: &TaskCommand, out: Output) -> Result<u8> {
    let now = Utc::now();
    let changed = match command {
        TaskCommand::Start {
            name,
            steps,
            notes,
            target,
        } => store(target)?.start(name, steps, notes.notes(), now)?,
        TaskCommand::Step {
            name,
            step,
            done,
            pending,
            output,
            blocker,
            notes,
            target,
        } => {
            let status = match (done, pending) {
                (true, _) => StepStatus::Done,
                (_, true) => StepStatus::Pending,
                _ => StepStatus::InProgress,
            };
            let change = StepChange {
                status: Some(status),
                output: output.clone(),
                blocker: blocker.clone(),
                reason: None,
            };
            store(target)?.step(name, step, change, notes.notes(), now)?
        }
        TaskCommand::Block {
            name,
            step,
            reason,
            notes,
            target,
        } => {
            let change = StepChange {
                status: Some(StepStatus::Blocked),
                reason: Some(reason.clone()),
                ..Default::default()
            };
            store(target)?.step(name, step, change, notes.notes(), now)?
        }
        TaskCommand::Done {
            name,
            notes,
            target,
        } => store(target)?.done(name, notes.notes(), now)?,
        TaskCommand::Show { name, target } => {
            let store = store(target)?;
            let task = match name {
                Some(name) => Some(store.load(name)?),
                None => store.active()?,
            };
            out.emit(&json!({ "task": task }), || match &task {
                Some(t) => print!("{}", render(t)),
                None => println!(
                    "no active task: `agent-handover task start NAME --step ...` begins one"
                ),
            });
            return Ok(exit::OK);
        }
        TaskCommand::List(target) => {
            let tasks = store(target)?.list()?;
            out.emit(&json!({ "tasks": tasks }), || {
                if tasks.is_empty() {
                    println!("no tasks: `agent-handover task start NAME --step ...` begins one");
                }
                for t in &tasks {
                    let (done, all) = t.progress();
                    let next = t
                        .next_step()
                        .map(|s| format!(" · next: {}", s.step))
                        .unwrap_or_default();
                    println!(
                        "{:<24} {:<11} {done}/{all}{next}",
                        t.task,
                        status_word(t.status)
                    );
                }
            });
            return Ok(exit::OK);
        }
    };
    out.emit(&json!({ "task": changed }), || {
        print!("{}", render(&changed))
    });
    Ok(exit::OK)
}

fn store(target: &Target) -> Result<TaskStore> {
    Ok(TaskStore::new(target.workspace()?.tasks_dir()))
}

fn status_word(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::InProgress => "in progress",
        TaskStatus::Done => "done",
    }
}

/// A task as text: its plan with a mark per step, then its notes (secrets redacted).
pub fn render(t: &Task) -> String {
    let (done, all) = t.progress();
    let mut out = format!(
        "task {} · {} · {done}/{all} steps done\n",
        t.task,
        status_word(t.status)
    );
    for (i, s) in t.plan.iter().enumerate() {
        let mark = match s.status {
            StepStatus::Done => "[x]",
            StepStatus::InProgress => "[>]",
            StepStatus::Blocked => "[!]",
            StepStatus::Pending => "[ ]",
        };
        let mut detail = String::new();
        for (label, value) in [
            ("output", &s.output),
            ("blocker", &s.blocker),
            ("reason", &s.reason),
        ] {
            if let Some(v) = value {
                detail.push_str(&format!(" · {label}: {}", secrets::redact(v)));
            }
        }
        out.push_str(&format!(
            "  {mark} {}. {}{detail}\n",
            i + 1,
            secrets::redact(&s.step)
        ));
    }
    for (title, items) in [
        ("findings", &t.findings),
        ("failed approaches (do not retry)", &t.failed_approaches),
    ] {
        if !items.is_empty() {
            out.push_str(&format!("{title}:\n"));
            for item in items {
                out.push_str(&format!("  - {}\n", secrets::redact(item)));
            }
        }
    }
    out
}
