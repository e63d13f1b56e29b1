//! The JSON contract (issue 28, item 8): with `--json` anywhere on the
//! line, every outcome of every command — success, error, a usage error,
//! `--help`, `--version` — is exactly one JSON object on stdout (lists are
//! objects with an array field); errors carry `ok: false`, `kind` and
//! `exit_code`, which is the process's exit code.
//!
//! Every command `agent-handover --help` lists must have an invocation in
//! [`INVOCATIONS`] (a new command without one fails here), except `hook`
//! and `mcp`, whose stdout belongs to the agents' own protocols.

use std::collections::BTreeSet;
use std::process::Command;

use crate::common::{self, stdout};

/// Commands whose stdout is another program's protocol.
const PROTOCOLS: &[&str] = &["hook", "mcp"];

/// One or more invocations per command, run in order in a demo workspace
/// (`--json` is added in front, or after the command for the `mid` ones).
const INVOCATIONS: &[&str] = &[
    "check",
    "status",
    "status -v",
    "history",
    "compact --dry-run",
    "metrics",
    "doctor",
    "sync",
    "state list",
    "state diff 1",
    "lint",
    "lint --explain",
    "lint missing.md",
    "template",
    "template code",
    "brief",
    "inbox queues",
    "inbox list",
    "inbox read nope",
    "knowledge list",
    "task list",
    "task show nope",
    "identity list",
    "identity show",
    "install --check claude",
    "draft --agent claude --no-metrics",
    "completions bash",
    "man",
    "sessions",
    "workspaces",
    "pause --reason lunch",
    "unpause",
    "abandon",
    "resume",
    "retry nope",
    "run --note hello",
    "init",
    "migrate",
    "dashboard",
    "ui",
    "demo",
    "help",
    "help status",
    "--help",
    "--version",
    "stauts",
    "status --bogus",
    "state",
];

/// The same commands with `--json` after the subcommand (it is global).
const MID: &[&str] = &[
    "status --json",
    "inbox --json queues",
    "history --limit 1 --json",
];

fn bin() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("agent-handover")
}

/// A demo workspace with history, an interrupted run resumed, messages.
fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let o = Command::new(bin())
        .args(["demo", "--tour", "--dir"])
        .arg(&ws)
        .env("HOME", dir.path())
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::stderr(&o));
    (dir, ws)
}

fn run(home: &std::path::Path, ws: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(bin())
        .args(args)
        .current_dir(ws)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("AGENT_HANDOVER_CHECKPOINT")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// Stdout is exactly one JSON object; errors say `ok: false` with the exit code.
fn assert_one_object(line: &str, o: &std::process::Output) {
    let text = stdout(o);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "`{line}`: stdout is not one JSON value ({e}):\n{text}\nstderr: {}",
            common::stderr(o)
        )
    });
    assert!(value.is_object(), "`{line}`: not an object:\n{text}");
    let code = o.status.code().expect("an exit code");
    // An error names itself, its kind and the exit code (a report such as
    // `doctor`'s findings may say `ok: false` with no error).
    if value.get("error").is_some() {
        assert_eq!(value["ok"], false, "`{line}`: {value}");
        assert_eq!(value["exit_code"], code, "`{line}`: {value}");
        assert!(
            value["kind"].is_string() && value["error"].is_string(),
            "`{line}`: {value}"
        );
    }
    if code == 64 || code == 78 {
        assert_eq!(
            value["ok"], false,
            "`{line}` failed with {code} but said ok: {value}"
        );
    }
}

#[test]
fn every_command_answers_one_json_object_whatever_the_outcome() {
    let (home, ws) = workspace();
    // Every command the binary lists has an invocation here.
    let help = stdout(&run(home.path(), &ws, &["--help"]));
    let listed: BTreeSet<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.starts_with("Options:"))
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(listed.len() > 25, "{listed:?}");
    for command in &listed {
        let covered = INVOCATIONS
            .iter()
            .any(|i| i.split_whitespace().next() == Some(command.as_str()));
        assert!(
            covered || PROTOCOLS.contains(&command.as_str()),
            "`{command}` has no invocation in tests/it/json_contract.rs"
        );
    }
    for line in INVOCATIONS {
        let mut args = vec!["--json"];
        args.extend(line.split_whitespace());
        let o = run(home.path(), &ws, &args);
        assert_one_object(line, &o);
    }
    for line in MID {
        let args: Vec<&str> = line.split_whitespace().collect();
        let o = run(home.path(), &ws, &args);
        assert_one_object(line, &o);
    }
}

/// The lists the issue found as bare arrays are objects with an array field.
#[test]
fn lists_are_objects_with_an_array_field() {
    let (home, ws) = workspace();
    for (args, field) in [
        (&["--json", "history"][..], "runs"),
        (&["--json", "state", "list"][..], "versions"),
        (&["--json", "identity", "list"][..], "versions"),
        (&["--json", "inbox", "queues"][..], "queues"),
    ] {
        let v: serde_json::Value =
            serde_json::from_str(&stdout(&run(home.path(), &ws, args))).unwrap();
        assert!(v[field].is_array(), "{args:?}: {v}");
        assert_eq!(v["ok"], true, "{args:?}");
    }
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&run(home.path(), &ws, &["--json", "stauts"]))).unwrap();
    assert_eq!(
        (v["kind"].as_str(), v["exit_code"].as_u64()),
        (Some("usage"), Some(64))
    );
    assert!(v["error"].as_str().unwrap().contains("stauts"), "{v}");
}

/// Issue 28, item 9: messages that said nothing useful.
#[test]
fn errors_name_the_file_and_the_fix_and_counts_read_right() {
    let (home, ws) = workspace();
    let o = run(home.path(), &ws, &["lint", "missing.md"]);
    assert_eq!(o.status.code(), Some(64));
    let err = common::stderr(&o);
    assert!(
        err.contains("missing.md does not exist") && err.contains("fix:"),
        "{err}"
    );
    assert!(!err.contains("entity not found"), "{err}");
    let err = common::stderr(&run(home.path(), &ws, &["task", "show", "nope"]));
    assert!(err.contains("tasks: none yet"), "{err}");
    let sent = run(
        home.path(),
        &ws,
        &[
            "inbox", "send", "--to", "codex", "--from", "human", "--body", "one",
        ],
    );
    assert!(sent.status.success(), "{}", common::stderr(&sent));
    let queues = stdout(&run(home.path(), &ws, &["inbox", "queues"]));
    let codex = queues.lines().find(|l| l.starts_with("codex")).unwrap();
    assert!(
        codex.contains("1 message ") && !codex.contains("1 messages"),
        "{queues}"
    );
}
