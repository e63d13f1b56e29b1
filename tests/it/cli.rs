//! The CLI contract, driving the real binary: 0.5.1's behaviours first, then
//! ours (resume, retry, abandon, pause, history, init, --json, bad input).

use crate::common::{self, Project, config, header, json, stderr, stdout, wait_until};

const FAILING_LAYER2: &str = "memory/layer2";

/// Make the current_state step fail: layer2 is a file, not a directory.
fn block_layer2(p: &Project) {
    std::fs::create_dir_all(p.path("memory")).unwrap();
    std::fs::write(p.path(FAILING_LAYER2), "not a directory").unwrap();
}

fn unblock_layer2(p: &Project) {
    std::fs::remove_file(p.path(FAILING_LAYER2)).unwrap();
}

// ---- agent-handover 0.5.1's behaviours ----

#[test]
fn fresh_workspace_checks_0_and_status_none() {
    let p = Project::new(&config(""));
    let o = p.run(&["check"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "");
    assert_eq!(stdout(&p.run(&["status"])), "status: none\n");
}

#[test]
fn completed_run_writes_both_layers_and_checks_2() {
    let p = Project::new(&config(""));
    let o = p.handover("shipped the parser");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "handover steps executed: session_note, learn, current_state, publish\n"
    );
    assert_eq!(p.check(), 2);
    let notes = p.notes();
    assert_eq!(notes.len(), 1);
    assert_eq!(
        notes[0].0,
        format!("t-{}.md", chrono::Local::now().format("%Y-%m-%d"))
    );
    assert_eq!(notes[0].1, header(1) + "shipped the parser");
    assert_eq!(p.current_state().unwrap(), header(2) + "shipped the parser");
    assert_eq!(
        stdout(&p.run(&["status"])),
        "status: completed\n  [x] session_note\n  [x] learn\n  [x] current_state\n  [x] publish\n"
    );
}

#[test]
fn failing_step_stays_pending_and_rerun_skips_done_steps() {
    let p = Project::new(&config(""));
    block_layer2(&p);
    let o = p.handover("note");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("step 'current_state' failed"),
        "{}",
        stderr(&o)
    );

    let check = p.run(&["check"]);
    assert_eq!(check.status.code(), Some(1));
    assert_eq!(stderr(&check), "", "check answers with its exit code only");
    assert_eq!(
        stdout(&p.run(&["status"])),
        "status: in_progress\n  [x] session_note\n  [x] learn\n  [ ] current_state\n  [ ] publish\npending: current_state, publish\n"
    );

    // Still failing: attempts are counted, the note is not written twice.
    assert_eq!(p.handover("note").status.code(), Some(1));
    let cp = p.checkpoint_json();
    assert_eq!(cp["step_records"]["current_state"]["attempts"], 2);
    assert_eq!(cp["step_records"]["session_note"]["attempts"], 1);

    unblock_layer2(&p);
    let o = p.handover("note");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "handover steps executed: current_state, publish\n"
    );
    assert_eq!(
        p.notes().len(),
        1,
        "restart must keep progress, not redo the note"
    );
    assert_eq!(p.check(), 2);
}

#[test]
fn pause_blocks_everything_and_nothing_is_written() {
    let p = Project::new(&config(""));
    std::fs::create_dir_all(p.path("home/.agent_handover")).unwrap();
    std::fs::write(p.path("home/.agent_handover/PAUSE"), "").unwrap();
    let o = p.handover("note");
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("automation paused"), "{}", stderr(&o));
    assert!(!p.path("memory").exists());
    assert!(!p.checkpoint_path().exists());
    assert_eq!(p.run(&["resume"]).status.code(), Some(4));
}

#[test]
fn configured_pause_file_with_tilde_is_honoured() {
    let p = Project::new(
        &config("").replace("tag = \"t\"", "tag = \"t\"\npause_file = \"~/my-pause\""),
    );
    std::fs::write(p.path("home/my-pause"), "deploy freeze").unwrap();
    let o = p.handover("note");
    assert_eq!(o.status.code(), Some(4));
    assert!(stderr(&o).contains("deploy freeze"), "{}", stderr(&o));
    // `pause`/`unpause` act on the configured file.
    let o = p.run(&["unpause"]);
    assert!(stdout(&o).contains("my-pause"), "{}", stdout(&o));
    assert!(p.handover("note").status.success());
}

