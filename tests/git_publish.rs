//! The git publish backend against real repositories: a working clone with a
//! bare remote over a file URL, two clones pushing alternately, conflicts, a
//! crash between commit and push, and a held index.lock.

mod common;

use std::process::Command;

use common::{Project, git, stderr, stdout};

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
fn conflicting_current_state_fails_with_instructions_and_keeps_both() {
    let s = setup(2);
    let (a, b) = (&s.clones[0], &s.clones[1]);
    assert!(a.handover("A's view").status.success());
    let o = b.handover("B's view");
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("conflict") && err.contains("memory/layer2/current-state.md"),
        "{err}"
    );
    assert!(
        err.contains("git -C")
            && err.contains("merge origin/main")
            && err.contains("agent-handover retry publish"),
        "{err}"
    );
    // Both versions survive: theirs on the remote, ours on B's branch; B's work tree untouched.
    assert!(
        git(
            s.remote.path(),
            &["show", "main:memory/layer2/current-state.md"]
        )
        .ends_with("A's view")
    );
    assert!(
        git(
            b.dir.path(),
            &["show", "main:memory/layer2/current-state.md"]
        )
        .ends_with("B's view")
    );
    assert!(b.current_state().unwrap().ends_with("B's view"));
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
    std::fs::write(d.join("memory/layer2/current-state.md"), "merged by hand").unwrap();
    git(d, &["commit", "-qam", "merge"]);
    let o = b.run(&["retry", "publish"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        git(
            s.remote.path(),
            &["show", "main:memory/layer2/current-state.md"]
        ),
        "merged by hand"
    );
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

#[test]
fn a_held_index_lock_is_retried_then_reported_and_never_deleted() {
    let s = setup(1);
    let p = &s.clones[0];
    let lock = p.path(".git/index.lock");
    std::fs::write(&lock, "").unwrap();
    let o = p.handover("locked out");
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("index.lock") && err.contains("another git process"),
        "{err}"
    );
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
