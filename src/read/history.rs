//! Past runs: the final records archived in `runs/`, plus the run in
//! progress, newest first.

use serde::Serialize;

use crate::base::error::Result;
use crate::domain::capacity::ContextUse;
use crate::domain::handoff::usefulness::Usefulness;
use crate::domain::handoff::verdict::SessionVerdict;
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
    /// The verdict of the session that started from this run's handoff,
    /// given when it handed over in turn (the next completed run's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_session_verdict: Option<SessionVerdict>,
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
            next_session_verdict: None,
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
    // Each completed run's verdict is on the completed run before it.
    let mut newer_verdict = None;
    for run in &mut runs {
        if run.status == RunStatus::Completed {
            run.next_session_verdict = newer_verdict.take();
            newer_verdict = run
                .previous_handoff
                .as_ref()
                .and_then(|u| u.verdict.clone());
        }
    }
    runs.truncate(limit);
    runs
}

/// The record of every run with an id, once each: see [`runs_newest_first`].
pub fn load_runs(ws: &Workspace) -> Result<Vec<Checkpoint>> {
    runs_newest_first(ws)?.collect()
}

pub use crate::engine::checkpoint::runs_newest_first;

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
        crate::engine::inputs::staged_inputs(ws, self.run_id.as_deref()?)?.covered
    }
}

/// The newest completed handover; `None` if none ever did.
pub fn last_handover(ws: &Workspace) -> Result<Option<LastHandover>> {
    if let Some(newest) = completed_checkpoint(ws) {
        return Ok(Some(newest));
    }
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

/// The checkpoint's run, when it is a completed handover (the newest run
/// there is, so the newest completed one): read for the few keys this
/// needs, without listing the archived runs or building the whole record
/// (the brief asks at every session start). `None` for anything else,
/// including a checkpoint this cannot read, which the full walk reports.
fn completed_checkpoint(ws: &Workspace) -> Option<LastHandover> {
    #[derive(serde::Deserialize)]
    struct Newest {
        status: RunStatus,
        #[serde(default)]
        finished_at: Option<String>,
        #[serde(default = "legacy")]
        schema_version: u32,
        #[serde(default)]
        run_id: Option<String>,
        #[serde(default)]
        covered_head: Option<String>,
        #[serde(default)]
        next_step: Option<crate::engine::checkpoint::RecordedStep>,
    }
    fn legacy() -> u32 {
        1
    }
    let text = crate::base::fsx::read_text_bounded(
        &ws.checkpoint,
        crate::engine::checkpoint::MAX_CHECKPOINT_BYTES,
        "move it aside",
    )
    .ok()??;
    let newest: Newest = serde_json::from_str(&text).ok()?;
    let finished_at = newest
        .finished_at
        .as_deref()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())?
        .with_timezone(&chrono::Utc);
    (newest.status == RunStatus::Completed
        && newest.run_id.is_some()
        && newest.schema_version <= crate::engine::checkpoint::SCHEMA_VERSION)
        .then_some(LastHandover {
            run_id: newest.run_id,
            finished_at,
            covered_head: newest.covered_head,
            next_step: newest.next_step,
        })
}

/// When the newest completed handover finished; `None` if none ever did.
pub fn last_completed_at(ws: &Workspace) -> Result<Option<chrono::DateTime<chrono::Utc>>> {
    Ok(last_handover(ws)?.map(|h| h.finished_at))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checkpoint read for its few keys gives what the walk over every
    /// run gives.
    #[test]
    fn the_last_handover_read_from_the_checkpoint_is_the_walks() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::in_dir(dir.path());
        assert_eq!(last_handover(&ws).unwrap(), None);
        let mut older = Checkpoint {
            status: RunStatus::Completed,
            run_id: Some("20261121-100000-aaaa".into()),
            finished_at: Some("2026-11-21T10:00:05+00:00".into()),
            covered_head: Some("a".repeat(40)),
            ..Checkpoint::default()
        };
        older
            .save(&ws.run_record_file("20261121-100000-aaaa"))
            .unwrap();
        // In progress now: the archived one is the last handover.
        let mut now = Checkpoint {
            status: RunStatus::InProgress,
            run_id: Some("20261122-100000-bbbb".into()),
            ..Checkpoint::default()
        };
        now.save(&ws.checkpoint).unwrap();
        assert_eq!(completed_checkpoint(&ws), None);
        let last = last_handover(&ws).unwrap().unwrap();
        assert_eq!(last.run_id.as_deref(), Some("20261121-100000-aaaa"));
        assert_eq!(last.covered_head, older.covered_head);
        // Completed: read from the checkpoint alone, as the walk reads it.
        now.status = RunStatus::Completed;
        now.finished_at = Some("2026-11-22T10:00:05.123456+00:00".into());
        now.next_step = Some(crate::engine::checkpoint::RecordedStep::of(
            "## Next step\nShip it.\n",
        ));
        now.save(&ws.checkpoint).unwrap();
        let fast = completed_checkpoint(&ws).unwrap();
        let walked = runs_newest_first(&ws).unwrap().next().unwrap().unwrap();
        assert_eq!(fast.run_id, walked.run_id);
        assert_eq!(fast.next_step, walked.next_step);
        assert_eq!(
            fast.finished_at
                .to_rfc3339_opts(chrono::SecondsFormat::Micros, false),
            "2026-11-22T10:00:05.123456+00:00"
        );
        assert_eq!(last_handover(&ws).unwrap(), Some(fast));
    }

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
