//! `state list` and `state diff`: the versions of current-state.md across
//! sessions (local snapshots, git commits, the working file) and what
//! changed between any two; `identity list` and `identity diff` are the same
//! two commands over identity.md.

mod render;

use agent_handover::Result;
use agent_handover::domain::memory::diff::{Hunk, StateDiff};
use agent_handover::domain::memory::history::VersionedFile;
use agent_handover::domain::memory::versions::{self, Source, Version};
use clap::{Args, Subcommand};
use serde::Serialize;

use super::Target;
use super::exit;
use super::output::Output;
use render::Style;

/// Arguments of `state`.
#[derive(Debug, Args)]
pub struct StateArgs {
    #[command(subcommand)]
    command: StateCommand,
}

#[derive(Debug, Subcommand)]
enum StateCommand {
    /// List the versions, newest first: selector, time, size, run and/or commit.
    List(ListArgs),
    /// Show what changed between two versions (default: the last change).
    Diff(DiffArgs),
}

/// Arguments of `state list` and `identity list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// How many to show.
    #[arg(long, default_value_t = 20)]
    limit: usize,
    #[command(flatten)]
    target: Target,
}

/// Arguments of `state diff` and `identity diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The old version: an index (0 = newest), `current`, or a prefix of its id, commit or run id.
    #[arg(default_value = "1")]
    from: String,
    /// The new version, in the same forms.
    #[arg(default_value = "0")]
    to: String,
    /// Unchanged lines shown around each change.
    #[arg(long, default_value_t = 3, value_name = "N")]
    context: usize,
    /// Two columns: the old version on the left, the new one on the right.
    #[arg(long)]
    side_by_side: bool,
    #[command(flatten)]
    target: Target,
}

/// `state ...`: dispatch.
pub fn state(args: &StateArgs, out: Output) -> Result<u8> {
    match &args.command {
        StateCommand::List(args) => list(VersionedFile::CurrentState, args, out),
        StateCommand::Diff(diff_args) => diff(VersionedFile::CurrentState, diff_args, out),
    }
}

/// A version with its index in the list (JSON of `state diff`).
#[derive(Serialize)]
struct Indexed<'a> {
    index: usize,
    #[serde(flatten)]
    version: &'a Version,
}

/// A hunk with its rows (unified or side-by-side), for JSON.
#[derive(Serialize)]
struct HunkRows<'a, R> {
    header: String,
    #[serde(flatten)]
    hunk: &'a Hunk,
    rows: Vec<R>,
}

/// List `file`'s versions, newest first (`state list`, `identity list`).
pub fn list(file: VersionedFile, args: &ListArgs, out: Output) -> Result<u8> {
    let (ws, limit) = (args.target.workspace()?, args.limit);
    let mut all = versions::list_versions(&ws, file)?;
    let total = all.len();
    all.truncate(limit);
    let shown = serde_json::json!({ "ok": true, "file": file.file_name(), "total": total, "versions": &all });
    out.emit(&shown, || {
        if all.is_empty() {
            println!("no versions of {} yet", file.file_name());
        }
        for (i, v) in all.iter().enumerate() {
            println!("{i:>3}  {}", describe(v));
        }
        if total > all.len() {
            println!("... and {} older (--limit)", total - all.len());
        }
    });
    Ok(exit::OK)
}

/// What changed between two of `file`'s versions (`state diff`,
/// `identity diff`).
pub fn diff(file: VersionedFile, args: &DiffArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    let all = versions::list_versions(&ws, file)?;
    let from = versions::select(&all, &args.from)?;
    let to = versions::select(&all, &args.to)?;
    let diff = StateDiff::new(
        versions::read_version(&ws, file, from)?,
        versions::read_version(&ws, file, to)?,
    );
    let index = |v: &Version| all.iter().position(|x| std::ptr::eq(x, v)).unwrap_or(0);
    let hunks = diff.hunks(args.context);
    if out.json {
        let hunks: Vec<serde_json::Value> = hunks
            .iter()
            .map(|h| {
                let header = h.header();
                if args.side_by_side {
                    let rows = diff.side_by_side_rows(h.side_by_side_rows.clone());
                    serde_json::json!(HunkRows {
                        header,
                        hunk: h,
                        rows
                    })
                } else {
                    let rows = diff.rows(h.rows.clone());
                    serde_json::json!(HunkRows {
                        header,
                        hunk: h,
                        rows
                    })
                }
            })
            .collect();
        let value = serde_json::json!({
            "from": Indexed { index: index(from), version: from },
            "to": Indexed { index: index(to), version: to },
            "stats": diff.stats(),
            "context": args.context,
            "side_by_side": args.side_by_side,
            "hunks": hunks,
        });
        out.emit(&value, || {});
        return Ok(exit::OK);
    }
    println!("--- {}  {}", index(from), describe(from));
    println!("+++ {}  {}", index(to), describe(to));
    if hunks.is_empty() {
        println!("no changes: both hold the same text");
        return Ok(exit::OK);
    }
    let style = Style::detect();
    if args.side_by_side {
        print!("{}", style.side_by_side(&diff, &hunks));
    } else {
        print!("{}", diff.unified_with(args.context, |row| style.row(row)));
    }
    Ok(exit::OK)
}

/// `<id>  <time>  <size>  run …  commit … summary`, the line of `state list`.
fn describe(v: &Version) -> String {
    let mut line = format!(
        "{}  {}  {:>7} B",
        v.id,
        v.at.format("%Y-%m-%d %H:%M:%SZ"),
        v.size
    );
    match (&v.run, v.sources.as_slice()) {
        (Some(run), _) => line += &format!("  run {run}"),
        (None, [Source::Working]) => line += "  working file, edited since the last version",
        (None, _) if v.merge && v.drift.is_none() => line += "  merged from two machines",
        (None, [Source::Local, ..]) if !v.merge => line += "  external edit",
        (None, _) => {}
    }
    if let Some(commit) = &v.commit {
        line += &format!("  commit {commit}");
        if let Some(summary) = &v.summary {
            line += &format!(" {summary}");
        }
    }
    if v.sources.len() > 1 && v.sources.contains(&Source::Working) {
        line += "  (working file)";
    }
    if let Some(d) = &v.drift {
        line += &format!(
            "  DRIFT: {} superseded by a merge ({})",
            d.section_names(),
            d.diff_command()
        );
    }
    line
}
