//! Commands that execute steps: `run`, `resume`, `retry`.

use std::io::Read;
use std::path::{Path, PathBuf};

use agent_handover::domain::handoff::{self, LintContext};
use agent_handover::engine::RunOrigin;
use agent_handover::read::snapshot::queued_advice;
use agent_handover::{
    Engine, Error, Result, RunOverrides, RunReport, RunStatus, Workspace, WorkspaceOptions,
    plan_from_config,
};
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
    /// Let a secret through: the note may hold one and publish commits files holding one (recorded with the run).
    #[arg(long)]
    allow_secret: bool,
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
        allow_secret: args.allow_secret,
    };
    let today = chrono::Local::now().date_naive();
    let request = plan_from_config(&ws, &overrides, today)?;
    super::workspaces::remember(&ws.root);
    // Linted after the handover, not before: the text goes to disk first.
    let unchecked = request
        .quality_gate
        .is_none()
        .then(|| (ws.clone(), request.inputs.clone()));
    let report = Engine::new(ws.clone())
        .start(request)
        .map_err(|e| queued_advice(&ws, e))?;
    if let Some((ws, inputs)) = unchecked
        && let Some(note) = quality_note(&ws, &inputs, today)
    {
        eprintln!("{note}");
    }
    out.emit(&report, || print!("{}", run_text(&report)));
    Ok(exit::OK)
}

/// What the handoff lacks, linted on the way (`None`: no findings); only a
/// configured `min_score` refuses one, so `run` just says it on stderr.
pub fn quality_note(
    ws: &Workspace,
    inputs: &agent_handover::Inputs,
    today: chrono::NaiveDate,
) -> Option<String> {
    let text = inputs
        .current_state
        .as_ref()
        .or(inputs.session_note.as_ref())?;
    let ctx = LintContext::for_workspace(ws);
    let report = handoff::lint(
        &(agent_handover::domain::memory::header(2, today) + text),
        &ctx,
    );
    (!report.findings.is_empty()).then(|| {
        format!(
            "note: this handoff scores {}/100 (`agent-handover lint` shows why; [handover].min_score makes a low score refuse it):\n{}",
            report.score,
            report.summary(3)
        )
    })
}

/// What `run` prints: each run the call executed, oldest first, named by
/// why it ran (an interrupted one finished first, the new handover, the
/// ones queued behind it).
pub fn run_text(report: &RunReport) -> String {
    report_lines(report, |r| {
        format!("handover steps executed: {}\n", joined(&r.executed))
    })
}

/// One line per run of `report`'s chain; `requested` words the run the call
/// asked for.
fn report_lines(report: &RunReport, requested: impl Fn(&RunReport) -> String) -> String {
    let id = |r: &RunReport| r.run_id.clone().unwrap_or_else(|| "?".into());
    let mut text = String::new();
    for (i, r) in report.chain().into_iter().enumerate() {
        text += &match r.origin {
            RunOrigin::Requested => requested(r),
            RunOrigin::Interrupted => format!(
                "finished interrupted handover {}: {}\n",
                id(r),
                joined(&r.executed)
            ),
            RunOrigin::Queued if i == 0 => {
                format!("ran queued handover {}: {}\n", id(r), joined(&r.executed))
            }
            RunOrigin::Queued => format!(
                "then ran handover {}, queued behind it: {}\n",
                id(r),
                joined(&r.executed)
            ),
        };
    }
    text
}

/// `resume`: finish the interrupted handover.
pub fn resume(target: &Target, out: Output) -> Result<u8> {
    let report = Engine::new(target.workspace()?).resume()?;
    out.emit(&report, || print_report("resumed", &report));
    Ok(exit::OK)
}

/// `retry STEP`: run one failed or interrupted step again, then continue.
pub fn retry(target: &Target, step: &str, out: Output) -> Result<u8> {
    let report = Engine::new(target.workspace()?).retry(step)?;
    out.emit(&report, || print_report("retried", &report));
    Ok(exit::OK)
}

fn print_report(verb: &str, report: &RunReport) {
    if report.executed.is_empty()
        && report.finished_previous.is_none()
        && report.status != RunStatus::InProgress
    {
        println!(
            "nothing to resume (last handover: {})",
            report.status.as_str()
        );
    } else {
        print!(
            "{}",
            report_lines(report, |r| format!(
                "{verb} handover {}: steps executed: {}\n",
                r.run_id.as_deref().unwrap_or("?"),
                joined(&r.executed)
            ))
        );
    }
}

fn joined(steps: &[String]) -> String {
    if steps.is_empty() {
        "(none)".into()
    } else {
        steps.join(", ")
    }
}

/// A text given inline or as a file (`-` = stdin).
fn text_arg(inline: &Option<String>, file: &Option<PathBuf>) -> Result<Option<String>> {
    match (inline, file) {
        (Some(text), _) => Ok(Some(text.clone())),
        (None, Some(path)) if path == Path::new("-") => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Error::io("read", "stdin", e))?;
            Ok(Some(text))
        }
        (None, Some(path)) => agent_handover::base::fsx::read_text_bounded(
            path,
            agent_handover::domain::memory::MAX_MEMORY_FILE_BYTES,
            "a handover is a briefing, not a dump: write a shorter note",
        )?
        .map(Some)
        .ok_or_else(|| Error::io("read", path, std::io::ErrorKind::NotFound.into())),
        (None, None) => Ok(None),
    }
}
