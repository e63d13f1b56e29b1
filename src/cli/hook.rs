//! `hook <event> --agent <name>`: what the agents' installed hooks run. Reads
//! the agent's JSON on stdin, answers in the agent's envelope, and always
//! exits 0: a problem becomes a brief naming it, never a silent failure.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use agent_handover::agent::adapters::{self, ADAPTERS, Adapter};
use agent_handover::agent::hooks::{self, HookEvent, HookHome, HookInput};
use agent_handover::{Workspace, WorkspaceOptions};
use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

use super::exit;

/// Most bytes of hook input read.
const MAX_INPUT_BYTES: u64 = 4 * 1024 * 1024;

/// Arguments of `hook`.
#[derive(Debug, Args)]
pub struct HookArgs {
    /// The lifecycle event.
    #[arg(value_parser = event_parser())]
    event: HookEvent,
    /// The agent whose hook this is (it decides the output format).
    #[arg(long, value_parser = agent_parser())]
    agent: &'static Adapter,
}

fn event_parser() -> impl TypedValueParser<Value = HookEvent> {
    let names = HookEvent::ALL.map(|e| PossibleValue::new(e.name()));
    PossibleValuesParser::new(names).map(|name| {
        *HookEvent::ALL
            .iter()
            .find(|e| e.name() == name)
            .expect("the parser accepts only the events' names")
    })
}

fn agent_parser() -> impl TypedValueParser<Value = &'static Adapter> {
    let names: Vec<PossibleValue> = ADAPTERS
        .iter()
        .map(|a| PossibleValue::new(a.name))
        .collect();
    PossibleValuesParser::new(names)
        .map(|name| adapters::find(&name).expect("the parser accepts only the adapters' names"))
}

/// `hook`: answer the agent; exit 0 whatever happens.
pub fn hook(args: &HookArgs) -> u8 {
    let mut stdin = String::new();
    if !std::io::stdin().is_terminal() {
        let _ = std::io::stdin()
            .take(MAX_INPUT_BYTES)
            .read_to_string(&mut stdin);
    }
    let input = HookInput::parse(&stdin, &args.agent.protocol.input);
    let agent = args.agent;
    let project_dir = agent
        .protocol
        .project_dir_env
        .and_then(std::env::var_os)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let home = HookHome::locate(project_dir.as_deref(), input.cwd.as_deref(), &here);
    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(home.dir().to_path_buf()),
        ..Default::default()
    });
    let reply = match &home {
        HookHome::Project(_) => {
            let kept = ws.as_ref().ok().cloned();
            let mut reply = hooks::respond(&agent.protocol, agent.name, args.event, &input, ws);
            // After the hook's work: the brief it leaves tells of it.
            if let Some(ws) = kept
                && let Err(e) = agent.refresh_rules_brief(&ws)
            {
                reply.stderr += &format!("agent-handover: the rules' brief not refreshed: {e}\n");
            }
            reply
        }
        HookHome::ReadOnly { why, .. } => {
            hooks::respond_read_only(&agent.protocol, agent.name, args.event, ws, why)
        }
    };
    print!("{}", reply.stdout);
    eprint!("{}", reply.stderr);
    exit::OK
}
