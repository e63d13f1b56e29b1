//! `hook <event> --agent <name>`: what the agents' installed hooks run. Reads
//! the agent's JSON on stdin, answers in the agent's envelope, and always
//! exits 0: a problem becomes a brief naming it, never a silent failure.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use agent_handover::agent::adapters::{self, ADAPTERS, Adapter};
use agent_handover::agent::hooks::{self, HookEvent, HookInput};
use agent_handover::workspace::DEFAULT_CONFIG;
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
    let start = agent
        .protocol
        .project_dir_env
        .and_then(std::env::var_os)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| input.cwd.clone())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    let root = project_root(&start);
    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(root),
        ..Default::default()
    });
    let reply = hooks::respond(&agent.protocol, agent.name, args.event, &input, ws);
    print!("{}", reply.stdout);
    eprint!("{}", reply.stderr);
    exit::OK
}

/// The nearest directory at or above `start` with a `handover.toml`, not
/// leaving the git repository; else the repository's root; else `start`.
fn project_root(start: &Path) -> PathBuf {
    let mut git_root = None;
    for dir in start.ancestors() {
        if dir.join(DEFAULT_CONFIG).is_file() {
            return dir.to_path_buf();
        }
        if dir.join(".git").exists() {
            git_root = Some(dir.to_path_buf());
            break;
        }
    }
    git_root.unwrap_or_else(|| start.to_path_buf())
}