#[test]
fn pause_between_steps_stops_the_run_and_it_stays_resumable() {
    // The command step pulls the brake itself; the next step must not run.
    let p = Project::new(&config(
        "[[command]]\nname = \"brake\"\nargv = [\"sh\", \"-c\", \"touch .agent-handover/PAUSE\"]\nidempotent = true\n",
    ));
    let o = p.handover("note");
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert_eq!(p.check(), 1);
    let cp = p.checkpoint_json();
    assert_eq!(cp["step_records"]["brake"]["state"], "done");
    assert_eq!(cp["step_records"]["publish"]["state"], "pending");
    assert_eq!(p.run(&["resume"]).status.code(), Some(4));
    assert!(p.run(&["unpause"]).status.success());
    let o = p.run(&["resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).ends_with("steps executed: publish\n"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn pause_and_unpause_commands_toggle_the_project_file() {
    let p = Project::new(&config(""));
    let o = p.run(&["pause", "--reason", "reviewing handoff"]);
    assert!(o.status.success());
    let text = std::fs::read_to_string(p.path(".agent-handover/PAUSE")).unwrap();
    assert!(text.starts_with("reviewing handoff\npaused by "), "{text}");
    let o = p.run(&["status", "--verbose"]);
    assert!(
        stdout(&o).contains("PAUSED:") && stdout(&o).contains("reviewing handoff"),
        "{}",
        stdout(&o)
    );
    assert_eq!(p.handover("x").status.code(), Some(4));
    p.run(&["unpause"]);
    assert!(!p.path(".agent-handover/PAUSE").exists());
    assert!(p.handover("x").status.success());
    // Global pause.
    p.run(&["pause", "--global"]);
    assert!(p.path("home/.agent_handover/PAUSE").exists());
    let o = p.run(&["unpause"]);
    assert!(stdout(&o).contains("still paused by"), "{}", stdout(&o));
    p.run(&["unpause", "--global"]);
    assert!(p.handover("y").status.success());
}

#[test]
fn cli_note_overrides_config_note_and_current_state_flag() {
    let p = Project::new(&config(
        "[note]\nsession = \"from config\"\ncurrent_state = \"state from config\"\n",
    ));
    let o = p.run(&["run", "--config", "handover.toml", "--note", "from cli"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(p.notes()[0].1, header(1) + "from cli");
    assert_eq!(p.current_state().unwrap(), header(2) + "state from config");
    let o = p.run(&[
        "run",
        "--config",
        "handover.toml",
        "--current-state",
        "state from cli",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(p.current_state().unwrap(), header(2) + "state from cli");
}

#[test]
fn note_files_and_stdin() {
    let p = Project::new(&config(""));
    std::fs::write(p.path("note.md"), "## Goal\nfrom a file").unwrap();
    let o = p
        .cmd()
        .args([
            "run",
            "--config",
            "handover.toml",
            "--note-file",
            "note.md",
            "--current-state-file",
            "-",
        ])
        .write_stdin("state from stdin")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(p.notes()[0].1, header(1) + "## Goal\nfrom a file");
    assert_eq!(p.current_state().unwrap(), header(2) + "state from stdin");
}

/// Issue 25: a completed draft was handed over with its own "Replace
/// every TODO, then hand over" comments, which the next brief then showed.
#[test]
fn a_completed_draft_is_handed_over_without_its_drafting_comments() {
    let p = Project::new(&config(""));
    let o = p.run(&["draft", "--agent", "claude", "-o", "draft.md"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let draft = std::fs::read_to_string(p.path("draft.md")).unwrap();
    assert!(
        draft.contains("<!-- Drafted by `agent-handover draft`"),
        "{draft}"
    );
    let done: String = draft
        .lines()
        .map(|l| match l.find("TODO") {
            Some(i) if !l.starts_with("<!--") => {
                format!("{}Chose flock: 3/3 checks pass.", &l[..i])
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(p.path("draft.md"), &done).unwrap();
    let o = p.run(&[
        "run",
        "--config",
        "handover.toml",
        "--note-file",
        "draft.md",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let note = &p.notes()[0].1;
    assert!(note.contains("Chose flock: 3/3 checks pass."), "{note}");
    assert!(
        !note.contains("Drafted by") && !note.contains("A briefing for"),
        "{note}"
    );
    let state = p.current_state().unwrap();
    assert!(!state.contains("Replace every"), "{state}");
}

#[test]
fn missing_note_and_unknown_backend_are_config_errors() {
    let p = Project::new(&config(""));
    let o = p.run(&["run", "--config", "handover.toml"]);
    assert_eq!(o.status.code(), Some(78));
    assert!(
        stderr(&o).contains("no session note") && stderr(&o).contains("--note"),
        "{}",
        stderr(&o)
    );

    let p = Project::new("[backend]\ntype = \"s3\"\n[note]\nsession = \"x\"\n");
    let o = p.run(&["run", "--config", "handover.toml"]);
    assert_eq!(o.status.code(), Some(78));
    assert!(
        stderr(&o).contains("unknown backend type: \"s3\""),
        "{}",
        stderr(&o)
    );
    assert!(!p.checkpoint_path().exists());

    let o = p.run(&["run", "--config", "nope.toml", "--note", "x"]);
    assert_eq!(o.status.code(), Some(78));
    assert!(stderr(&o).contains("agent-handover init"), "{}", stderr(&o));
}

#[test]
fn checkpoint_env_var_and_flag_precedence() {
    let p = Project::new(&config(""));
    let o = p
        .cmd()
        .args(["run", "--config", "handover.toml", "--note", "x"])
        .env("AGENT_HANDOVER_CHECKPOINT", "env.json")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(p.path("env.json").exists() && !p.checkpoint_path().exists());
    let code = |args: &[&str], env: Option<&str>| {
        let mut c = p.cmd();
        c.args(args);
        if let Some(e) = env {
            c.env("AGENT_HANDOVER_CHECKPOINT", e);
        }
        c.output().unwrap().status.code().unwrap()
    };
    assert_eq!(code(&["check"], Some("env.json")), 2);
    assert_eq!(code(&["check"], None), 0);
    assert_eq!(
        code(&["check", "--checkpoint", "other.json"], Some("env.json")),
        0,
        "--checkpoint beats the env var"
    );
    assert_eq!(code(&["check", "--checkpoint", "env.json"], None), 2);
}

#[test]
fn an_empty_checkpoint_env_var_counts_as_unset() {
    let p = Project::new(&config(""));
    let o = p
        .cmd()
        .args(["check"])
        .env("AGENT_HANDOVER_CHECKPOINT", "")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_closed_output_pipe_ends_quietly() {
    let p = Project::new(&config(""));
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = p
        .std_cmd()
        .args(["template", "code"])
        .stdout(writer)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe"),
        "{err}"
    );
}

#[test]
fn a_panic_is_reported_in_plain_text_under_no_color() {
    let p = Project::new(&config(""));
    // `cmd` sets NO_COLOR; the debug-build failpoint panics in the first durable write.
    let o = p
        .cmd()
        .args(["run", "--config", "handover.toml", "--note", "n"])
        .env("AGENT_HANDOVER_FAILPOINT", "panic:after-op:1")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(101), "{err}");
    assert!(
        err.contains("failpoint after-op:1 reached") && err.contains("agent-handover check"),
        "{err}"
    );
    assert!(!o.stderr.contains(&0x1b), "escape codes in {err:?}");
}

// ---- bad input never destroys data ----

#[test]
fn corrupt_checkpoint_exits_3_names_the_file_and_is_never_overwritten() {
    for (what, bytes) in [
        ("truncated", br#"{"status": "in_progr"#.to_vec()),
        (
            "future",
            br#"{"status": "in_progress", "steps": {}, "schema_version": 7}"#.to_vec(),
        ),
        ("non-utf8", vec![b'{', 0xff, 0xfe, b'}']),
        ("wrong shape", br#"{"status": 12}"#.to_vec()),
    ] {
        let p = Project::new(&config(""));
        std::fs::create_dir_all(p.path(".agent-handover")).unwrap();
        std::fs::write(p.checkpoint_path(), &bytes).unwrap();
        let o = p.run(&["check"]);
        assert_eq!(o.status.code(), Some(3), "{what}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains(".agent-handover/checkpoint.json") && err.contains("fix:"),
            "{what}: {err}"
        );
        for args in [
            &["run", "--config", "handover.toml", "--note", "x"][..],
            &["resume"],
            &["abandon"],
            &["status"],
        ] {
            assert_eq!(p.run(args).status.code(), Some(3), "{what}: {args:?}");
        }
        assert_eq!(
            std::fs::read(p.checkpoint_path()).unwrap(),
            bytes,
            "{what}: file was modified"
        );
        assert!(!p.path("memory").exists(), "{what}: a step ran");
        let o = p.run(&["check", "--json"]);
        assert_eq!(json(&o)["exit_code"], 3);
    }
}

#[test]
fn oversized_checkpoint_is_refused() {
    let p = Project::new(&config(""));
    std::fs::create_dir_all(p.path(".agent-handover")).unwrap();
    let big = format!(
        "{{\"status\":\"none\",\"pad\":\"{}\"}}",
        "x".repeat(17 * 1024 * 1024)
    );
    std::fs::write(p.checkpoint_path(), &big).unwrap();
    let o = p.run(&["check"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("limit"), "{}", stderr(&o));
}

#[test]
fn escaping_tag_and_symlinked_memory_are_refused() {
    let p = Project::new(&config("").replace("tag = \"t\"", "tag = \"../../etc\""));
    let o = p.handover("x");
    assert_eq!(o.status.code(), Some(78), "{}", stderr(&o));
    assert!(stderr(&o).contains("tag"), "{}", stderr(&o));

    let p = Project::new(&config(""));
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(p.path("memory")).unwrap();
    std::os::unix::fs::symlink(outside.path(), p.path("memory/layer2")).unwrap();
    let o = p.handover("x");
    assert_eq!(o.status.code(), Some(1));
    // The same refusal as a read through it: the link named, with the fix.
    let err = stderr(&o);
    assert!(
        err.contains("symlink leading out of")
            && err.contains(&p.path("memory/layer2").display().to_string()),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

// ---- our additions ----

#[test]
fn second_handover_same_day_keeps_both_notes_and_state_history() {
    let p = Project::new(&config(""));
    assert!(p.handover("morning").status.success());
    assert!(p.handover("evening").status.success());
    let notes = p.notes();
    assert_eq!(notes.len(), 2);
    assert!(notes.iter().any(|(_, c)| c.ends_with("morning")));
    assert!(notes.iter().any(|(_, c)| c.ends_with("evening")));
    let history: Vec<_> = common::read_dir_sorted(&p.path(".agent-handover/history/current-state"));
    assert_eq!(history.len(), 2);
    assert!(
        std::fs::read_to_string(&history[0])
            .unwrap()
            .ends_with("morning")
    );
}

#[test]
fn different_note_while_interrupted_finishes_the_old_run_first() {
    let p = Project::new(&config(""));
    block_layer2(&p);
    assert_eq!(p.handover("first").status.code(), Some(1));
    unblock_layer2(&p);
    let o = p.handover("second");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("finished interrupted handover "), "{out}");
    assert!(out.ends_with(": current_state, publish\nhandover steps executed: session_note, learn, current_state, publish\n"), "{out}");
    assert_eq!(p.notes().len(), 2);
    assert_eq!(p.current_state().unwrap(), header(2) + "second");
}

#[test]
fn resume_finishes_from_the_staged_plan_without_the_config() {
    let p = Project::new(&config(""));
    block_layer2(&p);
    p.handover("staged note");
    unblock_layer2(&p);
    std::fs::remove_file(p.path("handover.toml")).unwrap();
    let o = p.run(&["resume", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = json(&o);
    assert_eq!(
        report["executed"],
        serde_json::json!(["current_state", "publish"])
    );
    assert_eq!(report["status"], "completed");
    assert_eq!(p.current_state().unwrap(), header(2) + "staged note");
    let o = p.run(&["resume"]);
    assert_eq!(stdout(&o), "nothing to resume (last handover: completed)\n");
}

#[test]
fn interrupted_non_idempotent_step_waits_for_a_human() {
    let p = Project::new(&config(
        "[[command]]\nname = \"deploy\"\nargv = [\"sh\", \"-c\", \"echo ran >> deploy.log; sleep ${SLOW:-0}\"]\n",
    ));
    let mut child = p
        .std_cmd()
        .args(["run", "--config", "handover.toml", "--note", "n"])
        .env("SLOW", "30")
        .spawn()
        .unwrap();
    wait_until(|| std::fs::read_to_string(p.path("deploy.log")).is_ok_and(|s| s == "ran\n"));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(p.check(), 1);
    let status = stdout(&p.run(&["status", "--verbose"]));
    assert!(
        status.contains("deploy") && status.contains("interrupted"),
        "{status}"
    );
    assert!(
        status.contains("needs a human: check its effects, then `agent-handover retry deploy`"),
        "{status}"
    );
    let deploy = &json(&p.run(&["status", "--json"]))["steps"][3];
    assert_eq!(deploy["needs_human"], true, "{deploy}");
    assert_eq!(deploy["after_crash"], "ask_human", "{deploy}");
    let brief = stdout(&p.run(&["brief"]));
    assert!(brief.contains("Decide about deploy"), "{brief}");

    let o = p.run(&["resume"]);
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("agent-handover retry deploy"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(p.path("deploy.log")).unwrap(),
        "ran\n",
        "must not re-run blindly"
    );

    let o = p.run(&["retry", "deploy"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).ends_with("steps executed: deploy, publish\n"),
        "{}",
        stdout(&o)
    );
    assert_eq!(
        std::fs::read_to_string(p.path("deploy.log")).unwrap(),
        "ran\nran\n"
    );
    assert_eq!(p.check(), 2);
    let o = p.run(&["retry", "deploy"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn retry_of_unknown_or_done_step_is_refused() {
    let p = Project::new(&config(""));
    block_layer2(&p);
    p.handover("n");
    let o = p.run(&["retry", "nope"]);
    assert_eq!(o.status.code(), Some(64));
    assert!(
        stderr(&o).contains("steps: session_note, learn, current_state, publish"),
        "{}",
        stderr(&o)
    );
    let o = p.run(&["retry", "session_note"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("already done"), "{}", stderr(&o));
}

#[test]
fn a_second_executor_is_told_who_runs_the_handover() {
    let p = Project::new(&config(
        "[[command]]\nname = \"slow\"\nargv = [\"sh\", \"-c\", \"touch started; sleep 3\"]\nidempotent = true\n",
    ));
    let mut child = p
        .std_cmd()
        .args(["run", "--config", "handover.toml", "--note", "n"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_until(|| p.path("started").exists());
    for args in [
        &["resume"][..],
        &["run", "--config", "handover.toml", "--note", "n"],
        &["abandon"],
    ] {
        let o = p.run(args);
        assert_eq!(o.status.code(), Some(5), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("being executed by pid {}", child.id())),
            "{}",
            stderr(&o)
        );
    }
    let status = stdout(&p.run(&["status", "--verbose"]));
    assert!(
        status.contains("slow") && status.contains("running"),
        "{status}"
    );
    assert!(child.wait().unwrap().success());
    assert_eq!(p.check(), 2);
}

#[test]
fn abandon_keeps_the_record_and_the_files() {
    let p = Project::new(&config(""));
    block_layer2(&p);
    p.handover("given up");
    let o = p.run(&["abandon", "--reason", "superseded by a new plan"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("not done: current_state, publish"),
        "{}",
        stdout(&o)
    );
    assert_eq!(p.check(), 0);
    assert_eq!(
        stdout(&p.run(&["status"])),
        "status: abandoned\n  [x] session_note\n  [x] learn\n  [ ] current_state\n  [ ] publish\n"
    );
    let cp = p.checkpoint_json();
    assert_eq!(cp["abandoned"]["reason"], "superseded by a new plan");
    assert!(cp["abandoned"]["by"].as_str().unwrap().contains("pid"));
    assert_eq!(p.notes().len(), 1, "abandon deletes nothing");
    let history = stdout(&p.run(&["history"]));
    assert!(
        history.contains("abandoned") && history.contains("superseded by a new plan"),
        "{history}"
    );
    assert_eq!(
        p.run(&["abandon"]).status.code(),
        Some(1),
        "nothing left to abandon"
    );
    unblock_layer2(&p);
    assert!(p.handover("fresh start").status.success());
    assert_eq!(stdout(&p.run(&["history"])).lines().count(), 2);
}

#[test]
fn history_lists_runs_newest_first_with_json() {
    let p = Project::new(&config(""));
    assert_eq!(stdout(&p.run(&["history"])), "no handovers yet\n");
    for n in ["one", "two", "three"] {
        assert!(p.handover(n).status.success());
    }
    let runs = json(&p.run(&["history", "--json"]));
    let runs = runs["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    let started: Vec<&str> = runs
        .iter()
        .map(|r| r["started_at"].as_str().unwrap())
        .collect();
    let mut sorted = started.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(started, sorted, "newest first");
    assert!(started[0] > started[2], "distinct start times");
    assert!(
        runs.iter()
            .all(|r| r["status"] == "completed" && r["steps_done"] == 4)
    );
    assert_eq!(
        json(&p.run(&["history", "--json", "--limit", "1"]))["runs"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn json_output_for_every_command() {
    let p = Project::new(&config(""));
    let check = json(&p.run(&["check", "--json"]));
    assert_eq!(check["code"], 0);
    let run = json(&p.run(&["--json", "run", "--config", "handover.toml", "--note", "n"]));
    assert_eq!(
        run["executed"],
        serde_json::json!(["session_note", "learn", "current_state", "publish"])
    );
    let status = json(&p.run(&["status", "--json"]));
    assert_eq!(status["status"], "completed");
    assert_eq!(status["steps"][0]["kind"], "session_note");
    assert_eq!(status["steps"][0]["state"], "done");
    assert!(status["steps"][0]["duration_ms"].is_number());
    assert_eq!(json(&p.run(&["check", "--json"]))["code"], 2);
    assert_eq!(json(&p.run(&["pause", "--json"]))["paused"], true);
    assert!(json(&p.run(&["unpause", "--json"]))["removed"].is_string());
    assert_eq!(
        json(&p.run(&["resume", "--json"]))["executed"],
        serde_json::json!([])
    );
    let err = p.run(&["abandon", "--json"]);
    assert_eq!(json(&err)["kind"], "no_such_run");
}

#[test]
fn init_writes_a_working_config_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let p = Project { dir };
    std::fs::create_dir(p.path("home")).unwrap();
    let o = p.run(&["init", "--tag", "codex"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let written = std::fs::read_to_string(p.path("handover.toml")).unwrap();
    assert!(written.contains("tag = \"codex\""));
    let o = p.run(&["init"]);
    assert_eq!(o.status.code(), Some(78));
    assert!(stderr(&o).contains("never overwrites"));
    assert_eq!(
        std::fs::read_to_string(p.path("handover.toml")).unwrap(),
        written
    );
    let o = p.handover("first session");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(p.notes()[0].0.starts_with("codex-"));
}

/// Issue 40: `init` taught `run --config handover.toml --note "..."`, and a
/// fresh workspace's `status -v` said nothing of what to do. Both teach the
/// draft loop, and following it literally hands over.
#[test]
fn init_and_a_fresh_status_teach_the_draft_loop_and_it_hands_over() {
    let dir = tempfile::tempdir().unwrap();
    let p = Project { dir };
    std::fs::create_dir(p.path("home")).unwrap();
    let o = p.run(&["init"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stdout(&o);
    let next = said
        .lines()
        .find_map(|l| l.split_once("; next, at the end of a session: "))
        .map(|(_, next)| next.to_string())
        .unwrap_or_else(|| panic!("no next: {said}"));
    assert!(!said.contains("--note \""), "{said}");
    let status = stdout(&p.run(&["status", "-v"]));
    assert!(
        status.contains(&format!(
            "next: no handover yet; at the end of a session: {next}"
        )),
        "{status}"
    );
    // The two commands in backticks, in order: draft, then run.
    let commands: Vec<&str> = next.split('`').skip(1).step_by(2).collect();
    assert_eq!(commands.len(), 2, "{next}");
    let args =
        |c: &str| -> Vec<String> { c.split_whitespace().skip(1).map(String::from).collect() };
    let draft = args(commands[0]);
    assert_eq!(draft[0], "draft", "{next}");
    let o = p.run(&draft.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", stderr(&o));
    let file = p.path(".agent-handover/handoff.md");
    let filled = std::fs::read_to_string(&file)
        .unwrap()
        .replace("TODO: ", "");
    std::fs::write(&file, filled).unwrap();
    let run = args(commands[1]);
    assert_eq!(run[0], "run", "{next}");
    let o = p.run(&run.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(p.check(), 2);
    // With a config elsewhere, both commands name it.
    std::fs::create_dir(p.path("cfg")).unwrap();
    let o = p.run(&["init", "--path", "cfg/other.toml"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(
            "`agent-handover draft --config cfg/other.toml -o .agent-handover/handoff.md`"
        ) && stdout(&o).contains(
            "`agent-handover run --config cfg/other.toml --note-file .agent-handover/handoff.md`"
        ),
        "{}",
        stdout(&o)
    );
}

/// Issue 40: an unknown table said only "unknown config key".
#[test]
fn an_unknown_config_table_names_the_one_meant() {
    let p = Project::new(&config("[[step]]\nname = \"tests\"\nargv = [\"true\"]\n"));
    let o = p.run(&["status"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("warning: unknown config key `step` ignored: did you mean `[[command]]`?"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn usage_errors_exit_64_and_help_documents_exit_codes() {
    let p = Project::new(&config(""));
    assert_eq!(p.run(&["frobnicate"]).status.code(), Some(64));
    let o = p.run(&["run"]);
    assert_eq!(o.status.code(), Some(78), "no note: a config error");
    assert!(stderr(&o).contains("no session note"), "{}", stderr(&o));
    let o = p.run(&["run", "--note", "./handover.toml is the default config"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(p.notes().len(), 1);
    let help = p.run(&["--help"]);
    assert!(help.status.success());
    assert!(
        stdout(&help).contains("Exit codes:") && stdout(&help).contains("busy"),
        "{}",
        stdout(&help)
    );
}

#[test]
fn unknown_config_keys_warn() {
    let p = Project::new(&config("").replace("tag = \"t\"", "tag = \"t\"\nmemroy_dir = \"x\""));
    let o = p.handover("n");
    assert!(o.status.success());
    assert!(
        stderr(&o).contains("unknown config key `handover.memroy_dir`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn demo_runs_the_whole_story() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("demo");
    let user = |args: &[&str]| {
        assert_cmd::Command::cargo_bin("agent-handover")
            .unwrap()
            .env("HOME", dir.path().join("home"))
            .env("XDG_CONFIG_HOME", dir.path().join("xdg"))
            .args(args)
            .output()
            .unwrap()
    };
    let o = user(&["demo", "--tour", "--dir", ws.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Issue 28, item 3: every demo registered its throwaway directory in
    // the user's registry (a `missing` row in the fleet once it was gone).
    let listed = common::json(&user(&["--json", "workspaces"]));
    assert_eq!(listed["workspaces"], serde_json::json!([]), "{listed}");
    let out = stdout(&o);
    assert!(out.contains("agent-handover check -> exit 1"), "{out}");
    assert!(out.contains("resume refused: automation paused"), "{out}");
    assert!(
        out.contains("resumed; steps executed: tests, publish"),
        "{out}"
    );
    assert!(out.contains("agent-handover check -> exit 2"), "{out}");
}

#[test]
fn a_step_kind_from_a_newer_version_is_not_called_corrupt() {
    let p = Project::new(&config(
        "[[command]]\nname = \"gate\"\nargv = [\"sh\", \"-c\", \"test -e open\"]\nidempotent = true\n",
    ));
    assert_eq!(p.handover("n").status.code(), Some(1), "the gate fails");
    // A newer agent-handover staged the last step with a kind we do not know.
    let mut cp = p.checkpoint_json();
    let publish = cp["plan"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|s| s["name"] == "publish")
        .unwrap();
    *publish = serde_json::json!({"name": "publish", "kind": "teleport", "to": "mars"});
    std::fs::write(p.checkpoint_path(), serde_json::to_vec_pretty(&cp).unwrap()).unwrap();

    assert_eq!(
        p.check(),
        1,
        "still an interrupted handover, not a corrupt file"
    );
    let status = json(&p.run(&["status", "--json"]));
    assert_eq!(status["steps"][4]["kind"], "teleport");
    assert_eq!(status["steps"][4]["after_crash"], "ask_human");

    std::fs::write(p.path("open"), "").unwrap();
    let before = std::fs::read(p.checkpoint_path()).unwrap();
    let o = p.run(&["--json", "resume"]);
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("kind \"teleport\", written by a newer agent-handover")
            && err.contains("agent-handover abandon"),
        "{err}"
    );
    assert!(!err.contains("unreadable"), "{err}");
    assert_eq!(json(&o)["kind"], "newer_step_kind");
    let after = p.checkpoint_json();
    assert_eq!(
        after["step_records"]["gate"]["state"], "done",
        "the steps it knows ran"
    );
    assert_eq!(
        after["plan"][4],
        serde_json::json!({"name": "publish", "kind": "teleport", "to": "mars"}),
        "the newer step is kept as written"
    );
    assert_ne!(before, std::fs::read(p.checkpoint_path()).unwrap());

    let o = p.run(&["abandon", "--reason", "needs the newer version"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(p.check(), 0);
    let record = p.checkpoint_json();
    assert_eq!(
        record["plan"][4]["to"], "mars",
        "abandoning keeps every field"
    );
}

#[test]
fn run_lints_the_handoff_on_the_way_and_warns_without_refusing() {
    let p = Project::new(&config(""));
    // Thin, but written (an unfilled template is refused: tests/it/knowledge.rs).
    std::fs::write(
        p.path("handoff.md"),
        "# Handoff\n\n## Next step\nLook at the parser.\n",
    )
    .unwrap();
    let o = p.run(&["run", "--note-file", "handoff.md"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("note: this handoff scores"), "{err}");
    assert!(err.contains("agent-handover lint"), "{err}");
    assert_eq!(p.check(), 2, "a warning does not refuse the handover");
}

#[test]
fn an_out_of_range_timeout_is_a_config_error_before_anything_is_staged() {
    for section in [
        "[[command]]\nname = \"deploy\"\nargv = [\"true\"]\ntimeout_secs = 18446744073709551615\n",
        "[[metric]]\nname = \"tests\"\nargv = [\"true\"]\ntimeout_secs = 99999999999\n[[metric.value]]\nname = \"n\"\npattern = '(\\d+)'\n",
    ] {
        let p = Project::new(&config(section));
        let o = p.handover("a note");
        assert_eq!(o.status.code(), Some(78), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("timeout_secs = ") && stderr(&o).contains("out of range"),
            "{}",
            stderr(&o)
        );
        assert_eq!(p.check(), 0, "nothing staged");
    }
}

#[test]
fn a_staged_timeout_out_of_range_is_refused_on_resume_not_a_panic() {
    let p = Project::new(&config(
        "[[command]]\nname = \"deploy\"\nargv = [\"false\"]\nidempotent = true\n",
    ));
    assert_eq!(
        p.handover("note").status.code(),
        Some(1),
        "the step fails: in progress"
    );
    let mut cp = p.checkpoint_json();
    let plan = cp["plan"].as_array_mut().unwrap();
    let deploy = plan.iter_mut().find(|s| s["name"] == "deploy").unwrap();
    deploy["timeout_secs"] = serde_json::json!(u64::MAX);
    std::fs::write(p.checkpoint_path(), serde_json::to_string(&cp).unwrap()).unwrap();
    for args in [&["resume"][..], &["retry", "deploy"]] {
        let o = p.run(args);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("out of range") && stderr(&o).contains("abandon"),
            "{}",
            stderr(&o)
        );
    }
    assert!(p.run(&["abandon"]).status.success());
}

#[test]
fn empty_notes_and_empty_plans_are_refused() {
    let p = Project::new(&config(""));
    let o = p
        .cmd()
        .args(["run", "--note-file", "-"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(64), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("empty") && stderr(&o).contains("--allow-empty"),
        "{}",
        stderr(&o)
    );
    assert!(
        !p.path("memory/layer2/current-state.md").exists(),
        "nothing written"
    );
    assert_eq!(p.check(), 0);
    let o = p.run(&["run", "--note", "  \n"]);
    assert_eq!(o.status.code(), Some(64));
    let o = p
        .cmd()
        .args(["run", "--note-file", "-", "--allow-empty"])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));

    let p = Project::new(&config("").replace("tag = \"t\"", "tag = \"t\"\nsteps = []"));
    let o = p.handover("a note");
    assert_eq!(o.status.code(), Some(78), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("[handover].steps is empty"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn config_paths_and_tags_say_what_they_will_do() {
    let with = |extra: &str| Project::new(&config("").replace("memory_dir = \"memory\"\n", extra));
    for (handover, needle) in [
        (
            "memory_dir = \"/\"\n",
            "memory_dir = \"/\" is outside the project",
        ),
        ("memory_dir = \"../elsewhere\"\n", "is outside the project"),
        ("memory_dir = \".\"\n", "the project root itself"),
        (
            "checkpoint = \"/tmp/x/checkpoint.json\"\n",
            "[handover].checkpoint",
        ),
        ("pause_file = \"../PAUSE\"\n", "[handover].pause_file"),
    ] {
        let p = with(handover);
        let o = p.handover("note");
        assert_eq!(o.status.code(), Some(78), "{handover}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{}", stderr(&o));
        assert!(stderr(&o).contains("fix:"), "{}", stderr(&o));
        assert!(!std::path::Path::new("/layer1").exists());
    }
    // Outside on purpose: beside the project in the temp dir, under a name
    // no other test (nor another run of the suite at the same time) uses.
    let shared = format!("shared-memory-{}-{}", std::process::id(), fastrand::u64(..));
    let p = with(&format!(
        "memory_dir = \"../{shared}\"\nallow_outside = true\n"
    ));
    let outside = p.dir.path().parent().unwrap().join(&shared);
    assert!(p.handover("note").status.success());
    assert!(outside.join("layer2/current-state.md").exists());
    let _ = std::fs::remove_dir_all(&outside);
    // `~` is the home directory, never a folder named `~`.
    let p = with("memory_dir = \"~/notes\"\nallow_outside = true\n");
    assert!(
        p.handover("note").status.success(),
        "{}",
        stderr(&p.handover("x"))
    );
    assert!(p.path("home/notes/layer2/current-state.md").exists());
    assert!(!p.path("~").exists());

    for (tag, shown) in [
        ("a/b", "'/'"),
        ("my agent", "' '"),
        ("x\u{202e}y", "U+202E"),
    ] {
        let p = Project::new(&config("").replace("tag = \"t\"", &format!("tag = \"{tag}\"")));
        let o = p.handover("note");
        assert_eq!(o.status.code(), Some(78), "{tag:?}");
        assert!(stderr(&o).contains(shown), "{tag:?}: {}", stderr(&o));
        assert!(p.notes().is_empty(), "never rewritten into another name");
    }
}

#[test]
fn a_dangling_pause_symlink_pauses() {
    let p = Project::new(&config(""));
    std::fs::create_dir_all(p.path(".agent-handover")).unwrap();
    std::os::unix::fs::symlink(p.path("gone"), p.path(".agent-handover/PAUSE")).unwrap();
    let o = p.handover("note");
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
}

#[test]
fn state_folders_stay_in_the_project_whatever_checkpoint_is_used() {
    let p = Project::new(&config(""));
    let o = p.run(&["run", "--checkpoint", "elsewhere/cp.json", "--note", "n"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(p.path("elsewhere/cp.json").exists());
    for litter in ["elsewhere/runs", "elsewhere/history", "runs", "history"] {
        assert!(
            !p.path(litter).exists(),
            "{litter} grew beside the checkpoint"
        );
    }
    assert!(p.path(".agent-handover/runs").is_dir());
    assert!(
        p.path("elsewhere/cp.json.lock").exists(),
        "its own lock, beside it"
    );
    assert_eq!(
        p.run(&["check", "--checkpoint", "elsewhere/cp.json"])
            .status
            .code(),
        Some(2)
    );
}

// ---- hardening: the file system ----

/// Run `agent-handover <args>` but kill it after `secs` seconds: a hang is a
/// failure of the test, not of the test suite.
fn run_within(p: &Project, args: &[&str], secs: u64) -> std::process::Output {
    use std::process::Stdio;
    let mut child = p
        .std_cmd()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            let o = child.wait_with_output().unwrap();
            panic!(
                "agent-handover {args:?} still running after {secs} s (killed); stderr: {}",
                stderr(&o)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_dangling_symlink_at_the_note_name_is_refused_not_looped_on() {
    let p = Project::new(&config(""));
    let today = chrono::Local::now();
    let month = p.path(&format!("memory/layer1/{}", today.format("%Y-%m")));
    std::fs::create_dir_all(&month).unwrap();
    let link = month.join(format!("t-{}.md", today.format("%Y-%m-%d")));
    std::os::unix::fs::symlink(p.path("nowhere.md"), &link).unwrap();
    let o = run_within(&p, &["run", "--config", "handover.toml", "--note", "x"], 10);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&link.display().to_string()) && err.contains("symlink"),
        "{err}"
    );
    // It points out of the memory: refused as a read through it is.
    assert!(
        err.contains("leading out of") && err.contains("or remove it"),
        "{err}"
    );
    assert!(!p.path("nowhere.md").exists(), "written through the link");
    assert_eq!(
        common::read_dir_sorted(&month),
        std::slice::from_ref(&link),
        "nothing written beside it"
    );
    // Once the link is gone, resuming writes the note under its own name.
    std::fs::remove_file(&link).unwrap();
    let o = run_within(&p, &["resume"], 10);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&link).unwrap(), header(1) + "x");
}

#[test]
fn a_symlinked_run_lock_is_refused_and_its_target_left_alone() {
    let p = Project::new(&config(""));
    std::fs::create_dir_all(p.path(".agent-handover")).unwrap();
    std::fs::write(p.path("precious.txt"), "keep me\n").unwrap();
    let lock = p.path(".agent-handover/run.lock");
    std::os::unix::fs::symlink(p.path("precious.txt"), &lock).unwrap();
    for args in [
        &["run", "--config", "handover.toml", "--note", "x"][..],
        &["resume"],
        &["abandon"],
    ] {
        let o = p.run(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(78), "{args:?}: {err}");
        assert!(
            err.contains(&lock.display().to_string()) && err.contains("symlink"),
            "{args:?}: {err}"
        );
        assert!(err.contains("fix: remove the link"), "{args:?}: {err}");
    }
    assert_eq!(
        std::fs::read_to_string(p.path("precious.txt")).unwrap(),
        "keep me\n"
    );
    assert!(!p.path("memory").exists(), "a step ran");
}

#[test]
fn a_directory_where_a_state_file_belongs_is_named_with_the_fix() {
    let p = Project::new(&config(""));
    std::fs::create_dir_all(p.checkpoint_path()).unwrap();
    for args in [&["check"][..], &["status"], &["run", "--note", "x"]] {
        let o = p.run(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(74), "{args:?}: {err}");
        assert!(
            err.contains(&format!(
                "fix: {} is a directory where a file belongs; move the directory aside (mv ",
                p.checkpoint_path().display()
            )),
            "{args:?}: {err}"
        );
    }

    let p = Project::new(&config(""));
    std::fs::remove_file(p.path("handover.toml")).unwrap();
    std::fs::create_dir(p.path("handover.toml")).unwrap();
    let o = p.run(&["run", "--config", "handover.toml", "--note", "x"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(74), "{err}");
    assert!(
        err.contains("handover.toml is a directory where a file belongs; move the directory aside"),
        "{err}"
    );
}

#[test]
fn a_full_read_only_or_forbidden_disk_is_named_with_the_fix() {
    for (errno, says) in [
        (libc::ENOSPC, "free space on the filesystem holding"),
        (libc::EROFS, "make the filesystem holding"),
        (libc::EACCES, "give your user read and write access to"),
    ] {
        let p = Project::new(&config(""));
        let o = p
            .cmd()
            .args(["run", "--config", "handover.toml", "--note", "x"])
            .env(
                "AGENT_HANDOVER_FAILPOINT",
                format!("io-error:write-temp:{errno}"),
            )
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(74), "{errno}: {err}");
        assert!(err.contains(says), "{errno}: {err}");
        assert!(
            err.contains(&p.path(".agent-handover").display().to_string()),
            "{errno}: names the folder: {err}"
        );
        assert!(err.contains("agent-handover resume"), "{errno}: {err}");
        let tmp: Vec<_> = common::read_dir_sorted(&p.path(".agent-handover"))
            .into_iter()
            .filter(|f| f.to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(tmp.is_empty(), "{errno}: temp files left: {tmp:?}");
    }
}

#[test]
fn check_prints_nothing_unless_asked_for_json() {
    // An ignored config key is warned about by other commands, not by `check`.
    let p = Project::new(&config("").replace("tag = \"t\"", "tag = \"t\"\nsurprise = 1"));
    block_layer2(&p);
    assert_eq!(p.handover("x").status.code(), Some(1));
    let o = p.run(&["check"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!((stdout(&o).as_str(), stderr(&o).as_str()), ("", ""));
    let o = p.run(&["--json", "check"]);
    assert_eq!(json(&o)["code"], 1);
    unblock_layer2(&p);
    assert!(p.run(&["resume"]).status.success());
    let o = p.run(&["check"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!((stdout(&o).as_str(), stderr(&o).as_str()), ("", ""));
    // Errors still go to stderr.
    std::fs::write(p.checkpoint_path(), "{").unwrap();
    let o = p.run(&["check"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("checkpoint.json"), "{}", stderr(&o));
}

/// Issue 14, item 5: a handover registers its workspace in the user's
/// registry (under HOME, or $XDG_CONFIG_HOME); `workspaces` lists it,
/// marked missing once its directory is gone, and `workspaces forget`
/// removes it; an unreadable registry is named with its fix and left as is.
#[test]
fn a_handover_registers_the_workspace_and_workspaces_lists_and_forgets_it() {
    let p = Project::new(&config(""));
    assert!(p.handover("one").status.success());
    let registry = p.path("home/.config/agent-handover/workspaces.toml");
    let text = std::fs::read_to_string(&registry).unwrap();
    let root = std::fs::canonicalize(p.dir.path()).unwrap();
    assert!(text.contains(root.to_str().unwrap()), "{text}");

    let o = p.run(&["--json", "workspaces"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let listed: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(listed["workspaces"][0]["path"], root.to_str().unwrap());
    assert_eq!(listed["workspaces"][0]["missing"], false);

    // $XDG_CONFIG_HOME wins over HOME.
    let o = p
        .cmd()
        .env("XDG_CONFIG_HOME", p.path("xdg"))
        .args(["run", "--config", "handover.toml", "--note", "two"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(p.path("xdg/agent-handover/workspaces.toml").is_file());

    let o = p.run(&["workspaces", "forget", root.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&p.run(&["workspaces"])).contains("no workspaces registered"));

    std::fs::write(&registry, "not = [valid").unwrap();
    let o = p.handover("three");
    assert!(
        o.status.success(),
        "a broken registry never stops a handover"
    );
    assert!(stderr(&o).contains("workspaces.toml"), "{}", stderr(&o));
    let o = p.run(&["workspaces"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("move it aside"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&registry).unwrap(), "not = [valid");
}

/// Issue 28, item 3: no way to drop the `missing` rows but one by one.
/// `workspaces forget --missing` removes every registered workspace whose
/// directory is gone, and only those.
#[test]
fn workspaces_forget_missing_drops_the_gone_ones_only() {
    let p = Project::new(&config(""));
    assert!(p.handover("one").status.success());
    let gone = tempfile::tempdir().unwrap();
    std::fs::write(gone.path().join("handover.toml"), config("")).unwrap();
    let o = p
        .cmd()
        .current_dir(gone.path())
        .args(["run", "--note", "elsewhere"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let gone_path = std::fs::canonicalize(gone.path()).unwrap();
    drop(gone);
    let o = p.run(&["--json", "workspaces", "forget", "--missing"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let forgotten = common::json(&o)["forgotten"].clone();
    assert_eq!(forgotten, serde_json::json!([gone_path]), "{forgotten}");
    let listed = common::json(&p.run(&["--json", "workspaces"]));
    let root = std::fs::canonicalize(p.dir.path()).unwrap();
    assert_eq!(
        listed["workspaces"].as_array().unwrap().len(),
        1,
        "{listed}"
    );
    assert_eq!(listed["workspaces"][0]["path"], root.to_str().unwrap());
    let o = p.run(&["workspaces", "forget", "--missing"]);
    assert!(
        stdout(&o).contains("no missing workspace"),
        "{}",
        stdout(&o)
    );
    let o = p.run(&["workspaces", "forget"]);
    assert_eq!(o.status.code(), Some(64), "a DIR or --missing");
}

/// Issue 26, item 10: a FIFO at the checkpoint's path made `check`,
/// `status`, `brief` and `run` wait forever for a writer; each now refuses
/// it at once (exit 3) naming the file and the fix, and leaves it there.
#[test]
fn a_fifo_at_the_checkpoint_is_refused_not_waited_on() {
    let p = Project::new(&config(""));
    std::fs::create_dir_all(p.path(".agent-handover")).unwrap();
    let fifo = p.checkpoint_path();
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    for args in [
        vec!["check"],
        vec!["status"],
        vec!["brief"],
        vec!["run", "--config", "handover.toml", "--note", "n"],
    ] {
        let mut child = p
            .std_cmd()
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                panic!("{args:?} hangs on a FIFO");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        if args[0] == "brief" {
            // The brief reports the checkpoint it cannot read, and goes on.
            assert!(stdout(&o).contains("a FIFO"), "{}", stdout(&o));
        } else {
            assert_eq!(o.status.code(), Some(3), "{args:?}: {err}");
            assert!(
                err.contains("checkpoint.json") && err.contains("a FIFO"),
                "{err}"
            );
        }
    }
    assert!(fifo.exists(), "left where it was");
}

/// Issue 26, item 16: `tag = "clé"` was accepted by `run`, and then
/// `brief` and `inbox list` failed on it as an agent name, naming neither
/// file nor fix. One rule for tags and agent names (letters and digits of
/// any script, as 0.5.1's tags): `clé` works everywhere, and a tag no agent
/// can have is refused by every command where the config is read, naming
/// handover.toml, the character and the fix, with nothing written.
#[test]
fn tags_and_agent_names_follow_one_rule_checked_where_the_config_is_read() {
    let with_tag = |tag: &str| {
        Project::new(&format!(
            "[handover]\nmemory_dir = \"memory\"\ntag = \"{tag}\"\n\n[backend]\ntype = \"null\"\n"
        ))
    };
    let p = with_tag("clé");
    for args in [
        &["run", "--config", "handover.toml", "--note", "n"][..],
        &["brief"],
        &["inbox", "list"],
    ] {
        let o = p.run(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    }
    let p = with_tag("my agent");
    for args in [
        &["run", "--config", "handover.toml", "--note", "n"][..],
        &["brief"],
        &["inbox", "list"],
    ] {
        let o = p.run(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(78), "{args:?}: {err}");
        assert!(
            err.contains("handover.toml")
                && err.contains("[handover].tag \"my agent\"")
                && err.contains("' '")
                && err.contains("fix: use letters"),
            "{args:?}: {err}"
        );
    }
    assert!(!p.path("memory").exists(), "nothing written");
}

/// Issue 26, item 17: temp files a killed `task step`, `identity set` or
/// `install` left were never swept. The next of each removes them (ours
/// only: another tool's temp file in the project stays).
#[test]
fn temp_files_left_by_killed_task_identity_and_install_are_swept() {
    let p = Project::new(&config(""));
    assert!(
        p.run(&["task", "start", "t", "--step", "a"])
            .status
            .success()
    );
    let ours = |dir: &str, name: &str| {
        let path = p
            .path(dir)
            .join(format!(".{name}.Xy12Zq.agent-handover.tmp"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "half written").unwrap();
        path
    };
    let task_temp = ours(".agent-handover/tasks", "t.json");
    assert!(
        p.run(&["task", "step", "t", "1", "--done"])
            .status
            .success()
    );
    assert!(!task_temp.exists(), "task");

    let identity_temp = ours("memory", "identity.md");
    let o = p.run(&["identity", "set", "Policies", "Small commits."]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!identity_temp.exists(), "identity");

    let install_temp = ours("", "AGENTS.md");
    let foreign = p.path(".editor-backup.tmp");
    std::fs::write(&foreign, "not ours").unwrap();
    assert!(p.run(&["install", "codex"]).status.success());
    assert!(!install_temp.exists(), "install");
    assert!(foreign.exists(), "another tool's temp file stays");
}

/// Issue 26, item 7: a symlinked `memory/` or `.agent-handover/`, or a
/// symlinked `runs`, `tasks`, `drafts`, `sessions`, `history/current-state`
/// or `messages/.read`, had writes go through to the target outside the
/// project. Each is refused (exit 78) naming the link and the fix, and
/// nothing is written where it points.
#[test]
fn a_linked_folder_we_write_into_is_refused_not_followed() {
    for linked in [
        ".agent-handover",
        "memory",
        ".agent-handover/runs",
        ".agent-handover/tasks",
        ".agent-handover/drafts",
        ".agent-handover/sessions",
        ".agent-handover/history/current-state",
        "messages/.read",
    ] {
        let p = Project::new(&config(""));
        let outside = tempfile::tempdir().unwrap();
        let link = p.path(linked);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(outside.path(), &link).unwrap();
        let o = p.handover("note");
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(78), "{linked}: {err}");
        assert!(
            err.contains(&link.display().to_string()) && err.contains("fix:"),
            "{linked}: {err}"
        );
        assert_eq!(
            std::fs::read_dir(outside.path()).unwrap().count(),
            0,
            "{linked}: nothing written outside"
        );
    }
}

// ---- issue 41, edges round three ----

/// What a file outside the project holds: it must never reach an agent.
const FROM_HOME: &str = "FROM-THE-USERS-HOME-41";

/// A project whose memory file `rel` is a link to a file outside it
/// (returned, with the folder that holds it).
fn memory_file_linked_out(rel: &str) -> (Project, tempfile::TempDir, std::path::PathBuf) {
    let p = Project::new(&config(""));
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("private.md");
    std::fs::write(&target, format!("# Private\n\n{FROM_HOME}\n")).unwrap();
    let link = p.path(rel);
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    (p, outside, link)
}

/// Issue 41, item 1: a memory file replaced by a link to a file outside the
/// project (current-state.md, MEMORY.md, identity.md, a session note) is
/// not read: `brief` shows the refusal naming the link, never the file.
#[test]
fn brief_never_reads_a_memory_file_linked_out_of_the_project() {
    for rel in [
        "memory/layer2/current-state.md",
        "memory/MEMORY.md",
        "memory/identity.md",
        "memory/layer1/2026-11/t-2026-11-21.md",
    ] {
        let (p, _outside, link) = memory_file_linked_out(rel);
        for args in [
            vec!["brief", "--agent", "codex", "--history", "3"],
            vec!["--json", "brief", "--agent", "codex", "--history", "3"],
        ] {
            let o = p.run(&args);
            let (out, err) = (stdout(&o), stderr(&o));
            assert!(
                !out.contains(FROM_HOME) && !err.contains(FROM_HOME),
                "{rel}: the file outside was read:\n{out}{err}"
            );
            assert!(
                out.contains("symlink leading out of")
                    && out.contains(&*link.file_name().unwrap().to_string_lossy()),
                "{rel}: the refusal names the link:\n{out}{err}"
            );
        }
    }
}

/// Issue 41, item 1: `identity show` refuses a linked-out identity.md
/// (exit 78, the link and the fix named), and a handover refuses to
/// replace a linked-out current-state.md, reading nothing through it.
#[test]
fn identity_show_and_a_handover_refuse_a_memory_file_linked_out() {
    let (p, _outside, link) = memory_file_linked_out("memory/identity.md");
    let o = p.run(&["identity", "show"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(78), "{err}");
    assert!(!stdout(&o).contains(FROM_HOME), "{}", stdout(&o));
    assert!(
        err.contains(&link.display().to_string()) && err.contains("fix:"),
        "{err}"
    );

    let (p, outside, link) = memory_file_linked_out("memory/layer2/current-state.md");
    let o = p.handover("a note");
    let err = stderr(&o);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(err.contains(&link.display().to_string()), "{err}");
    assert!(!err.contains(FROM_HOME), "{err}");
    // Nothing was copied into the history from the file outside.
    let history = p.path(".agent-handover/history/current-state");
    for f in common::read_dir_sorted(&history) {
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(!text.contains(FROM_HOME), "{}: {text}", f.display());
    }
    assert_eq!(
        std::fs::read_to_string(outside.path().join("private.md")).unwrap(),
        format!("# Private\n\n{FROM_HOME}\n"),
        "the file outside is untouched"
    );
}

/// Issue 41, item 1: a link that stays inside the memory keeps working.
#[test]
fn a_memory_file_linked_inside_the_memory_is_read() {
    let p = Project::new(&config(""));
    std::fs::create_dir_all(p.path("memory/layer2")).unwrap();
    std::fs::write(p.path("memory/shared-state.md"), "# State\n\nINSIDE-41\n").unwrap();
    std::os::unix::fs::symlink(
        "../shared-state.md",
        p.path("memory/layer2/current-state.md"),
    )
    .unwrap();
    let o = p.run(&["brief", "--agent", "codex"]);
    assert!(
        stdout(&o).contains("INSIDE-41"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
}

/// Issue 41, item 2: a configured path inside the project by name but
/// through a linked folder (`memory_dir = "linkout/mem"`, `checkpoint =
/// "linkout/state/ck.json"`) is refused (exit 78, the link named), and
/// nothing lands outside.
#[test]
fn a_configured_path_through_a_linked_folder_is_refused() {
    for key in [
        "memory_dir = \"linkout/mem\"",
        "checkpoint = \"linkout/state/ck.json\"",
    ] {
        let text = config("").replace("[handover]\n", &format!("[handover]\n{key}\n"));
        let text = if key.starts_with("memory_dir") {
            text.replace("memory_dir = \"memory\"\n", "")
        } else {
            text
        };
        let p = Project::new(&text);
        let outside = tempfile::tempdir().unwrap();
        let link = p.path("linkout");
        std::os::unix::fs::symlink(outside.path(), &link).unwrap();
        for args in [
            vec!["run", "--note", "a note"],
            vec!["check"],
            vec!["brief", "--agent", "codex"],
        ] {
            let o = p.run(&args);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(78), "{key} {args:?}: {err}");
            assert!(
                err.contains(&link.display().to_string()) && err.contains("fix:"),
                "{key} {args:?}: {err}"
            );
        }
        assert_eq!(
            std::fs::read_dir(outside.path()).unwrap().count(),
            0,
            "{key}: nothing written outside"
        );
    }
}

/// Issue 41, item 1: the project's own handover.toml linked out of it is
/// not read.
#[test]
fn a_config_linked_out_of_the_project_is_not_read() {
    let p = Project::new(&config(""));
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("h.toml"), config("")).unwrap();
    std::fs::remove_file(p.path("handover.toml")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("h.toml"), p.path("handover.toml")).unwrap();
    let o = p.run(&["check"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(78), "{err}");
    assert!(
        err.contains("handover.toml") && err.contains("symlink"),
        "{err}"
    );
}

/// A stream of `bytes` zero bytes written to `cmd`'s stdin by a thread:
/// the child's output, and whether the writer was cut off (a broken pipe)
/// before it wrote everything.
fn feed(mut cmd: std::process::Command, bytes: usize) -> (std::process::Output, bool) {
    use std::io::Write;
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'a'; 64 * 1024];
        let mut left = bytes;
        while left > 0 {
            let n = left.min(chunk.len());
            if stdin.write_all(&chunk[..n]).is_err() {
                return true;
            }
            left -= n;
        }
        false
    });
    let out = child.wait_with_output().unwrap();
    (out, writer.join().unwrap())
}

/// Issue 41, item 3: every stdin reader is held to the limit of the file
/// it stands for (4 MiB for a note, a state, a handoff, identity.md),
/// refused as soon as it passes it (the writer of an 8 MiB stream sees a
/// broken pipe), with the file form's error (exit 3, "stdin" and the fix
/// named); nothing is written.
#[test]
fn stdin_past_its_limit_is_refused_before_it_is_read_to_the_end() {
    const STREAM: usize = 8 * 1024 * 1024;
    for args in [
        &["run", "--note-file", "-"][..],
        &["run", "--note", "n", "--current-state-file", "-"],
        &["lint", "-"],
        &["identity", "set", "Goals"],
        &["inbox", "send", "--to", "bob", "--from", "al"],
    ] {
        let p = Project::new(&config(""));
        let mut cmd = p.std_cmd();
        cmd.args(args);
        let (o, cut_off) = feed(cmd, STREAM);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {err}");
        assert!(
            err.contains("stdin holds more than") && err.contains("fix:"),
            "{args:?}: {err}"
        );
        assert!(cut_off, "{args:?}: the whole stream was read");
        for dir in ["memory", "messages", ".agent-handover/runs"] {
            assert!(
                common::read_dir_sorted(&p.path(dir)).is_empty(),
                "{args:?}: {dir} written"
            );
        }
    }
    // Within the limit, stdin still works.
    let p = Project::new(&config(""));
    let mut cmd = p.std_cmd();
    cmd.args(["lint", "-"]);
    let (o, cut_off) = feed(cmd, 1000);
    assert!(!cut_off && o.status.code() != Some(3), "{}", stderr(&o));
}

/// Issue 41, item 4: a note or current state that only looks like text
/// (a zero-width space, a byte-order mark, an HTML comment) is empty:
/// refused without --allow-empty, nothing written; accepted with it.
#[test]
fn a_note_that_only_looks_like_text_is_empty() {
    for blank in [
        "\u{200B}",
        "\u{FEFF}",
        "<!-- -->",
        "\u{FEFF}\n<!-- x -->\u{200D} \n",
    ] {
        let p = Project::new(&config(""));
        let o = p.handover(blank);
        assert_eq!(o.status.code(), Some(64), "{blank:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("--allow-empty"), "{}", stderr(&o));
        assert!(p.notes().is_empty(), "{blank:?}: a note was written");
        let o = p.run(&["run", "--note", "real text", "--current-state", blank]);
        assert_eq!(o.status.code(), Some(64), "{blank:?}: {}", stderr(&o));
        assert!(p.notes().is_empty() && p.current_state().is_none());
        let o = p.run(&["run", "--note", blank, "--allow-empty"]);
        assert!(o.status.success(), "{blank:?}: {}", stderr(&o));
    }
}
