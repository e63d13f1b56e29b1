//! `agent-handover mcp`: the real binary as an MCP server, driven over its
//! stdin/stdout with newline-delimited JSON-RPC the way an agent drives it.

use serde_json::json;

use crate::common::mcp_client::Client;
use crate::common::{self, Project, config};

const NOTE: &str = "# Handoff\n\n## Done\n- Added the MCP server (src/cli/mcp.rs).\n\n## Next\n- Run `cargo test --test mcp` and review the tool descriptions.\n";

#[test]
fn tools_list_is_eight_small_tools() {
    let p = Project::new(&config(""));
    let mut c = Client::start(&p);
    let list = c.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "brief",
            "draft",
            "handover",
            "inbox_list",
            "inbox_send",
            "knowledge",
            "lint",
            "task"
        ]
    );
    // Issue 25: 3.8 KB (~950 tokens) with `$schema` in every schema,
    // enums as `$ref`s and the non-standard `"format": "uint"`.
    let text = serde_json::to_string(&list["result"]).unwrap();
    let bytes = text.len();
    eprintln!("tools/list: {bytes} bytes, about {} tokens", bytes / 4);
    assert!(bytes < 3_000, "tools/list is {bytes} bytes");
    for needle in ["$ref", "$schema", "\"format\"", "$defs"] {
        assert!(!text.contains(needle), "{needle} in {text}");
    }
    for t in tools {
        assert!(
            t["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{t}"
        );
        assert!(t["title"].as_str().is_some_and(|d| !d.is_empty()), "{t}");
        assert!(
            t["annotations"].as_object().is_some_and(|a| !a.is_empty()),
            "{t}"
        );
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
    }
    let hint = |name: &str, key: &str| {
        let t = tools.iter().find(|t| t["name"] == name).unwrap();
        t["annotations"][key].clone()
    };
    for read_only in ["lint", "knowledge", "inbox_list"] {
        assert_eq!(hint(read_only, "readOnlyHint"), true, "{read_only}");
        assert_eq!(hint(read_only, "openWorldHint"), false, "{read_only}");
    }
    assert_eq!(hint("handover", "destructiveHint"), false);
    let task = tools.iter().find(|t| t["name"] == "task").unwrap();
    assert_eq!(
        task["inputSchema"]["properties"]["action"]["enum"],
        json!(["start", "step", "block", "done", "show", "list"]),
        "enums inline"
    );
    // Issue 43: a step's size, as `task step --size` takes it.
    assert_eq!(
        task["inputSchema"]["properties"]["size"]["enum"],
        json!(["S", "M", "L"]),
        "{task}"
    );
    let required = |name: &str| {
        let t = tools.iter().find(|t| t["name"] == name).unwrap();
        t["inputSchema"]["required"].clone()
    };
    assert_eq!(required("handover"), json!(["note"]));
    assert_eq!(
        required("inbox_send"),
        json!(["from", "to", "subject", "body"])
    );
    assert_eq!(required("inbox_list"), json!(["agent"]));
    c.finish();
}

