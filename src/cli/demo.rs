//! `demo`: a guided tour on a throwaway workspace — a handover, a crash in the
//! middle of the next one (a real `agent-handover run` killed with SIGKILL),
//! `check` catching it, PAUSE holding it, and `resume` finishing it without
//! redoing finished steps. Everything goes through the same library calls the
//! other commands use.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent_handover::engine::pause;
use agent_handover::engine::{Checkpoint, RunSnapshot, StepState};
use agent_handover::{
    Engine, Error, Result, RunOverrides, Workspace, WorkspaceOptions, plan_from_config,
};
use clap::Args;

use super::exit;

/// Arguments of `demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Build the demo workspace here (must not exist yet) instead of a new temp dir.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

const CONFIG: &str = r#"[handover]
memory_dir = "memory"
tag = "demo-agent"

[backend]
type = "null"

[[command]]
name = "tests"
argv = ["sh", "-c", "sleep ${AGENT_HANDOVER_DEMO_SLEEP:-0}; echo 42/42 tests pass"]
idempotent = true
"#;

/// Run the tour.
pub fn demo(args: &DemoArgs) -> Result<u8> {
    let dir = match &args.dir {
        Some(d) => {
            std::fs::create_dir(d).map_err(|e| Error::io("create demo directory", d, e))?;
            d.clone()
        }
        None => tempfile::Builder::new()
            .prefix("agent-handover-demo-")
            .tempdir()
            .map_err(|e| Error::io("create", std::env::temp_dir(), e))?
            .keep(),
    };
    let dir = std::fs::canonicalize(&dir).map_err(|e| Error::io("resolve", &dir, e))?;
    agent_handover::fsx::write_atomic(&dir.join("handover.toml"), CONFIG.as_bytes())?;
    let ws = Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.clone()),
        home: Some(dir.join("home")),
        ..Default::default()
    })?;
    say(&format!("demo workspace: {}", dir.display()));

    say("1. Session one ends: a full handover (note, current state, tests, publish).");
    let report = Engine::new(ws.clone())
        .start(request(&ws, "Session 1: parser done; 30/42 tests pass.")?)?;
    show(&format!(
        "handover steps executed: {}",
        report.executed.join(", ")
    ));

    say("2. Session two ends, and its handover is killed (SIGKILL) while `tests` runs.");
    crash_during_tests(&dir)?;
    let cp = Checkpoint::load(&ws.checkpoint)?;
    show(&format!(
        "agent-handover check -> exit {}",
        cp.resume_code()
    ));
    for step in RunSnapshot::of(&ws, &cp).steps {
        show(&format!("  {:<14} {}", step.name, step.state.as_str()));
    }

    say("3. A human pulls the brake: PAUSE stops every automated step.");
    let file = pause::pause(&ws, false, Some("reviewing the crashed handover"))?;
    match Engine::new(ws.clone()).resume() {
        Err(e @ Error::Paused { .. }) => show(&format!(
            "resume refused: {}",
            e.to_string().lines().next().unwrap_or("")
        )),
        other => show(&format!("unexpected: {other:?}")),
    }
    pause::unpause(&ws, false)?;
    show(&format!("removed {}", file.display()));

    say("4. The next session resumes: done steps are not redone.");
    let report = Engine::new(ws.clone()).resume()?;
    show(&format!(
        "resumed; steps executed: {}",
        report.executed.join(", ")
    ));
    let cp = Checkpoint::load(&ws.checkpoint)?;
    show(&format!(
        "agent-handover check -> exit {}",
        cp.resume_code()
    ));

    say("5. What is on disk now:");
    let versions =
        agent_handover::memory::MemoryStore::new(ws.memory.clone(), ws.state_history_dir())
            .history()
            .list()?;
    show(&format!(
        "{} versions of current-state.md kept in {}",
        versions.len(),
        ws.state_history_dir().display()
    ));
    for path in walk(&ws.memory.root) {
        show(&format!(
            "  {}",
            path.strip_prefix(&dir).unwrap_or(&path).display()
        ));
    }
    say(&format!(
        "Explore it: cd {} && agent-handover status --verbose && agent-handover history",
        dir.display()
    ));
    Ok(exit::OK)
}

fn request(ws: &Workspace, note: &str) -> Result<agent_handover::RunRequest> {
    let overrides = RunOverrides {
        note: Some(note.into()),
        ..Default::default()
    };
    plan_from_config(ws, &overrides, chrono::Local::now().date_naive())
}

/// Start a real `agent-handover run` whose `tests` step sleeps, and kill it
/// once the checkpoint says `tests` is running.
fn crash_during_tests(dir: &Path) -> Result<()> {
    let exe = std::env::current_exe().map_err(|e| Error::io("locate", "agent-handover", e))?;
    let mut child = Command::new(exe)
        .args([
            "run",
            "--config",
            "handover.toml",
            "--note",
            "Session 2: lexer rewritten; 41/42 tests pass.",
        ])
        .current_dir(dir)
        .env("AGENT_HANDOVER_DEMO_SLEEP", "30")
        .env("HOME", dir.join("home"))
        .env_remove("AGENT_HANDOVER_CHECKPOINT")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Error::io("start", "agent-handover run", e))?;
    let checkpoint = dir.join(".agent-handover/checkpoint.json");
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let running = Checkpoint::load(&checkpoint)
            .ok()
            .and_then(|cp| {
                cp.step_records
                    .get("tests")
                    .map(|r| r.state == StepState::Running)
            })
            .unwrap_or(false);
        if running {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child
        .kill()
        .map_err(|e| Error::io("kill", "agent-handover run", e))?;
    let _ = child.wait();
    show("agent-handover run ... killed");
    Ok(())
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

fn say(text: &str) {
    println!("\n{text}");
}

fn show(text: &str) {
    println!("   {text}");
}
