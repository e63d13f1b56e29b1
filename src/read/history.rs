//! Past runs: the final records archived in `runs/`, plus the run in
//! progress, newest first.

use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::domain::capacity::ContextUse;
use crate::domain::handoff::usefulness::Usefulness;
use crate::engine::checkpoint::{Checkpoint, RunStatus, StepState};
use crate::workspace::Workspace;

/// One past (or current) run, summarised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunSummary {
    /// Run id.
    pub run_id: String,
    /// Final (or current) status.
    pub status: RunStatus,
    /// When it started.
    pub started_at: Option<String>,
    /// When it completed.
    pub finished_at: Option<String>,
    /// Steps done.
    pub steps_done: usize,
    /// Steps in the plan.
    pub steps_total: usize,
    /// Steps that failed or were interrupted.
    pub problem_steps: Vec<String>,
    /// Who abandoned it and why, for abandoned runs.
    pub abandoned: Option<String>,
    /// It was let through with `--allow-secret`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allow_secret: bool,
    /// How useful the handoff it started from turned out to be.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_handoff: Option<Usefulness>,
    /// How full the handing-over session's context was, when measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextUse>,
}

impl RunSummary {
    fn of(cp: &Checkpoint) -> Option<Self> {
        let records = &cp.step_records;
        Some(RunSummary {
            run_id: cp.run_id.clone()?,
            status: cp.status,
            started_at: cp.started_at.clone(),
            finished_at: cp.finished_at.clone(),
            steps_done: records
                .values()
                .filter(|r| r.state == StepState::Done)
                .count(),
            steps_total: records.len(),
            problem_steps: records
                .iter()
                .filter(|(_, r)| {
                    matches!(
                        r.effective_state(),
                        StepState::Failed | StepState::Interrupted
                    )
                })
                .map(|(n, _)| n.clone())
                .collect(),
            abandoned: cp.abandoned.as_ref().map(|a| match &a.reason {
                Some(r) => format!("by {} at {}: {r}", a.by, a.at.format("%Y-%m-%d %H:%M")),
                None => format!("by {} at {}", a.by, a.at.format("%Y-%m-%d %H:%M")),
            }),
            allow_secret: cp.allow_secret,
            previous_handoff: cp.previous_handoff.clone(),
            context: cp.context.clone(),
        })
    }
}

/// Every run the workspace remembers, newest first (by start time); at most `limit`.
///
/// Unreadable records are reported, not skipped silently.
pub fn list_runs(ws: &Workspace, limit: usize) -> Result<Vec<RunSummary>> {
    Ok(summarize(&load_runs(ws)?, limit))
}

/// The newest `limit` of `runs` summarised, newest first (by start time).
pub fn summarize(runs: &[Checkpoint], limit: usize) -> Vec<RunSummary> {
    let mut runs: Vec<RunSummary> = runs.iter().filter_map(RunSummary::of).collect();
    runs.sort_by(|a, b| {
        b.started_at
            .cmp(&a.started_at)
            .then_with(|| b.run_id.cmp(&a.run_id))
    });
    runs.truncate(limit);
    runs
}

/// The record of every run with an id, once each: see [`runs_newest_first`].
pub fn load_runs(ws: &Workspace) -> Result<Vec<Checkpoint>> {
    runs_newest_first(ws)?.collect()
}

/// The record of every run with an id, once each, read lazily: first the
/// current checkpoint (in progress, or finished without an archived record:
/// finished by 0.5.1, or a crash between completing and archiving), then the
/// archived records in `runs/`, newest first by run id (ids begin with their
/// start time), so a reader that needs only the newest can stop early.
/// Unreadable records are errors.
pub fn runs_newest_first(ws: &Workspace) -> Result<impl Iterator<Item = Result<Checkpoint>>> {
    let mut records: Vec<std::path::PathBuf> = match std::fs::read_dir(ws.runs_dir()) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_str().is_some_and(|s| s.ends_with(".record.json")))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Error::io("list", ws.runs_dir(), e)),
    };
    records.sort_unstable_by(|a, b| b.cmp(a));
    let current = Some(Checkpoint::load(&ws.checkpoint)?).filter(|cp| cp.run_id.is_some());
    let current_id = current.as_ref().and_then(|cp| cp.run_id.clone());
    // Record files are named by run id, so only the checkpoint can repeat one.
    let archived = records
        .into_iter()
        .filter_map(move |path| match Checkpoint::load(&path) {
            Ok(cp) if cp.run_id.is_none() || cp.run_id == current_id => None,
            other => Some(other),
        });
    Ok(current.map(Ok).into_iter().chain(archived))
}

/// How useful the previous handoff turned out to be, as the newest run
/// that judged one recorded it (best effort: unreadable records are skipped).
pub fn latest_previous_handoff(ws: &Workspace) -> Option<Usefulness> {
    runs_newest_first(ws)
        .ok()?
        .filter_map(|r| r.ok())
        .find_map(|r| r.previous_handoff)
}

/// The newest completed handover: when it finished and what it covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastHandover {
    /// Its run id.
    pub run_id: Option<String>,
    /// When it completed.
    pub finished_at: chrono::DateTime<chrono::Utc>,
    /// The `HEAD` it saw, when it recorded it.
    pub covered_head: Option<String>,
    /// The next step of the current state it wrote, when it recorded it.
    pub next_step: Option<crate::engine::checkpoint::RecordedStep>,
}

impl LastHandover {
    /// What it covered (its `HEAD` and the work tree its note described),
    /// from its staged inputs: `None` when it recorded none (an older
    /// agent-handover, or outside git) or they are gone.
    pub fn covered(&self, ws: &Workspace) -> Option<crate::workspace::activity::Baseline> {
        crate::engine::queue::staged_inputs(ws, self.run_id.as_deref()?)?.covered
    }
}

/// The newest completed handover; `None` if none ever did.
pub fn last_handover(ws: &Workspace) -> Result<Option<LastHandover>> {
    for run in runs_newest_first(ws)? {
        let run = run?;
        if run.status != RunStatus::Completed {
            continue;
        }
        let finished = run.finished_at.as_deref().and_then(|t| {
            chrono::DateTime::parse_from_rfc3339(t)
                .ok()
                .map(|t| t.with_timezone(&chrono::Utc))
        });
        if let Some(finished_at) = finished {
            return Ok(Some(LastHandover {
                run_id: run.run_id,
                finished_at,
                covered_head: run.covered_head,
                next_step: run.next_step,
            }));
        }
    }
    Ok(None)
}

/// When the newest completed handover finished; `None` if none ever did.
pub fn last_completed_at(ws: &Workspace) -> Result<Option<chrono::DateTime<chrono::Utc>>> {
    Ok(last_handover(ws)?.map(|h| h.finished_at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completed_run_without_archived_record_is_listed_once() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::in_dir(dir.path());
        let mut cp = Checkpoint {
            status: RunStatus::Completed,
            run_id: Some("20261121-100000-aaaa".into()),
            ..Checkpoint::default()
        };
        cp.save(&ws.checkpoint).unwrap();
        let runs = list_runs(&ws, 10).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].status, RunStatus::Completed);
        // Once archived, it is still listed once.
        cp.save(&ws.run_record_file("20261121-100000-aaaa"))
            .unwrap();
        assert_eq!(list_runs(&ws, 10).unwrap().len(), 1);
    }
}
