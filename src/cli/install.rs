//! `install <agent>`: put the instructions, hooks and MCP registration where
//! the agent reads them; `--check` says whether they are still in place,
//! `--remove` takes them out again.

use agent_handover::Result;
use agent_handover::agent::adapters::trust::TrustState;
use agent_handover::agent::adapters::{self, ADAPTERS, Adapter, Change};
use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use serde_json::json;

use super::Target;
use super::exit;
use super::output::Output;

/// Arguments of `install`.
#[derive(Debug, Args)]
#[command(
    after_help = "Every agent also gets a handover.toml when the project has none. \
    Installing twice changes nothing; `--remove` puts each file back as it was \
    (byte for byte when nothing else changed it). docs/agents.md has a section per agent."
)]
pub struct InstallArgs {
    /// The agent.
    #[arg(value_parser = agent_parser())]
    agent: &'static Adapter,
    /// Only report whether each file still holds what install would write (exit 1 if not).
    #[arg(long, conflicts_with = "remove")]
    check: bool,
    /// Take the agent's instructions, hooks and MCP registration out again.
    #[arg(long)]
    remove: bool,
    #[command(flatten)]
    target: Target,
}

/// Accepts the adapters' names, listing each with its summary in `--help`.
fn agent_parser() -> impl TypedValueParser<Value = &'static Adapter> {
    let names: Vec<PossibleValue> = ADAPTERS
        .iter()
        .map(|a| PossibleValue::new(a.name).help(a.summary()))
        .collect();
    PossibleValuesParser::new(names)
        .map(|name| adapters::find(&name).expect("the parser accepts only the adapters' names"))
}

/// `install`, `install --check`, `install --remove`.
pub fn install(args: &InstallArgs, out: Output) -> Result<u8> {
    let ws = args.target.workspace()?;
    let agent = args.agent;
    // What the agent's own files say of its trust in this project (it
    // skips a project's hooks and MCP servers until then).
    let trust = agent.trust.as_ref().map(|t| {
        let state = t.read.map_or(TrustState::Unknown, |read| read(&ws));
        (state, t.steps)
    });
    // The agent's plugin, when Claude Code runs it here: it gives the hooks
    // and the MCP server, so install writes neither and --check asks for neither.
    let plugin = agent.plugin_in_use(&ws);
    let given = |plugin: &adapters::plugin::PluginUse| {
        let files = adapters::plugin::of(agent).map_or_else(Vec::new, |p| p.replaces(agent));
        format!(
            "plugin     the hooks and the MCP server come from the {} plugin {plugin}: {} left to it",
            agent.title,
            files.join(" and ")
        )
    };
    if args.check {
        let files = adapters::check(&ws, agent)?;
        let ok = files.iter().all(|f| f.state == "installed");
        out.emit(
            &json!({
                "agent": agent.name,
                "installed": ok,
                "files": files,
                "plugin": plugin,
                "trust": trust.map(|(state, _)| state),
            }),
            || {
                for f in &files {
                    println!("{:<9}  {}", f.state, f.path.display());
                }
                if let Some(p) = &plugin {
                    println!("{}", given(p));
                }
                if !ok {
                    println!(
                        "run `agent-handover install {}` to bring it up to date",
                        agent.name
                    );
                }
                match trust {
                    Some((TrustState::Given, _)) => {
                        println!("trusted    {} trusts this project", agent.title)
                    }
                    Some((TrustState::NotGiven, steps)) => println!("untrusted  {steps}"),
                    Some((TrustState::Unknown, steps)) => {
                        println!("trust?     cannot be read here; if not done yet: {steps}")
                    }
                    None => {}
                }
            },
        );
        return Ok(if ok { exit::OK } else { exit::FAILED });
    }
    let files = if args.remove {
        adapters::remove(&ws, agent)?
    } else {
        let files = adapters::install(&ws, agent)?;
        super::workspaces::remember(&ws.root);
        files
    };
    let changed = files.iter().any(|f| f.change != Change::Unchanged);
    out.emit(
        &json!({
            "agent": agent.name,
            "removed": args.remove,
            "changed": changed,
            "files": files,
            "plugin": plugin.as_ref().filter(|_| !args.remove),
            "trust": trust.filter(|_| !args.remove).map(|(state, steps)| json!({"state": state, "steps": steps})),
        }),
        || {
            for f in &files {
                let what = match f.change {
                    Change::Created => "created",
                    Change::Updated => "updated",
                    Change::Unchanged => "unchanged",
                    Change::Restored => "restored",
                    Change::Deleted => "deleted",
                    Change::Kept => "kept",
                };
                println!("{what:<9}  {}", f.path.display());
            }
            if let Some(p) = plugin.as_ref().filter(|_| !args.remove) {
                println!("{}", given(p));
            }
            match (args.remove, changed) {
                (false, false) => {
                    println!("{} was already installed: nothing changed", agent.title)
                }
                (true, false) => println!("{} was not installed: nothing changed", agent.title),
                (false, true) => println!(
                    "{} installed; check with `agent-handover install --check {}`",
                    agent.title, agent.name
                ),
                (true, true) => println!("{} removed", agent.title),
            }
            if !args.remove
                && let Some((state, steps)) = trust
                && state != TrustState::Given
            {
                println!("trust: {steps}");
            }
        },
    );
    Ok(exit::OK)
}
