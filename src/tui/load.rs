//! Reading what the dashboard shows, through the engine library (it never
//! reads or writes the workspace's files by itself). Runs off the UI thread.

use std::sync::Arc;

use agent_handover::Workspace;
use agent_handover::engine::RunSnapshot;
use agent_handover::engine::history::list_runs;
use agent_handover::memory::diff::StateDiff;
use agent_handover::memory::versions::{Version, list_versions, read_version};

use super::app::FullData;

/// How many past runs the timeline shows.
pub const TIMELINE_LIMIT: usize = 500;

/// The run snapshot (cheap: the checkpoint, PAUSE and the lock).
pub fn run(ws: &Workspace) -> Result<RunSnapshot, String> {
    RunSnapshot::load(ws).map_err(|e| e.to_string())
}

/// Everything else.
pub fn full(ws: &Workspace) -> FullData {
    FullData {
        runs: Some(list_runs(ws, TIMELINE_LIMIT).map_err(|e| e.to_string())),
        versions: Some(list_versions(ws).map_err(|e| e.to_string())),
    }
}

/// The diff between two versions.
pub fn diff(ws: &Workspace, from: &Version, to: &Version) -> Result<Arc<StateDiff>, String> {
    let old = read_version(ws, from).map_err(|e| e.to_string())?;
    let new = read_version(ws, to).map_err(|e| e.to_string())?;
    Ok(Arc::new(StateDiff::new(old, new)))
}