#[test]
fn every_tool_acts_on_the_workspace() {
    let p = Project::new(&config(""));
    let mut c = Client::start(&p);

    // brief (with check): nothing handed over yet.
    let brief = c.ok("brief", json!({"agent": "codex"}));
    assert!(brief.starts_with("check: 0 "), "{brief}");
    assert!(brief.contains("Session brief for codex"), "{brief}");

    // lint: no current state yet is an error naming the file; a given text scores.
    let (is_error, text) = c.call("lint", json!({}));
    assert!(is_error, "{text}");
    assert!(text.contains("current-state.md"), "{text}");
    let lint = c.ok("lint", json!({"text": NOTE}));
    assert!(lint.starts_with("handoff: score "), "{lint}");

    // draft: the template to complete.
    let draft = c.ok("draft", json!({"work_type": "code"}));
    assert!(draft.contains("TODO"), "{draft}");
    let (is_error, text) = c.call("draft", json!({"work_type": "poetry"}));
    assert!(is_error && text.contains("no template"), "{text}");

    // handover: writes the layers; the CLI's check then says completed.
    let done = c.ok("handover", json!({"note": NOTE}));
    assert!(
        done.contains("note: this handoff scores "),
        "lint on the way: {done}"
    );
    assert!(
        done.contains("session_note, learn, current_state, publish"),
        "{done}"
    );
    // Where the memory went, as `run` says it on stderr.
    assert!(
        done.contains("publish: null backend: nothing to publish"),
        "{done}"
    );
    let state = p.current_state().expect("current-state.md written");
    assert!(state.contains("Added the MCP server"), "{state}");
    assert_eq!(p.notes().len(), 1);
    assert_eq!(p.check(), 2);
    let brief = c.ok("brief", json!({}));
    assert!(
        brief.starts_with("check: 2 (the last handover completed)"),
        "{brief}"
    );
    assert!(brief.contains("Session brief for t"), "{brief}");
    let lint = c.ok("lint", json!({}));
    assert!(lint.contains("current-state.md: score "), "{lint}");

    // inbox: a message sent is on disk and listed, unread, for its reader.
    let sent = c.ok(
        "inbox_send",
        json!({"from": "claude", "to": "codex", "subject": "review mcp.rs", "body": "Please review."}),
    );
    assert!(
        sent.starts_with("sent ") && sent.contains("codex"),
        "{sent}"
    );
    assert_eq!(
        common::read_dir_sorted(&p.path("messages/for_codex")).len(),
        1
    );
    let list = c.ok("inbox_list", json!({"agent": "codex", "unread_only": true}));
    assert!(
        list.starts_with('*') && list.contains("claude -> codex  review mcp.rs"),
        "{list}"
    );
    assert_eq!(
        c.ok("inbox_list", json!({"agent": "claude"})),
        "no messages\n"
    );
    let brief = c.ok("brief", json!({"agent": "codex"}));
    assert!(brief.contains("review mcp.rs"), "{brief}");

    c.finish();
}

#[test]
fn bad_input_is_a_tool_error_not_a_crash() {
    let p = Project::new(&config(""));
    let mut c = Client::start(&p);
    let (is_error, text) = c.call("handover", json!({"note": "  \n"}));
    assert!(is_error, "{text}");
    assert!(
        text.contains("the session note is empty") && text.contains("fix:"),
        "{text}"
    );
    let (is_error, text) = c.call("handover", json!({}));
    assert!(is_error && text.contains("note"), "{text}");
    let (is_error, text) = c.call(
        "inbox_send",
        json!({"from": "../x", "to": "codex", "subject": "s", "body": "b"}),
    );
    assert!(is_error && text.starts_with("error: "), "{text}");
    assert!(p.current_state().is_none(), "nothing was handed over");
    assert!(!p.path("messages/for_codex").exists());
    assert_eq!(p.check(), 0);
    // The server still answers.
    let brief = c.ok("brief", json!({}));
    assert!(brief.starts_with("check: 0 "), "{brief}");
    c.finish();
}

#[test]
fn a_failed_step_is_a_tool_error_and_brief_says_interrupted() {
    let p = Project::new(&config(""));
    // The current_state step fails: layer2 is a file, not a directory.
    std::fs::create_dir_all(p.path("memory")).unwrap();
    std::fs::write(p.path("memory/layer2"), "not a directory").unwrap();
    let mut c = Client::start(&p);
    let (is_error, text) = c.call("handover", json!({"note": NOTE}));
    assert!(is_error, "{text}");
    assert!(text.contains("step 'current_state' failed"), "{text}");
    assert!(text.contains("fix:"), "{text}");
    assert_eq!(p.check(), 1);
    let brief = c.ok("brief", json!({}));
    assert!(brief.starts_with("check: 1 (the last handover"), "{brief}");
    assert!(brief.contains("agent-handover resume"), "{brief}");
    c.finish();
}

