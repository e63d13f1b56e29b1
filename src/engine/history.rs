//! Past runs: the final records archived in `runs/`, plus the run in
//! progress, newest first.

use serde::Serialize;

use super::checkpoint::{Checkpoint, RunStatus, StepState};
use crate::error::{Error, Result};
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
        })
    }
}

/// Every run the workspace remembers, newest first; at most `limit`.
///
/// Unreadable records are reported, not skipped silently.
pub fn list_runs(ws: &Workspace, limit: usize) -> Result<Vec<RunSummary>> {
    let mut records: Vec<std::path::PathBuf> = match std::fs::read_dir(ws.runs_dir()) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_str().is_some_and(|s| s.ends_with(".record.json")))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Error::io("list", ws.runs_dir(), e)),
    };
    records.sort_unstable_by(|a, b| b.cmp(a));
    let mut runs = Vec::new();
    let current = Checkpoint::load(&ws.checkpoint)?;
    if current.status == RunStatus::InProgress {
        runs.extend(RunSummary::of(&current));
    }
    for path in records {
        if runs.len() >= limit {
            break;
        }
        let cp = Checkpoint::load(&path)?;
        if let Some(summary) = RunSummary::of(&cp)
            && !runs.iter().any(|r| r.run_id == summary.run_id)
        {
            runs.push(summary);
        }
    }
    runs.truncate(limit);
    Ok(runs)
}
