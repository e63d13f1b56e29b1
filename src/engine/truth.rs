//! The linter's context with the project's truth: what
//! [`LintContext::for_workspace`] gathers, and the commits the handoff's
//! session made and those made after it, read by the commit graph from the
//! `HEAD`s the newest handovers covered (their run records, which the
//! engine keeps), and what the run that handed the text over measured.
//! Every face and the quality gate lint with it, so a score
//! is one answer wherever it is shown.

use crate::domain::handoff::LintContext;
use crate::domain::handoff::measured::Measured;
use crate::domain::handoff::truth;
use crate::domain::memory::without_header;
use crate::workspace::{Workspace, activity};

use super::checkpoint::{Checkpoint, RunStatus, runs_newest_first};
use super::inputs::staged_inputs;

/// The context to lint `text` with in `ws`, the truth checks included.
pub fn lint_context(ws: &Workspace, text: &str) -> LintContext {
    let recent = recent_completed(ws);
    let mut ctx = LintContext::for_workspace(ws);
    ctx.truth = truth::gather(
        &ws.root,
        &recent
            .iter()
            .filter_map(|r| r.covered_head.clone())
            .take(2)
            .collect::<Vec<_>>(),
        text,
        &activity::not_work_paths(ws),
    );
    ctx.measured = measured_by_the_run_of(ws, &recent, text);
    ctx
}

/// How many completed handovers are looked at, newest first.
const RECENT: usize = 5;

/// The newest completed handovers, newest first (unreadable records are
/// skipped).
fn recent_completed(ws: &Workspace) -> Vec<Checkpoint> {
    let Ok(runs) = runs_newest_first(ws) else {
        return Vec::new();
    };
    runs.flatten()
        .filter(|r| r.status == RunStatus::Completed)
        .take(RECENT)
        .collect()
}

/// What the run that handed `text` over (as its note or its current
/// state) measured, if one of the recent runs did and measured something.
fn measured_by_the_run_of(ws: &Workspace, recent: &[Checkpoint], text: &str) -> Option<Measured> {
    let text = without_header(text).trim();
    recent.iter().find_map(|run| {
        let run_id = run.run_id.as_deref()?;
        // In the record already: a run that measured nothing costs no read.
        let sample = run.step_records.values().find_map(|r| r.metrics.as_ref())?;
        let inputs = staged_inputs(ws, run_id)?;
        let handed_over = [&inputs.session_note, &inputs.current_state]
            .into_iter()
            .flatten()
            .any(|t| without_header(t).trim() == text);
        if !handed_over {
            return None;
        }
        let sample = sample.clone().redacted();
        Some(Measured {
            source: format!("measured by run {run_id}"),
            failures: sample.probes.iter().filter_map(|p| p.failure()).collect(),
            values: sample.values.into_iter().collect(),
        })
    })
}
