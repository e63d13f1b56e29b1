//! One truth about every run: in every combination of checkpoint state,
//! run lock, step owner (alive, dead, zombie), queue, PAUSE, crash rule and
//! 0.5.1 or newer files, every face of the real binary says the same state
//! (`check`'s exit code, `check --json`, `status` and `status --json`,
//! `brief` and `brief --json`, `doctor --json`, the MCP server's `brief`),
//! and the command it advises succeeds when run; "wait" is advised only
//! while another process works, and `resume` then exits 5 (busy; 4 when
//! PAUSE is on too). The
//! dashboard and the fleet read the same state: `tests/it/dashboard_tmux.rs`.

use serde_json::Value;

use crate::common::mcp_client::Client;
use crate::common::run_states::{Base, Built, Case, build};
use crate::common::{Project, json, stderr, stdout};

/// The run state as `status --json` gives it.
fn state(p: &Project) -> Value {
    let o = p.run(&["status", "--json"]);
    assert!(o.status.success(), "status --json: {}", stderr(&o));
    json(&o)["state"].clone()
}

/// Every face of `case` agrees with `status --json`'s state and with the
/// case's expected word and `check` code; returns that state.
fn faces_agree(case: &Case, p: &Project) -> Value {
    let st = state(p);
    let word = st["word"].as_str().unwrap();
    assert_eq!(word, case.expected_word(), "{case:?}: {st:#}");

    let check = p.run(&["check"]);
    assert_eq!(check.status.code(), Some(case.expected_check()), "{case:?}");
    assert_eq!(stdout(&check), "", "check prints nothing (0.5.1)");
    let check_json = json(&p.run(&["check", "--json"]));
    assert_eq!(check_json["code"], case.expected_check(), "{case:?}");
    assert_eq!(
        check_json["snapshot"]["state"], st,
        "{case:?}: check --json"
    );
    assert_eq!(
        check_json["snapshot"]["resume_code"],
        case.expected_check(),
        "{case:?}"
    );

    let advice = st["advice"].as_str().unwrap();
    let nothing = st["next"]["action"] == "nothing";
    let status = stdout(&p.run(&["status"]));
    for queued in status.lines().filter(|l| l.starts_with("queued: ")) {
        assert!(
            queued.ends_with(&format!("waiting its turn: {advice}")),
            "{case:?}: {queued}"
        );
    }
    let verbose = stdout(&p.run(&["status", "-v"]));
    let next_line = verbose.lines().find(|l| l.starts_with("next: "));
    if nothing && st["condition"] == "none" && st["queued"].as_array().is_none_or(|q| q.is_empty())
    {
        // Nothing to do about the run: what to do first is the first handover.
        assert!(
            next_line.is_some_and(|l| l.starts_with(
                "next: no handover yet; at the end of a session: `agent-handover draft"
            )),
            "{case:?}: {verbose}"
        );
    } else if nothing {
        assert_eq!(next_line, None, "{case:?}: {verbose}");
    } else {
        assert_eq!(
            next_line,
            Some(format!("next: {advice}").as_str()),
            "{case:?}"
        );
    }

    let brief = json(&p.run(&["brief", "--json"]));
    assert_eq!(brief["recovery"]["run"], st, "{case:?}: brief --json");
    let recovery_word = brief["recovery"]["state"].as_str().unwrap();
    let expected_recovery = match st["condition"].as_str().unwrap() {
        "none" => "no_handover",
        "running" => "running",
        "queued" => "queued",
        "completed" => "completed",
        "abandoned" => "abandoned",
        _ => "interrupted",
    };
    assert_eq!(recovery_word, expected_recovery, "{case:?}");
    let brief_md = stdout(&p.run(&["brief"]));
    if let Some(command) = st["next"]["command"].as_str() {
        assert!(brief_md.contains(command), "{case:?}: brief\n{brief_md}");
    }
    if st["next"]["action"] == "wait" {
        assert!(
            brief_md.contains("Do not start another handover"),
            "{brief_md}"
        );
    }

    let doctor = json(&p.run(&["doctor", "--json"]));
    let fixes: Vec<&str> = doctor["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["fix"].as_str())
        .collect();
    if nothing {
        assert!(!fixes.contains(&advice), "{case:?}: {doctor:#}");
    } else {
        assert!(fixes.contains(&advice), "{case:?}: doctor says {fixes:?}");
    }

    let mut mcp = Client::start(p);
    let text = mcp.ok("brief", serde_json::json!({}));
    mcp.finish();
    assert!(
        text.starts_with(&format!("check: {} (", case.expected_check())),
        "{case:?}: {text}"
    );
    if !nothing {
        assert!(
            text.contains(&format!("next: {advice}")),
            "{case:?}: {text}"
        );
    }
    st
}

/// Follow the advice of `st` until nothing waits; each advised command
/// must succeed (a wait is checked: `resume` is busy, then the other
/// process ends).
fn follow(case: &Case, b: &mut Built, mut st: Value) {
    std::fs::write(b.project.path("go"), "").unwrap(); // the gate step passes from now on
    for _ in 0..5 {
        if st["next"]["action"] == "wait" {
            // Refused now: busy (5), or paused (4) when PAUSE is on too.
            let o = b.project.run(&["resume"]);
            let refused = if case.paused { 4 } else { 5 };
            assert_eq!(o.status.code(), Some(refused), "{case:?}: {}", stderr(&o));
            b.release_lock();
            st = state(&b.project);
            continue;
        }
        let p = &b.project;
        let next = st["next"].clone();
        let args: Vec<String> = match next["action"].as_str().unwrap() {
            "nothing" => {
                assert_ne!(p.check(), 1, "{case:?}: nothing to do, yet check says 1");
                if case.queued {
                    let notes = p.notes();
                    assert!(
                        notes.iter().any(|(_, n)| n.contains("queued note")),
                        "{case:?}: the queued handover's note was written: {notes:?}"
                    );
                }
                return;
            }
            "run" | "unpause" => command_args(next["command"].as_str().unwrap()),
            "run_with_note" => {
                std::fs::write(p.path("again.md"), "the note handed over again").unwrap();
                let mut args = command_args(next["command"].as_str().unwrap());
                args.extend([
                    "--note-file".into(),
                    p.path("again.md").display().to_string(),
                ]);
                args
            }
            "decide" => vec!["retry".into(), next["step"].as_str().unwrap().into()],
            "upgrade" => vec![
                "abandon".into(),
                "--reason".into(),
                "no newer version".into(),
            ],
            other => panic!("{case:?}: unknown action {other}"),
        };
        let o = p.run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(
            o.status.success(),
            "{case:?}: advised `{}` failed: {}",
            args.join(" "),
            stderr(&o)
        );
        let after = state(p);
        if next["action"] == "unpause" {
            assert_eq!(after["next"], next["then"], "{case:?}: once unpaused");
        }
        st = after;
    }
    panic!("{case:?}: the advice never settled: {st:#}");
}

/// `agent-handover ARGS...` as arguments (paths in this suite need no quoting).
fn command_args(command: &str) -> Vec<String> {
    let mut words = command.split_whitespace().map(str::to_string);
    assert_eq!(words.next().as_deref(), Some("agent-handover"), "{command}");
    words.collect()
}

fn agree_and_follow(base: Base) {
    for case in Case::all().into_iter().filter(|c| c.base == base) {
        let mut built = build(&case);
        let st = faces_agree(&case, &built.project);
        follow(&case, &mut built, st);
    }
}

#[test]
fn no_handover() {
    agree_and_follow(Base::None);
}

#[test]
fn completed() {
    agree_and_follow(Base::Completed);
}

#[test]
fn abandoned() {
    agree_and_follow(Base::Abandoned);
}

#[test]
fn failed_step() {
    agree_and_follow(Base::Failed);
}

#[test]
fn crashed_in_a_step_that_reruns() {
    agree_and_follow(Base::CrashedRerun);
}

#[test]
fn crashed_in_a_step_that_needs_a_decision() {
    agree_and_follow(Base::CrashedAskHuman);
}

#[test]
fn left_by_0_5_1_with_steps_pending() {
    agree_and_follow(Base::Legacy);
}

#[test]
fn left_by_0_5_1_with_every_step_done_is_completed_everywhere() {
    agree_and_follow(Base::LegacyAllDone);
}

#[test]
fn staged_by_a_newer_version() {
    agree_and_follow(Base::Newer);
}

/// A run agent-handover 0.5.1 left `in_progress` with every step done is
/// completed: a new handover is a new run, every step executed (it was
/// adopted, its steps marked done, and its note never written).
#[test]
fn a_new_handover_after_a_finished_0_5_1_run_runs_every_step() {
    let case = Case::alone(Base::LegacyAllDone);
    let built = build(&case);
    let p = &built.project;
    std::fs::write(p.path("go"), "").unwrap();
    let o = p.handover("a new session");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "handover steps executed: session_note, learn, current_state, gate, publish\n"
    );
    assert!(p.notes().iter().any(|(_, n)| n.ends_with("a new session")));
    assert_eq!(p.check(), 2);
}

/// A damaged queue entry is unreadable to every face: `check` exits 3
/// naming the file (it said 1 while `status` said completed), and the
/// advice is to repair it, not `resume` (which fails on it).
#[test]
fn a_damaged_queue_entry_is_unreadable_everywhere() {
    let case = Case::alone(Base::Completed);
    let built = build(&case);
    let p = &built.project;
    std::fs::create_dir_all(p.path(".agent-handover/queue")).unwrap();
    std::fs::write(
        p.path(".agent-handover/queue/20261126-000000-beef.json"),
        "{",
    )
    .unwrap();
    let o = p.run(&["check"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("20261126-000000-beef.json"),
        "{}",
        stderr(&o)
    );
    let st = state(p);
    assert_eq!(st["word"], "unreadable");
    assert_eq!(st["next"]["action"], "repair");
    let brief = json(&p.run(&["brief", "--json"]));
    assert_eq!(brief["recovery"]["run"], st);
}