/// A three-step task driven through the CLI and the MCP server, the server
/// killed halfway, another process carrying on: `brief` shows each stage.
#[test]
fn a_task_driven_by_cli_and_mcp_survives_a_killed_server() {
    let p = Project::new(&config(""));
    let started = p.run(&[
        "task", "start", "parser", "--step", "lexer", "--step", "grammar", "--step", "tests",
    ]);
    assert!(started.status.success(), "{}", common::stderr(&started));
    let brief = common::stdout(&p.run(&["brief"]));
    assert!(
        brief.contains("- **Next pending step:** 1. lexer"),
        "{brief}"
    );

    let mut c = Client::start(&p);
    let text = c.ok(
        "task",
        json!({"action": "step", "name": "parser", "step": "1", "done": true, "output": "src/lexer.rs"}),
    );
    assert!(
        text.contains("[x] 1. lexer · output: src/lexer.rs") && text.contains("[>] 2. grammar"),
        "{text}"
    );
    c.ok(
        "task",
        json!({"action": "block", "name": "parser", "step": "grammar", "reason": "waiting for the spec", "failed": ["a PEG generator: too slow"]}),
    );
    let (is_error, text) = c.call(
        "task",
        json!({"action": "step", "name": "nope", "step": "1"}),
    );
    assert!(is_error && text.contains("no task \"nope\""), "{text}");
    // The server dies without a goodbye; the file holds every change made.
    c.child.kill().unwrap();
    c.child.wait().unwrap();

    let brief = common::stdout(&p.run(&["brief"]));
    assert!(brief.contains("`parser` (1 of 3 steps done"), "{brief}");
    assert!(
        brief.contains("- **Next pending step:** 3. tests"),
        "{brief}"
    );
    assert!(
        brief.contains("- **Blocker:** grammar (blocked: waiting for the spec)"),
        "{brief}"
    );
    assert!(
        brief.contains("- **Do not retry:** a PEG generator: too slow"),
        "{brief}"
    );

    // Another process finishes it.
    for args in [
        &["task", "step", "parser", "grammar", "--done"][..],
        &[
            "task",
            "step",
            "parser",
            "3",
            "--done",
            "--output",
            "42 passed",
        ],
        &["task", "done", "parser"],
    ] {
        let o = p.run(args);
        assert!(o.status.success(), "{args:?}: {}", common::stderr(&o));
    }
    let shown = common::json(&p.run(&["--json", "task", "show", "parser"]));
    let statuses: Vec<&str> = shown["task"]["plan"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["done", "done", "done"]);
    assert_eq!(shown["task"]["status"], "done");
    let brief = common::stdout(&p.run(&["brief"]));
    assert!(
        !brief.contains("Active task"),
        "a finished task is not active: {brief}"
    );

    let mut c = Client::start(&p);
    let list = c.ok("task", json!({"action": "list"}));
    assert!(
        list.contains("task parser · done · 3/3 steps done"),
        "{list}"
    );
    c.finish();
}

#[test]
fn a_corrupt_task_file_is_exit_3_named_and_never_overwritten() {
    let p = Project::new(&config(""));
    assert!(
        p.run(&["task", "start", "t1", "--step", "a"])
            .status
            .success()
    );
    let file = p.path(".agent-handover/tasks/t1.json");
    std::fs::write(&file, "{\"task\": \"t1\", \"plan\": [").unwrap();
    for args in [
        &["task", "step", "t1", "1", "--done"][..],
        &["task", "show", "t1"],
        &["task", "list"],
        &["task", "done", "t1"],
    ] {
        let o = p.run(args);
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        let err = common::stderr(&o);
        assert!(err.contains("t1.json") && err.contains("fix:"), "{err}");
    }
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{\"task\": \"t1\", \"plan\": ["
    );
    // The brief still comes, saying what is wrong.
    let brief = p.run(&["brief"]);
    assert!(brief.status.success());
    assert!(
        common::stdout(&brief).contains("**The task files cannot be read:**"),
        "{}",
        common::stdout(&brief)
    );
    let mut c = Client::start(&p);
    let (is_error, text) = c.call("task", json!({"action": "show", "name": "t1"}));
    assert!(is_error && text.contains("t1.json"), "{text}");
    c.finish();
}

