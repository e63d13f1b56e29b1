//! Maintenance runs: [`Engine::compact`] folds the older months of layer 1
//! into layer 3 (one checkpointed `compact-YYYY-MM` step per month), then
//! applies the `[retention]` counts (a `prune` step), refusing to run over a
//! pending handover; [`preview_compaction`] shows all of it without writing.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use serde::Serialize;

use super::checkpoint::{Checkpoint, RunStatus};
use super::executor::Engine;
use super::identity::new_run_id;
use super::pause::ensure_not_paused;
use super::plan::{compactable_months, compaction_request, retention_policy};
use super::queue::RunQueue;
use super::report::RunReport;
use super::retention::{self, RetentionPlan};
use super::steps::StepSpec;
use crate::base::error::{Error, Result};
use crate::domain::memory::compact::{self, MonthReport};
use crate::domain::memory::month::YearMonth;
use crate::workspace::Workspace;

/// What [`Engine::compact`] did.
#[derive(Debug, Clone, Serialize)]
pub struct Compaction {
    /// Months before this one were folded.
    pub before: YearMonth,
    /// The maintenance run executed (no run id when there was nothing to do).
    #[serde(flatten)]
    pub report: RunReport,
    /// What each executed step did, by step name.
    pub outputs: BTreeMap<String, String>,
}

impl Compaction {
    /// Whether there was nothing to fold, prune or finish.
    pub fn did_nothing(&self) -> bool {
        self.report.run_id.is_none() && self.report.executed.is_empty()
    }
}

impl Engine {
    /// Fold the layer-1 months before `before` into layer 3 and apply
    /// retention, as one checkpointed run; an interrupted maintenance run is
    /// finished first. Refused (exit 6) while a handover is pending: that
    /// check and the run happen under one hold of the run lock.
    pub fn compact(&mut self, before: YearMonth, today: NaiveDate) -> Result<Compaction> {
        let (_lock, cp) = self.lock()?;
        ensure_no_pending_handover(&cp, "run `agent-handover compact` again")?;
        if let Some(queued) = RunQueue::of(self.workspace()).list()?.first() {
            return Err(Error::HandoverInProgress {
                run_id: queued.run_id.clone(),
                pending: "every step (it is queued)".into(),
                then: "run `agent-handover compact` again".into(),
            });
        }
        let in_progress = cp
            .run_id
            .clone()
            .filter(|_| cp.status == RunStatus::InProgress);
        let request = compaction_request(self.workspace(), before, today, in_progress.as_deref())?;
        let last_status = cp.status;
        let report = if !request.plan.is_empty() {
            ensure_not_paused(&self.workspace().pause_files())?;
            request.validate()?;
            self.start_locked(cp, request)?
        } else if in_progress.is_some() {
            ensure_not_paused(&self.workspace().pause_files())?;
            self.resume_locked(cp)?
        } else {
            return Ok(Compaction {
                before,
                report: RunReport {
                    run_id: None,
                    status: last_status,
                    executed: Vec::new(),
                    origin: crate::engine::RunOrigin::Requested,
                    finished_previous: None,
                },
                outputs: BTreeMap::new(),
            });
        };
        let outputs = step_outputs(&self.checkpoint()?);
        Ok(Compaction {
            before,
            report,
            outputs,
        })
    }
}

/// What `compact` would do, computed without writing anything.
#[derive(Debug, Clone, Serialize)]
pub struct CompactionPreview {
    /// Months before this one are folded.
    pub before: YearMonth,
    /// One report per month, oldest first.
    pub months: Vec<MonthReport>,
    /// What retention would delete.
    pub retention: RetentionPlan,
}

/// Preview `compact` (its `--dry-run`).
pub fn preview_compaction(
    ws: &Workspace,
    before: YearMonth,
    today: NaiveDate,
) -> Result<CompactionPreview> {
    let months = compactable_months(ws, before)?
        .into_iter()
        .map(|month| compact::preview_month(&ws.memory, month, today))
        .collect::<Result<_>>()?;
    let policy = retention_policy(ws);
    let cp = Checkpoint::load(&ws.checkpoint)?;
    let in_progress = cp.run_id.filter(|_| cp.status == RunStatus::InProgress);
    // The run that would prune counts as the newest run, as it will when it runs.
    let retention = retention::plan(ws, &policy, Some(&new_run_id()), in_progress.as_deref())?;
    Ok(CompactionPreview {
        before,
        months,
        retention,
    })
}

