//! `brief` on workspaces in each state: clean, completed, interrupted,
//! running-free but paused, abandoned, unreadable checkpoint, unread mail,
//! over budget.

use crate::common::{Project, config, json, stderr, stdout};

/// Make the current_state step fail: layer2 is a file, not a directory.
fn block_layer2(p: &Project) {
    std::fs::create_dir_all(p.path("memory")).unwrap();
    std::fs::write(p.path("memory/layer2"), "not a directory").unwrap();
}

fn brief(p: &Project, args: &[&str]) -> String {
    let mut all = vec!["brief", "--agent", "codex"];
    all.extend_from_slice(args);
    let o = p.run(&all);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o)
}

fn brief_json(p: &Project, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--json", "brief", "--agent", "codex"];
    all.extend_from_slice(args);
    let o = p.run(&all);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    json(&o)
}

fn send(p: &Project, to: &str, subject: &str, body: &str) {
    let o = p.run(&[
        "inbox",
        "send",
        "--from",
        "claude",
        "--to",
        to,
        "--subject",
        subject,
        "--body",
        body,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// The sections come in priority order.
fn assert_sections(md: &str) {
    let at = |h: &str| md.find(h).unwrap_or_else(|| panic!("no {h:?} in\n{md}"));
    assert!(at("## 1. Recovery") < at("## 2. Messages for codex"));
    assert!(at("## 2. Messages") < at("## 3. Current state"));
    assert!(at("## 3. Current state") < at("## 4. Next step"));
}

#[test]
fn clean_workspace() {
    let p = Project::new(&config(""));
    let md = brief(&p, &[]);
    assert_sections(&md);
    assert!(md.starts_with("# Session brief for codex\n"), "{md}");
    assert!(
        md.contains("No handover recorded yet: nothing to recover."),
        "{md}"
    );
    assert!(md.contains("No unread messages."));
    assert!(md.contains("No current state yet: `memory/layer2/current-state.md`."));
    assert!(
        md.contains(
            "1. Continue from the current state. At session end: `agent-handover draft --agent "
        ),
        "{md}"
    );
    assert!(
        md.contains("`agent-handover run --note-file .agent-handover/handoff.md`"),
        "{md}"
    );
    assert!(!md.contains("Left out"));
    let j = brief_json(&p, &[]);
    assert_eq!(j["recovery"]["state"], "no_handover");
    assert_eq!(j["mail"]["unread"], 0);
    assert_eq!(j["omitted"], serde_json::json!([]));
    assert!(j["estimated_tokens"].as_u64().unwrap() < 1500);
}

#[test]
fn completed_handover_shows_the_current_state() {
    let p = Project::new(&config(""));
    assert!(
        p.handover("parser done; next: wire the CLI")
            .status
            .success()
    );
    let md = brief(&p, &[]);
    assert!(md.contains("completed at "), "{md}");
    assert!(
        md.contains("From `memory/layer2/current-state.md`:\n\nparser done; next: wire the CLI\n"),
        "{md}"
    );
    assert!(
        !md.contains("<!-- agent-handover |"),
        "memory header shown: {md}"
    );
    assert_eq!(brief_json(&p, &[])["recovery"]["state"], "completed");
}

#[test]
fn interrupted_handover_comes_first_with_its_fix() {
    let p = Project::new(&config(""));
    block_layer2(&p);
    assert_eq!(p.handover("note").status.code(), Some(1));
    let md = brief(&p, &[]);
    assert!(
        md.contains("**The last handover (")
            && md.contains("was interrupted.** Not done: current_state, publish."),
        "{md}"
    );
    assert!(
        md.contains("1. Finish the interrupted handover first: `agent-handover resume`"),
        "{md}"
    );
    let j = brief_json(&p, &[]);
    assert_eq!(j["recovery"]["state"], "interrupted");
    assert_eq!(
        j["recovery"]["pending"],
        serde_json::json!(["current_state", "publish"])
    );
    assert!(
        j["current_state"]["error"]
            .as_str()
            .unwrap()
            .contains("layer2"),
        "{j}"
    );

    // Abandoned: reported, nothing to recover.
    assert!(
        p.run(&["abandon", "--reason", "superseded"])
            .status
            .success()
    );
    let md = brief(&p, &[]);
    assert!(
        md.contains("was abandoned by ") && md.contains("(superseded)"),
        "{md}"
    );
    assert_eq!(brief_json(&p, &[])["recovery"]["state"], "abandoned");
}

#[test]
fn paused_workspace_says_who_holds_the_brake() {
    let p = Project::new(&config(""));
    block_layer2(&p);
    assert_eq!(p.handover("note").status.code(), Some(1));
    assert!(
        p.run(&["pause", "--reason", "human review"])
            .status
            .success()
    );
    let md = brief(&p, &[]);
    assert!(
        md.contains("- **Automation is paused** by `") && md.contains("PAUSE`: human review."),
        "{md}"
    );
    let steps = &md[md.find("## 4. Next step").unwrap()..];
    assert!(steps.contains("1. Automation is paused by"), "{steps}");
    assert!(
        steps.contains("2. Finish the interrupted handover first"),
        "{steps}"
    );
    let j = brief_json(&p, &[]);
    assert_eq!(j["recovery"]["state"], "interrupted");
    assert_eq!(j["recovery"]["paused"]["reason"], "human review");
}

#[test]
fn unreadable_checkpoint_is_reported_not_fatal() {
    let p = Project::new(&config(""));
    std::fs::create_dir_all(p.path(".agent-handover")).unwrap();
    std::fs::write(p.checkpoint_path(), "{truncated").unwrap();
    let md = brief(&p, &[]);
    assert!(
        md.contains("**The checkpoint cannot be read:**") && md.contains("checkpoint.json"),
        "{md}"
    );
    assert!(
        md.contains("1. Repair or move aside the checkpoint"),
        "{md}"
    );
    assert_eq!(brief_json(&p, &[])["recovery"]["state"], "unreadable");
}

#[test]
fn unread_mail_newest_first_and_the_rest_counted() {
    let p = Project::new(&config(""));
    for i in 1..=6 {
        send(
            &p,
            "codex",
            &format!("task {i}"),
            &format!("details of task {i}"),
        );
    }
    send(&p, "shared", "for everyone", "standup at ten");
    send(&p, "gemini", "not for codex", "x");
    let md = brief(&p, &[]);
    assert!(
        md.contains("7 unread, newest first:\n\n- **for everyone** from claude to shared"),
        "{md}"
    );
    assert!(
        md.contains("- **task 6** from claude, ") && md.contains("  > details of task 6"),
        "{md}"
    );
    assert!(
        md.contains("- … and 2 older: `agent-handover inbox list --unread`"),
        "{md}"
    );
    assert!(
        !md.contains("task 2") && !md.contains("not for codex"),
        "{md}"
    );
    assert!(md.contains("1. Read your 7 unread messages:"), "{md}");
    let j = brief_json(&p, &[]);
    assert_eq!(j["mail"]["unread"], 7);
    assert_eq!(j["mail"]["shown"].as_array().unwrap().len(), 5);

    assert!(
        p.run(&["inbox", "ack", "--agent", "codex"])
            .status
            .success()
    );
    assert!(brief(&p, &[]).contains("No unread messages."));
}

#[test]
fn over_budget_trims_least_important_first_and_says_what() {
    let p = Project::new(&config(""));
    let state: String = (1..=200)
        .map(|i| {
            format!("- decision {i}: keep the parser streaming; revisit after the benchmark\n")
        })
        .collect();
    std::fs::write(p.path("state.md"), &state).unwrap();
    let o = p.handover_with_state_file("n", "state.md");
    assert!(o.status.success(), "{}", stderr(&o));
    for i in 1..=3 {
        send(
            &p,
            "codex",
            &format!("task {i}"),
            &"a long body ".repeat(30),
        );
    }

    let full = brief_json(&p, &["--max-tokens", "100000"]);
    assert_eq!(full["omitted"], serde_json::json!([]));
    assert_eq!(full["current_state"]["shown_lines"], 200);

    let j = brief_json(&p, &["--max-tokens", "600"]);
    assert!(j["estimated_tokens"].as_u64().unwrap() <= 600, "{j}");
    let omitted: Vec<&str> = j["omitted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    assert_eq!(
        omitted[0],
        "message previews (`agent-handover inbox read <id>`)"
    );
    assert!(
        omitted[1].starts_with("the current state after line "),
        "{omitted:?}"
    );
    assert!(omitted[1].ends_with(" of 200 (`cat memory/layer2/current-state.md`)"));
    assert_eq!(
        j["mail"]["shown"].as_array().unwrap().len(),
        3,
        "subjects kept"
    );
    let md = brief(&p, &["--max-tokens", "600"]);
    assert!(
        md.contains("_Left out to fit 600 tokens: message previews"),
        "{md}"
    );
    assert!(
        md.contains("- decision 1: keep"),
        "the head of the state stays: {md}"
    );
    assert!(!md.contains("- decision 200:"));

    // A tiny budget keeps only the essentials, and says so.
    let md = brief(&p, &["--max-tokens", "20"]);
    assert_sections(&md);
    assert!(
        md.contains("No handover") || md.contains("completed"),
        "{md}"
    );
    assert!(
        md.contains("Left out to fit the budget: `memory/layer2/current-state.md`."),
        "{md}"
    );
    assert!(
        md.contains("the current state (`cat memory/layer2/current-state.md`)"),
        "{md}"
    );
    assert!(md.contains("3 of the newest unread messages"), "{md}");
    assert!(
        md.contains(
            "3 unread, newest first:\n\n- none shown: `agent-handover inbox list --unread`"
        ),
        "{md}"
    );
}

#[test]
fn agent_comes_from_the_flag_the_environment_or_the_tag() {
    let p = Project::new(&config(""));
    assert!(stdout(&p.run(&["brief"])).starts_with("# Session brief for t\n"));
    let o = p
        .cmd()
        .arg("brief")
        .env("AGENT_HANDOVER_AGENT", "gemini")
        .output()
        .unwrap();
    assert!(stdout(&o).starts_with("# Session brief for gemini\n"));
    let o = p.run(&["brief", "--agent", "../x"]);
    assert_eq!(o.status.code(), Some(78));
    assert!(stderr(&o).contains("invalid agent name"), "{}", stderr(&o));
}

/// `git` in the project, as a user commits.
fn commit(p: &Project, message: &str) {
    let git = |args: &[&str]| {
        let mut all = vec!["-c", "user.name=t", "-c", "user.email=t@example.com"];
        all.extend_from_slice(args);
        crate::common::git(p.dir.path(), &all)
    };
    git(&["add", "-A"]);
    git(&["commit", "-qm", message]);
}

/// Issue 40: the brief's next step said "Continue from the current state",
/// and with `--max-tokens 250` the current state was cut, its next step
/// with it. It names the last handover's next step, where it is written,
/// and the later commit that touched the file it names; at 250 tokens too.
#[test]
fn the_next_step_is_named_with_its_file_and_a_later_commit_at_250_tokens() {
    let p = Project::new(&config(""));
    crate::common::git(p.dir.path(), &["init", "-q", "-b", "main"]);
    std::fs::create_dir_all(p.path("src")).unwrap();
    std::fs::write(p.path("src/parse.rs"), "pub fn parse() {}\n").unwrap();
    std::fs::write(p.path("src/lint.rs"), "pub fn lint() {}\n").unwrap();
    commit(&p, "the parser");
    let mut state = String::from("# Handoff\n\n## Goal\nShip the parser.\n\n## Current status\n");
    for i in 0..60 {
        state.push_str(&format!(
            "- case {i} of the grammar parses, with its span checked\n"
        ));
    }
    state.push_str(
        "\n## Next step\nFix the off-by-one in `src/parse.rs` (the span end), then rerun `cargo test parse`, token AKIAIOSFODNN7EXAMPLE.\n\n## Failed approaches\n- none\n",
    );
    std::fs::write(p.path("state.md"), &state).unwrap();
    let o = p.run(&[
        "run",
        "--note",
        "session note",
        "--current-state-file",
        "state.md",
        "--allow-secret",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = state.lines().position(|l| l == "## Next step").unwrap() + 3;

    let named = format!(
        "**The last handover's next step** (`memory/layer2/current-state.md`, line {line}): Fix the off-by-one in `src/parse.rs` (the span end), then rerun `cargo test parse`, token"
    );
    let md = brief(&p, &["--max-tokens", "250"]);
    assert!(md.contains(&named), "{md}");
    assert!(!md.contains("AKIAIOSFODNN7EXAMPLE"), "redacted: {md}");
    assert!(!md.contains("Continue from the current state"), "{md}");
    assert!(
        md.contains("_Left out to fit 250 tokens:"),
        "the state was cut: {md}"
    );
    assert!(!md.contains("A later commit"), "none yet: {md}");

    // A commit touching another file says nothing; one touching the file
    // the step names is pointed to.
    std::fs::write(p.path("src/lint.rs"), "pub fn lint() { }\n").unwrap();
    commit(&p, "tidy the linter");
    assert!(!brief(&p, &["--max-tokens", "250"]).contains("A later commit"));
    std::fs::write(p.path("src/parse.rs"), "pub fn parse() { }\n").unwrap();
    commit(&p, "fix the parser");
    let id = crate::common::git(p.dir.path(), &["rev-parse", "--short=7", "HEAD"]);
    let md = brief(&p, &["--max-tokens", "250"]);
    assert!(md.contains(&named), "{md}");
    assert!(
        md.contains(&format!(
            "A later commit (`{id}` \"fix the parser\") touched `src/parse.rs`, named in this step: check whether it is done."
        )),
        "{md}"
    );
    let j = brief_json(&p, &["--max-tokens", "250"]);
    assert_eq!(j["handed_over_step"]["line"], line, "{j}");
    assert_eq!(
        j["handed_over_step"]["later_commit"]["id"],
        id.as_str(),
        "{j}"
    );

    // The handover found the step when it ran; a state edited since is
    // read again.
    let file = p.path("memory/layer2/current-state.md");
    let edited = std::fs::read_to_string(&file)
        .unwrap()
        .replace("Fix the off-by-one", "Now fix the off-by-one");
    std::fs::write(&file, edited).unwrap();
    let md = brief(&p, &["--max-tokens", "250"]);
    assert!(
        md.contains(&format!(
            "(`memory/layer2/current-state.md`, line {line}): Now fix the off-by-one in `src/parse.rs`"
        )),
        "{md}"
    );
}

/// Issue 40: a current state holding `<<<<<<< HEAD … >>>>>>>` was fed raw
/// to the agent by `brief`, passed `lint`, and `run` handed over a note that
/// held one. Every face says it, with what resolves it.
#[test]
fn conflict_markers_are_a_finding_on_every_face() {
    let p = Project::new(&config(""));
    assert!(p.handover("## Next step\nWire the CLI.\n").status.success());
    let file = p.path("memory/layer2/current-state.md");
    let merged = "<!-- agent-handover | layer2 | 2026-11-20 -->\n# Handoff\n<<<<<<< HEAD\n## Next step\nWire the CLI.\n=======\n## Next step\nDelete the CLI.\n>>>>>>> other-machine\n";
    std::fs::write(&file, merged).unwrap();

    // brief: a warning in place of the text, and resolving it comes first.
    let md = brief(&p, &["--max-tokens", "250"]);
    assert!(
        md.contains("**Not shown:** memory/layer2/current-state.md holds an unresolved merge conflict (lines 3–9): an agent would read both sides as the truth"),
        "{md}"
    );
    assert!(
        !md.contains("<<<<<<< HEAD") && !md.contains("Delete the CLI"),
        "{md}"
    );
    assert!(
        md.contains("**Resolve first:** the unresolved merge conflict in `memory/layer2/current-state.md` (lines 3–9): edit"),
        "{md}"
    );
    assert!(
        md.contains("${EDITOR:-vi} memory/layer2/current-state.md"),
        "{md}"
    );

    // doctor: a finding that needs action, with the fix.
    let o = p.run(&["--json", "doctor"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let v = json(&o);
    let finding = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "conflict_markers")
        .unwrap_or_else(|| panic!("{v:#}"));
    assert!(
        finding["what"].as_str().unwrap().contains("(lines 3–9)"),
        "{finding}"
    );
    assert!(
        finding["fix"]
            .as_str()
            .unwrap()
            .contains("delete the <<<<<<<"),
        "{finding}"
    );

    // lint: an error that costs points, at the first marker.
    let o = p.run(&["--json", "lint"]);
    let v = json(&o);
    let found = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "conflict-markers")
        .unwrap_or_else(|| panic!("{v:#}"))
        .clone();
    assert_eq!(found["severity"], "error");
    assert_eq!(found["line"], 3);
    assert!(found["points"].as_u64().unwrap() > 0, "{found}");

    // run: refused, nothing written, exit 7 as the other refusals of a note.
    let before = std::fs::read_to_string(&file).unwrap();
    let notes = p.notes().len();
    let note = "## Done\n<<<<<<< HEAD\n- the CLI\n=======\n- the API\n>>>>>>> theirs\n";
    let o = p.run(&["run", "--note", note]);
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "the session note holds an unresolved merge conflict (lines 2–6); nothing was written"
        ),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("fix: keep what is true"),
        "{}",
        stderr(&o)
    );
    let o = p.run(&["--json", "run", "--note", note]);
    assert_eq!(json(&o)["kind"], "conflict_markers");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    assert_eq!(p.notes().len(), notes);
    assert_eq!(p.check(), 2, "the last handover stands");

    // Resolved by hand: every face is clean again.
    std::fs::write(&file, "# Handoff\n## Next step\nWire the CLI.\n").unwrap();
    assert!(!brief(&p, &[]).contains("Not shown"));
    let v = json(&p.run(&["--json", "doctor"]));
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["kind"] != "conflict_markers"),
        "{v:#}"
    );
}
