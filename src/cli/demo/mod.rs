//! `demo`: a throwaway workspace where a simulated agent hands over on a
//! timer — and crashes one handover halfway — shown live in the dashboard.
//! `demo --tour` narrates the same story as plain text instead.

mod agent;
mod tour;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agent_handover::engine::{Checkpoint, StepState};
use agent_handover::{Error, Result, Workspace, WorkspaceOptions};
use clap::Args;

use super::exit;

/// Arguments of `demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Build the demo workspace here (must not exist yet) instead of a new temp dir.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Narrate the story as text instead of opening the dashboard.
    #[arg(long)]
    tour: bool,
    /// Two simulated workspaces (`parser`, `billing`) in the fleet view.
    #[arg(long, conflicts_with = "tour")]
    fleet: bool,
}

/// The demo project's config: a `tests` step the simulated agent can slow
/// down, and a metric that reports the session's test counts.
const CONFIG: &str = r#"[handover]
memory_dir = "memory"
tag = "demo-agent"

[backend]
type = "null"

[[command]]
name = "tests"
argv = ["sh", "-c", "sleep ${AGENT_HANDOVER_DEMO_SLEEP:-0}; echo 42/42 tests pass"]
idempotent = true

[[metric]]
name = "suite"
argv = ["sh", "-c", "p=${AGENT_HANDOVER_DEMO_PASSED:-42}; echo \"test result: $p passed; $((90 - p)) failed\""]
[[metric.value]]
name = "passed"
pattern = '(\d+) passed'
[[metric.value]]
name = "failed"
pattern = '(\d+) failed'
"#;

/// The demo project's files that its handoffs name, so none of them reads
/// as a stale path.
const PROJECT_FILES: [(&str, &str); 8] = [
    (
        "src/parser/lex.rs",
        "//! The lexer: tokens with byte spans.\n",
    ),
    (
        "src/parser/ast.rs",
        "//! The syntax tree; every node keeps its span.\n",
    ),
    ("src/parser/list.rs", "//! Lists, nested ones included.\n"),
    (
        "src/parser/escape.rs",
        "//! String escapes, unicode ones included.\n",
    ),
    (
        "src/cli/mod.rs",
        "//! The command line, on the new parser.\n",
    ),
    ("tests/parser/nested.rs", "//! Lists inside lists.\n"),
    ("examples/nested.txt", "- a\n  - b\n"),
    (
        "README.md",
        "# demo parser\n\nThe project the agent-handover demo works on.\n",
    ),
];

/// Run the demo.
pub fn demo(args: &DemoArgs, out: crate::cli::output::Output) -> Result<u8> {
    if out.json && !args.tour {
        return Err(Error::Usage {
            what: "the demo dashboard is interactive and prints no JSON".into(),
            fix: "run `agent-handover --json demo --tour` for the story as JSON".into(),
        });
    }
    let (root, temp) = demo_root(args.dir.as_deref())?;
    if args.tour {
        // The tour ends by saying where to watch it live: it stays.
        let _ = temp.map(tempfile::TempDir::keep);
        return tour::tour(&create_workspace(&root)?, out);
    }
    let dirs: Vec<PathBuf> = if args.fleet {
        vec![root.join("parser"), root.join("billing")]
    } else {
        vec![root.clone()]
    };
    let exe = std::env::current_exe().map_err(|e| Error::io("locate", "agent-handover", e))?;
    let mut agents = Vec::new();
    let mut workspaces = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        let ws = create_workspace(dir)?;
        // Two finished sessions, so the timeline and the diff have something to show.
        for n in 1..=2 {
            finish(spawn_run(&ws.root, &exe, n, 0)?)?;
            agent::post_message(&ws, n);
        }
        // The second workspace's agent crashes a session later than the first's.
        let first = if i == 0 { 3 } else { 4 };
        agents.push(agent::DemoAgent::start(ws.clone(), exe.clone(), first));
        workspaces.push(ws);
    }
    let result = if args.fleet {
        let source = crate::tui::fleet::runtime::Source {
            registry: None,
            given: dirs,
        };
        crate::tui::run_fleet(source, Default::default())
    } else {
        // The header names the demo, not the temp directory it lives in.
        let opts = crate::tui::runtime::LoopOptions {
            label: Some("demo (a throwaway workspace)".into()),
            ..Default::default()
        };
        crate::tui::run(workspaces[0].clone(), opts)
    };
    for agent in agents {
        agent.stop();
    }
    let going_on = !crate::tui::actions::going_on().is_empty();
    match temp {
        Some(temp) if going_on => println!(
            "demo workspace kept at {}: an action started there still runs",
            temp.keep().display()
        ),
        Some(temp) => {
            drop(temp);
            println!(
                "demo workspace removed (`agent-handover demo --dir DIR` builds one that is kept)"
            );
        }
        None => println!(
            "demo workspace kept at {} (agent-handover dashboard runs there too)",
            root.display()
        ),
    }
    match result {
        Ok(()) => Ok(exit::OK),
        Err(e) => {
            eprintln!("error: {e}\n  try: agent-handover demo --tour");
            Ok(exit::USAGE)
        }
    }
}