/// Refuse to start maintenance over a handover in progress (a maintenance
/// run in progress is fine: it is finished first).
pub fn ensure_no_pending_handover(cp: &Checkpoint, then: &str) -> Result<()> {
    if cp.status != RunStatus::InProgress || is_maintenance(&cp.plan) && !cp.plan.is_empty() {
        return Ok(());
    }
    let pending = cp.pending_steps();
    Err(Error::HandoverInProgress {
        run_id: cp
            .run_id
            .clone()
            .unwrap_or_else(|| "(started by 0.5.x)".into()),
        pending: if pending.is_empty() {
            "none".into()
        } else {
            pending.join(", ")
        },
        then: then.into(),
    })
}

/// Whether every step of `plan` is compaction or retention.
pub fn is_maintenance(plan: &[StepSpec]) -> bool {
    plan.iter().all(|s| s.action.is_maintenance())
}

/// The step outputs of the run the checkpoint holds, by step name.
pub fn step_outputs(cp: &Checkpoint) -> BTreeMap<String, String> {
    cp.step_records
        .iter()
        .filter_map(|(name, r)| Some((name.clone(), r.output.clone()?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plan::compaction_cutoff;
    use crate::engine::steps::{CompactStep, SessionNoteStep, StepAction};
    use crate::workspace::WorkspaceOptions;

    fn workspace(dir: &std::path::Path, config: &str) -> Workspace {
        std::fs::write(dir.join("handover.toml"), config).unwrap();
        Workspace::resolve(WorkspaceOptions {
            cwd: Some(dir.into()),
            home: Some(dir.into()),
            ..Default::default()
        })
        .unwrap()
    }

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
    }

    #[test]
    fn one_step_per_month_before_the_cutoff() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path(), "[compaction]\nkeep_months = 2\n");
        for m in ["2026-08", "2026-09", "2026-10", "2026-11"] {
            let dir = ws.memory.layer1_dir().join(m);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("t-{m}-01.md")), "note").unwrap();
        }
        // A month holding no note is not compacted (again and again).
        let only_readme = ws.memory.layer1_dir().join("2026-07");
        std::fs::create_dir_all(&only_readme).unwrap();
        std::fs::write(only_readme.join("README.md"), "hand-written").unwrap();
        let before = compaction_cutoff(&ws, today()).unwrap();
        assert_eq!(before.to_string(), "2026-10");
        let request = compaction_request(&ws, before, today(), None).unwrap();
        let names: Vec<&str> = request.plan.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["compact-2026-08", "compact-2026-09"]);
        assert!(is_maintenance(&request.plan));
        request.validate().unwrap();
    }

    #[test]
    fn keep_months_zero_is_a_config_error() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path(), "[compaction]\nkeep_months = 0\n");
        let err = compaction_cutoff(&ws, today()).unwrap_err();
        assert!(err.to_string().contains("keep_months"), "{err}");
    }

    #[test]
    fn a_pending_handover_blocks_maintenance_but_a_pending_compaction_does_not() {
        let mut cp = Checkpoint {
            status: RunStatus::InProgress,
            run_id: Some("r".into()),
            plan: vec![StepSpec {
                name: "session_note".into(),
                action: StepAction::SessionNote(SessionNoteStep {
                    memory_dir: "m".into(),
                    tag: "t".into(),
                    date: today(),
                }),
            }],
            ..Checkpoint::default()
        };
        let err = ensure_no_pending_handover(&cp, "compact again").unwrap_err();
        assert!(err.to_string().contains("agent-handover resume"), "{err}");
        cp.plan = vec![StepSpec {
            name: "compact-2026-09".into(),
            action: StepAction::Compact(CompactStep {
                memory_dir: "m".into(),
                before: "2026-11".parse().unwrap(),
                month: Some("2026-09".parse().unwrap()),
                date: today(),
            }),
        }];
        ensure_no_pending_handover(&cp, "compact again").unwrap();
    }
}
