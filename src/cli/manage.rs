//! Commands that change state without executing steps: `abandon`, `pause`,
//! `unpause`, `init`.

use std::path::PathBuf;

use agent_handover::base::fsx;
use agent_handover::engine::pause;
use agent_handover::ops::handover;
use agent_handover::workspace::config::MemoryModel;
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
    // The memory model of the project the config is for.
    let dir = args
        .path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let model = agent_handover::Workspace::resolve(agent_handover::WorkspaceOptions {
        cwd: Some(dir.to_path_buf()),
        ..Default::default()
    })
    .map_or(MemoryModel::InProject, |ws| ws.starter_model());
    let body = agent_handover::workspace::config::starter(&args.tag, model);
    if !fsx::create_new(&args.path, body.as_bytes())? {
        return Err(Error::config(
            Some(&args.path),
            "already exists; agent-handover init never overwrites a config\n  fix: edit it, or pass --path to write elsewhere",
        ));
    }
    let memory = match model {
        MemoryModel::OwnRef => "ref",
        MemoryModel::InProject => "project",
    };
    out.emit(&json!({ "created": args.path, "memory": memory }), || {
        if model == MemoryModel::OwnRef {
            println!(
                "the memory goes on the repository's own ref (refs/agent-handover/memory), shared by every worktree and off every code branch"
            );
        }
        // The config is found by itself where it is the default one.
        let config = (args.path != std::path::Path::new(agent_handover::workspace::DEFAULT_CONFIG))
            .then(|| args.path.to_string_lossy());
        println!(
            "created {}; next, at the end of a session: {}",
            args.path.display(),
            agent_handover::read::draft::handover_loop(None, config.as_deref())
        );
    });
    Ok(exit::OK)
}

/// Arguments of `migrate`.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    #[command(flatten)]
    target: Target,
}

/// `migrate`: the memory from the code branch to the repository's own ref.
pub fn migrate(args: &MigrateArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    let done = agent_handover::ops::migrate::migrate(&ws)?;
    out.emit(&json!({ "ok": true, "migrated": done }), || {
        println!(
            "the memory is on its own ref now: {} ({} file(s) copied, {} already there), shared by every worktree",
            done.shared_dir.display(),
            done.copied,
            done.unchanged
        );
        println!("{}", done.committed);
        for kept in &done.kept {
            println!("kept        {kept} (the shared memory's own, newer text)");
        }
        if let Some(config) = &done.config_switched {
            println!(
                "switched    {} to [backend] type = \"ref\"",
                config.display()
            );
        }
        match &done.remove_from_branch {
            Some(command) => println!(
                "next: take the memory off the code branch, in a commit you review:\n  {command}"
            ),
            None => println!("the code branch carries no memory: nothing else to do"),
        }
    });
    Ok(exit::OK)
}
