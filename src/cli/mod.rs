//! The command line: argument parsing and dispatch. Each command family lives
//! in its own file and only formats what the library returns.

mod brief;
mod compact;
#[cfg(feature = "dashboard")]
mod demo;
mod doctor;
mod draft;
mod exit;
mod generate;
mod hook;
mod identity;
mod inbox;
mod inspect;
mod install;
mod knowledge;
mod manage;
#[cfg(feature = "mcp")]
mod mcp;
mod metrics;
mod output;
mod quality;
mod running;
mod sessions;
mod state;
mod sync;
mod task;
mod workspaces;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use agent_handover::{Workspace, WorkspaceOptions};
use output::Output;

/// agent-handover: crash-safe session handovers for AI coding agents.
#[derive(Debug, Parser)]
#[command(
    name = "agent-handover",
    // The crate's version and the commit it was built from (build.rs).
    version = env!("AGENT_HANDOVER_VERSION"),
    about = "Crash-safe session handovers for AI coding agents",
    long_about = "Crash-safe session handovers for AI coding agents.\n\n\
        At session end, `run` writes a dated session note (layer 1), replaces \
        memory/layer2/current-state.md (layer 2) and publishes, one checkpointed \
        step at a time. At session start, `check` exits 1 if that handover was \
        interrupted; `resume` finishes it without redoing finished steps. A PAUSE \
        file (`pause`) stops all automation.",
    after_help = exit::HELP_TABLE
)]
pub struct Cli {
    /// Print one JSON object on stdout instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

/// Where the workspace's files are.
#[derive(Debug, Clone, Args)]
pub struct Target {
    /// Checkpoint file [default: .agent-handover/checkpoint.json, or [handover].checkpoint of the config].
    #[arg(long, env = "AGENT_HANDOVER_CHECKPOINT", value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Handover config [default: ./handover.toml if it exists].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

impl Target {
    /// The workspace, its config's warnings printed on stderr.
    fn workspace(&self) -> agent_handover::Result<Workspace> {
        let ws = self.quiet_workspace()?;
        for w in &ws.warnings {
            eprintln!("warning: {w}");
        }
        Ok(ws)
    }

