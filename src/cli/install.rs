//! `install <agent>`: put the session-start bootstrap where the agent reads it.

use agent_handover::Result;
use agent_handover::adapters::{self, AgentKind, Change};
use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use serde_json::json;

use super::Target;
use super::exit;
use super::output::Output;

/// Arguments of `install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// codex, opencode: AGENTS.md; claude: CLAUDE.md and a SessionStart hook in
    /// .claude/settings.json; cline: .clinerules/00-agent-handover.md.
    #[arg(value_parser = agent_parser())]
    agent: AgentKind,
    #[command(flatten)]
    target: Target,
}

/// Accepts the names of [`AgentKind::ALL`], listing each with its summary in `--help`.
fn agent_parser() -> impl TypedValueParser<Value = AgentKind> {
    let names = AgentKind::ALL.map(|a| PossibleValue::new(a.name()).help(a.summary()));
    PossibleValuesParser::new(names).map(|name| {
        name.parse::<AgentKind>()
            .expect("the parser accepts only the agents' names")
    })
}

/// `install`: idempotent; prints what each file went through.
pub fn install(args: &InstallArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    let files = adapters::install(&ws, args.agent)?;
    out.emit(&json!({ "agent": args.agent, "files": files }), || {
        for f in &files {
            let what = match f.change {
                Change::Created => "created",
                Change::Updated => "updated",
                Change::Unchanged => "unchanged",
            };
            let path = f.path.strip_prefix(&ws.root).unwrap_or(&f.path);
            println!("{what:<9}  {}", path.display());
        }
    });
    Ok(exit::OK)
}
