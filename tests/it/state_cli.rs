//! `agent-handover state list` / `state diff`: the versions of
//! current-state.md across handovers, from local snapshots and git.

use std::path::Path;

use git2::{Repository, Signature};

use crate::common::{Project, config, json, stderr, stdout};

/// Three handovers whose current state changes a word or two each time.
fn three_handovers() -> Project {
    let p = Project::new(&config(""));
    for note in [
        "# State\nthe parser is done\nnext: lexer\n",
        "# State\nthe parser is done and tested\nnext: CLI\n",
        "# State\nthe lexer is done and tested\nnext: CLI wiring\n",
    ] {
        let out = p.handover(note);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    p
}

/// Commit everything under `memory/` (the file's git history).
fn commit_memory(repo: &Repository, message: &str) {
    let mut index = repo.index().unwrap();
    index
        .add_all(["memory"], git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = Signature::now("t", "t@example.com").unwrap();
    let parent = repo.head().ok().map(|h| h.peel_to_commit().unwrap());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
        .unwrap();
}

#[test]
fn list_shows_every_version_newest_first() {
    let p = three_handovers();
    let out = p.run(&["state", "list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    for (i, line) in lines.iter().enumerate() {
        assert!(line.trim_start().starts_with(&i.to_string()), "{line}");
        assert!(line.contains("  run "), "{line}");
        assert!(line.contains(" B"), "{line}");
    }
    assert!(lines[0].ends_with("(working file)"), "{}", lines[0]);

    let limited = stdout(&p.run(&["state", "list", "--limit", "1"]));
    assert_eq!(limited.lines().count(), 2, "{limited}");
    assert!(limited.contains("... and 2 older"), "{limited}");

    let v = json(&p.run(&["state", "list", "--json"]));
    let versions = v["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 3);
    assert_eq!(
        versions[0]["sources"],
        serde_json::json!(["local", "working"])
    );
    assert_eq!(versions[2]["sources"], serde_json::json!(["local"]));
    assert_eq!(versions[0]["id"].as_str().unwrap().len(), 16);
}

#[test]
fn diff_defaults_to_the_last_change_with_words_marked() {
    let p = three_handovers();
    let out = p.run(&["state", "diff"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("--- 1  "), "{text}");
    assert!(text.contains("\n+++ 0  "), "{text}");
    assert!(text.contains("\n@@ -1,4 +1,4 @@\n"), "{text}");
    assert!(
        text.contains("\n-the [-parser-] is done and tested\n"),
        "{text}"
    );
    assert!(
        text.contains("\n+the {+lexer+} is done and tested\n"),
        "{text}"
    );
    assert!(text.contains("\n+next: CLI{+ wiring+}\n"), "{text}");
    assert!(
        !text.contains('\x1b'),
        "no color when not a terminal: {text:?}"
    );

    // Same versions named by run id and by blob id.
    let v = json(&p.run(&["state", "list", "--json"]))["versions"].clone();
    let (new_run, old_id) = (v[0]["run"].as_str().unwrap(), v[1]["id"].as_str().unwrap());
    let by_name = p.run(&["state", "diff", &old_id[..8], new_run]);
    assert_eq!(stdout(&by_name), text);

    let sbs = stdout(&p.run(&["state", "diff", "--side-by-side"]));
    let row = sbs.lines().find(|l| l.contains("[-parser-]")).unwrap();
    assert!(row.contains(" │ ") && row.contains("{+lexer+}"), "{sbs}");

    let same = stdout(&p.run(&["state", "diff", "0", "current"]));
    assert!(same.contains("no changes"), "{same}");
}

#[test]
fn diff_json_has_rows_segments_and_stats() {
    let p = three_handovers();
    let out = p.run(&["state", "diff", "2", "0", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["from"]["index"], 2);
    assert_eq!(v["to"]["index"], 0);
    assert_eq!(v["stats"], serde_json::json!({"added": 2, "removed": 2}));
    let hunks = v["hunks"].as_array().unwrap();
    assert_eq!(hunks.len(), 1);
    assert_eq!(hunks[0]["header"], "@@ -1,4 +1,4 @@");
    let rows = hunks[0]["rows"].as_array().unwrap();
    let kinds: Vec<&str> = rows.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["equal", "equal", "delete", "delete", "insert", "insert"]
    );
    let inserted = &rows[4];
    assert_eq!(inserted["new_line"], 3);
    assert_eq!(inserted["old_line"], serde_json::Value::Null);
    let emphasized: Vec<&str> = inserted["segments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["emphasized"] == true)
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    assert_eq!(emphasized, ["lexer", " and tested"]);

    let sbs = json(&p.run(&["state", "diff", "2", "0", "--json", "--side-by-side"]));
    let rows = sbs["hunks"][0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[2]["old"]["kind"], "delete");
    assert_eq!(rows[2]["new"]["kind"], "insert");
}

#[test]
fn a_bad_selector_is_a_usage_error_that_lists_the_versions() {
    let p = three_handovers();
    let out = p.run(&["state", "diff", "nope", "0"]);
    assert_eq!(out.status.code(), Some(64));
    let err = stderr(&out);
    assert!(err.contains("version \"nope\" matches no version"), "{err}");
    assert!(err.contains("run "), "lists the versions: {err}");
    assert!(err.contains("fix: "), "{err}");
    assert!(stdout(&out).is_empty());

    let out = p.run(&["state", "diff", "7", "--json"]);
    assert_eq!(out.status.code(), Some(64));
    let v = json(&out);
    assert_eq!(v["kind"], "unknown_version");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("past the oldest version")
    );

    let empty = Project::new(&config(""));
    let out = empty.run(&["state", "diff"]);
    assert_eq!(out.status.code(), Some(64));
    assert!(stderr(&out).contains("there are no versions yet"));
    assert_eq!(
        stdout(&empty.run(&["state", "list"])).trim(),
        "no versions of current-state.md yet"
    );
}

#[test]
fn git_commits_of_the_memory_merge_with_local_snapshots() {
    let p = Project::new(&config(""));
    let repo = Repository::init(p.dir.path()).unwrap();
    assert!(p.handover("first state\n").status.success());
    commit_memory(&repo, "handover one");
    assert!(p.handover("second state\n").status.success());
    commit_memory(&repo, "handover two");
    // A hand edit committed and then replaced before any handover saw it.
    let file = p.path("memory/layer2/current-state.md");
    std::fs::write(&file, "edited by hand\n").unwrap();
    commit_memory(&repo, "hand edit");
    assert!(p.handover("third state\n").status.success());

    let v = json(&p.run(&["state", "list", "--json"]));
    let versions = v["versions"].as_array().unwrap();
    let summary: Vec<(bool, bool, &str)> = versions
        .iter()
        .map(|v| {
            (
                v["run"].is_string(),
                v["commit"].is_string(),
                v["summary"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (true, false, ""),
            (false, true, "hand edit"),
            (true, true, "handover two"),
            (true, true, "handover one"),
        ],
        "{v:#}"
    );
    assert_eq!(versions[1]["sources"], serde_json::json!(["local", "git"]));
    assert_eq!(versions[2]["sources"], serde_json::json!(["local", "git"]));

    let text = stdout(&p.run(&["state", "list"]));
    assert!(
        text.contains("commit ") && text.contains(" handover one"),
        "{text}"
    );

    // A commit id selects its version, and git-held text diffs like any other.
    let commit = versions[2]["commit"].as_str().unwrap();
    let out = p.run(&["state", "diff", &commit[..7], "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("\n-second state\n"), "{text}");
    assert!(text.contains("\n+{+edited by hand+}\n"), "{text}");
}

#[test]
fn a_hand_edit_since_the_last_version_is_listed_as_the_working_file() {
    let p = three_handovers();
    let file = p.path("memory/layer2/current-state.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("wiring", "wiring and docs")).unwrap();
    let list = stdout(&p.run(&["state", "list"]));
    assert!(
        list.lines()
            .next()
            .unwrap()
            .contains("working file, edited since"),
        "{list}"
    );
    let diff = stdout(&p.run(&["state", "diff"]));
    assert!(diff.contains("+next: CLI wiring{+ and docs+}"), "{diff}");
    assert!(Path::new(&file).is_file());
}

/// Issue 41: a run under a clock a day ahead left versions dated tomorrow;
/// after the clock stepped back, `state list` put the working file at index
/// 2, `state diff` showed the old change, and `[retention] state_versions =
/// 2` deleted the two newest versions and kept the future-dated ones. The
/// versions are ordered by their number, not their time: the ones written
/// now are the newest, and retention keeps them.
#[test]
fn a_clock_set_back_reorders_no_version_and_retention_keeps_the_newest() {
    use agent_handover::domain::memory::history::blob_id;
    let p = Project::new(&config("[retention]\nstate_versions = 2\n"));
    // What a run under a clock a day ahead left: its versions, named as an
    // earlier agent-handover named them (time first), and its file.
    let history = p.path(".agent-handover/history/current-state");
    std::fs::create_dir_all(&history).unwrap();
    std::fs::create_dir_all(p.path("memory/layer2")).unwrap();
    let tomorrow = chrono::Utc::now() + chrono::Duration::days(1);
    for (n, body) in ["# State\nahead one\n", "# State\nahead two\n"]
        .iter()
        .enumerate()
    {
        let text = format!("{}{body}", crate::common::header(2));
        let at = tomorrow + chrono::Duration::seconds(n as i64);
        let name = format!(
            "{}--{}-aaaa--{}.md",
            at.format("%Y%m%dT%H%M%S%.6fZ"),
            at.format("%Y%m%d-%H%M%S"),
            &blob_id(&text)[..16]
        );
        std::fs::write(history.join(name), &text).unwrap();
        std::fs::write(p.path("memory/layer2/current-state.md"), &text).unwrap();
    }
    // Then the clock went back a day: two handovers now.
    for note in ["# State\nnow one\n", "# State\nnow two\n"] {
        let out = p.handover(note);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let v = json(&p.run(&["state", "list", "--json"]));
    let versions = v["versions"].as_array().unwrap();
    assert_eq!(
        versions[0]["sources"],
        serde_json::json!(["local", "working"]),
        "the working file is the newest: {v:#}"
    );
    let diff = stdout(&p.run(&["state", "diff"]));
    assert!(
        diff.contains("\n-now [-one-]\n") && diff.contains("\n+now {+two+}\n"),
        "the last change is now one -> now two: {diff}"
    );
    assert!(!diff.contains("ahead"), "{diff}");
    // Retention kept the two newest, the ones written now.
    let kept: Vec<String> = crate::common::read_dir_sorted(&history)
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(
        kept.iter().all(|t| t.contains("now ")),
        "retention kept the future-dated versions: {kept:?}"
    );
}
