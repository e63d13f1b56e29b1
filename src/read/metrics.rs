//! Measured sessions across runs: the numbers each handover's `metrics`
//! step recorded ([`crate::engine::probe`]), read back from the run records for
//! `agent-handover metrics`, the brief and the dashboard.

use serde::Serialize;

use super::history::runs_newest_first;
use crate::engine::checkpoint::{Checkpoint, RunStatus};
pub use crate::engine::probe::{MetricsSample, ProbeOutcome, format_value};
use crate::workspace::Workspace;

/// One session's measured numbers, for `agent-handover metrics`, the brief
/// and the dashboard.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionMetrics {
    /// The run that measured them.
    pub run_id: String,
    /// When that run started (RFC 3339).
    pub started_at: Option<String>,
    /// The run's status.
    pub status: RunStatus,
    /// What its `metrics` step recorded.
    pub sample: MetricsSample,
}

/// Every session with recorded numbers (past runs and the current one),
/// oldest first (by start time, then run id); at most the newest `limit`.
/// Reads run records newest first and stops once it has `limit`.
///
/// Unreadable run records are errors, as in the run history.
pub fn history(ws: &Workspace, limit: usize) -> crate::base::error::Result<Vec<SessionMetrics>> {
    sessions(runs_newest_first(ws)?, limit)
}

/// The newest `limit` sessions with recorded numbers among `runs` (given
/// newest first, as [`runs_newest_first`] reads them), oldest first.
pub fn sessions(
    runs: impl Iterator<Item = crate::base::error::Result<Checkpoint>>,
    limit: usize,
) -> crate::base::error::Result<Vec<SessionMetrics>> {
    let mut sessions = Vec::new();
    for cp in runs {
        if sessions.len() >= limit {
            break;
        }
        let cp = cp?;
        let Some(sample) = cp.step_records.values().find_map(|r| r.metrics.clone()) else {
            continue;
        };
        if let Some(run_id) = cp.run_id {
            sessions.push(SessionMetrics {
                run_id,
                started_at: cp.started_at,
                status: cp.status,
                // Shown redacted: a command's output may hold a secret.
                sample: sample.redacted(),
            });
        }
    }
    sessions.sort_by(|a, b| {
        a.started_at
            .cmp(&b.started_at)
            .then_with(|| a.run_id.cmp(&b.run_id))
    });
    Ok(sessions)
}

