//! Commands that change state without executing steps: `abandon`, `pause`,
//! `unpause`, `init`.

use std::path::PathBuf;

use agent_handover::base::fsx;
use agent_handover::engine::pause;
use agent_handover::ops::handover;
use agent_handover::{Error, Result};
use clap::Args;
use serde_json::json;

use super::Target;
use super::exit;
use super::output::Output;

/// `abandon`: give up the interrupted run, keeping its record.
pub fn abandon(target: &Target, reason: Option<&str>, out: Output) -> Result<u8> {
    let cp = handover::abandon(&target.workspace()?, reason)?;
    let run = cp.run_id.clone().unwrap_or_else(|| "(0.5.x run)".into());
    out.emit(&cp, || {
        println!(
            "abandoned handover {run} (not done: {}); its record and files are kept",
            cp.pending_steps().join(", ")
        );
    });
    Ok(exit::OK)
}

/// `pause`: create the PAUSE file.
pub fn pause(target: &Target, global: bool, reason: Option<&str>, out: Output) -> Result<u8> {
    let ws = target.workspace()?;
    let file = pause::pause(&ws, global, reason)?;
    out.emit(&json!({ "paused": true, "file": file }), || {
        println!(
            "paused: {} (remove with `agent-handover unpause{}`)",
            file.display(),
            if global { " --global" } else { "" }
        );
    });
    Ok(exit::OK)
}

/// `unpause`: remove the PAUSE file; warns when another one still pauses.
pub fn unpause(target: &Target, global: bool, out: Output) -> Result<u8> {
    let ws = target.workspace()?;
    let removed = pause::unpause(&ws, global)?;
    let still = pause::active_pause(&ws.pause_files());
    out.emit(
        &json!({ "removed": removed, "still_paused": still }),
        || {
            match &removed {
                Some(f) => println!("unpaused: removed {}", f.display()),
                None => println!("was not paused by this file"),
            }
            if let Some(p) = &still {
                println!("still paused by {}", p.file.display());
            }
        },
    );
    Ok(exit::OK)
}

/// Arguments of `init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Where to write the config.
    #[arg(long, default_value = "handover.toml", value_name = "FILE")]
    path: PathBuf,
    /// Tag for this agent's session notes.
    #[arg(long, default_value = "general")]
    tag: String,
}

/// `init`: write a commented handover.toml; never overwrites.
pub fn init(args: &InitArgs, out: Output) -> Result<u8> {
    agent_handover::domain::memory::file_tag(&args.tag)?;
    let body = agent_handover::workspace::config::starter(&args.tag);
    if !fsx::create_new(&args.path, body.as_bytes())? {
        return Err(Error::config(
            Some(&args.path),
            "already exists; agent-handover init never overwrites a config\n  fix: edit it, or pass --path to write elsewhere",
        ));
    }
    out.emit(&json!({ "created": args.path }), || {
        println!(
            "created {}; next: agent-handover run --config {} --note \"...\"",
            args.path.display(),
            args.path.display()
        );
    });
    Ok(exit::OK)
}
