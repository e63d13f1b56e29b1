//! `demo --tour`: the demo's story narrated as text — a handover, a crash in
//! the middle of the next one (a real `agent-handover run` killed with
//! SIGKILL), `check` catching it, PAUSE holding it, and `resume` finishing it
//! without redoing finished steps.

use std::path::{Path, PathBuf};

use agent_handover::domain::memory::history::VersionedFile;
use agent_handover::domain::memory::versions::list_versions;
use agent_handover::engine::pause;
use agent_handover::read::{RunSnapshot, run_state};
use agent_handover::{Engine, Error, Result, Workspace};

use super::{crash_during_tests, finish, spawn_run};
use crate::cli::exit;

/// Narrate the story on `ws`.
pub fn tour(ws: &Workspace) -> Result<u8> {
    let exe = std::env::current_exe().map_err(|e| Error::io("locate", "agent-handover", e))?;
    say(&format!("demo workspace: {}", ws.root.display()));

    say("1. Session one ends: a full handover (note, current state, tests, publish).");
    finish(spawn_run(&ws.root, &exe, 1, 0)?)?;
    show(&format!(
        "agent-handover check -> exit {}",
        run_state(ws).check_code()
    ));

    say("2. Session two ends, and its handover is killed (SIGKILL) while `tests` runs.");
    crash_during_tests(ws, &exe, 2)?;
    show("agent-handover run ... killed");
    let snap = RunSnapshot::load(ws)?;
    show(&format!(
        "agent-handover check -> exit {}",
        snap.state.check_code()
    ));
    for step in snap.steps {
        show(&format!("  {:<14} {}", step.name, step.state.as_str()));
    }

    say("3. A human pulls the brake: PAUSE stops every automated step.");
    let file = pause::pause(ws, false, Some("reviewing the crashed handover"))?;
    match Engine::new(ws.clone()).resume() {
        Err(e @ Error::Paused { .. }) => show(&format!(
            "resume refused: {}",
            e.to_string().lines().next().unwrap_or("")
        )),
        other => show(&format!("unexpected: {other:?}")),
    }
    pause::unpause(ws, false)?;
    show(&format!("removed {}", file.display()));

    say("4. The next session resumes: done steps are not redone.");
    let report = Engine::new(ws.clone()).resume()?;
    show(&format!(
        "resumed; steps executed: {}",
        report.executed.join(", ")
    ));
    show(&format!(
        "agent-handover check -> exit {}",
        run_state(ws).check_code()
    ));

    say("5. What is on disk now:");
    show(&format!(
        "{} versions of current-state.md",
        list_versions(ws, VersionedFile::CurrentState)?.len()
    ));
    for path in walk(&ws.memory.root) {
        show(&format!(
            "  {}",
            path.strip_prefix(&ws.root).unwrap_or(&path).display()
        ));
    }
    say(&format!(
        "Watch it live: cd {} && agent-handover dashboard",
        ws.root.display()
    ));
    Ok(exit::OK)
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
