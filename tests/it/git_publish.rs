//! The git publish backend against real repositories: a working clone with a
//! bare remote over a file URL, two clones pushing alternately, conflicts, a
//! crash between commit and push, and a held index.lock.

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt as _;

use crate::common::{self, Project, git, stderr, stdout};

const GIT_CONFIG: &str = "[handover]\nmemory_dir = \"memory\"\ntag = \"TAG\"\n\n[backend]\ntype = \"git\"\nmessage = \"handover: TAG\"\n";

/// A bare remote and `n` clones of it, each a project with a git handover config.
struct Setup {
    remote: tempfile::TempDir,
    clones: Vec<Project>,
}

fn setup(n: usize) -> Setup {
    let remote = tempfile::tempdir().unwrap();
    git(
        remote.path(),
        &["init", "-q", "--bare", "--initial-branch=main"],
    );
    let url = format!("file://{}", remote.path().display());
    let clones = (0..n)
        .map(|i| {
            let tag = format!("agent{i}");
            let p = Project::new(&GIT_CONFIG.replace("TAG", &tag));
            let d = p.dir.path();
            git(d, &["init", "-q", "--initial-branch=main"]);
            git(d, &["config", "user.name", &format!("Agent {i}")]);
            git(
                d,
                &["config", "user.email", &format!("agent{i}@example.com")],
            );
            std::fs::write(d.join(".gitignore"), ".agent-handover/\nhome/\n").unwrap();
            git(d, &["remote", "add", "origin", &url]);
            p
        })
        .collect::<Vec<_>>();
    // The first clone makes the initial commit; the others start from it.
    let first = clones[0].dir.path();
    git(first, &["add", ".gitignore", "handover.toml"]);
    git(first, &["commit", "-qm", "init"]);
    git(first, &["push", "-q", "origin", "main"]);
    for c in &clones[1..] {
        let d = c.dir.path();
        git(d, &["fetch", "-q", "origin"]);
        std::fs::remove_file(d.join(".gitignore")).unwrap();
        std::fs::remove_file(d.join("handover.toml")).unwrap();
        git(d, &["reset", "-q", "--hard", "origin/main"]);
        std::fs::write(d.join("handover.toml"), GIT_CONFIG.replace("TAG", "agent1")).unwrap();
    }
    Setup { remote, clones }
}

fn remote_log(s: &Setup) -> String {
    git(s.remote.path(), &["log", "--format=%s", "main"])
}

#[test]
fn publish_commits_only_the_memory_and_pushes_it() {
    let s = setup(1);
    let p = &s.clones[0];
    let d = p.dir.path();
    // Something the user staged on their own must not ride along.
    std::fs::write(d.join("wip.txt"), "user's work").unwrap();
    git(d, &["add", "wip.txt"]);
    let o = p.handover("first session");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(remote_log(&s), "handover: agent0\ninit");
    let files = git(
        s.remote.path(),
        &["show", "--name-only", "--format=", "main"],
    );
    assert!(
        files.contains("memory/layer1/") && files.contains("memory/layer2/current-state.md"),
        "{files}"
    );
    assert!(!files.contains("wip.txt"), "{files}");
    assert_eq!(
        git(d, &["diff", "--cached", "--name-only"]),
        "wip.txt",
        "the user's staged work stays staged"
    );
    assert_eq!(
        git(d, &["log", "-1", "--format=%an <%ae>"]),
        "Agent 0 <agent0@example.com>"
    );
    let cp = p.checkpoint_json();
    let output = cp["step_records"]["publish"]["output"].as_str().unwrap();
    assert!(
        output.starts_with("committed ") && output.ends_with("pushed to origin/main"),
        "{output}"
    );
}