    /// The workspace, its warnings left to the caller (`check` prints nothing).
    fn quiet_workspace(&self) -> agent_handover::Result<Workspace> {
        Workspace::resolve(WorkspaceOptions {
            config: self.config.clone(),
            checkpoint: self.checkpoint.clone(),
            ..Default::default()
        })
    }
}

/// `status`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    target: Target,
    /// Also show each step's state, attempts, error, timing and owner, and PAUSE.
    #[arg(short, long)]
    verbose: bool,
}

/// One session-start command parsed alone, `--json` included. `check` and
/// `status` run at every session start, and building the whole command tree
/// (every command's arguments and help texts) was most of their start-up
/// cost. Only a clean parse is taken: `--help`, a typo or anything else goes
/// to the full parser, so help and errors are the same either way.
#[derive(Debug, Parser)]
struct Alone<T: Args> {
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    args: T,
}

impl Cli {
    /// `check` or `status` through [`Alone`], when `argv` (program name
    /// first) holds exactly their arguments.
    fn parse_session_start(argv: &[OsString]) -> Option<Cli> {
        // The command's name stands in for the program name clap skips.
        let rest = argv.get(1..)?;
        match rest.first()?.to_str()? {
            "check" => Alone::<Target>::try_parse_from(rest).ok().map(|a| Cli {
                json: a.json,
                command: Command::Check(a.args),
            }),
            "status" => Alone::<StatusArgs>::try_parse_from(rest).ok().map(|a| Cli {
                json: a.json,
                command: Command::Status(a.args),
            }),
            _ => None,
        }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Session-start guard: exit 0 no handover in progress, 1 interrupted (resume it), 2 completed.
    Check(Target),
    /// Show the checkpoint: status, [x]/[ ] per step, pending steps.
    Status(StatusArgs),
    /// Run a handover from a TOML config (resumes an interrupted one first).
    Run(running::RunArgs),
    /// Finish an interrupted handover from its staged plan, skipping done steps.
    Resume(Target),
    /// Run a failed or interrupted step again (also a non-idempotent one), then continue.
    Retry {
        /// The step to run again.
        step: String,
        #[command(flatten)]
        target: Target,
    },
    /// Give up an interrupted handover; its record and files are kept.
    Abandon {
        /// Why (kept in the record).
        #[arg(long)]
        reason: Option<String>,
        #[command(flatten)]
        target: Target,
    },
    /// Create the PAUSE file: nothing runs until `unpause`.
    Pause {
        /// Why (written into the PAUSE file).
        #[arg(long)]
        reason: Option<String>,
        /// Pause every project: ~/.agent_handover/PAUSE.
        #[arg(long)]
        global: bool,
        #[command(flatten)]
        target: Target,
    },
    /// Remove the PAUSE file.
    Unpause {
        /// Remove the global ~/.agent_handover/PAUSE instead.
        #[arg(long)]
        global: bool,
        #[command(flatten)]
        target: Target,
    },
    /// List past handovers, newest first.
    History {
        /// How many to show.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        #[command(flatten)]
        target: Target,
    },
    /// Fold older months of layer-1 notes into layer-3 archives, then apply [retention].
    Compact(compact::CompactArgs),
    /// The numbers each handover measured (see [[metric]] in handover.toml), per session.
    Metrics(metrics::MetricsArgs),
    /// List every stale or odd state (git locks, interrupted or queued handovers, ...); --fix removes the safe ones.
    Doctor(doctor::DoctorArgs),
    /// Bring the other machines' memory in (fetch and merge by layer) without handing over.
    Sync(sync::SyncArgs),
    /// Versions of current-state.md across sessions: list them, diff any two.
    State(state::StateArgs),
    /// Score a handoff 0-100 and list its findings (default: the current state).
    Lint(quality::LintArgs),
    /// Print a handoff template for a kind of work, or list the kinds.
    Template(quality::TemplateArgs),
    /// Session-start brief: crash recovery, unread messages, current state, next step.
    Brief(brief::BriefArgs),
    /// Message queues between agents: messages/for_<agent>/ and messages/shared/.
    Inbox {
        #[command(subcommand)]
        command: inbox::InboxCommand,
    },
    /// The memory index: facts learned from handovers (list, show, search, forget).
    Knowledge {
        #[command(subcommand)]
        command: knowledge::KnowledgeCommand,
    },
    /// Multi-step task state in .agent-handover/tasks/ (start, step, block, done, show, list).
    Task {
        #[command(subcommand)]
        command: task::TaskCommand,
    },
    /// The identity layer, memory/identity.md: policies and goals, never changed by a handover.
    Identity {
        #[command(subcommand)]
        command: identity::IdentityCommand,
    },
    /// Install an agent's instructions, hooks and MCP server (idempotent; --check, --remove).
    Install(install::InstallArgs),
    /// A pre-filled handoff (commits, changed files, metrics, carried-over items) to complete.
    Draft(draft::DraftArgs),
    /// Run by the agents' installed hooks: reads the agent's JSON on stdin, always exits 0.
    Hook(hook::HookArgs),
    /// Write a commented handover.toml to start from.
    Init(manage::InitArgs),
    /// Move the memory off the code branch to the repository's own ref (refs/agent-handover/memory), shared by every worktree.
    Migrate(manage::MigrateArgs),
    /// Print a shell's completion script (bash, zsh, fish, powershell, elvish).
    #[command(long_about = generate::COMPLETIONS_HELP)]
    Completions(generate::CompletionsArgs),
    /// Print the man page (roff), or write one page per command with --dir.
    #[command(long_about = generate::MAN_HELP)]
    Man(generate::ManArgs),
    /// Serve the brief, draft, handover, inbox (send, list), task, knowledge and lint tools to an agent over MCP (stdio).
    #[cfg(feature = "mcp")]
    Mcp(Target),
    /// Watch and steer handovers live: run status, inbox, state diffs, quality, timeline.
    #[cfg(feature = "dashboard")]
    #[command(visible_alias = "ui")]
    Dashboard(DashboardArgs),
    /// The agent sessions of this workspace, newest first: context used (as the agent records it), compactions, asked, handed over, draft.
    Sessions(Target),
    /// The registry of workspaces (every project where install or a handover ran): list, forget.
    Workspaces {
        #[command(subcommand)]
        command: Option<workspaces::WorkspacesCommand>,
    },
    /// The dashboard on a throwaway workspace with a simulated agent (`--tour`: narrated text).
    #[cfg(feature = "dashboard")]
    Demo(demo::DemoArgs),
}

/// Arguments of `dashboard`.
#[cfg(feature = "dashboard")]
#[derive(Debug, Args)]
pub struct DashboardArgs {
    /// Workspaces to supervise; more than one opens the fleet view [default: the current directory].
    #[arg(value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// The fleet view of every registered workspace (see `workspaces`), plus any DIR given.
    #[arg(long)]
    all: bool,
    #[command(flatten)]
    target: Target,
}

/// `dashboard`: the TUI on the workspace, or the fleet view over several.
#[cfg(feature = "dashboard")]
fn dashboard(args: &DashboardArgs) -> agent_handover::Result<u8> {
    // Like lazygit: each DIR against the working directory, and a path
    // that is no directory is an error, never an empty workspace.
    let cwd = std::env::current_dir().map_err(|e| agent_handover::Error::io("read", ".", e))?;
    let mut given = Vec::new();
    for dir in &args.dirs {
        let abs = cwd.join(dir);
        if !abs.is_dir() {
            return Err(agent_handover::Error::Usage {
                what: format!("{} is not a directory", abs.display()),
                fix: "name a project's directory (relative paths are taken from here)".into(),
            });
        }
        given.push(std::fs::canonicalize(&abs).unwrap_or(abs));
    }
    let frame_log = std::env::var_os("AGENT_HANDOVER_FRAME_LOG").map(Into::into);
    let opts = crate::tui::runtime::LoopOptions {
        frame_log,
        label: None,
    };
    let result = if args.all || args.dirs.len() > 1 {
        let registry = match args.all {
            true => {
                let registry = workspaces::user_registry()?;
                // A registry that cannot be read is said now, not shown empty.
                registry.load()?;
                Some(registry)
            }
            false => None,
        };
        let source = crate::tui::fleet::runtime::Source { registry, given };
        crate::tui::run_fleet(source, opts)
    } else {
        let ws = match given.first() {
            Some(dir) => Workspace::resolve(WorkspaceOptions {
                cwd: Some(dir.clone()),
                checkpoint: args.target.checkpoint.clone(),
                config: args.target.config.clone(),
                ..Default::default()
            })?,
            None => args.target.workspace()?,
        };
        crate::tui::run(ws, opts)
    };
    match result {
        Ok(()) => Ok(exit::OK),
        Err(e) => {
            eprintln!("error: {e}");
            Ok(exit::USAGE)
        }
    }
}

/// Parse the command line and run it; returns the process exit code.
/// Whether `--json` is on the command line (anywhere before a `--`), so
/// that even a line that does not parse answers in JSON.
fn json_requested(argv: &[OsString]) -> bool {
    argv.iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json")
}

/// A command line clap answered itself (an error, `--help`, `--version`):
/// printed as clap prints it, and with `--json` also as one JSON object on
/// stdout; returns the exit code.
fn parse_failed(e: &clap::Error, json: bool) -> u8 {
    use clap::error::ErrorKind;
    let code = if e.use_stderr() {
        exit::USAGE
    } else {
        exit::OK
    };
    if !json {
        let _ = e.print();
        return code;
    }
    let text = e.render().to_string();
    let value = match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            if !e.use_stderr() =>
        {
            serde_json::json!({ "ok": true, "help": text })
        }
        ErrorKind::DisplayVersion => serde_json::json!({ "ok": true, "version": text.trim() }),
        _ => {
            eprint!("{text}");
            let message = text
                .lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("error: ")
                .to_string();
            serde_json::json!({
                "ok": false,
                "error": message,
                "kind": "usage",
                "exit_code": code,
                "usage": text.trim(),
            })
        }
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&value).expect("output serializes")
    );
    code
}

