//! `sync`: bring the other machines' memory in without handing over.

use std::time::Duration;

use agent_handover::Result;
use agent_handover::engine::sync::{self, SyncState};
use clap::Args;
use serde_json::json;

use super::Target;
use super::exit;
use super::output::Output;

/// `agent-handover sync`.
#[derive(Debug, Args)]
pub struct SyncArgs {
    /// Give the remote this many seconds to answer before going on offline
    /// (default: [backend].sync_timeout_secs, else 3).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
    #[command(flatten)]
    pub target: Target,
}

/// Fetch and integrate; offline is reported, not an error (exit 0).
pub fn sync(args: &SyncArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    let limit = args
        .timeout
        .map_or_else(|| sync::timeout(&ws), Duration::from_secs);
    let report = sync::sync(&ws, limit)?;
    out.emit(&json!({ "ok": true, "sync": report }), || {
        match report.state {
            SyncState::Synced => println!("synced: {}", report.detail),
            SyncState::Offline => println!(
                "offline: {}; the memory is as it was (sync again when online)",
                report.detail
            ),
            SyncState::Local | SyncState::NotSynced => println!("not synced: {}", report.detail),
        }
    });
    Ok(exit::OK)
}
