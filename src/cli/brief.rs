//! `brief`: the session-start brief, Markdown for the agent, `--json`, or an
//! agent's hook envelope (`--format <agent>`).

use agent_handover::agent::adapters::{self, ADAPTERS};
use agent_handover::read::brief::{self, DEFAULT_MAX_TOKENS};
use agent_handover::{Error, Result};
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
    /// `markdown`, `json`, or an agent's name: the brief in that agent's
    /// session-start envelope and under its size cap (what its hook prints).
    #[arg(long, default_value = "markdown", value_name = "FORMAT")]
    format: String,
    /// Also show the newest N session notes (history is loaded only on request).
    #[arg(long, default_value_t = 0, value_name = "N")]
    history: usize,
    #[command(flatten)]
    target: Target,
}

/// `brief`: exits 0 whenever a brief was made, whatever it reports, so that
/// hooks feed it to the agent.
pub fn brief(args: &BriefArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    let agent = agent_or_tag(&args.agent, &ws);
    match args.format.as_str() {
        "markdown" | "json" => {
            let options = brief::BriefOptions {
                history: args.history,
            };
            let brief = brief::brief_with(&ws, &agent, args.max_tokens, options)?;
            let json = Output {
                json: out.json || args.format == "json",
            };
            json.emit(&brief, || print!("{}", brief.to_markdown()));
        }
        name => {
            let adapter = adapters::find(name).map_err(|_| {
                let names: Vec<&str> = ADAPTERS.iter().map(|a| a.name).collect();
                Error::config(
                    None,
                    format!(
                        "--format {name:?} is not a format\n  fix: use markdown, json or an agent: {}",
                        names.join(", ")
                    ),
                )
            })?;
            let text = agent_handover::agent::hooks::brief_within(
                &ws,
                &agent,
                adapter.protocol.start_cap_chars,
            );
            print!("{}", adapter.protocol.start.wrap(&text));
        }
    }
    Ok(exit::OK)
}
