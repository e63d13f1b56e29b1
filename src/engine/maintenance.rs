//! Maintenance runs: `agent-handover compact` folds the older months of
//! layer 1 into layer 3 (one checkpointed `compact-YYYY-MM` step per month),
//! then applies the `[retention]` counts (a `prune` step), and can preview
//! all of it without writing anything.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use serde::Serialize;

use super::checkpoint::{Checkpoint, RunStatus, StepState};
use super::executor::new_run_id;
use super::plan::{
    DEFAULT_KEEP_MONTHS, Inputs, PRUNE, RunRequest, StepAction, StepSpec, retention_policy,
};
use super::retention::{self, RetentionPlan};
use crate::error::{Error, Result};
use crate::memory::compact::{self, MonthReport};
use crate::memory::month::YearMonth;
use crate::workspace::Workspace;

/// The first month kept in layer 1 on `today`: compaction folds the months
/// before it (`[compaction].keep_months`, default 1: the current month stays).
pub fn compaction_cutoff(ws: &Workspace, today: NaiveDate) -> Result<YearMonth> {
    let keep = ws
        .config
        .compaction
        .keep_months
        .unwrap_or(DEFAULT_KEEP_MONTHS);
    if keep == 0 {
        return Err(Error::config(
            ws.config_path.as_deref(),
            "[compaction].keep_months must be at least 1 (the current month stays in layer 1)",
        ));
    }
    Ok(YearMonth::of(today).minus(keep - 1))
}

/// The `compact` run: a `compact-YYYY-MM` step for every layer-1 month
/// before `before`, then `prune` when `[retention]` would delete something.
/// An empty plan means there is nothing to do.
pub fn compaction_request(
    ws: &Workspace,
    before: YearMonth,
    today: NaiveDate,
) -> Result<RunRequest> {
    let mut plan: Vec<StepSpec> = months_before(ws, before)?
        .into_iter()
        .map(|month| StepSpec {
            name: format!("compact-{month}"),
            action: StepAction::Compact {
                memory_dir: ws.memory.root.clone(),
                before,
                month: Some(month),
                date: today,
            },
        })
        .collect();
    let policy = retention_policy(ws);
    if policy.is_set() && !retention::plan(ws, &policy, Some(&new_run_id()))?.is_empty() {
        plan.push(StepSpec {
            name: PRUNE.into(),
            action: StepAction::Prune { policy },
        });
    }
    Ok(RunRequest {
        plan,
        inputs: Inputs::default(),
    })
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
    let months = months_before(ws, before)?
        .into_iter()
        .map(|month| compact::preview_month(&ws.memory, month, today))
        .collect::<Result<_>>()?;
    let policy = retention_policy(ws);
    // The run that would prune counts as the newest run, as it will when it runs.
    let retention = retention::plan(ws, &policy, Some(&new_run_id()))?;
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
    let pending: Vec<&str> = cp
        .step_records
        .iter()
        .filter(|(_, r)| r.state != StepState::Done)
        .map(|(name, _)| name.as_str())
        .collect();
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
    plan.iter().all(|s| {
        matches!(
            s.action,
            StepAction::Compact { .. } | StepAction::Prune { .. }
        )
    })
}

/// The step outputs of the run the checkpoint holds, by step name.
pub fn step_outputs(cp: &Checkpoint) -> BTreeMap<String, String> {
    cp.step_records
        .iter()
        .filter_map(|(name, r)| Some((name.clone(), r.output.clone()?)))
        .collect()
}

/// The layer-1 months before `before` that hold notes.
fn months_before(ws: &Workspace, before: YearMonth) -> Result<Vec<YearMonth>> {
    Ok(compact::layer1_months(&ws.memory)?
        .into_iter()
        .filter(|m| *m < before && compact::has_notes(&ws.memory, *m))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let request = compaction_request(&ws, before, today()).unwrap();
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
                action: StepAction::SessionNote {
                    memory_dir: "m".into(),
                    tag: "t".into(),
                    date: today(),
                },
            }],
            ..Checkpoint::default()
        };
        let err = ensure_no_pending_handover(&cp, "compact again").unwrap_err();
        assert!(err.to_string().contains("agent-handover resume"), "{err}");
        cp.plan = vec![StepSpec {
            name: "compact-2026-09".into(),
            action: StepAction::Compact {
                memory_dir: "m".into(),
                before: "2026-11".parse().unwrap(),
                month: Some("2026-09".parse().unwrap()),
                date: today(),
            },
        }];
        ensure_no_pending_handover(&cp, "compact again").unwrap();
    }
}
