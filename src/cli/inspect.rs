//! Read-only commands: `check`, `status`, `history`.

use agent_handover::base::outcome::{AfterCrash, decide_fix};
use agent_handover::engine::StepState;
use agent_handover::ops::session;
use agent_handover::read::history::{RunSummary, list_runs};
use agent_handover::read::{NextAction, RunSnapshot};
use agent_handover::{Result, RunStatus};
use serde_json::json;

use super::Target;
use super::exit;
use super::output::Output;

/// `check`: prints nothing (as 0.5.1): the answer is the exit code, and
/// `status` or `brief` tell more. `--json` prints the code and the run;
/// errors go to stderr as for every command. The code is the run state's
/// ([`agent_handover::read::RunState::check_code`]).
pub fn check(target: &Target, out: Output) -> Result<u8> {
    let ws = target.quiet_workspace()?;
    if out.json {
        let snap = RunSnapshot::load(&ws)?;
        let code = snap.state.check_code();
        out.emit(&json!({ "code": code, "snapshot": snap }), || {});
        return Ok(code);
    }
    Ok(session::check(&ws)?.check_code())
}

/// `status`: 0.5.1's exact lines, then details with `--verbose`.
pub fn status(target: &Target, verbose: bool, out: Output) -> Result<u8> {
    let ws = target.workspace()?;
    let snap = RunSnapshot::load(&ws)?;
    out.emit(&snap, || {
        println!("status: {}", snap.status.as_str());
        for step in &snap.steps {
            let mark = if step.state == StepState::Done {
                "x"
            } else {
                " "
            };
            println!("  [{mark}] {}", step.name);
        }
        if snap.status == RunStatus::InProgress && !snap.pending.is_empty() {
            println!("pending: {}", snap.pending.join(", "));
        }
        let next = snap.state.next_action();
        for q in &snap.queued {
            println!(
                "queued: {} ({}), waiting its turn: {}",
                q.run_id,
                q.note.as_deref().unwrap_or("no note"),
                next.sentence()
            );
        }
        if verbose {
            print_details(&snap);
            if next != NextAction::Nothing {
                println!("next: {}", next.sentence());
            } else if snap.status == RunStatus::None && snap.queued.is_empty() {
                let config = target.config.as_ref().map(|c| c.to_string_lossy());
                println!(
                    "next: no handover yet; at the end of a session: {}",
                    agent_handover::read::draft::handover_loop(None, config.as_deref())
                );
            }
        }
    });
    Ok(exit::OK)
}

fn print_details(snap: &RunSnapshot) {
    println!();
    if let Some(id) = &snap.run_id {
        println!(
            "run {id}, started {}",
            snap.started_at.as_deref().unwrap_or("?")
        );
    }
    if snap.allow_secret {
        println!(
            "secrets allowed: run with --allow-secret (its note and published files were not refused for one)"
        );
    }
    let width = snap.steps.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for s in &snap.steps {
        let attempts = match s.attempts {
            1 => "1 attempt".to_string(),
            n => format!("{n} attempts"),
        };
        let mut line = format!("  {:width$}  {:<11}  {attempts}", s.name, s.state.as_str());
        if let Some(ms) = s.duration_ms {
            line += &format!(", {ms} ms");
        }
        if s.state == StepState::Running
            && let Some(o) = &s.owner
        {
            line += &format!(", pid {} on {}", o.pid, o.host);
        }
        match s.after_crash {
            Some(AfterCrash::Rerun) | None => {}
            Some(rule) => line += &format!(", {}", rule.describe()),
        }
        println!("{line}");
        if s.state == StepState::Interrupted {
            let what = if s.needs_human {
                format!("needs a human: {}", decide_fix(&s.name))
            } else {
                "safe to resume: `agent-handover resume` runs it again".to_string()
            };
            println!("  {:width$}  {what}", "");
        }
        if let Some(e) = &s.last_error {
            println!("  {:width$}  error: {}", "", e.lines().next().unwrap_or(""));
        }
    }
    if let Some(a) = &snap.abandoned {
        println!(
            "abandoned by {} at {}{}",
            a.by,
            a.at,
            a.reason
                .as_ref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        );
    }
    match &snap.paused {
        Some(p) => println!(
            "PAUSED: {}{}",
            p.file.display(),
            p.reason
                .as_ref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        ),
        None => println!("not paused"),
    }
    println!("{}", snap.memory.sentence());
    for d in &snap.drift {
        println!(
            "{} drift at {}: {} of {} superseded by a merge (`{}`)",
            d.file.command(),
            d.at.format("%Y-%m-%d %H:%M UTC"),
            d.section_names(),
            d.from,
            d.diff_command()
        );
    }
    if let Some(h) = &snap.lock_holder {
        println!("being executed by {h}");
    }
}

/// `history`: past runs, newest first.
pub fn history(target: &Target, limit: usize, out: Output) -> Result<u8> {
    let ws = target.workspace()?;
    let runs = list_runs(&ws, limit)?;
    out.emit(&json!({ "ok": true, "runs": &runs }), || {
        if runs.is_empty() {
            println!("no handovers yet");
        }
        for r in &runs {
            println!("{}", history_line(r));
        }
    });
    Ok(exit::OK)
}

fn history_line(r: &RunSummary) -> String {
    let mut line = format!(
        "{}  {:<11}  {}/{} steps  started {}",
        r.run_id,
        r.status.as_str(),
        r.steps_done,
        r.steps_total,
        r.started_at.as_deref().map(short_time).unwrap_or("?")
    );
    if !r.problem_steps.is_empty() {
        line += &format!("  problems: {}", r.problem_steps.join(", "));
    }
    if let Some(a) = &r.abandoned {
        line += &format!("  abandoned {a}");
    }
    if r.allow_secret {
        line += "  secrets allowed (--allow-secret)";
    }
    if let Some(u) = &r.previous_handoff {
        line += &format!("  previous handoff {}", u.describe());
    }
    if let Some(c) = &r.context {
        line += &format!("  context {}", c.describe());
    }
    if let Some(v) = &r.next_session_verdict {
        line += &format!("  its handoff: next session's {}", v.describe());
    }
    line
}

/// The first 16 characters of a timestamp: `2026-11-21T10:00`.
pub fn short_time(rfc3339: &str) -> &str {
    rfc3339.get(..16).unwrap_or(rfc3339)
}
