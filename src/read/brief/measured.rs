//! The brief's metrics section: the numbers the latest handover measured,
//! with their change since the one before, and the probes that failed.

use serde::Serialize;

use crate::read::metrics::{self, Change, ProbeOutcome};
use crate::workspace::Workspace;

/// The latest measured numbers.
#[derive(Debug, Clone, Serialize)]
pub struct Metrics {
    /// The run that measured them.
    pub run_id: Option<String>,
    /// When that run started (RFC 3339).
    pub started_at: Option<String>,
    /// Each number, its previous value and the change.
    pub changes: Vec<Change>,
    /// The probes whose command failed, e.g. `tests failed (exit 1)`.
    pub failed: Vec<String>,
    /// Whether the numbers were left out to fit the budget.
    pub omitted: bool,
    /// Why the run records could not be read, if they could not.
    pub error: Option<String>,
}

/// The section, or `None` when no handover measured anything.
pub fn gather(ws: &Workspace) -> Option<Metrics> {
    let (sessions, error) = match metrics::history(ws, 2) {
        Ok(sessions) if sessions.is_empty() => return None,
        Ok(sessions) => (sessions, None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let latest = sessions.last();
    Some(Metrics {
        run_id: latest.map(|s| s.run_id.clone()),
        started_at: latest.and_then(|s| s.started_at.clone()),
        changes: Change::latest(&sessions),
        failed: latest
            .map(|s| {
                s.sample
                    .probes
                    .iter()
                    .filter_map(ProbeOutcome::failure)
                    .collect()
            })
            .unwrap_or_default(),
        omitted: false,
        error,
    })
}
