//! `doctor`: list every stale or odd state, and (`--fix`) remove what is safe.

use agent_handover::Result;
use agent_handover::read::doctor;
use clap::Args;
use serde_json::json;

use super::Target;
use super::exit;
use super::output::Output;

/// `agent-handover doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Remove what is safe to remove (git locks older than 10 minutes with no
    /// git process running in the repository; records of ended process
    /// groups), after printing what will be removed.
    #[arg(long)]
    pub fix: bool,
    #[command(flatten)]
    pub target: Target,
}

/// Exit 0 when nothing needs action (after `--fix`: nothing left that
/// does), 1 otherwise; what is only worth knowing (a running handover,
/// PAUSE, state drift) is listed either way.
pub fn doctor(args: &DoctorArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    let found = doctor::examine(&ws);
    let mut removed = Vec::new();
    if args.fix {
        let planned: Vec<_> = found.iter().filter_map(|f| f.removable.clone()).collect();
        if !out.json {
            for p in &planned {
                println!("will remove {}", p.display());
            }
        }
        removed = doctor::fix(&ws, &planned);
    }
    let left = if args.fix {
        doctor::examine(&ws)
    } else {
        found
    };
    let stuck = left.iter().any(|f| f.needs_action);
    let memory = agent_handover::read::MemoryPlace::of(&ws);
    out.emit(
        &json!({ "ok": !stuck, "findings": left, "removed": removed, "memory": memory }),
        || {
            println!("{}", memory.sentence());
            for p in &removed {
                println!("removed {}", p.display());
            }
            if !stuck {
                println!("nothing stale or stuck found");
            }
            for f in &left {
                println!("{}: {}\n  fix: {}", f.kind, f.what, f.fix);
            }
        },
    );
    Ok(if left.is_empty() {
        exit::OK
    } else {
        exit::FAILED
    })
}
