//! The task state files: `task ...`, the MCP `task` tool, and the
//! dashboard's plan panel. Every task comes back with its secrets redacted,
//! in its text and its `--json` alike.

use chrono::{DateTime, Utc};

use crate::base::error::Result;
use crate::base::secrets;
use crate::domain::task::{Notes, Task, TaskAction, TaskOutcome, TaskStore};
use crate::workspace::Workspace;

/// Do `action` on `ws`'s tasks, adding `notes` to the task it changes; what
/// it did or found, redacted.
pub fn apply(
    ws: &Workspace,
    action: TaskAction,
    notes: Notes,
    now: DateTime<Utc>,
) -> Result<TaskOutcome> {
    let outcome = TaskStore::new(ws.tasks_dir()).apply(action, notes, now)?;
    Ok(match outcome {
        TaskOutcome::Changed(task) => TaskOutcome::Changed(shown(task)),
        TaskOutcome::Shown(task) => TaskOutcome::Shown(task.map(shown)),
        TaskOutcome::Listed(tasks) => TaskOutcome::Listed(tasks.into_iter().map(shown).collect()),
    })
}

/// Every task, most recently updated first, redacted.
pub fn list(ws: &Workspace) -> Result<Vec<Task>> {
    Ok(TaskStore::new(ws.tasks_dir())
        .list()?
        .into_iter()
        .map(shown)
        .collect())
}

/// `task` as shown: every text it holds redacted (the steps, their outputs,
/// blockers and reasons, the findings, the failed approaches, and the keys
/// someone else wrote).
fn shown(mut task: Task) -> Task {
    for step in &mut task.plan {
        secrets::redact_in_place(&mut step.step);
        [&mut step.output, &mut step.blocker, &mut step.reason]
            .into_iter()
            .flatten()
            .for_each(secrets::redact_in_place);
        step.extra.values_mut().for_each(secrets::redact_json);
    }
    task.findings.iter_mut().for_each(secrets::redact_in_place);
    task.failed_approaches
        .iter_mut()
        .for_each(secrets::redact_in_place);
    task.extra.values_mut().for_each(secrets::redact_json);
    task
}
