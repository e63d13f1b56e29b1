//! `sync`: bring the other machines' memory in without handing over, at
//! session start: fetch the publish branch and integrate it by layer (the
//! same merge a publish makes; nothing is pushed but a push a handover left
//! pending, which a PAUSE pulled meanwhile holds). Taken under the run lock,
//! and refused while a handover is pending or queued (its publish
//! integrates), or while PAUSE is on. Offline is not an error: the fetch
//! gives up after a short time and the memory stays as it was.

use std::time::Duration;

use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::outcome::StepError;
use crate::domain::backend::{BackendSpec, Synced};
use crate::engine::checkpoint::{Checkpoint, RunStatus};
use crate::engine::lock::RunLock;
use crate::engine::pause::ensure_not_paused;
use crate::engine::queue::RunQueue;
use crate::workspace::Workspace;

/// How long a sync waits for the remote by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3);

/// How a sync went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncState {
    /// The remote's memory is in.
    Synced,
    /// The remote did not answer in time: the memory is as it was.
    Offline,
    /// The backend keeps memory on this machine only: nothing to sync.
    Local,
    /// It could not be done now (paused, busy, a handover pending, git
    /// refused): the memory is as it was.
    NotSynced,
}

/// What a sync did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncReport {
    /// How it went.
    pub state: SyncState,
    /// What was done, or why not.
    pub detail: String,
}

/// The sync `brief` makes first when `[backend].sync_before_brief` is set
/// (`None` otherwise); never an error: what went wrong is the report.
pub fn before_brief(ws: &Workspace) -> Option<SyncReport> {
    ws.config.backend.sync_before_brief.then(|| {
        sync(ws, timeout(ws)).unwrap_or_else(|e| SyncReport {
            state: SyncState::NotSynced,
            detail: e.to_string(),
        })
    })
}

/// The fetch time limit `ws` asks for (`[backend].sync_timeout_secs`).
pub fn timeout(ws: &Workspace) -> Duration {
    ws.config
        .backend
        .sync_timeout_secs
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs)
}

/// Fetch and integrate the memory of `ws` (see the module docs), giving
/// the remote `limit` to answer.
pub fn sync(ws: &Workspace, limit: Duration) -> Result<SyncReport> {
    // A fresh clone of a repository whose memory is on its own ref takes
    // it, and is on the ref from then on.
    let adopted = BackendSpec::adopt_remote_memory(ws, limit).map_err(|e| Error::SyncFailed {
        detail: e.to_string(),
    })?;
    if let Some(adopted) = adopted {
        return Ok(report(adopted));
    }
    let backend = BackendSpec::of_workspace(ws, false)
        .map_err(|detail| Error::config(ws.config_path.as_deref(), detail))?;
    let backend = backend.backend();
    let failed = |e: crate::domain::backend::BackendError| Error::SyncFailed {
        detail: e.to_string(),
    };
    if !backend.shares() {
        return backend
            .sync(Some(limit), &|| Ok(()))
            .map(report)
            .map_err(failed);
    }
    ensure_not_paused(&ws.pause_files())?;
    let _lock = RunLock::acquire(&ws.lock_file())?;
    let cp = Checkpoint::load(&ws.checkpoint)?;
    let queued = RunQueue::of(ws).list()?;
    let pending = match (&cp.status, queued.first()) {
        (RunStatus::InProgress, _) if !cp.pending_steps().is_empty() => Some((
            cp.run_id.clone().unwrap_or_default(),
            cp.pending_steps().join(", "),
        )),
        (_, Some(q)) => Some((q.run_id.clone(), "every step (it is queued)".into())),
        _ => None,
    };
    if let Some((run_id, pending)) = pending {
        return Err(Error::HandoverInProgress {
            run_id,
            pending,
            then: "sync again (a handover's own publish brings the remote's memory in)".into(),
        });
    }
    let brake = || ensure_not_paused(&ws.pause_files()).map_err(StepError::from);
    backend
        .sync(Some(limit), &brake)
        .map(report)
        .map_err(failed)
}

/// A backend's sync as the report says it.
fn report(synced: Synced) -> SyncReport {
    let (state, detail) = match synced {
        Synced::Done(detail) => (SyncState::Synced, detail),
        Synced::Offline(detail) => (SyncState::Offline, detail),
        Synced::Local(detail) => (SyncState::Local, detail),
    };
    SyncReport { state, detail }
}