#[test]
fn no_push_commits_locally_and_nothing_to_commit_is_success() {
    let s = setup(1);
    let p = &s.clones[0];
    let o = p.run(&[
        "run",
        "--config",
        "handover.toml",
        "--note",
        "local only",
        "--no-push",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(remote_log(&s), "init");
    assert_eq!(
        git(p.dir.path(), &["log", "-1", "--format=%s"]),
        "handover: agent0"
    );
    // Publishing again with nothing new: success, no empty commit.
    let head = git(p.dir.path(), &["rev-parse", "HEAD"]);
    let o = p.run(&[
        "run",
        "--config",
        "handover.toml",
        "--note",
        "local only",
        "--no-push",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "handover steps executed: session_note, learn, current_state, publish\n"
    );
    assert_eq!(
        git(p.dir.path(), &["rev-parse", "HEAD"]),
        head,
        "no empty commit"
    );
    let output = p.checkpoint_json()["step_records"]["publish"]["output"].clone();
    assert_eq!(output, "nothing to commit; not pushed (push = false)");
}

#[test]
fn two_clones_pushing_alternately_integrate_without_losing_either_side() {
    let s = setup(2);
    let (a, b) = (&s.clones[0], &s.clones[1]);
    assert!(a.handover("A: session 1").status.success());
    git(b.dir.path(), &["pull", "-q", "--ff-only", "origin", "main"]);
    assert!(b.handover("B: session 1").status.success());
    // A has not pulled B's work. A notes-only handover does not conflict with
    // B's current-state: publish must fetch, merge and push.
    let cfg = std::fs::read_to_string(a.path("handover.toml"))
        .unwrap()
        .replace(
            "tag = \"agent0\"",
            "tag = \"agent0\"\nsteps = [\"session_note\", \"publish\"]",
        );
    std::fs::write(a.path("handover.toml"), cfg).unwrap();
    let o = a.handover("A: session 2");
    assert!(o.status.success(), "{}", stderr(&o));
    let log = remote_log(&s);
    assert!(log.starts_with("agent-handover: merge origin/main\nhandover: agent0\nhandover: agent1\nhandover: agent0"), "{log}");
    let tree = git(s.remote.path(), &["ls-tree", "-r", "--name-only", "main"]);
    assert_eq!(tree.matches("memory/layer1/").count(), 3, "{tree}");
    // A's work tree now has B's note and B's current state, and is clean.
    assert!(a.current_state().unwrap().ends_with("B: session 1"));
    assert_eq!(
        git(a.dir.path(), &["status", "--porcelain", "--", "memory"]),
        ""
    );
}

#[test]
fn current_state_changed_on_both_machines_merges_by_section_and_flags_drift() {
    let s = setup(2);
    let (a, b) = (&s.clones[0], &s.clones[1]);
    let state = |goal: &str, status: &str, next: &str| {
        format!("## Goal\n{goal}\n\n## Status\n{status}\n\n## Next step\n{next}\n")
    };
    let run = |p: &Project, note: &str, text: &str| {
        p.run(&[
            "run",
            "--config",
            "handover.toml",
            "--note",
            note,
            "--current-state",
            text,
        ])
    };
    assert!(
        run(a, "A0", &state("ship", "0/9", "start"))
            .status
            .success()
    );
    git(b.dir.path(), &["pull", "-q", "--ff-only", "origin", "main"]);
    // Neither pulls from here on. A changes Goal and Status; B (later) Status and Next step.
    assert!(
        run(a, "A1", &state("ship v2", "3/9 (A)", "start"))
            .status
            .success()
    );
    let o = run(b, "B1", &state("ship", "5/9 (B)", "parser"));
    assert!(
        o.status.success(),
        "a publish never fails on mergeable memory: {}",
        stderr(&o)
    );
    let merged = git(
        s.remote.path(),
        &["show", "main:memory/layer2/current-state.md"],
    );
    assert!(
        merged.ends_with(&state("ship v2", "5/9 (B)", "parser").trim_end().to_string()),
        "one side's sections taken, the later Status wins: {merged}"
    );
    // A's Status is superseded: kept as a version, flagged as drift.
    let list = stdout(&b.run(&["state", "list"]));
    let drift_line = list
        .lines()
        .find(|l| l.contains("DRIFT"))
        .unwrap_or_else(|| panic!("{list}"));
    assert!(drift_line.contains("## Status"), "{drift_line}");
    let versions = common::json(&b.run(&["--json", "state", "list"]));
    let superseded = versions["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v.get("drift").is_some())
        .unwrap();
    let id = superseded["id"].as_str().unwrap();
    let diff = stdout(&b.run(&["state", "diff", id, "current"]));
    assert!(
        diff.lines()
            .any(|l| l.starts_with('-') && l.contains("A-]")),
        "{diff}"
    );
    assert!(
        diff.lines()
            .any(|l| l.starts_with('+') && l.contains("B+}")),
        "{diff}"
    );
    for (args, what) in [
        (&["status", "-v"][..], "status -v"),
        (&["brief"][..], "brief"),
    ] {
        let text = stdout(&b.run(args));
        assert!(
            text.to_lowercase().contains("state drift")
                && text.contains("agent-handover state diff"),
            "{what}: {text}"
        );
    }
}

#[test]
fn a_conflict_outside_the_memory_fails_with_instructions_and_keeps_both() {
    let s = setup(2);
    let (a, b) = (&s.clones[0], &s.clones[1]);
    for p in [a, b] {
        let cfg = std::fs::read_to_string(p.path("handover.toml")).unwrap()
            + "paths = [\"memory\", \"PLAN.txt\"]\n";
        std::fs::write(p.path("handover.toml"), cfg).unwrap();
    }
    std::fs::write(a.path("PLAN.txt"), "A's plan\n").unwrap();
    assert!(a.handover("A's view").status.success());
    std::fs::write(b.path("PLAN.txt"), "B's plan\n").unwrap();
    let o = b.handover("B's view");
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("conflict") && err.contains("PLAN.txt"),
        "{err}"
    );
    assert!(
        !err.contains("current-state.md"),
        "the memory merged by layer; only PLAN.txt conflicts: {err}"
    );
    assert!(
        err.contains("git -C")
            && err.contains("merge origin/main")
            && err.contains("agent-handover retry publish"),
        "{err}"
    );
    // Both versions survive: theirs on the remote, ours on B's branch.
    assert_eq!(git(s.remote.path(), &["show", "main:PLAN.txt"]), "A's plan");
    assert_eq!(git(b.dir.path(), &["show", "main:PLAN.txt"]), "B's plan");
    assert_eq!(b.check(), 1);
    // Settle it the way the message says, then retry.
    let d = b.dir.path();
    let merge = Command::new("git")
        .arg("-C")
        .arg(d)
        .args(["merge", "-q", "origin/main"])
        .output()
        .unwrap();
    assert!(!merge.status.success(), "the merge conflicts");
    std::fs::write(d.join("PLAN.txt"), "merged by hand").unwrap();
    std::fs::write(d.join("memory/layer2/current-state.md"), "merged by hand").unwrap();
    git(d, &["commit", "-qam", "merge"]);
    let o = b.run(&["retry", "publish"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        git(s.remote.path(), &["show", "main:PLAN.txt"]),
        "merged by hand"
    );
}

#[test]
fn two_machines_with_the_same_tag_on_the_same_day_keep_both_notes() {
    let s = setup(3); // clones 1 and 2 share the tag agent1
    let (b, c) = (&s.clones[1], &s.clones[2]);
    assert!(b.handover("B's note").status.success());
    let o = c.handover("C's note");
    assert!(o.status.success(), "{}", stderr(&o));
    let tree = git(s.remote.path(), &["ls-tree", "-r", "--name-only", "main"]);
    let notes: Vec<&str> = tree.lines().filter(|l| l.contains("layer1/")).collect();
    assert_eq!(notes.len(), 2, "{tree}");
    let texts: Vec<String> = notes
        .iter()
        .map(|n| git(s.remote.path(), &["show", &format!("main:{n}")]))
        .collect();
    assert!(texts.iter().any(|t| t.ends_with("B's note")), "{texts:?}");
    assert!(texts.iter().any(|t| t.ends_with("C's note")), "{texts:?}");
    assert!(
        notes.iter().any(|n| n.ends_with("-2.md")),
        "the incoming one renamed: {notes:?}"
    );
}

#[test]
fn sync_brings_the_other_machines_memory_in_and_brief_can_do_it_first() {
    let s = setup(2);
    let (a, b) = (&s.clones[0], &s.clones[1]);
    assert!(a.handover("A: the parser is done").status.success());
    let o = b.run(&["sync"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("synced: "), "{}", stdout(&o));
    assert!(
        b.current_state()
            .unwrap()
            .ends_with("A: the parser is done")
    );
    // Brief syncs first when asked to, and says so.
    let cfg = std::fs::read_to_string(b.path("handover.toml")).unwrap()
        + "sync_before_brief = true\nsync_timeout_secs = 2\n";
    std::fs::write(b.path("handover.toml"), cfg).unwrap();
    assert!(a.handover("A: the lexer is done").status.success());
    let brief = stdout(&b.run(&["brief"]));
    assert!(brief.contains("Memory synced"), "{brief}");
    assert!(brief.contains("A: the lexer is done"), "{brief}");
    // Offline: a remote that never answers; the brief comes at once anyway.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://127.0.0.1:{}/memory.git",
        listener.local_addr().unwrap().port()
    );
    git(b.dir.path(), &["remote", "set-url", "origin", &url]);
    let started = std::time::Instant::now();
    let brief = stdout(&b.run(&["brief"]));
    assert!(brief.contains("**Offline:**"), "{brief}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let o = b.run(&["--json", "sync", "--timeout", "1"]);
    assert!(o.status.success());
    assert_eq!(common::json(&o)["sync"]["state"], "offline");
    drop(listener);
}

#[test]
fn crash_between_commit_and_push_is_reconciled_on_resume() {
    let s = setup(1);
    let p = &s.clones[0];
    let o = p
        .cmd()
        .args(["run", "--config", "handover.toml", "--note", "crashy"])
        .env("AGENT_HANDOVER_FAILPOINT", "publish-after-commit")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), None, "killed by SIGABRT");
    assert_eq!(p.check(), 1);
    assert_eq!(
        p.checkpoint_json()["step_records"]["publish"]["state"],
        "running"
    );
    assert_eq!(
        git(p.dir.path(), &["log", "--format=%s"]),
        "handover: agent0\ninit",
        "the commit happened"
    );
    assert_eq!(remote_log(&s), "init", "the push did not");
    let o = p.run(&["resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        git(p.dir.path(), &["log", "--format=%s"]),
        "handover: agent0\ninit",
        "no second commit"
    );
    assert_eq!(remote_log(&s), "handover: agent0\ninit");
    let output = p.checkpoint_json()["step_records"]["publish"]["output"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(output, "nothing to commit; pushed to origin/main");
    assert_eq!(
        p.checkpoint_json()["step_records"]["publish"]["attempts"],
        2
    );
}

/// Assert that `err` names `lock`, its age, that no git runs, and the fix.
fn assert_names_lock(err: &str, lock: &std::path::Path) {
    assert!(
        err.contains(&format!("git lock {}", lock.display()))
            && err.contains("s old; no git process is running in this repository")
            && err.contains(&format!("rm '{}'", lock.display())),
        "the lock named with its age, whether git runs, and the fix: {err}"
    );
}

/// Make the file at `path` look `secs` old.
fn age_file(path: impl AsRef<std::path::Path>, secs: u64) {
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(secs);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(old)
        .unwrap();
}

#[test]
fn a_held_index_lock_is_retried_then_reported_and_never_deleted() {
    let s = setup(1);
    let p = &s.clones[0];
    let lock = p.path(".git/index.lock");
    std::fs::write(&lock, "").unwrap();
    let o = p.handover("locked out");
    assert_eq!(o.status.code(), Some(1));
    assert_names_lock(&stderr(&o), &lock);
    assert!(lock.exists(), "never delete a lock file");
    std::fs::remove_file(&lock).unwrap();
    let o = p.run(&["retry", "publish"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(remote_log(&s), "handover: agent0\ninit");
}

#[test]
fn a_paused_workspace_publishes_nothing_until_unpaused() {
    let s = setup(1);
    let p = &s.clones[0];
    let o = p.handover("first");
    assert!(o.status.success());
    assert_eq!(remote_log(&s), "handover: agent0\ninit");
    p.run(&["pause", "--reason", "review first"]);
    let o = p.run(&["run", "--config", "handover.toml", "--note", "second"]);
    assert_eq!(
        o.status.code(),
        Some(4),
        "paused before the first step: {}",
        stderr(&o)
    );
    assert_eq!(remote_log(&s), "handover: agent0\ninit");
    p.run(&["unpause"]);
    assert!(
        p.run(&["run", "--config", "handover.toml", "--note", "second"])
            .status
            .success()
    );
    assert_eq!(remote_log(&s), "handover: agent0\nhandover: agent0\ninit");
}

#[test]
fn wrong_branch_or_missing_remote_are_clear_errors() {
    let s = setup(1);
    let p = &s.clones[0];
    // Set, they are requirements (unset, they follow the project: below).
    let cfg = std::fs::read_to_string(p.path("handover.toml")).unwrap()
        + "branch = \"main\"\npush = true\n";
    std::fs::write(p.path("handover.toml"), cfg).unwrap();
    git(p.dir.path(), &["checkout", "-q", "-b", "feature"]);
    let o = p.handover("x");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("HEAD is on \"feature\" but [backend].branch is \"main\""),
        "{}",
        stderr(&o)
    );
    git(p.dir.path(), &["checkout", "-q", "main"]);
    git(p.dir.path(), &["remote", "remove", "origin"]);
    let o = p.run(&["resume"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no remote named \"origin\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_compaction_publishes_its_archives_and_its_removals() {
    let s = setup(1);
    let p = &s.clones[0];
    let d = p.dir.path();
    std::fs::create_dir_all(d.join("memory/layer1/2026-08")).unwrap();
    for day in 1..=3 {
        std::fs::write(
            d.join(format!("memory/layer1/2026-08/agent0-2026-08-0{day}.md")),
            format!("note of day {day}"),
        )
        .unwrap();
    }
    assert!(p.handover("first").status.success());
    let tree = || git(s.remote.path(), &["ls-tree", "-r", "--name-only", "main"]);
    assert!(tree().contains("memory/layer1/2026-08/agent0-2026-08-02.md"));

    let config = GIT_CONFIG.replace("TAG", "agent0") + "\n[compaction]\nauto = true\n";
    std::fs::write(d.join("handover.toml"), config).unwrap();
    let out = p.handover("second");
    assert!(out.status.success(), "{}", stderr(&out));
    let files = tree();
    assert!(!files.contains("memory/layer1/2026-08/"), "{files}");
    assert!(
        files.contains("memory/layer3/2026-08-agent0-archive.md"),
        "{files}"
    );
    let archive = git(
        s.remote.path(),
        &["show", "main:memory/layer3/2026-08-agent0-archive.md"],
    );
    for day in 1..=3 {
        assert_eq!(archive.matches(&format!("note of day {day}")).count(), 1);
    }
}

#[test]
fn pause_pulled_right_before_the_push_is_a_pause_and_the_run_stays_resumable() {
    let s = setup(1);
    let p = &s.clones[0];
    // The run stands still between its commit and its push while a human pulls the brake.
    let child = p
        .std_cmd()
        .args(["run", "--config", "handover.toml", "--note", "braked"])
        .env(
            "AGENT_HANDOVER_FAILPOINT",
            "stall:publish-after-commit:3000",
        )
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while git(p.dir.path(), &["log", "--format=%s"]) != "handover: agent0\ninit" {
        assert!(
            std::time::Instant::now() < deadline,
            "the commit never came"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = p.run(&["pause", "--reason", "review before it leaves"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(4), "paused, not failed: {err}");
    assert!(
        err.contains("automation paused") && err.contains("stays resumable"),
        "{err}"
    );
    assert_eq!(remote_log(&s), "init", "nothing left the machine");
    assert_eq!(p.check(), 1, "the handover stays resumable");
    let publish = &p.checkpoint_json()["step_records"]["publish"];
    assert_eq!(publish["state"], "pending", "{publish}");
    assert!(
        publish.get("last_error").is_none(),
        "a pause is not an error: {publish}"
    );

    assert_eq!(p.run(&["resume"]).status.code(), Some(4), "still paused");
    p.run(&["unpause"]);
    let o = p.run(&["resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        remote_log(&s),
        "handover: agent0\ninit",
        "pushed once, no second commit"
    );
    assert_eq!(p.check(), 2);
}

#[test]
fn an_interrupted_publish_is_shown_as_safe_to_resume_everywhere() {
    let s = setup(1);
    let p = &s.clones[0];
    let o = p
        .cmd()
        .args(["run", "--config", "handover.toml", "--note", "crashy"])
        .env("AGENT_HANDOVER_FAILPOINT", "publish-after-commit")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), None, "killed");
    let status = stdout(&p.run(&["status", "--verbose"]));
    assert!(
        status.contains("publish") && status.contains("interrupted"),
        "{status}"
    );
    assert!(status.contains("reconciled on resume"), "{status}");
    assert!(
        status.contains("safe to resume: `agent-handover resume`"),
        "{status}"
    );
    assert!(!status.contains("needs a human"), "{status}");
    let publish = &common::json(&p.run(&["status", "--json"]))["steps"][3];
    assert_eq!(publish["needs_human"], false, "{publish}");
    assert_eq!(publish["after_crash"], "reconcile", "{publish}");

    let brief = stdout(&p.run(&["brief"]));
    assert!(
        brief.contains("Finish the interrupted handover first: `agent-handover resume`"),
        "{brief}"
    );
    assert!(!brief.contains("Decide about"), "{brief}");
    let brief = common::json(&p.run(&["brief", "--json"]));
    assert_eq!(
        brief["recovery"]["needs_human"],
        serde_json::json!([]),
        "{brief}"
    );
}

#[test]
fn a_push_the_server_refuses_shows_its_words_and_adds_no_merge_commit() {
    let s = setup(1);
    let hook = s.remote.path().join("hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\necho 'main is protected: open a pull request instead' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let p = &s.clones[0];
    let d = p.dir.path();
    let commits = || git(d, &["rev-list", "--count", "HEAD"]);
    let o = p.handover("refused");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("origin/main refused the push"), "{err}");
    assert!(
        err.contains("main is protected: open a pull request instead"),
        "the server's own words: {err}"
    );
    assert!(!err.contains("kept moving"), "{err}");
    let after_first = commits();
    for _ in 0..5 {
        assert_eq!(p.run(&["retry", "publish"]).status.code(), Some(1));
    }
    assert_eq!(commits(), after_first, "retries add no merge commits");
    let merges = git(d, &["rev-list", "--merges", "--count", "HEAD"]);
    assert_eq!(merges, "0");
    std::fs::remove_file(&hook).unwrap();
    let o = p.run(&["retry", "publish"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        remote_log(&s).contains("handover: agent0"),
        "{}",
        remote_log(&s)
    );
}

#[test]
fn the_binary_links_no_openssl() {
    let bin = assert_cmd::cargo::cargo_bin("agent-handover");
    let Ok(out) = Command::new("ldd").arg(&bin).output() else {
        eprintln!("SKIPPED: no ldd on this machine");
        return;
    };
    let libs = String::from_utf8_lossy(&out.stdout);
    for lib in ["libssl", "libcrypto", "libssh"] {
        assert!(!libs.contains(lib), "{lib} is linked:\n{libs}");
    }
}

/// Every layer-1 note and layer-3 archive of a work tree, as one text.
fn all_memory_text(p: &Project) -> String {
    let mut text = String::new();
    let mut stack = vec![p.path("memory/layer1"), p.path("memory/layer3")];
    while let Some(dir) = stack.pop() {
        for e in common::read_dir_sorted(&dir) {
            if e.is_dir() {
                stack.push(e);
            } else {
                text += &std::fs::read_to_string(&e).unwrap();
                text.push('\n');
            }
        }
    }
    text
}

const SECTIONS: [&str; 4] = ["## Goal", "## Status", "## Decisions", "## Next step"];

/// The sections of a current-state text (header dropped): heading -> body.
fn sections_of(text: &str) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("## ") {
            current = Some(line.to_string());
            out.insert(line.to_string(), String::new());
        } else if let Some(h) = &current
            && !line.trim().is_empty()
        {
            out.get_mut(h).unwrap().push_str(line);
        }
    }
    out
}

/// Three machines, 60 handovers in a seeded random order, none pulling
/// first; two share a tag; current-state sections edited on both sides;
/// compactions of an older month on several machines. Every publish
/// succeeds, and after `sync` every machine holds every note exactly once,
/// each section's newest text, and flags every superseded version as drift.
#[test]
fn three_machines_sixty_handovers_without_pulling_lose_nothing() {
    let seed = std::env::var("SOAK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20261123u64);
    let handovers: usize = std::env::var("SOAK_HANDOVERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let mut rng = fastrand::Rng::with_seed(seed);
    let s = setup(3);
    // Each machine has notes of an older month, published with its first handover.
    for (m, p) in s.clones.iter().enumerate() {
        let dir = p.path("memory/layer1/2026-09");
        std::fs::create_dir_all(&dir).unwrap();
        for k in 1..=2 {
            std::fs::write(
                dir.join(format!("old{m}-2026-09-0{k}.md")),
                format!("old note {m}.{k}\n"),
            )
            .unwrap();
        }
    }
    let mut newest: std::collections::BTreeMap<String, String> = SECTIONS
        .iter()
        .map(|h| (h.to_string(), "unset".to_string()))
        .collect();
    let mut compactions = 0;
    for i in 0..handovers {
        let m = rng.usize(0..3);
        let p = &s.clones[m];
        if i % 10 == 7 {
            let o = p.run(&["compact"]);
            assert!(o.status.success(), "compact on {m}: {}", stderr(&o));
            compactions += 1;
        }
        let mut view = match p.current_state() {
            Some(text) => sections_of(&text),
            None => newest.keys().map(|h| (h.clone(), "unset".into())).collect(),
        };
        for _ in 0..rng.usize(1..=2) {
            let h = SECTIONS[rng.usize(0..SECTIONS.len())];
            let body = format!("{h} v{i} by machine {m}").replace("## ", "");
            view.insert(h.to_string(), body.clone());
            newest.insert(h.to_string(), body);
        }
        let state: String = SECTIONS
            .iter()
            .map(|h| format!("{h}\n{}\n\n", view[*h]))
            .collect();
        let note = format!("note-{i}- from machine {m}");
        let o = p.run(&[
            "run",
            "--config",
            "handover.toml",
            "--note",
            &note,
            "--current-state",
            &state,
        ]);
        assert!(o.status.success(), "handover {i} on {m}: {}", stderr(&o));
        assert_eq!(p.check(), 2);
    }
    assert!(compactions >= 3);
    let mut drift_total = 0;
    for (m, p) in s.clones.iter().enumerate() {
        let o = p.run(&["sync"]);
        assert!(o.status.success(), "sync on {m}: {}", stderr(&o));
        let text = all_memory_text(p);
        assert!(
            !common::read_dir_sorted(&p.path("memory/layer3")).is_empty(),
            "machine {m}: the older month was compacted into layer 3"
        );
        for i in 0..handovers {
            let needle = format!("note-{i}- from machine");
            assert_eq!(text.matches(&needle).count(), 1, "machine {m}, note {i}");
        }
        for n in 0..3 {
            for k in 1..=2 {
                let needle = format!("old note {n}.{k}\n");
                assert_eq!(text.matches(&needle).count(), 1, "machine {m}, {needle:?}");
            }
        }
        assert_eq!(
            sections_of(&p.current_state().unwrap()),
            newest,
            "machine {m} holds each section's newest text"
        );
        let versions = common::json(&p.run(&["--json", "state", "list", "--limit", "100000"]));
        let flagged: Vec<&str> = versions["versions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v.get("drift").is_some())
            .map(|v| v["id"].as_str().unwrap())
            .collect();
        let records =
            common::read_dir_sorted(&p.path(".agent-handover/history/current-state-drift"));
        for r in &records {
            let d: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(r).unwrap()).unwrap();
            assert!(
                flagged.contains(&d["superseded"].as_str().unwrap()),
                "machine {m}: superseded {} listed as drift",
                d["superseded"]
            );
        }
        drift_total += records.len();
    }
    assert!(
        drift_total > 0,
        "the order makes both sides change a section"
    );
}

#[test]
fn a_ref_lock_left_by_a_killed_publish_is_named_and_doctor_removes_it_when_stale() {
    let s = setup(1);
    let p = &s.clones[0];
    assert!(p.handover("first").status.success());
    let lock = p.path(".git/refs/heads/main.lock");
    std::fs::write(&lock, "").unwrap();
    let o = p.handover("second");
    assert_eq!(o.status.code(), Some(1));
    assert_names_lock(&stderr(&o), &lock);
    // doctor names it; a fresh lock is not removed (a git may be starting).
    let o = p.run(&["doctor"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("git_lock") && out.contains("main.lock"),
        "{out}"
    );
    assert!(out.contains("interrupted"), "{out}");
    p.run(&["doctor", "--fix"]);
    assert!(lock.exists(), "younger than the safe age: kept");
    // Ten minutes old and no git running: --fix says what it removes, and does.
    age_file(&lock, 11 * 60);
    let o = p.run(&["doctor", "--fix"]);
    let out = stdout(&o);
    assert!(
        out.contains(&format!("will remove {}", lock.display())),
        "{out}"
    );
    assert!(!lock.exists());
    let o = p.run(&["resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = p.run(&["--json", "doctor"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(common::json(&o)["ok"], true);
    assert_eq!(remote_log(&s), "handover: agent0\nhandover: agent0\ninit");
}

/// A publish killed with SIGKILL at a random moment, on three machines
/// pushing without pulling: after each kill the machine recovers as an
/// agent would (`check`; `resume`; `doctor` names whatever blocks it; a run
/// killed before its note was staged is asked again). At the end every
/// note is on every machine exactly once, and no note was committed twice.
/// `PUBLISH_KILLS` sets the number of kills (scripts/soak-publish-kill.sh
/// runs 300); `PUBLISH_KILL_SEED` replays one order.
#[test]
fn sigkill_during_publish_on_three_machines_loses_and_duplicates_nothing() {
    let kills: usize = std::env::var("PUBLISH_KILLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12);
    let seed = std::env::var("PUBLISH_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    eprintln!("PUBLISH_KILL_SEED={seed}");
    let mut rng = fastrand::Rng::with_seed(seed);
    let s = setup(3);
    // How long a handover takes here: kills land from the start to past its end.
    let started = std::time::Instant::now();
    assert!(s.clones[0].handover("calibration").status.success());
    let typical = started.elapsed();
    let mut stuck_named = 0;
    for k in 0..kills {
        let p = &s.clones[rng.usize(0..3)];
        let note = format!("kill-note-{k}-");
        let mut child = p
            .std_cmd()
            .args(["run", "--config", "handover.toml", "--note", &note])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(typical.mul_f64(rng.f64() * 1.2));
        let _ = child.kill();
        let _ = child.wait();
        recover(p, &note, &mut stuck_named, seed);
    }
    for p in &s.clones {
        assert!(p.run(&["sync"]).status.success());
        let text = all_memory_text(p);
        for k in 0..kills {
            let needle = format!("kill-note-{k}-");
            assert_eq!(text.matches(&needle).count(), 1, "{needle} (seed {seed})");
        }
    }
    for k in 0..kills {
        let needle = format!("kill-note-{k}-");
        let adds = git(
            s.remote.path(),
            &[
                "log",
                "main",
                "--no-merges",
                "--format=%h",
                "-S",
                &needle,
                "--",
                "memory/layer1",
            ],
        );
        assert_eq!(
            adds.lines().count(),
            1,
            "{needle} committed once (seed {seed}): {adds}"
        );
    }
    eprintln!("{kills} kills, {stuck_named} stuck states named by doctor and settled");
}

/// After a kill: finish what was started, the way an agent is told to.
fn recover(p: &Project, note: &str, stuck_named: &mut usize, seed: u64) {
    for _ in 0..3 {
        if p.check() != 1 {
            break;
        }
        let o = p.run(&["resume"]);
        if o.status.success() {
            break;
        }
        // Whatever blocks it, doctor names; a stale git lock it removes
        // once it is old (aged here instead of waiting ten minutes).
        let d = common::json(&p.run(&["--json", "doctor"]));
        let findings = d["findings"].as_array().unwrap().clone();
        assert!(
            !findings.is_empty(),
            "resume failed ({}) and doctor named nothing (seed {seed})",
            stderr(&o)
        );
        for f in &findings {
            if f["kind"] == "git_lock" {
                let lock = f["what"].as_str().unwrap();
                age_file(lock.split_whitespace().nth(2).unwrap(), 3600);
            }
        }
        *stuck_named += 1;
        p.run(&["doctor", "--fix"]);
    }
    assert_ne!(
        p.check(),
        1,
        "recovered (seed {seed}): {}",
        stdout(&p.run(&["status", "-v"]))
    );
    if !all_memory_text(p).contains(note) {
        // Killed before its note was staged: the run never said it was done.
        let o = p.handover(note);
        assert!(o.status.success(), "{}", stderr(&o));
    }
}

/// A publish killed while it brings the remote's commits in (after writing
/// down the intent, after updating the work tree) is finished on resume:
/// the half-updated work tree is never committed as this machine's own
/// work, and every note stays once in the remote's history.
#[test]
fn a_crash_while_integrating_the_remote_is_finished_not_recommitted() {
    for point in ["integrate-after-intent", "integrate-after-work-tree"] {
        let s = setup(2);
        let (a, b) = (&s.clones[0], &s.clones[1]);
        assert!(a.handover("A: first").status.success());
        assert!(b.handover("B: first").status.success());
        assert!(a.handover("A: second").status.success());
        let o = b
            .cmd()
            .args(["run", "--config", "handover.toml", "--note", "B: second"])
            .env("AGENT_HANDOVER_FAILPOINT", point)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), None, "{point}: killed");
        assert_eq!(b.check(), 1);
        let o = b.run(&["resume"]);
        assert!(o.status.success(), "{point}: {}", stderr(&o));
        for note in ["A: first", "B: first", "A: second", "B: second"] {
            let adds = git(
                s.remote.path(),
                &[
                    "log",
                    "main",
                    "--no-merges",
                    "--format=%h",
                    "-S",
                    note,
                    "--",
                    "memory/layer1",
                ],
            );
            assert_eq!(
                adds.lines().count(),
                1,
                "{point}: {note:?} committed once: {adds}"
            );
        }
        let tree = git(s.remote.path(), &["ls-tree", "-r", "--name-only", "main"]);
        assert_eq!(tree.matches("memory/layer1/").count(), 4, "{point}: {tree}");
        assert_eq!(
            git(b.dir.path(), &["status", "--porcelain", "--", "memory"]),
            "",
            "{point}: the work tree is the merge"
        );
        assert!(!b.path(".git/agent-handover-integrate").exists());
    }
}

/// A sync stopped by a file edited here touches nothing and leaves nothing
/// behind: the next handover publishes (the edit is its own).
#[test]
fn a_sync_stopped_by_a_local_edit_leaves_nothing_that_blocks_the_next_publish() {
    let s = setup(2);
    let (a, b) = (&s.clones[0], &s.clones[1]);
    assert!(a.handover("A: first").status.success());
    assert!(b.run(&["sync"]).status.success());
    assert!(a.handover("A: second").status.success());
    let state = b.path("memory/layer2/current-state.md");
    std::fs::write(&state, "edited by hand on B\n").unwrap();
    let o = b.run(&["sync"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("current-state.md was edited here") && err.contains("nothing was updated"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&state).unwrap(),
        "edited by hand on B\n"
    );
    assert!(!b.path(".git/agent-handover-integrate").exists());
    let o = b.handover("B: after the failed sync");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        git(
            s.remote.path(),
            &["show", "main:memory/layer2/current-state.md"]
        )
        .ends_with("B: after the failed sync")
    );
}

/// A remote that accepts the connection and never answers (`git://` on
/// 127.0.0.1 here, which has no low-speed limit) once held `run`'s push for
/// `[backend].timeout_secs` (300 s), longer than an agent's tool call, which
/// then killed the handover mid-publish. The push is given up after the
/// default 20 s and left pending: the handover is complete (`check` 2), every
/// face says "push pending", and once the remote answers `sync` sends it.
#[test]
fn a_remote_that_never_answers_leaves_the_push_pending_not_the_handover() {
    never_answering_remote_leaves_the_push_pending("git", None);
}

/// The same over `http://`: git hands the transfer to `git-remote-http`,
/// which holds git's stderr open; ending git alone left the handover
/// waiting on that pipe until curl's own 60 s limit. The whole process
/// group is ended instead.
#[test]
fn a_silent_http_remote_does_not_hold_the_handover_either() {
    never_answering_remote_leaves_the_push_pending("http", Some(2));
}

fn never_answering_remote_leaves_the_push_pending(scheme: &str, timeout_secs: Option<u64>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Accept and hold every connection, answering nothing.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
        }
    });
    let limit = timeout_secs.map_or(String::new(), |s| format!("timeout_secs = {s}\n"));
    let p = Project::new(&format!(
        "[handover]\nmemory_dir = \"memory\"\ntag = \"t\"\n\n[backend]\ntype = \"git\"\n{limit}"
    ));
    let d = p.dir.path();
    git(d, &["init", "-q", "--initial-branch=main"]);
    git(d, &["config", "user.name", "Agent"]);
    git(d, &["config", "user.email", "agent@example.com"]);
    git(
        d,
        &[
            "remote",
            "add",
            "origin",
            &format!("{scheme}://127.0.0.1:{port}/memory.git"),
        ],
    );
    let started = std::time::Instant::now();
    let o = p.handover("the note stays safe");
    let took = started.elapsed();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(took < std::time::Duration::from_secs(30), "took {took:?}");
    let given = timeout_secs.unwrap_or(20);
    assert!(
        took >= std::time::Duration::from_secs(given),
        "given its {given} s: {took:?}"
    );
    let out = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        out.contains(&format!("gave no answer within {given} s")),
        "{out}"
    );
    assert!(out.contains("push pending"), "{out}");
    assert_eq!(p.check(), 2, "the handover is complete");
    assert_eq!(git(d, &["log", "--format=%s"]), "handover: t session");
    let doctor = common::json(&p.run(&["doctor", "--json"]));
    assert!(doctor.to_string().contains("push_pending"), "{doctor:#}");
    for shown in [p.run(&["status", "-v"]), p.run(&["brief"])] {
        assert!(
            stdout(&shown).contains("push pending"),
            "{}",
            stdout(&shown)
        );
    }
    // The remote answers again, but a PAUSE pulled while `sync` brings it
    // in holds the pending push.
    let remote = tempfile::tempdir().unwrap();
    git(
        remote.path(),
        &["init", "-q", "--bare", "--initial-branch=main"],
    );
    git(
        d,
        &[
            "remote",
            "set-url",
            "origin",
            remote.path().to_str().unwrap(),
        ],
    );
    let syncing = p
        .std_cmd()
        .arg("sync")
        .env("AGENT_HANDOVER_FAILPOINT", "stall:sync-before-push:2000")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(p.run(&["pause", "--reason", "not now"]).status.success());
    let o = syncing.wait_with_output().unwrap();
    assert!(
        stdout(&o).contains("the pending push is held: "),
        "{}",
        stdout(&o)
    );
    assert_eq!(
        git(remote.path(), &["branch", "--list"]),
        "",
        "nothing pushed"
    );
    assert!(p.run(&["unpause"]).status.success());
    // Lifted: `sync` sends what was pending.
    let o = p.run(&["sync"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("pushed to origin/main"),
        "{}",
        stdout(&o)
    );
    assert_eq!(
        git(remote.path(), &["log", "--format=%s", "main"]),
        "handover: t session"
    );
    for shown in [
        p.run(&["status", "-v"]),
        p.run(&["brief"]),
        p.run(&["doctor"]),
    ] {
        assert!(
            !stdout(&shown).contains("push pending"),
            "{}",
            stdout(&shown)
        );
    }
}

/// Issue 26, item 9: `run` killed while git held the lock of our own ref
/// (`refs/agent-handover/integrating.lock`) left every later integration
/// failing on it until the lock was 10 minutes old. A lock on a ref only
/// agent-handover writes, found while the run lock is held, is removed at
/// once; the handover integrates and publishes.
#[test]
fn a_lock_left_on_our_own_ref_by_a_killed_run_is_cleared_at_once() {
    let s = setup(2);
    let (a, b) = (&s.clones[0], &s.clones[1]);
    assert!(a.handover("A: session 1").status.success());
    git(b.dir.path(), &["pull", "-q", "--ff-only", "origin", "main"]);
    assert!(b.handover("B: session 1").status.success());
    let lock = a.path(".git/refs/agent-handover/integrating.lock");
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::fs::write(&lock, "").unwrap();
    // A has not pulled B's work: its publish integrates, through our ref.
    let o = a.handover("A: session 2");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!lock.exists(), "cleared, not waited on");
    assert!(remote_log(&s).starts_with("agent-handover: merge origin/main"));
}

/// Issue 26, item 19: `run` during the user's unfinished merge committed
/// anyway and left MERGE_HEAD in place. The publish refuses with the
/// commands that finish or abort it, commits nothing, and the handover
/// waits resumable; once the merge is settled, `resume` publishes.
#[test]
fn a_handover_during_the_users_unfinished_merge_commits_nothing() {
    let s = setup(1);
    let a = &s.clones[0];
    let d = a.dir.path();
    assert!(a.handover("first").status.success());
    git(d, &["checkout", "-q", "-b", "side"]);
    std::fs::write(d.join("app.txt"), "side\n").unwrap();
    git(d, &["add", "app.txt"]);
    git(d, &["commit", "-qm", "side"]);
    git(d, &["checkout", "-q", "main"]);
    std::fs::write(d.join("app.txt"), "main\n").unwrap();
    git(d, &["add", "app.txt"]);
    git(d, &["commit", "-qm", "main"]);
    // A conflicting merge, left unfinished.
    let merge = std::process::Command::new("git")
        .args(["-C", d.to_str().unwrap(), "merge", "-q", "side"])
        .output()
        .unwrap();
    assert!(!merge.status.success());
    assert!(d.join(".git/MERGE_HEAD").exists());
    let head = git(d, &["rev-parse", "HEAD"]);
    let o = a.handover("during the merge");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("in the middle of a merge") && err.contains("merge --abort"),
        "{err}"
    );
    assert_eq!(git(d, &["rev-parse", "HEAD"]), head, "nothing committed");
    assert!(
        d.join(".git/MERGE_HEAD").exists(),
        "the user's merge is left alone"
    );
    assert_eq!(a.check(), 1);
    git(d, &["merge", "--abort"]);
    let o = a.run(&["resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(a.check(), 2);
}

/// Issue 26, item 15: `identity set` on two clones, each handing over
/// without pulling, stopped the second on a git conflict in identity.md.
/// It merges by section like current-state.md: different sections both
/// stay; the same section takes the side that changed it last.
#[test]
fn identity_set_on_two_machines_merges_by_section() {
    let s = setup(2);
    let (a, b) = (&s.clones[0], &s.clones[1]);
    assert!(
        a.run(&["identity", "set", "Policies", "Small commits."])
            .status
            .success()
    );
    assert!(a.handover("A: session 1").status.success());
    git(b.dir.path(), &["pull", "-q", "--ff-only", "origin", "main"]);
    // Each changes the identity and hands over without pulling the other.
    assert!(
        b.run(&["identity", "set", "Goals", "Ship 1.0."])
            .status
            .success()
    );
    assert!(
        b.run(&["identity", "set", "Policies", "Tiny commits."])
            .status
            .success()
    );
    assert!(b.handover("B: session 1").status.success());
    assert!(
        a.run(&["identity", "set", "Goals", "Ship 1.0 by May."])
            .status
            .success()
    );
    let o = a.handover("A: session 2");
    assert!(o.status.success(), "{}", stderr(&o));
    let identity = std::fs::read_to_string(a.path("memory/identity.md")).unwrap();
    assert!(
        identity.contains("Tiny commits."),
        "B's newer Policies: {identity}"
    );
    assert!(
        identity.contains("Ship 1.0 by May."),
        "A's newer Goals: {identity}"
    );
    assert!(!identity.contains("<<<<<<<"), "{identity}");
    // B's Goals were superseded: kept as a version and flagged as drift,
    // with a command that shows it, on every face that lists drift.
    let doctor = common::json(&a.run(&["--json", "doctor"]));
    let finding = doctor["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "identity_drift")
        .unwrap_or_else(|| panic!("{doctor}"));
    assert!(
        finding["what"].as_str().unwrap().contains("## Goals"),
        "{finding}"
    );
    let fix = finding["fix"].as_str().unwrap();
    let command = fix
        .split('`')
        .nth(1)
        .unwrap_or_else(|| panic!("a command in {fix}"));
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words[..3], ["agent-handover", "identity", "diff"], "{fix}");
    let diff = a.run(&words[1..]);
    assert!(diff.status.success(), "{}", stderr(&diff));
    let diff = stdout(&diff);
    assert!(
        diff.lines()
            .any(|l| l.starts_with('-') && l.contains("Ship 1.0.")),
        "{diff}"
    );
    assert!(
        diff.lines()
            .any(|l| l.starts_with('+') && l.contains("by May")),
        "{diff}"
    );
    let list = stdout(&a.run(&["identity", "list"]));
    assert!(
        list.lines()
            .any(|l| l.contains("DRIFT") && l.contains("## Goals")),
        "{list}"
    );
    for (args, what) in [
        (&["status", "-v"][..], "status -v"),
        (&["brief"][..], "brief"),
    ] {
        let text = stdout(&a.run(args));
        assert!(
            text.to_lowercase().contains("identity drift") && text.contains(command),
            "{what}: {text}"
        );
    }
}

/// Issue 26, item 19: two checkpoints of one repository (two agents, each
/// with its own run lock) publishing at once: the second to commit failed
/// with libgit2's raw "current tip is not the first parent". Publishes in
/// one repository take turns: both commit, both push, both notes arrive.
#[test]
fn two_checkpoints_publishing_at_once_take_turns() {
    let s = setup(1);
    let a = &s.clones[0];
    let start = |checkpoint: &str, note: &str, stall: bool| {
        let mut c = a.std_cmd();
        c.args(["run", "--config", "handover.toml", "--note", note])
            .env("AGENT_HANDOVER_CHECKPOINT", a.path(checkpoint))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        if stall {
            // Holds the first between reading HEAD and committing on it.
            c.env(
                "AGENT_HANDOVER_FAILPOINT",
                "stall:publish-before-commit:1500",
            );
        }
        c.spawn().unwrap()
    };
    std::fs::create_dir_all(a.path("agents")).unwrap();
    let first = start("agents/one.json", "the first agent's note", true);
    std::thread::sleep(std::time::Duration::from_millis(700));
    let second = start("agents/two.json", "the second agent's note", false);
    for child in [first, second] {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let tree = git(s.remote.path(), &["ls-tree", "-r", "--name-only", "main"]);
    assert_eq!(tree.matches("memory/layer1/").count(), 2, "{tree}");
}

/// Issue 26, item 9: `doctor` did not see a ref lock left inside a local
/// bare remote by a killed push. It lists it, with the `rm` command, and
/// `--fix` removes it once it is old enough and no git runs there.
#[test]
fn doctor_sees_a_lock_left_in_a_local_remote() {
    let s = setup(1);
    let a = &s.clones[0];
    assert!(a.handover("first").status.success());
    let lock = s.remote.path().join("refs/heads/main.lock");
    std::fs::write(&lock, "").unwrap();
    let o = a.run(&["doctor"]);
    let out = stdout(&o);
    assert!(
        out.contains("in the local remote origin") && out.contains("main.lock"),
        "{out}"
    );
    age_file(&lock, 11 * 60);
    let o = a.run(&["doctor", "--fix"]);
    assert!(
        stdout(&o).contains(&format!("will remove {}", lock.display())),
        "{}",
        stdout(&o)
    );
    assert!(!lock.exists());
}

/// Issue 25: without a handover.toml, `run` used the git backend with
/// branch `main` and push on: in a fresh `git init` on `master`, or with no
/// remote, the publish failed and the handover was left interrupted. Unset
/// keys follow the project: the branch HEAD is on, a push only when the
/// remote exists ("committed locally, no remote"), and once a remote is
/// added the next handover pushes; outside a repository, nothing to commit.
#[test]
fn with_no_config_a_handover_completes_in_any_project() {
    let dir = tempfile::tempdir().unwrap();
    let d = &dir.path().join("project");
    let home = dir.path().join("home");
    std::fs::create_dir_all(d).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    git(d, &["init", "-q", "-b", "master"]);
    git(d, &["config", "user.name", "U"]);
    git(d, &["config", "user.email", "u@example.com"]);
    let ah_in = |dir: &std::path::Path, args: &[&str]| {
        Command::cargo_bin("agent-handover")
            .unwrap()
            .current_dir(dir)
            .env("HOME", &home)
            .env_remove("XDG_CONFIG_HOME")
            .args(args)
            .output()
            .unwrap()
    };
    let ah = |args: &[&str]| ah_in(d, args);
    let o = ah(&["run", "--note", "# Handoff\n\n## Next step\nShip it.\n"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("committed locally"), "{}", stderr(&o));
    assert_eq!(ah(&["check"]).status.code(), Some(2));
    assert_eq!(git(d, &["rev-parse", "--abbrev-ref", "HEAD"]), "master");
    assert!(git(d, &["log", "--format=%s"]).contains("handover"));
    // A remote added: master tracks nothing there yet, so nothing is
    // pushed for us (a local branch is never published unasked); once
    // pushed with -u, the next handover pushes.
    let remote = tempfile::tempdir().unwrap();
    git(remote.path(), &["init", "-q", "--bare"]);
    git(
        d,
        &["remote", "add", "origin", &remote.path().to_string_lossy()],
    );
    let o = ah(&["run", "--note", "# Handoff\n\n## Next step\nShip more.\n"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("git push -u origin master"),
        "{}",
        stderr(&o)
    );
    git(d, &["push", "-q", "-u", "origin", "master"]);
    let o = ah(&[
        "run",
        "--note",
        "# Handoff\n\n## Next step\nShip even more.\n",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        git(d, &["rev-parse", "HEAD"]),
        git(remote.path(), &["rev-parse", "master"]),
        "the last handover is on the remote"
    );
    // Outside any repository: kept locally. A repository of the home folder
    // (dotfiles) is not the project's: kept locally too.
    let plain = dir.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let o = ah_in(
        &plain,
        &["run", "--note", "# Handoff\n\n## Next step\nShip it.\n"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("null backend"), "{}", stderr(&o));
    git(&home, &["init", "-q"]);
    let under_home = home.join("notes");
    std::fs::create_dir_all(&under_home).unwrap();
    let o = ah_in(
        &under_home,
        &["run", "--note", "# Handoff\n\n## Next step\nShip it.\n"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("null backend"), "{}", stderr(&o));
}

/// Issue 41, item 3a: a repository asking for signed commits
/// (`commit.gpgsign = true`) got an unsigned handover commit, and a
/// pre-commit hook was skipped, both silently. The publish is refused
/// with the fix (nothing committed or pushed); with `sign = false` the same
/// handover goes on with `resume`, and its output says the hook was not run.
#[test]
fn a_signing_repository_is_refused_and_a_skipped_hook_is_said() {
    use std::os::unix::fs::PermissionsExt;
    let s = setup(1);
    let p = &s.clones[0];
    let d = p.dir.path();
    let hook = d.join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, "#!/bin/sh\necho hook ran >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    git(d, &["config", "commit.gpgsign", "true"]);
    let o = p.handover("first session");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("commit.gpgsign") && err.contains("sign = false"),
        "{err}"
    );
    assert_eq!(remote_log(&s), "init", "nothing pushed");
    assert_eq!(git(d, &["log", "--format=%s"]), "init", "nothing committed");
    let config = std::fs::read_to_string(d.join("handover.toml")).unwrap();
    std::fs::write(d.join("handover.toml"), format!("{config}sign = false\n")).unwrap();
    let o = p.run(&["resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(remote_log(&s), "handover: agent0\ninit");
    let cp = p.checkpoint_json();
    let output = cp["step_records"]["publish"]["output"].as_str().unwrap();
    assert!(output.contains("pre-commit hook was not run"), "{output}");
    let shown = p.run(&["--json", "status"]);
    assert!(
        stdout(&shown).contains("pre-commit hook was not run"),
        "{}",
        stdout(&shown)
    );
}