/// Where the demo is built: `dir` (created, kept), or a new temp dir,
/// removed when its guard is dropped.
fn demo_root(dir: Option<&Path>) -> Result<(PathBuf, Option<tempfile::TempDir>)> {
    let (dir, temp) = match dir {
        Some(d) => {
            std::fs::create_dir(d).map_err(|e| Error::io("create demo directory", d, e))?;
            (d.to_path_buf(), None)
        }
        None => {
            let temp = tempfile::Builder::new()
                .prefix("agent-handover-demo-")
                .tempdir()
                .map_err(|e| Error::io("create", std::env::temp_dir(), e))?;
            (temp.path().to_path_buf(), Some(temp))
        }
    };
    let dir = std::fs::canonicalize(&dir).map_err(|e| Error::io("resolve", &dir, e))?;
    Ok((dir, temp))
}

/// Make a demo project at `dir`.
fn create_workspace(dir: &Path) -> Result<Workspace> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    agent_handover::base::fsx::write_atomic(&dir.join("handover.toml"), CONFIG.as_bytes())?;
    for (path, text) in PROJECT_FILES {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
        }
        agent_handover::base::fsx::write_atomic(&path, text.as_bytes())?;
    }
    Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.to_path_buf()),
        home: Some(dir.join("home")),
        ..Default::default()
    })
}

/// How many of the demo project's 90 tests pass after session `n`.
fn passing_tests(n: u32) -> u32 {
    (30 + n * 13).min(90)
}

/// The handoff a simulated session `n` writes.
fn session_note(n: u32) -> String {
    let passing = passing_tests(n);
    let (next, failed) = match n % 3 {
        0 => (
            "Fix unicode escapes in src/parser/escape.rs",
            "- regex-based lexer: 40x slower on 1 MB inputs",
        ),
        1 => (
            "Handle nested lists in src/parser/list.rs",
            "- recursive descent without a depth limit: stack overflow on deep nesting",
        ),
        _ => (
            "Wire the CLI to the new parser in src/cli/mod.rs",
            "- reusing the old AST types: lost source spans",
        ),
    };
    format!(
        "# Session {n}: parser rewrite\n\n## Goal\nReplace the hand-written parser with one that reports spans: \
         every syntax error names its line and column, and the 90 tests of `tests/parser/` pass.\n\n\
         ## Status\n- {passing}/90 tests pass (`cargo test --test parser`); the rest are nested lists, \
         unicode escapes and the CLI wiring\n- {} token kinds in the lexer, all with spans\n\n\
         ## Done (don't redo)\n- Lexer with spans (`src/parser/lex.rs`), 18/18 lexer tests\n\
         - Error recovery at statement level: one bad line no longer hides the errors after it\n\
         - Span-carrying AST in `src/parser/ast.rs`, checked by the round-trip test\n\
         - Error messages name what was expected (`expected item`, `expected closing quote`) \
         and are compared verbatim by the tests, so a wording change shows up as a test failure\n\n\
         ## Not working (and why)\n- `tests/parser/nested.rs`: `expected item at 4:3` on a list inside a list, \
         because the list rule does not re-enter itself\n\n\
         ## Failed approaches (DO NOT retry)\n{failed}\n\n\
         ## Key decisions (and why)\n- Spans are byte offsets; columns are counted in characters only when an \
         error is shown, so multi-byte input does not shift the caret\n\
         - No compatibility mode for the old parser: nothing outside this repository uses it\n\
         - One error per statement, not per token: after a bad token the parser skips to the next \
         line, which keeps the messages few and each one at the place a person would look\n\n\
         ## Next step\n{next}, then rerun `cargo test --test parser`.\n\n\
         ## Waiting on\n- nobody\n\n\
         ## Can safely wait\n- Coloured error output\n- A fuzz target for the lexer\n\n\
         ## Commands\n- `cargo test --test parser` (the parser suite, about 2 s)\n\
         - `cargo run -- check examples/nested.txt` (shows the current error with its span)\n",
        20 + n
    )
}

/// Start `agent-handover run` for session `n` in `dir`, its `tests` step taking `sleep` seconds.
fn spawn_run(dir: &Path, exe: &Path, n: u32, sleep: u32) -> Result<Child> {
    Command::new(exe)
        .args([
            "run",
            "--config",
            "handover.toml",
            "--note",
            &session_note(n),
        ])
        .current_dir(dir)
        .env("AGENT_HANDOVER_DEMO_SLEEP", sleep.to_string())
        .env("AGENT_HANDOVER_DEMO_PASSED", passing_tests(n).to_string())
        // The simulated agent's own home: its handovers register the
        // throwaway workspace there, never in the user's registry.
        .env("HOME", dir.join("home"))
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("AGENT_HANDOVER_CHECKPOINT")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Error::io("start", "agent-handover run", e))
}

fn finish(mut child: Child) -> Result<()> {
    child
        .wait()
        .map(|_| ())
        .map_err(|e| Error::io("wait for", "agent-handover run", e))
}

/// Wait until the checkpoint says `step` is running (or `timeout` passes).
fn wait_for_running(checkpoint: &Path, step: &str, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        let running = Checkpoint::load(checkpoint)
            .ok()
            .and_then(|cp| {
                cp.step_records
                    .get(step)
                    .map(|r| r.state == StepState::Running)
            })
            .unwrap_or(false);
        if running {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

/// Kill a handover in the middle of its `tests` step, like a crash.
fn crash_during_tests(ws: &Workspace, exe: &Path, n: u32) -> Result<()> {
    let mut child = spawn_run(&ws.root, exe, n, 30)?;
    wait_for_running(&ws.checkpoint, "tests", Duration::from_secs(10));
    child
        .kill()
        .map_err(|e| Error::io("kill", "agent-handover run", e))?;
    finish(child)
}
