//! `workspaces [list] | forget DIR`: the registry of workspaces that
//! `dashboard --all` shows (every project where `install` or a handover ran).

use std::path::PathBuf;

use agent_handover::workspace::registry::{self, Registry};
use agent_handover::{Error, Result};
use clap::Subcommand;
use serde_json::json;

use super::exit;
use super::output::Output;

/// Subcommands of `workspaces`.
#[derive(Debug, Subcommand)]
pub enum WorkspacesCommand {
    /// List the registered workspaces (the default), missing ones marked.
    List,
    /// Remove a workspace from the registry (its files are not touched).
    Forget {
        /// The workspace's directory, as listed.
        #[arg(required_unless_present = "missing", conflicts_with = "missing")]
        dir: Option<PathBuf>,
        /// Every workspace whose directory is gone instead (listed `missing`).
        #[arg(long)]
        missing: bool,
    },
}

/// Register `root` in the user's registry; a failure is a warning on
/// stderr, never the command's error.
pub fn remember(root: &std::path::Path) {
    if let Err(e) = registry::remember(root) {
        eprintln!("warning: workspace not registered: {e}");
    }
}

/// The user's registry, or an error saying why there is none.
pub fn user_registry() -> Result<Registry> {
    Registry::for_user().ok_or_else(|| {
        Error::config(
            None,
            "no registry of workspaces: neither $XDG_CONFIG_HOME nor $HOME is set\n  fix: set HOME",
        )
    })
}

/// `workspaces ...`: dispatch.
pub fn workspaces(command: Option<&WorkspacesCommand>, out: Output) -> Result<u8> {
    let registry = user_registry()?;
    match command {
        None | Some(WorkspacesCommand::List) => {
            let entries = registry.load()?;
            let rows: Vec<_> = entries
                .iter()
                .map(|e| json!({"path": e.path, "first_seen": e.first_seen, "last_seen": e.last_seen, "missing": e.is_missing()}))
                .collect();
            out.emit(
                &json!({"registry": registry.file, "workspaces": rows}),
                || {
                    if entries.is_empty() {
                        println!(
                            "no workspaces registered yet in {} (install or a handover registers one)",
                            registry.file.display()
                        );
                    }
                    for e in &entries {
                        let missing = if e.is_missing() { "  (missing)" } else { "" };
                        println!(
                            "{}  last seen {}{missing}",
                            e.path.display(),
                            e.last_seen.format("%Y-%m-%d %H:%M")
                        );
                    }
                },
            );
            Ok(exit::OK)
        }
        Some(WorkspacesCommand::Forget { dir: None, .. }) => {
            let gone = registry.forget_missing()?;
            out.emit(&json!({"forgotten": gone}), || {
                if gone.is_empty() {
                    println!("no missing workspace registered");
                }
                for path in &gone {
                    println!("forgot {} (missing)", path.display());
                }
            });
            Ok(exit::OK)
        }
        Some(WorkspacesCommand::Forget { dir: Some(dir), .. }) => {
            let forgotten = registry.forget(dir)?;
            out.emit(&json!({"path": dir, "forgotten": forgotten}), || {
                if forgotten {
                    println!("forgot {}", dir.display());
                } else {
                    println!("{} was not registered", dir.display());
                }
            });
            Ok(if forgotten { exit::OK } else { exit::FAILED })
        }
    }
}
