//! `draft`: a pre-filled handoff to complete and hand over with `run --note-file`.

use std::path::PathBuf;

use agent_handover::Result;
use agent_handover::base::fsx;
use agent_handover::domain::handoff::templates::TemplateKind;
use agent_handover::read::draft::{self, DraftOptions};
use clap::Args;
use serde_json::json;

use super::Target;
use super::exit;
use super::inbox::agent_or_tag;
use super::output::Output;

/// Arguments of `draft`.
#[derive(Debug, Args)]
pub struct DraftArgs {
    /// Whose handoff (and inbox) [default: $AGENT_HANDOVER_AGENT, else [handover].tag].
    #[arg(long, env = "AGENT_HANDOVER_AGENT")]
    agent: Option<String>,
    /// The template's kind of work (`agent-handover template` lists them).
    #[arg(long, default_value = "code", value_name = "KIND")]
    work_type: TemplateKind,
    /// Do not run the [[metric]] commands (they may take a while: a test suite).
    #[arg(long)]
    no_metrics: bool,
    /// Write the draft to FILE (atomically) instead of printing it.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    target: Target,
}

/// `draft`: print (or write) the pre-filled handoff.
pub fn draft(args: &DraftArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    let agent = agent_or_tag(&args.agent, &ws);
    let opts = DraftOptions {
        work_type: args.work_type,
        measure: !args.no_metrics,
        date: chrono::Local::now().date_naive(),
    };
    let d = draft::draft(&ws, &agent, opts)?;
    if let Some(path) = &args.output {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fsx::create_dir_durable(dir)?;
        }
        fsx::write_atomic(path, d.text.as_bytes())?;
    }
    out.emit(
        &json!({ "ok": true, "draft": d, "written_to": args.output }),
        || match &args.output {
            Some(path) => println!(
                "draft written to {}: replace every TODO, then `agent-handover run --note-file {}`",
                path.display(),
                path.display()
            ),
            None => print!("{}", d.text),
        },
    );
    Ok(exit::OK)
}