pub fn main() -> ExitCode {
    // An exported but empty $AGENT_HANDOVER_CHECKPOINT means "not set", not "no value".
    if std::env::var_os("AGENT_HANDOVER_CHECKPOINT").is_some_and(|v| v.is_empty()) {
        // SAFETY: nothing else runs yet: this is the first thing main does, before any thread starts.
        unsafe { std::env::remove_var("AGENT_HANDOVER_CHECKPOINT") };
    }
    let argv: Vec<OsString> = std::env::args_os().collect();
    let parsed = Cli::parse_session_start(&argv).map_or_else(|| Cli::try_parse_from(&argv), Ok);
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => return ExitCode::from(parse_failed(&e, json_requested(&argv))),
    };
    let out = Output { json: cli.json };
    let result = match cli.command {
        Command::Check(target) => inspect::check(&target, out),
        Command::Status(StatusArgs { target, verbose }) => inspect::status(&target, verbose, out),
        Command::Run(args) => running::run(&args, out),
        Command::Resume(target) => running::resume(&target, out),
        Command::Retry { step, target } => running::retry(&target, &step, out),
        Command::Abandon { reason, target } => manage::abandon(&target, reason.as_deref(), out),
        Command::Pause {
            reason,
            global,
            target,
        } => manage::pause(&target, global, reason.as_deref(), out),
        Command::Unpause { global, target } => manage::unpause(&target, global, out),
        Command::History { limit, target } => inspect::history(&target, limit, out),
        Command::Compact(args) => compact::compact(&args, out),
        Command::Metrics(args) => metrics::metrics(&args, out),
        Command::Sync(args) => sync::sync(&args, out),
        Command::Doctor(args) => doctor::doctor(&args, out),
        Command::State(args) => state::state(&args, out),
        Command::Lint(args) => quality::lint(&args, out),
        Command::Template(args) => quality::template(&args, out),
        Command::Brief(args) => brief::brief(&args, out),
        Command::Inbox { command } => inbox::inbox(&command, out),
        Command::Knowledge { command } => knowledge::knowledge(&command, out),
        Command::Task { command } => task::task(&command, out),
        Command::Identity { command } => identity::identity(&command, out),
        Command::Install(args) => install::install(&args, out),
        Command::Draft(args) => draft::draft(&args, out),
        Command::Hook(args) => Ok(hook::hook(&args)),
        Command::Init(args) => manage::init(&args, out),
        Command::Migrate(args) => manage::migrate(&args, out),
        Command::Completions(args) => generate::completions(&args, out),
        Command::Man(args) => generate::man(&args, out),
        #[cfg(feature = "mcp")]
        Command::Mcp(target) => mcp::mcp(&target),
        #[cfg(feature = "dashboard")]
        Command::Dashboard(_) if out.json => Err(agent_handover::Error::Usage {
            what: "the dashboard is interactive and prints no JSON".into(),
            fix: "for scripts use `agent-handover --json status` (or `sessions`, `workspaces`)"
                .into(),
        }),
        Command::Dashboard(args) => dashboard(&args),
        Command::Sessions(target) => sessions::sessions(&target, out),
        Command::Workspaces { command } => workspaces::workspaces(command.as_ref(), out),
        #[cfg(feature = "dashboard")]
        Command::Demo(args) => demo::demo(&args, out),
    };
    ExitCode::from(match result {
        Ok(code) => code,
        Err(e) => out.fail(&e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &str) -> Vec<OsString> {
        words.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn check_and_status_parse_alone_exactly_as_the_full_parser_does() {
        for words in [
            "ah check",
            "ah check --json",
            "ah check --checkpoint x.json --config h.toml",
            "ah status",
            "ah status -v --json",
            "ah status --verbose --checkpoint=x.json",
        ] {
            let alone = Cli::parse_session_start(&argv(words)).expect(words);
            let full = Cli::try_parse_from(argv(words)).expect(words);
            assert_eq!(format!("{alone:?}"), format!("{full:?}"), "{words}");
        }
    }

    #[test]
    fn help_typos_and_other_commands_go_to_the_full_parser() {
        for words in [
            "ah check --help",
            "ah check --bogus",
            "ah check extra",
            "ah status -x",
            "ah --json check",
            "ah run --note x",
            "ah",
        ] {
            assert!(Cli::parse_session_start(&argv(words)).is_none(), "{words}");
        }
    }
}
