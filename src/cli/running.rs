//! Commands that execute steps: `run`, `resume`, `retry`.

use std::path::{Path, PathBuf};

use agent_handover::ops::handover;
use agent_handover::{Error, Result, RunOverrides, Workspace, WorkspaceOptions};
use clap::Args;

use super::Target;
use super::exit;
use super::output::Output;

/// Arguments of `run` (0.5.1's flags, plus note files).
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The handover config (TOML) [default: ./handover.toml if it exists].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Session note; overrides [note].session (may start with `-`: a list).
    #[arg(long, conflicts_with = "note_file", allow_hyphen_values = true)]
    note: Option<String>,
    /// Read the session note from a file (`-` for stdin).
    #[arg(long, value_name = "FILE")]
    note_file: Option<PathBuf>,
    /// Current state; overrides [note].current_state (default: the session note).
    #[arg(
        long,
        conflicts_with = "current_state_file",
        allow_hyphen_values = true
    )]
    current_state: Option<String>,
    /// Read the current state from a file (`-` for stdin).
    #[arg(long, value_name = "FILE")]
    current_state_file: Option<PathBuf>,
    /// Local only: do not push, whatever [backend].push says.
    #[arg(long)]
    no_push: bool,
    /// Checkpoint file; overrides [handover].checkpoint.
    #[arg(long, env = "AGENT_HANDOVER_CHECKPOINT", value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Refuse a new handover whose current state scores below N (0-100), writing nothing; overrides [handover].min_score.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=100))]
    min_score: Option<u8>,
    /// Hand over an empty (or blank) note or current state on purpose; refused otherwise (exit 64).
    #[arg(long)]
    allow_empty: bool,
    /// Hand over a note or current state that is an unfilled template (mostly TODO lines) on purpose; refused otherwise (exit 7).
    #[arg(long)]
    allow_template: bool,
    /// Let a secret through: the note may hold one and publish commits files holding one (recorded with the run).
    #[arg(long)]
    allow_secret: bool,
    /// Your verdict on the handoff this session started from: a score of 1-10, then what was missing or wrong ("7/10 the failing test was not named"); recorded with the run (history, lint --outcomes). Beats a "Verdict on the last handoff:" line in the note.
    #[arg(long, value_name = "VERDICT")]
    verdict: Option<String>,
}

/// `run`: execute the handover the config describes.
pub fn run(args: &RunArgs, out: Output) -> Result<u8> {
    let ws = Workspace::resolve(WorkspaceOptions {
        config: args.config.clone(),
        checkpoint: args.checkpoint.clone(),
        ..Default::default()
    })?;
    for w in &ws.warnings {
        eprintln!("warning: {w}");
    }
    let overrides = RunOverrides {
        note: text_arg(&args.note, &args.note_file)?,
        current_state: text_arg(&args.current_state, &args.current_state_file)?,
        no_push: args.no_push,
        min_score: args.min_score,
        allow_empty: args.allow_empty,
        allow_template: args.allow_template,
        allow_secret: args.allow_secret,
        verdict: args.verdict.clone(),
    };
    let today = chrono::Local::now().date_naive();
    super::workspaces::remember(&ws.root);
    let handed = handover::hand_over(&ws, &overrides, today)?;
    if let Some(note) = &handed.quality {
        eprintln!("{note}");
    }
    // Stdout keeps 0.5.1's one line; where the memory went is on stderr.
    if !out.json {
        for line in &handed.published {
            eprintln!("{line}");
        }
    }
    out.emit(&handed.report, || print!("{}", handed.report.run_text()));
    Ok(exit::OK)
}

/// `resume`: finish the interrupted handover.
pub fn resume(target: &Target, out: Output) -> Result<u8> {
    let report = handover::resume(&target.workspace()?)?;
    out.emit(&report, || print!("{}", report.resume_text("resumed")));
    Ok(exit::OK)
}

/// `retry STEP`: run one failed or interrupted step again, then continue.
pub fn retry(target: &Target, step: &str, out: Output) -> Result<u8> {
    let report = handover::retry(&target.workspace()?, step)?;
    out.emit(&report, || print!("{}", report.resume_text("retried")));
    Ok(exit::OK)
}

/// What to do about a note or state over the limit, from a file or stdin.
const NOTE_TOO_LARGE_FIX: &str = "a handover is a briefing, not a dump: write a shorter note";

/// A text given inline or as a file (`-` = stdin, held to the file's limit).
fn text_arg(inline: &Option<String>, file: &Option<PathBuf>) -> Result<Option<String>> {
    match (inline, file) {
        (Some(text), _) => Ok(Some(text.clone())),
        (None, Some(path)) if path == Path::new("-") => {
            agent_handover::base::fsx::read_stdin_bounded(
                agent_handover::domain::memory::MAX_MEMORY_FILE_BYTES,
                NOTE_TOO_LARGE_FIX,
            )
            .map(Some)
        }
        (None, Some(path)) => agent_handover::base::fsx::read_text_bounded(
            path,
            agent_handover::domain::memory::MAX_MEMORY_FILE_BYTES,
            NOTE_TOO_LARGE_FIX,
        )?
        .map(Some)
        .ok_or_else(|| Error::io("read", path, std::io::ErrorKind::NotFound.into())),
        (None, None) => Ok(None),
    }
}
