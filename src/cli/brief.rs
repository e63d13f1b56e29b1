//! `brief`: the session-start brief, Markdown for the agent or `--json`.

use agent_handover::Result;
use agent_handover::brief::{self, DEFAULT_MAX_TOKENS};
use clap::Args;

use super::Target;
use super::exit;
use super::inbox::agent_or_tag;
use super::output::Output;

/// Arguments of `brief`.
#[derive(Debug, Args)]
pub struct BriefArgs {
    /// Whose brief (and inbox) [default: $AGENT_HANDOVER_AGENT, else [handover].tag].
    #[arg(long, env = "AGENT_HANDOVER_AGENT")]
    agent: Option<String>,
    /// Token budget (about 4 characters a token); the least important parts are cut first.
    #[arg(long, default_value_t = DEFAULT_MAX_TOKENS, value_name = "N")]
    max_tokens: usize,
    #[command(flatten)]
    target: Target,
}

/// `brief`: exits 0 whenever a brief was made, whatever it reports, so that
/// hooks feed it to the agent.
pub fn brief(args: &BriefArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    let brief = brief::brief(&ws, &agent_or_tag(&args.agent, &ws), args.max_tokens)?;
    out.emit(&brief, || print!("{}", brief.to_markdown()));
    Ok(exit::OK)
}
