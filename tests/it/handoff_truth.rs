//! Issue 42: a handoff judged on truth and by the session that used it. In
//! real git repositories: the truth checks (a finding when the handoff is
//! false, none when it is true), and the next session's verdict from the
//! draft through `run` to `history --json` of the run it judged.

use std::path::Path;

use crate::common::{Project, config, git, json, stderr, stdout};

/// A project in a git repository with one commit, the null backend.
fn repository() -> Project {
    let p = Project::new(&config(""));
    let root = p.dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    for (k, v) in [
        ("user.name", "t"),
        ("user.email", "t@example.com"),
        ("commit.gpgsign", "false"),
    ] {
        git(root, &["config", k, v]);
    }
    std::fs::write(
        root.join(".gitignore"),
        ".agent-handover/\nmemory/\nhome/\n",
    )
    .unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "start"]);
    p
}

/// Write `rel` in `root` and commit it with `message`.
fn commit(root: &Path, rel: &str, text: &str, message: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    git(root, &["add", rel]);
    git(root, &["commit", "-qm", message]);
}

/// `run` with the current state read from the file `text` is written to.
fn hand_over(p: &Project, text: &str, extra: &[&str]) -> std::process::Output {
    std::fs::write(p.path("state.md"), text).unwrap();
    let mut args = vec![
        "run",
        "--config",
        "handover.toml",
        "--note",
        "session note",
        "--current-state-file",
        "state.md",
    ];
    args.extend_from_slice(extra);
    let out = p.run(&args);
    assert!(out.status.success(), "run: {}", stderr(&out));
    out
}

const FIRST: &str = "# Handoff 2026-12-01\n## Goal\nCount the parser's tokens.\n## Done\n- `src/parser.rs` counts tokens (commit in history)\n## Failed approaches\n- none\n## Next step\nWire the counter into `src/lint.rs`.\n";

#[test]
fn the_next_sessions_verdict_goes_from_the_draft_through_run_to_the_judged_runs_history() {
    let p = repository();
    let root = p.dir.path();
    commit(
        root,
        "src/parser.rs",
        "fn count() {}\n",
        "parser: count tokens",
    );
    hand_over(&p, FIRST, &[]);

    // The next session's draft asks for its verdict on the handoff it started from.
    commit(
        root,
        "src/lint.rs",
        "fn lint() {}\n",
        "lint: use the token counter",
    );
    let draft = p.run(&["draft", "--agent", "t", "--no-metrics"]);
    assert!(draft.status.success(), "{}", stderr(&draft));
    let draft = stdout(&draft);
    let asked = draft
        .lines()
        .find(|l| l.starts_with("Verdict on the last handoff:"))
        .unwrap_or_else(|| panic!("the draft asks for a verdict:\n{draft}"));
    // Filled in as a session would, and handed over.
    let filled = draft.replace(
        asked,
        "Verdict on the last handoff: 4/10 — it never said the counter must skip comments",
    );
    let filled = filled.replace(
        "TODO",
        "Wired the counter into `src/lint.rs`, skipping comments",
    );
    let ran = hand_over(&p, &filled, &["--min-score", "0"]);
    assert!(ran.status.success());
    // The line went with the run, not into the current state.
    let state = p.current_state().unwrap();
    assert!(!state.contains("Verdict on the last handoff"), "{state}");

    let history = json(&p.run(&["--json", "history"]));
    let runs = history["runs"]
        .as_array()
        .unwrap_or_else(|| panic!("{history}"));
    assert_eq!(runs.len(), 2, "{history}");
    // Newest first: the judging run holds it with its judgement of the
    // previous handoff, and the judged run shows what the next session said.
    let verdict = &runs[0]["previous_handoff"]["verdict"];
    assert_eq!(verdict["score"], 4, "{history}");
    assert_eq!(
        verdict["note"], "it never said the counter must skip comments",
        "{history}"
    );
    assert_eq!(runs[1]["next_session_verdict"], *verdict, "{history}");
    assert!(runs[0].get("next_session_verdict").is_none(), "{history}");
    // lint --outcomes holds the score against it.
    let outcomes = json(&p.run(&["--json", "lint", "--outcomes"]));
    assert_eq!(outcomes["check"]["verdicts"], 1, "{outcomes}");
    assert_eq!(outcomes["check"]["handoffs"][0]["verdict"], 4, "{outcomes}");
    let text = stdout(&p.run(&["history"]));
    assert!(
        text.contains("verdict 4/10: it never said the counter must skip comments"),
        "{text}"
    );
}

#[test]
fn run_verdict_beats_the_line_and_a_bad_one_is_refused_naming_the_fix() {
    let p = repository();
    hand_over(&p, FIRST, &[]);
    let bad = p.run(&[
        "run",
        "--config",
        "handover.toml",
        "--note",
        "n",
        "--verdict",
        "great",
    ]);
    assert_eq!(bad.status.code(), Some(64), "{}", stderr(&bad));
    assert!(
        stderr(&bad).contains("fix: start it with the score"),
        "{}",
        stderr(&bad)
    );
    assert_eq!(p.check(), 2, "nothing was started");
    let second = format!("{FIRST}\nVerdict on the last handoff: 2/10 from the line\n");
    hand_over(&p, &second, &["--verdict", "9/10 from the flag"]);
    let history = json(&p.run(&["--json", "history"]));
    assert_eq!(
        history["runs"][0]["previous_handoff"]["verdict"]["score"], 9,
        "{history}"
    );
}
