//! No handover text is ever lost: a `run` while an older handover is stuck
//! (its publish failing), paused, or executed by another process stages the
//! new handover first, `check` reports it, `status` shows it queued, and
//! `resume` finishes both in order.

use crate::common::{Project, config, git, stderr, stdout, wait_until};

/// The text of every layer-1 note, in the order they were written
/// (`t-<date>.md`, then `t-<date>-2.md`, ...; headers dropped).
fn note_texts(p: &Project) -> Vec<String> {
    let mut notes = p.notes();
    notes.sort_by_key(|(name, _)| (name.len(), name.clone()));
    notes
        .into_iter()
        .map(|(_, text)| text.lines().skip(1).collect::<Vec<_>>().join("\n"))
        .collect()
}

fn run_note(p: &Project, note: &str) -> std::process::Output {
    p.run(&["run", "--config", "handover.toml", "--note", note])
}

/// The staged inputs file the error names, read.
fn staged_file_named_in(err: &str) -> String {
    let start = err
        .find("is staged (")
        .expect("the error names the staged file")
        + 11;
    let end = start + err[start..].find(')').unwrap();
    std::fs::read_to_string(&err[start..end]).unwrap()
}

#[test]
fn a_new_note_behind_a_failing_publish_is_staged_and_resumed_in_order() {
    let remote = tempfile::tempdir().unwrap();
    let p = Project::new(
        "[handover]\nmemory_dir = \"memory\"\ntag = \"t\"\n\n[backend]\ntype = \"git\"\nmessage = \"handover\"\n",
    );
    let d = p.dir.path();
    git(d, &["init", "-q", "--initial-branch=main"]);
    git(d, &["config", "user.name", "T"]);
    git(d, &["config", "user.email", "t@example.com"]);
    let gone = remote.path().join("not-yet.git");
    git(
        remote.path(),
        &[
            "init",
            "-q",
            "--bare",
            "--initial-branch=main",
            "not-yet.git",
        ],
    );
    // The server refuses every push until its hook is lifted.
    let hook = gone.join("hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\necho 'not yet: the review gate is closed'\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    git(d, &["remote", "add", "origin", gone.to_str().unwrap()]);

    let first = run_note(&p, "FIRST: the publish of this one fails");
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    let second = run_note(&p, "SECOND: written while the first is stuck");
    assert_eq!(
        second.status.code(),
        Some(1),
        "the cause's exit code: {}",
        stderr(&second)
    );
    let err = stderr(&second);
    assert!(err.contains("not yet: the review gate is closed"), "{err}");
    assert!(err.contains("your new handover is safe"), "{err}");
    assert!(staged_file_named_in(&err).contains("SECOND: written while the first is stuck"));
    // Asked again, it is not queued twice.
    let again = run_note(&p, "SECOND: written while the first is stuck");
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(
        std::fs::read_dir(p.path(".agent-handover/queue"))
            .unwrap()
            .count(),
        1
    );
    assert_eq!(p.check(), 1);
    let status = stdout(&p.run(&["status"]));
    assert!(
        status.contains("queued:") && status.contains("SECOND: written while the first is stuck"),
        "{status}"
    );
    let brief = stdout(&p.run(&["brief"]));
    assert!(brief.contains("Queued behind it"), "{brief}");

    std::fs::remove_file(&hook).unwrap();
    let o = p.run(&["resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(p.check(), 2);
    assert_eq!(
        note_texts(&p),
        [
            "FIRST: the publish of this one fails",
            "SECOND: written while the first is stuck"
        ],
        "both notes, in order"
    );
    let log = git(&gone, &["log", "--format=%s", "main"]);
    assert_eq!(log.lines().count(), 2, "one commit per handover: {log}");
    assert!(
        !p.path(".agent-handover/queue").exists()
            || std::fs::read_dir(p.path(".agent-handover/queue"))
                .unwrap()
                .next()
                .is_none()
    );
}

#[test]
fn a_note_written_under_pause_is_kept_and_resume_after_unpause_writes_it() {
    let p = Project::new(&config(""));
    assert!(run_note(&p, "before the pause").status.success());
    p.run(&["pause", "--reason", "review first"]);
    let o = run_note(&p, "written while paused");
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("your new handover is safe"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        note_texts(&p),
        ["before the pause"],
        "PAUSE: nothing written to memory"
    );
    assert_eq!(p.check(), 1, "a queued handover needs resuming");
    p.run(&["unpause"]);
    let o = p.run(&["resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(note_texts(&p), ["before the pause", "written while paused"]);
    assert_eq!(p.check(), 2);
    let o = p.run(&["resume"]);
    assert!(stdout(&o).contains("nothing"), "{}", stdout(&o));
}

#[test]
fn a_note_written_while_another_process_hands_over_is_run_after_it() {
    let p = Project::new(&config(
        "[[command]]\nname = \"slow\"\nargv = [\"sh\", \"-c\", \"touch started; sleep 2\"]\nidempotent = true\n",
    ));
    let mut child = p
        .std_cmd()
        .args(["run", "--config", "handover.toml", "--note", "the slow one"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_until(|| p.path("started").exists());
    let o = run_note(&p, "while it runs");
    assert_eq!(o.status.code(), Some(5), "busy: {}", stderr(&o));
    assert!(
        stderr(&o).contains("your new handover is safe"),
        "{}",
        stderr(&o)
    );
    assert!(child.wait().unwrap().success());
    // The process that held the lock ran the queued one after its own.
    assert_eq!(note_texts(&p), ["the slow one", "while it runs"]);
    assert_eq!(p.check(), 2);
}
