//! `demo --tour`: the demo's story narrated as text — a handover, a crash in
//! the middle of the next one (a real `agent-handover run` killed with
//! SIGKILL), `check` catching it, PAUSE holding it, and `resume` finishing it
//! without redoing finished steps.

use std::path::{Path, PathBuf};

use agent_handover::domain::memory::history::VersionedFile;
use agent_handover::domain::memory::versions::list_versions;
use agent_handover::engine::pause;
use agent_handover::ops::handover;
use agent_handover::read::{RunSnapshot, run_state};
use agent_handover::{Error, Result, Workspace};

use super::{crash_during_tests, finish, spawn_run};
use crate::cli::exit;
use crate::cli::output::Output;

/// The tour's story: printed as it happens, or (`--json`) gathered into
/// one object at the end.
struct Narrator {
    json: bool,
    /// Each part: its title and what was shown under it.
    parts: Vec<(String, Vec<String>)>,
}

impl Narrator {
    fn say(&mut self, text: &str) {
        if !self.json {
            println!("\n{text}");
        }
        self.parts.push((text.to_string(), Vec::new()));
    }

    fn show(&mut self, text: &str) {
        if !self.json {
            println!("   {text}");
        }
        if let Some((_, lines)) = self.parts.last_mut() {
            lines.push(text.to_string());
        }
    }
}

/// Narrate the story on `ws`.
pub fn tour(ws: &Workspace, out: Output) -> Result<u8> {
    let mut n = Narrator {
        json: out.json,
        parts: Vec::new(),
    };
    let (say, show) = (
        |n: &mut Narrator, t: &str| n.say(t),
        |n: &mut Narrator, t: &str| n.show(t),
    );
    let exe = std::env::current_exe().map_err(|e| Error::io("locate", "agent-handover", e))?;
    say(&mut n, &format!("demo workspace: {}", ws.root.display()));

    say(
        &mut n,
        "1. Session one ends: a full handover (note, current state, tests, publish).",
    );
    finish(spawn_run(&ws.root, &exe, 1, 0)?)?;
    show(
        &mut n,
        &format!(
            "agent-handover check -> exit {}",
            run_state(ws).check_code()
        ),
    );

    say(
        &mut n,
        "2. Session two ends, and its handover is killed (SIGKILL) while `tests` runs.",
    );
    crash_during_tests(ws, &exe, 2)?;
    show(&mut n, "agent-handover run ... killed");
    let snap = RunSnapshot::load(ws)?;
    show(
        &mut n,
        &format!("agent-handover check -> exit {}", snap.state.check_code()),
    );
    for step in snap.steps {
        show(
            &mut n,
            &format!("  {:<14} {}", step.name, step.state.as_str()),
        );
    }

    say(
        &mut n,
        "3. A human pulls the brake: PAUSE stops every automated step.",
    );
    let file = pause::pause(ws, false, Some("reviewing the crashed handover"))?;
    match handover::resume(ws) {
        Err(e @ Error::Paused { .. }) => show(
            &mut n,
            &format!(
                "resume refused: {}",
                e.to_string().lines().next().unwrap_or("")
            ),
        ),
        other => show(&mut n, &format!("unexpected: {other:?}")),
    }
    pause::unpause(ws, false)?;
    show(&mut n, &format!("removed {}", file.display()));

    say(
        &mut n,
        "4. The next session resumes: done steps are not redone.",
    );
    let report = handover::resume(ws)?;
    show(
        &mut n,
        &format!("resumed; steps executed: {}", report.executed.join(", ")),
    );
    show(
        &mut n,
        &format!(
            "agent-handover check -> exit {}",
            run_state(ws).check_code()
        ),
    );

    say(&mut n, "5. What is on disk now:");
    show(
        &mut n,
        &format!(
            "{} versions of current-state.md",
            list_versions(ws, VersionedFile::CurrentState)?.len()
        ),
    );
    for path in walk(&ws.memory.root) {
        show(
            &mut n,
            &format!(
                "  {}",
                path.strip_prefix(&ws.root).unwrap_or(&path).display()
            ),
        );
    }
    say(
        &mut n,
        &format!(
            "Watch it live: cd {} && agent-handover dashboard",
            ws.root.display()
        ),
    );
    let parts: Vec<_> = n
        .parts
        .iter()
        .map(|(title, lines)| serde_json::json!({ "title": title, "shown": lines }))
        .collect();
    out.emit(
        &serde_json::json!({
            "ok": true,
            "workspace": ws.root,
            "check": run_state(ws).check_code(),
            "parts": parts,
        }),
        || {},
    );
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
