//! `identity show | set | edit | list | diff`: the slow-changing layer (policies, goals),
//! changed only here or by hand, never by a handover.

use std::io::IsTerminal;

use agent_handover::base::fsx;
use agent_handover::domain::memory::history::VersionedFile;
use agent_handover::ops::identity;
use agent_handover::{Error, Result};
use clap::Subcommand;
use serde_json::json;

use super::Target;
use super::exit;
use super::output::Output;
use super::state::{self, DiffArgs, ListArgs};

/// Subcommands of `identity`.
#[derive(Debug, Subcommand)]
pub enum IdentityCommand {
    /// Print memory/identity.md and how many versions are kept.
    Show(Target),
    /// Replace one section (`## Policies`, `## Goals`, ...; added when missing) with TEXT or stdin.
    Set {
        /// The section's heading, e.g. Policies.
        section: String,
        /// Its new body [default: stdin].
        #[arg(allow_hyphen_values = true)]
        text: Option<String>,
        #[command(flatten)]
        target: Target,
    },
    /// Edit the whole file in $VISUAL / $EDITOR; the previous version is kept.
    Edit(Target),
    /// List the versions of identity.md, newest first (merges flagged as drift).
    List(ListArgs),
    /// Show what changed between two versions of identity.md (default: the last change).
    Diff(DiffArgs),
}

/// `identity ...`: dispatch.
pub fn identity(command: &IdentityCommand, out: Output) -> Result<u8> {
    match command {
        IdentityCommand::List(args) => return state::list(VersionedFile::Identity, args, out),
        IdentityCommand::Diff(args) => return state::diff(VersionedFile::Identity, args, out),
        IdentityCommand::Show(target) => {
            let shown = identity::show(&target.workspace()?)?;
            out.emit(&shown, || match &shown.text {
                Some(t) => print!("{t}"),
                None => println!(
                    "no identity yet ({}): `agent-handover identity set Policies \"- ...\"` starts one",
                    shown.path.display()
                ),
            });
        }
        IdentityCommand::Set {
            section,
            text,
            target,
        } => {
            let body = match text {
                Some(t) => t.clone(),
                None => read_stdin()?,
            };
            let set = identity::set(&target.workspace()?, section, &body)?;
            out.emit(&set, || {
                println!("{}: section {section:?} set", set.path.display());
            });
        }
        IdentityCommand::Edit(target) => {
            let ws = target.workspace()?;
            let before = identity::text_to_edit(&ws)?;
            let scratch = ws.state_dir().join("identity.edit.md");
            fsx::write_atomic(&scratch, before.as_bytes())?;
            let editor = std::env::var("VISUAL")
                .or_else(|_| std::env::var("EDITOR"))
                .unwrap_or_else(|_| "vi".into());
            let status = std::process::Command::new("sh")
                .args(["-c", &format!("{editor} \"$1\""), "sh"])
                .arg(&scratch)
                .status()
                .map_err(|e| Error::io("run the editor", &scratch, e))?;
            let after =
                std::fs::read_to_string(&scratch).map_err(|e| Error::io("read", &scratch, e))?;
            if !status.success() {
                eprintln!(
                    "the editor exited with {status}; nothing changed (your text is in {})",
                    scratch.display()
                );
                return Ok(exit::FAILED);
            }
            let changed = after != before;
            if changed && let Err(e) = identity::replace(&ws, &after) {
                eprintln!("your edited text is kept in {}", scratch.display());
                return Err(e);
            }
            let _ = std::fs::remove_file(&scratch);
            let path = ws.memory.identity();
            out.emit(&json!({"path": path, "changed": changed}), || {
                println!(
                    "{}: {}",
                    path.display(),
                    if changed {
                        "saved (the previous version is kept)"
                    } else {
                        "unchanged"
                    }
                );
            });
        }
    }
    Ok(exit::OK)
}

fn read_stdin() -> Result<String> {
    if std::io::stdin().is_terminal() {
        return Err(Error::EmptyText {
            what: "section text",
            fix: "give the text as an argument or pipe it in",
        });
    }
    // identity.md is a memory file: the same limit as reading it back.
    fsx::read_stdin_bounded(
        agent_handover::domain::memory::MAX_MEMORY_FILE_BYTES,
        "identity.md holds policies and goals, not a dump: give a shorter section",
    )
}