/// A project whose handover has a command step that takes `secs` seconds,
/// touching `started` when it begins.
fn slow_project(secs: u32) -> Project {
    Project::new(&config(&format!(
        "[[command]]\nname = \"slow\"\nargv = [\"sh\", \"-c\", \"touch started; sleep {secs}\"]\nidempotent = true\n"
    )))
}

/// Issue 24: while a handover runs, `brief` says it is being executed and
/// advises waiting, never `resume` (which exits 5 at that moment).
#[test]
fn brief_while_a_handover_runs_advises_waiting_not_resume() {
    let p = slow_project(30);
    let mut child = p
        .std_cmd()
        .args(["run", "--config", "handover.toml", "--note", "n"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    common::wait_until(|| p.path("started").exists());
    let mut c = Client::start(&p);
    let text = c.ok("brief", json!({}));
    c.finish();
    assert!(
        text.starts_with("check: 1 (a handover (")
            && text.contains("is being executed right now (step slow)"),
        "{text}"
    );
    assert!(text.contains("next: wait: handover "), "{text}");
    assert!(text.contains("Do not start another handover"), "{text}");
    assert!(!text.contains("run `agent-handover resume`"), "{text}");
    assert_eq!(
        p.run(&["resume"]).status.code(),
        Some(5),
        "resume is busy now"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Issue 24: two MCP clients hand over at once on one workspace. The first
/// is told its own handover ran and then the second's, each named; the
/// second is told its note is queued and the running process runs it (wait),
/// not to run `resume`. Both notes are written, each once.
#[test]
fn two_clients_handing_over_at_once_are_each_told_the_truth() {
    let p = slow_project(2);
    let mut first = Client::start(&p);
    let mut second = Client::start(&p);
    let running = std::thread::spawn(move || {
        let answer = first.call("handover", json!({"note": "first client's note"}));
        first.finish();
        answer
    });
    common::wait_until(|| p.path("started").exists());
    let (is_error, queued) = second.call("handover", json!({"note": "second client's note"}));
    second.finish();
    assert!(is_error, "the second handover could not run now: {queued}");
    assert!(queued.contains("is being executed by pid"), "{queued}");
    let second_run = queued
        .split("run ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap()
        .to_string();
    assert!(
        queued.contains(&format!("run {second_run} is staged")),
        "{queued}"
    );
    assert!(
        queued.contains("next: wait: ") && queued.contains("it runs the queued handovers after it"),
        "{queued}"
    );
    assert!(!queued.contains("`agent-handover resume`"), "{queued}");

    let (is_error, text) = running.join().unwrap();
    assert!(!is_error, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("handover steps executed: session_note"),
        "{text}"
    );
    assert!(
        lines[1].starts_with(&format!(
            "then ran handover {second_run}, queued behind it: session_note"
        )),
        "{text}"
    );
    assert!(!text.contains("interrupted"), "{text}");
    assert_eq!(p.check(), 2);
    let notes = p.notes();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes
            .iter()
            .any(|(_, n)| n.ends_with("first client's note"))
    );
    assert!(
        notes
            .iter()
            .any(|(_, n)| n.ends_with("second client's note"))
    );
}

/// Issue 24: the MCP `task` tool and `agent-handover task` are one action
/// in the library: every action the CLI has, MCP has (a step back to
/// pending too), each answered with the CLI's text; a missing or
/// contradictory argument is a usage error (the CLI's exit 64), naming what
/// to pass.
#[test]
fn the_task_tool_does_what_the_cli_does() {
    let p = Project::new(&config(""));
    let mut c = Client::start(&p);
    let started = c.ok(
        "task",
        json!({"action": "start", "name": "parser", "steps": ["lexer", "grammar"]}),
    );
    let cli = common::stdout(&p.run(&["task", "show", "parser"]));
    assert_eq!(started, cli, "the same text");
    c.ok(
        "task",
        json!({"action": "step", "name": "parser", "step": "1", "done": true}),
    );
    let back = c.ok(
        "task",
        json!({"action": "step", "name": "parser", "step": "1", "pending": true}),
    );
    assert!(back.contains("[ ] 1. lexer"), "{back}");
    assert_eq!(back, common::stdout(&p.run(&["task", "show", "parser"])));
    // Issue 43: a size, alone, as `task step --size` sets it (the brief
    // suggests a small step to a session near its end).
    let sized = c.ok(
        "task",
        json!({"action": "step", "name": "parser", "step": "2", "size": "S"}),
    );
    assert!(sized.contains("2. grammar (S)"), "{sized}");
    p.run(&["task", "step", "parser", "1", "--size", "l"]);
    assert!(
        common::stdout(&p.run(&["task", "show", "parser"])).contains("[ ] 1. lexer (L)"),
        "the CLI's size, either case"
    );
    let list = c.ok("task", json!({"action": "list"}));
    assert_eq!(list, common::stdout(&p.run(&["task", "list"])));
    for (args, says) in [
        (
            json!({"action": "step", "step": "1"}),
            "needs the task's `name`",
        ),
        (
            json!({"action": "step", "name": "parser"}),
            "needs the `step`",
        ),
        (
            json!({"action": "block", "name": "parser", "step": "1"}),
            "needs the `reason`",
        ),
        (
            json!({"action": "step", "name": "parser", "step": "1", "done": true, "pending": true}),
            "cannot go together",
        ),
        (
            json!({"action": "step", "name": "parser", "step": "1", "size": "XL"}),
            "no step size \"XL\"",
        ),
    ] {
        let (is_error, text) = c.call("task", args.clone());
        assert!(
            is_error && text.contains(says) && text.contains("fix: pass"),
            "{args}: {text}"
        );
    }
    c.finish();
    // The CLI refuses the same contradiction with exit 64.
    let o = p.run(&["task", "step", "parser", "1", "--done", "--pending"]);
    assert_eq!(o.status.code(), Some(64));
}

/// Issue 25: with a broken handover.toml the server exited 78 before
/// answering `initialize`: the agent got no tools and no reason. It serves,
/// and every tool answers with the error and its fix.
#[test]
fn a_broken_config_is_every_tools_answer_not_a_dead_server() {
    let p = Project::new("[handover\ntag = \"t\"\n");
    let mut c = Client::start(&p);
    let list = c.request("tools/list", json!({}));
    assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 8);
    for (tool, args) in [
        ("brief", json!({})),
        ("handover", json!({"note": NOTE})),
        ("task", json!({"action": "list"})),
    ] {
        let (is_error, text) = c.call(tool, args);
        assert!(is_error, "{tool}: {text}");
        assert!(
            text.contains("handover.toml") && text.contains("TOML"),
            "{tool}: {text}"
        );
    }
    c.finish();
}

/// Issue 25: a 2 MiB step output was accepted, then the whole task store
/// refused to load (its 1 MiB read limit); step "3" of a 2-step task added
/// a step named "3"; `step` without `done` turned a done step back to in
/// progress.
#[test]
fn task_writes_are_bounded_and_steps_are_named_truly() {
    let p = Project::new(&config(""));
    let mut c = Client::start(&p);
    c.ok(
        "task",
        json!({"action": "start", "name": "parser", "steps": ["lexer", "grammar"]}),
    );
    let (is_error, text) = c.call(
        "task",
        json!({"action": "step", "name": "parser", "step": "1", "output": "x".repeat(2 << 20)}),
    );
    assert!(
        is_error && text.contains("nothing was written"),
        "{}",
        &text[..text.len().min(300)]
    );
    assert!(
        p.run(&["task", "list"]).status.success(),
        "the store still loads"
    );
    let (is_error, text) = c.call(
        "task",
        json!({"action": "step", "name": "parser", "step": "3"}),
    );
    assert!(is_error && text.contains("no step 3"), "{text}");
    c.ok(
        "task",
        json!({"action": "step", "name": "parser", "step": "1", "done": true}),
    );
    let shown = c.ok(
        "task",
        json!({"action": "step", "name": "parser", "step": "1", "output": "src/lex.rs"}),
    );
    assert!(
        shown.contains("[x] 1. lexer"),
        "a done step stays done: {shown}"
    );
    assert!(!shown.contains("3."), "{shown}");
    c.finish();
    let o = p.run(&["task", "step", "parser", "7"]);
    assert_eq!(o.status.code(), Some(64), "{}", common::stderr(&o));
}

/// Issue 41, item 1: over MCP too, a memory file replaced by a link to a
/// file outside the project is never read: `brief` shows the refusal
/// naming the link, `knowledge` answers with it as a tool error.
#[test]
fn brief_and_knowledge_never_read_a_memory_file_linked_out_of_the_project() {
    const FROM_HOME: &str = "FROM-THE-USERS-HOME-41";
    for rel in [
        "memory/layer2/current-state.md",
        "memory/MEMORY.md",
        "memory/identity.md",
    ] {
        let p = Project::new(&config(""));
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("private.md");
        std::fs::write(&target, format!("# Private\n\n- {FROM_HOME}\n")).unwrap();
        let link = p.path(rel);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();

        let mut c = Client::start(&p);
        let brief = c.ok("brief", json!({"agent": "codex"}));
        assert!(!brief.contains(FROM_HOME), "{rel}: {brief}");
        assert!(
            brief.contains("symlink leading out of") && brief.contains(rel),
            "{rel}: the refusal names the link: {brief}"
        );
        let (is_error, text) = c.call("knowledge", json!({}));
        assert!(!text.contains(FROM_HOME), "{rel}: {text}");
        if rel == "memory/MEMORY.md" {
            assert!(is_error, "{text}");
            assert!(text.contains(&link.display().to_string()), "{text}");
        }
        c.finish();
    }
}

/// Issue 41, item 2: a request line over 16 MiB was dropped without an
/// answer and the client waited forever. It is answered at once with
/// -32600 (its id kept), and the server goes on serving; a 15 MiB line
/// still gets the tool's own answer.
#[test]
fn a_request_line_over_16_mib_is_answered_and_the_server_goes_on() {
    let p = Project::new(&config(""));
    let mut c = Client::start(&p);
    let within = std::time::Duration::from_secs(20);
    for (id, mib) in [(901, 17), (902, 15)] {
        let line = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": {"name": "lint", "arguments": {"note": "x".repeat(mib << 20)}},
        })
        .to_string();
        let started = std::time::Instant::now();
        c.send_line(&line);
        let answer = c
            .answer_within(&json!(id), within)
            .unwrap_or_else(|| panic!("no answer to a {mib} MiB line"));
        assert!(started.elapsed() < within);
        if mib > 16 {
            assert_eq!(answer["error"]["code"], -32600, "{answer}");
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(message.contains("request too large"), "{message}");
        } else {
            assert!(answer.get("result").is_some() || answer.get("error").is_some());
            assert_ne!(
                answer["error"]["code"], -32600,
                "15 MiB is within the bound"
            );
        }
        // And the next request is served.
        let listed = c.request("tools/list", json!({}));
        assert!(listed["result"]["tools"].is_array(), "{listed}");
    }
    c.finish();
}