/// Every number name in `sessions`: the newest session's in its order, then
/// names only older sessions have (newest first).
pub fn metric_names(sessions: &[SessionMetrics]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for s in sessions.iter().rev() {
        for name in s.sample.values.keys() {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names
}

/// One number in the latest session, and in the one before.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The number's name.
    pub name: String,
    /// Its latest value (absent when its pattern did not match).
    pub value: Option<f64>,
    /// Its value in the previous session, if there was one and it matched.
    pub previous: Option<f64>,
}

impl Change {
    /// Every number of the last of `sessions` (and those only the one before
    /// it had), compared with the one before it.
    pub fn latest(sessions: &[SessionMetrics]) -> Vec<Change> {
        let Some((latest, older)) = sessions.split_last() else {
            return Vec::new();
        };
        let previous = older.last();
        metric_names(&sessions[older.len().saturating_sub(1)..])
            .into_iter()
            .map(|name| Change {
                value: latest.sample.values.get(&name).copied(),
                previous: previous.and_then(|p| p.sample.values.get(&name).copied()),
                name,
            })
            .collect()
    }

    /// The change since the previous session, when both values are known.
    pub fn delta(&self) -> Option<f64> {
        Some(difference(self.previous?, self.value?))
    }

    /// `passed 30 (+5)`, `passed 30 (±0)`, `passed 30` (nothing to compare
    /// with), `passed - (was 25)`.
    pub fn describe(&self) -> String {
        match (self.value, self.delta(), self.previous) {
            (Some(v), Some(d), _) => {
                format!("{} {} ({})", self.name, format_value(v), format_change(d))
            }
            (Some(v), None, _) => format!("{} {}", self.name, format_value(v)),
            (None, _, Some(p)) => format!("{} - (was {})", self.name, format_value(p)),
            (None, _, None) => format!("{} -", self.name),
        }
    }
}

/// `after - before`, rounded to a millionth so that `0.3 - 0.1` is `0.2`.
pub fn difference(before: f64, after: f64) -> f64 {
    ((after - before) * 1e6).round() / 1e6
}

/// A change with its sign: `+5`, `-2.5`, `±0`.
pub fn format_change(change: f64) -> String {
    match change {
        c if c > 0.0 => format!("+{}", format_value(c)),
        c if c < 0.0 => format_value(c),
        _ => "±0".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::checkpoint::{Checkpoint, StepRecord};

    fn session(run_id: &str, started_at: &str, values: &[(&str, f64)]) -> SessionMetrics {
        SessionMetrics {
            run_id: run_id.into(),
            started_at: Some(started_at.into()),
            status: RunStatus::Completed,
            sample: MetricsSample {
                values: values.iter().map(|(k, v)| ((*k).into(), *v)).collect(),
                probes: Vec::new(),
            },
        }
    }

    #[test]
    fn changes_since_the_previous_session() {
        let old = session(
            "a",
            "2026-01-01T10:00:00Z",
            &[("passed", 25.0), ("gone", 3.0), ("ratio", 0.1)],
        );
        let new = session(
            "b",
            "2026-01-02T10:00:00Z",
            &[("passed", 30.0), ("ratio", 0.3), ("fresh", 1.0)],
        );
        let described: Vec<String> = Change::latest(&[old.clone(), new.clone()])
            .iter()
            .map(Change::describe)
            .collect();
        assert_eq!(
            described,
            [
                "passed 30 (+5)",
                "ratio 0.3 (+0.2)",
                "fresh 1",
                "gone - (was 3)"
            ]
        );
        let same = Change::latest(&[new.clone(), new.clone()]);
        assert_eq!(same[0].describe(), "passed 30 (±0)");
        let first = Change::latest(std::slice::from_ref(&new));
        assert_eq!(first[0].describe(), "passed 30");
        assert!(Change::latest(&[]).is_empty());
        assert_eq!(
            metric_names(&[old, new]),
            ["passed", "ratio", "fresh", "gone"]
        );
    }

    #[test]
    fn history_reads_records_and_the_checkpoint_once_each_oldest_first() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::in_dir(dir.path());
        let record = |id: &str, started: &str, passed: Option<f64>, status: RunStatus| {
            let mut step = StepRecord::pending();
            step.metrics = passed.map(|v| MetricsSample {
                values: [("passed".to_string(), v)].into_iter().collect(),
                probes: Vec::new(),
            });
            let mut cp = Checkpoint {
                status,
                run_id: Some(id.into()),
                started_at: Some(started.into()),
                ..Checkpoint::default()
            };
            cp.step_records.insert("metrics".into(), step);
            cp
        };
        assert!(history(&ws, 10).unwrap().is_empty());
        for (id, started, passed) in [
            ("20260103-100000-cccc", "2026-01-03T10:00:00Z", Some(3.0)),
            ("20260101-100000-aaaa", "2026-01-01T10:00:00Z", Some(1.0)),
            ("20260102-100000-bbbb", "2026-01-02T10:00:00Z", None),
            ("20260102-110000-dddd", "2026-01-02T11:00:00Z", Some(2.0)),
        ] {
            record(id, started, passed, RunStatus::Completed)
                .save(&ws.run_record_file(id))
                .unwrap();
        }
        // The current run, in progress, and the archived copy of a finished one.
        let mut current = record(
            "20260104-100000-eeee",
            "2026-01-04T10:00:00Z",
            Some(4.0),
            RunStatus::InProgress,
        );
        current.save(&ws.checkpoint).unwrap();
        current
            .save(&ws.run_record_file("20260104-100000-eeee"))
            .unwrap();
        let all = history(&ws, 10).unwrap();
        let got: Vec<(&str, f64)> = all
            .iter()
            .map(|s| (&s.run_id[..8], s.sample.values["passed"]))
            .collect();
        assert_eq!(
            got,
            [
                ("20260101", 1.0),
                ("20260102", 2.0),
                ("20260103", 3.0),
                ("20260104", 4.0)
            ]
        );
        assert_eq!(all[3].status, RunStatus::InProgress);
        let newest: Vec<f64> = history(&ws, 2)
            .unwrap()
            .iter()
            .map(|s| s.sample.values["passed"])
            .collect();
        assert_eq!(newest, [3.0, 4.0]);
        // The newest two are found without reading older records: a damaged
        // old one does not matter to them, but is an error for the whole history.
        std::fs::write(ws.run_record_file("20250101-100000-ffff"), "{broken").unwrap();
        assert_eq!(history(&ws, 2).unwrap().len(), 2);
        assert!(history(&ws, 10).is_err());
    }
}
