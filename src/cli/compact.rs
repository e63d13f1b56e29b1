//! `compact`: fold older months of layer-1 notes into layer 3 and apply
//! retention, as one checkpointed run (or preview it with `--dry-run`).

use agent_handover::domain::memory::month::YearMonth;
use agent_handover::engine::maintenance::{CompactionPreview, preview_compaction};
use agent_handover::engine::plan::compaction_cutoff;
use agent_handover::ops::handover;
use agent_handover::{Result, Workspace};
use clap::Args;

use super::Target;
use super::exit;
use super::output::Output;

/// Arguments of `compact`.
#[derive(Debug, Args)]
pub struct CompactArgs {
    /// Fold the months before this one [default: every month but the newest [compaction].keep_months, i.e. all before the current month].
    #[arg(long, value_name = "YYYY-MM")]
    before: Option<YearMonth>,
    /// Show what would be archived, removed and pruned; change nothing.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    target: Target,
}

/// `compact`.
pub fn compact(args: &CompactArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    let today = chrono::Local::now().date_naive();
    let before = match args.before {
        Some(month) => month,
        None => compaction_cutoff(&ws, today)?,
    };
    if args.dry_run {
        let preview = preview_compaction(&ws, before, today)?;
        out.emit(&preview, || print_preview(&ws, &preview));
        return Ok(exit::OK);
    }
    let done = handover::compact(&ws, before, today)?;
    out.emit(&done, || {
        if done.did_nothing() {
            println!("nothing to compact: no layer-1 notes before {before}, nothing to prune");
            return;
        }
        println!(
            "compaction {} ({}):",
            done.report.run_id.as_deref().unwrap_or("?"),
            done.report.status.as_str()
        );
        for step in &done.report.executed {
            let output = done.outputs.get(step).map_or("", String::as_str);
            println!("  {step}: {output}");
        }
    });
    Ok(exit::OK)
}

fn print_preview(ws: &Workspace, preview: &CompactionPreview) {
    let shown = |p: &std::path::Path| p.strip_prefix(&ws.root).unwrap_or(p).display().to_string();
    println!(
        "dry run: nothing was changed. Compacting the months before {}:",
        preview.before
    );
    if preview.months.is_empty() {
        println!("  no layer-1 notes before {}", preview.before);
    }
    for month in &preview.months {
        let notes: usize = month
            .archives
            .iter()
            .map(|a| a.appended + a.already_archived)
            .sum();
        println!("  {}: {notes} note{}", month.month, plural(notes));
        for a in &month.archives {
            let mut line = format!(
                "    -> {} (+{} note{}, {} bytes",
                shown(&a.path),
                a.appended,
                plural(a.appended),
                a.bytes
            );
            if a.already_archived > 0 {
                line.push_str(&format!("; {} already archived", a.already_archived));
            }
            println!("{line})");
        }
        for s in &month.skipped {
            println!("    stays in layer 1: {}: {}", shown(&s.path), s.reason);
        }
    }
    if preview.retention.is_empty() {
        println!("retention: nothing to remove");
    } else {
        println!("retention: {}", preview.retention.describe("would remove"));
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
