//! `compact`: fold older months of layer-1 notes into layer 3 and apply
//! retention, as one checkpointed run (or preview it with `--dry-run`).

use std::collections::BTreeMap;

use agent_handover::engine::maintenance::{
    CompactionPreview, compaction_cutoff, compaction_request, ensure_no_pending_handover,
    preview_compaction, step_outputs,
};
use agent_handover::memory::month::YearMonth;
use agent_handover::{Checkpoint, Engine, Result, RunReport, Workspace};
use clap::Args;
use serde::Serialize;

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

/// What `compact --json` prints after a run.
#[derive(Serialize)]
struct CompactOutcome<'a> {
    before: YearMonth,
    #[serde(flatten)]
    report: &'a RunReport,
    /// What each step did, by step name.
    outputs: BTreeMap<String, String>,
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
    let checkpoint = Checkpoint::load(&ws.checkpoint)?;
    ensure_no_pending_handover(&checkpoint, "run `agent-handover compact` again")?;
    let request = compaction_request(&ws, before, today)?;
    let checkpoint_path = ws.checkpoint.clone();
    let mut engine = Engine::new(ws);
    let report = if !request.plan.is_empty() {
        engine.start(request)?
    } else if checkpoint.status == agent_handover::RunStatus::InProgress {
        engine.resume()?
    } else {
        let nothing = RunReport {
            run_id: None,
            status: checkpoint.status,
            executed: Vec::new(),
            finished_previous: None,
        };
        out.emit(
            &CompactOutcome {
                before,
                report: &nothing,
                outputs: BTreeMap::new(),
            },
            || println!("nothing to compact: no layer-1 notes before {before}, nothing to prune"),
        );
        return Ok(exit::OK);
    };
    let outputs = step_outputs(&Checkpoint::load(&checkpoint_path)?);
    out.emit(
        &CompactOutcome {
            before,
            report: &report,
            outputs: outputs.clone(),
        },
        || {
            println!(
                "compaction {} ({}):",
                report.run_id.as_deref().unwrap_or("?"),
                super::inspect::status_name(report.status)
            );
            for step in &report.executed {
                println!("  {step}: {}", outputs.get(step).map_or("", String::as_str));
            }
        },
    );
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
