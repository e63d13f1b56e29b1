//! Handing over and settling a run: `run` and the MCP `handover` tool,
//! `resume`, `retry`, `abandon`, `compact` (the CLI, the dashboard's keys
//! and the demo).

use chrono::NaiveDate;

use crate::agent::sessions;
use crate::base::error::{Error, Result};
use crate::domain::handoff;
use crate::domain::memory::month::YearMonth;
use crate::engine::maintenance::Compaction;
use crate::engine::{Checkpoint, Engine, RunOverrides, RunReport, plan_from_config};
use crate::read::{RunSnapshot, run_state};
use crate::workspace::Workspace;

/// What a handover did: the run's report (what `run --json` prints), where
/// its publish steps put the memory, and what the handoff lacks when no
/// quality gate scored it before it was written.
#[derive(Debug, Clone)]
pub struct HandedOver {
    /// The runs the call executed.
    pub report: RunReport,
    /// One line per publish step executed: `publish: committed 1a2b3c …`.
    pub published: Vec<String>,
    /// The quality note (`note: this handoff scores …`), if it lacks something.
    pub quality: Option<String>,
}

impl HandedOver {
    /// Everything in words, as the MCP `handover` tool answers: the run's
    /// line, where the memory went, then the quality note.
    pub fn text(&self) -> String {
        let mut text = self.report.run_text();
        for line in self.published.iter().chain(&self.quality) {
            text.push_str(line);
            text.push('\n');
        }
        text
    }
}

/// Hand over: plan the run from the config and `overrides`, attach the
/// live session's context use and what the handover covers (the `HEAD` and
/// work tree its note describes), execute it (the texts are on disk before
/// anything can refuse them), then lint the handoff when no gate did.
/// A handover left in the queue comes back as [`Error::Queued`] with the
/// run state's next action filled in.
pub fn hand_over(ws: &Workspace, overrides: &RunOverrides, today: NaiveDate) -> Result<HandedOver> {
    let mut request = plan_from_config(ws, overrides, today)?;
    request.context = sessions::handing_over_context(ws);
    // What the note describes: work since this handover is measured from it.
    request.inputs.covered = crate::workspace::activity::covered(ws);
    // Its next step, found once here rather than at every session start.
    request.next_step = request
        .inputs
        .current_state
        .as_deref()
        .map(crate::engine::checkpoint::RecordedStep::of);
    // Linted after the handover, not before: the text goes to disk first.
    let unchecked = request
        .quality_gate
        .is_none()
        .then(|| {
            let inputs = &request.inputs;
            inputs.current_state.clone().or(inputs.session_note.clone())
        })
        .flatten();
    let report = Engine::new(ws.clone())
        .start(request)
        .map_err(|e| queued_advice(ws, e))?;
    let quality = unchecked.and_then(|text| {
        let state = crate::domain::memory::header(2, today) + &text;
        handoff::quality_note(&state, &crate::engine::lint_context(ws, &state))
    });
    let published = where_it_went(ws, &report);
    Ok(HandedOver {
        report,
        published,
        quality,
    })
}

/// Finish the interrupted handover.
pub fn resume(ws: &Workspace) -> Result<RunReport> {
    Engine::new(ws.clone()).resume()
}

/// Run one failed or interrupted step again, then the rest.
pub fn retry(ws: &Workspace, step: &str) -> Result<RunReport> {
    Engine::new(ws.clone()).retry(step)
}

/// Give up the interrupted handover, keeping its record and files.
pub fn abandon(ws: &Workspace, reason: Option<&str>) -> Result<Checkpoint> {
    Engine::new(ws.clone()).abandon(reason)
}

/// Fold the layer-1 notes of the months before `before` into archives and
/// apply retention.
pub fn compact(ws: &Workspace, before: YearMonth, today: NaiveDate) -> Result<Compaction> {
    Engine::new(ws.clone()).compact(before, today)
}

/// Where the publish steps `report`'s run executed put the memory, one line
/// each (`publish: committed 1a2b3c on master; committed locally, …`).
fn where_it_went(ws: &Workspace, report: &RunReport) -> Vec<String> {
    let Ok(snap) = RunSnapshot::load(ws) else {
        return Vec::new();
    };
    if snap.run_id != report.run_id {
        return Vec::new();
    }
    snap.steps
        .iter()
        .filter(|step| {
            step.kind.as_deref() == Some("publish") && report.executed.contains(&step.name)
        })
        .filter_map(|step| Some(format!("{}: {}", step.name, step.output.as_ref()?)))
        .collect()
}

/// `error` with what to do next when it is a handover staged in the queue
/// ([`Error::Queued`]): the run state's next action, read now (the call
/// that queued it has let go of the run lock). Any other error is returned
/// as it is.
fn queued_advice(ws: &Workspace, error: Error) -> Error {
    match error {
        Error::Queued {
            run_id,
            inputs,
            source,
            next: None,
        } => Error::Queued {
            run_id,
            inputs,
            source,
            next: Some(run_state(ws).next_action().sentence()),
        },
        other => other,
    }
}
