//! Interop with the real Python agent-handover 0.5.1 CLI.
//!
//! The Python CLI comes from `scripts/python-0.5.1.sh`, which builds a venv at
//! `target/py-0.5.1`. When it cannot (no Python, no network), every test here
//! prints `SKIPPED: ...` and passes, unless `AGENT_HANDOVER_REQUIRE_PYTHON=1`
//! is set, in which case they fail.
//!
//! Each test works in its own temporary directory, with `HOME` inside it and
//! `AGENT_HANDOVER_CHECKPOINT` removed, and both tools read the same
//! `handover.toml` (null backend).

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use chrono::NaiveDate;
use serde_json::Value;

const NOTE: &str =
    "Finished the parser.\nNext: wire it into the CLI — über-important, 日本語 too.\n";
const STATUS_INTERRUPTED: &str = "status: in_progress\n  [x] session_note\n  [ ] current_state\n  [ ] publish\npending: current_state, publish\n";
const STATUS_COMPLETED: &str =
    "status: completed\n  [x] session_note\n  [x] current_state\n  [x] publish\n";
// Our default plan learns from the note after writing it (`learn`); 0.5.1
// reads the extra step like any other.
const STATUS_OURS_INTERRUPTED: &str = "status: in_progress\n  [x] session_note\n  [x] learn\n  [ ] current_state\n  [ ] publish\npending: current_state, publish\n";
const STATUS_OURS_COMPLETED: &str =
    "status: completed\n  [x] session_note\n  [x] learn\n  [x] current_state\n  [x] publish\n";

/// The Python CLI, or `None` (after printing why) when the test must be skipped.
fn python_cli() -> Option<PathBuf> {
    static CLI: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let found = CLI.get_or_init(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/python-0.5.1.sh");
        let out = std::process::Command::new("bash")
            .arg(&script)
            .output()
            .map_err(|e| format!("cannot run bash {}: {e}", script.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let reason = stderr
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no reason given");
            return Err(format!(
                "{} exited with {}: {reason}",
                script.display(),
                out.status
            ));
        }
        let cli = PathBuf::from(&stdout);
        if !cli.is_absolute() || !cli.is_file() {
            return Err(format!(
                "{} printed {stdout:?}, which is not an executable file",
                script.display()
            ));
        }
        Ok(cli)
    });
    match found {
        Ok(cli) => Some(cli.clone()),
        Err(reason) if std::env::var("AGENT_HANDOVER_REQUIRE_PYTHON").as_deref() == Ok("1") => {
            panic!(
                "python agent-handover 0.5.1 unavailable (AGENT_HANDOVER_REQUIRE_PYTHON=1): {reason}"
            )
        }
        Err(reason) => {
            eprintln!("SKIPPED: python agent-handover 0.5.1 unavailable: {reason}");
            None
        }
    }
}

/// A throwaway project both tools work in.
struct Project {
    dir: tempfile::TempDir,
    python: PathBuf,
}

impl Project {
    /// A project whose `handover.toml` has `note` as `[note].session`.
    fn new(python: PathBuf, note: &str) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("home")).unwrap();
        let config = format!(
            "[handover]\nmemory_dir = \"memory\"\ntag = \"t\"\n\n[note]\nsession = {}\n\n[backend]\ntype = \"null\"\n",
            toml_string(note)
        );
        std::fs::write(dir.path().join("handover.toml"), config).unwrap();
        Project { dir, python }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn ours(&self, args: &[&str]) -> Output {
        assert_cmd::Command::cargo_bin("agent-handover")
            .expect("our binary is built")
            .args(args)
            .current_dir(self.dir.path())
            .env("HOME", self.path("home"))
            .env_remove("AGENT_HANDOVER_CHECKPOINT")
            .output()
            .expect("run our agent-handover")
    }

    fn py(&self, args: &[&str]) -> Output {
        std::process::Command::new(&self.python)
            .args(args)
            .current_dir(self.dir.path())
            .env("HOME", self.path("home"))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env_remove("AGENT_HANDOVER_CHECKPOINT")
            .output()
            .expect("run python agent-handover")
    }

    /// Make `memory/layer2` a regular file, so the current_state step fails in both tools.
    fn block_layer2(&self) {
        let layer2 = self.path("memory/layer2");
        if layer2.is_dir() {
            std::fs::remove_dir_all(&layer2).unwrap();
        }
        std::fs::create_dir_all(self.path("memory")).unwrap();
        std::fs::write(&layer2, "in the way").unwrap();
    }

    fn unblock_layer2(&self) {
        std::fs::remove_file(self.path("memory/layer2")).unwrap();
    }

    fn checkpoint(&self) -> Value {
        let text = std::fs::read_to_string(self.path(".agent-handover/checkpoint.json"))
            .expect("checkpoint exists");
        serde_json::from_str(&text).expect("checkpoint is JSON")
    }

    /// Every file under `memory/`, relative to it, sorted.
    fn memory_files(&self) -> Vec<String> {
        fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, root, out);
                } else {
                    out.push(
                        path.strip_prefix(root)
                            .unwrap()
                            .to_string_lossy()
                            .into_owned(),
                    );
                }
            }
        }
        let mut files = Vec::new();
        walk(&self.path("memory"), &self.path("memory"), &mut files);
        files.sort();
        files
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }
}

fn toml_string(s: &str) -> String {
    serde_json::to_string(s).unwrap() // a JSON string is a valid TOML basic string here
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exited normally")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Assert that a command exited with `expected`, showing its output if not.
#[track_caller]
fn assert_exit(out: &Output, expected: i32, what: &str) {
    assert_eq!(
        code(out),
        expected,
        "{what}: exit code\n--- stdout\n{}\n--- stderr\n{}",
        stdout(out),
        stderr(out)
    );
}

/// `status` of both tools: both exit 0 and print exactly `expected`.
#[track_caller]
fn assert_same_status(p: &Project, expected: &str) {
    let py = p.py(&["status"]);
    let ours = p.ours(&["status"]);
    assert_exit(&py, 0, "python status");
    assert_exit(&ours, 0, "our status");
    assert_eq!(
        stdout(&ours),
        stdout(&py),
        "status output differs (left: ours, right: python)"
    );
    assert_eq!(stdout(&ours), expected);
}

fn steps_map(cp: &Value) -> Value {
    cp["steps"].clone()
}

fn today() -> NaiveDate {
    chrono::Local::now().date_naive()
}

#[test]
fn python_completed_checkpoint_is_completed_for_us() {
    let Some(python) = python_cli() else { return };
    let p = Project::new(python, NOTE);
    let run = p.py(&["run", "--config", "handover.toml"]);
    assert_exit(&run, 0, "python run");
    assert_eq!(
        stdout(&run),
        "handover steps executed: session_note, current_state, publish\n"
    );
    let cp = p.checkpoint();
    assert!(cp.get("schema_version").is_none(), "not a 0.5.1 file: {cp}");
    assert_eq!(cp["status"], "completed");

    assert_exit(&p.py(&["check"]), 2, "python check");
    let ours = p.ours(&["check"]);
    assert_exit(&ours, 2, "our check");
    assert_eq!(
        stdout(&ours),
        "",
        "check prints nothing on stdout, as 0.5.1"
    );
    assert_same_status(&p, STATUS_COMPLETED);
    // Reading it changed nothing.
    assert_eq!(p.checkpoint(), cp);
}

#[test]
fn python_interrupted_checkpoint_is_finished_by_our_run() {
    let Some(python) = python_cli() else { return };
    let p = Project::new(python, NOTE);
    p.block_layer2();
    let run = p.py(&["run", "--config", "handover.toml"]);
    assert_exit(&run, 1, "python run with memory/layer2 blocked");
    assert!(
        stderr(&run).contains("StepError: step 'current_state' failed"),
        "python failed for another reason:\n{}",
        stderr(&run)
    );
    let cp = p.checkpoint();
    assert!(cp.get("schema_version").is_none(), "not a 0.5.1 file: {cp}");
    assert_eq!(cp["status"], "in_progress");
    assert_eq!(
        steps_map(&cp),
        serde_json::json!({"session_note": "done", "current_state": "pending", "publish": "pending"})
    );
    let note_path = format!(
        "memory/layer1/{}/t-{}.md",
        today().format("%Y-%m"),
        today().format("%Y-%m-%d")
    );
    let note_before = p.read(&note_path);

    assert_exit(&p.py(&["check"]), 1, "python check");
    let check = p.ours(&["check"]);
    assert_exit(&check, 1, "our check");
    assert_eq!((stdout(&check).as_str(), stderr(&check).as_str()), ("", ""));
    assert_same_status(&p, STATUS_INTERRUPTED);

    p.unblock_layer2();
    let run = p.ours(&["run", "--config", "handover.toml"]);
    assert_exit(&run, 0, "our run finishing python's handover");
    assert_eq!(
        stdout(&run),
        "handover steps executed: learn, current_state, publish\n"
    );

    // session_note was not redone: still exactly one layer-1 note, unchanged.
    assert_eq!(
        p.memory_files(),
        [
            note_path.strip_prefix("memory/").unwrap().to_string(),
            "layer2/current-state.md".into()
        ]
    );
    assert_eq!(p.read(&note_path), note_before);
    assert_eq!(
        p.read("memory/layer2/current-state.md"),
        format!(
            "<!-- agent-handover | layer2 | {} -->\n{NOTE}",
            today().format("%Y-%m-%d")
        )
    );

    let cp_after = p.checkpoint();
    assert_eq!(cp_after["status"], "completed");
    assert_eq!(
        cp_after["started_at"], cp["started_at"],
        "the adopted run keeps python's start time"
    );
    assert_exit(&p.py(&["check"]), 2, "python check after our run");
    assert_exit(&p.ours(&["check"]), 2, "our check after our run");
    assert_same_status(&p, STATUS_OURS_COMPLETED);
}

#[test]
fn our_interrupted_then_completed_checkpoint_is_read_by_python() {
    let Some(python) = python_cli() else { return };
    let p = Project::new(python, NOTE);
    p.block_layer2();
    let run = p.ours(&["run", "--config", "handover.toml"]);
    assert_exit(&run, 1, "our run with memory/layer2 blocked");
    assert!(
        stderr(&run).contains("step 'current_state' failed"),
        "{}",
        stderr(&run)
    );
    let cp = p.checkpoint();
    assert_eq!(cp["schema_version"], 2);
    assert_eq!(cp["status"], "in_progress");
    assert_eq!(cp["step_records"]["current_state"]["state"], "failed");
    assert_eq!(
        steps_map(&cp),
        serde_json::json!({"session_note": "done", "learn": "done", "current_state": "pending", "publish": "pending"})
    );

    assert_exit(&p.ours(&["check"]), 1, "our check");
    let check = p.py(&["check"]);
    assert_exit(&check, 1, "python check");
    assert_eq!(stdout(&check), "");
    assert_same_status(&p, STATUS_OURS_INTERRUPTED);

    p.unblock_layer2();
    let resume = p.ours(&["resume"]);
    assert_exit(&resume, 0, "our resume");
    assert!(
        stdout(&resume).ends_with("steps executed: current_state, publish\n"),
        "{}",
        stdout(&resume)
    );
    let cp_done = p.checkpoint();
    assert_eq!(cp_done["status"], "completed");
    assert_eq!(cp_done["run_id"], cp["run_id"]);

    assert_exit(&p.ours(&["check"]), 2, "our check");
    assert_exit(&p.py(&["check"]), 2, "python check");
    assert_same_status(&p, STATUS_OURS_COMPLETED);
    assert_eq!(
        p.checkpoint(),
        cp_done,
        "python's check/status must not rewrite the file"
    );
}

#[test]
fn our_abandoned_checkpoint_is_nothing_in_progress_for_python() {
    let Some(python) = python_cli() else { return };
    let p = Project::new(python, NOTE);
    p.block_layer2();
    assert_exit(
        &p.ours(&["run", "--config", "handover.toml"]),
        1,
        "our run with memory/layer2 blocked",
    );
    assert_exit(&p.py(&["check"]), 1, "python check before abandon");

    let abandon = p.ours(&["abandon", "--reason", "interop test"]);
    assert_exit(&abandon, 0, "our abandon");
    let cp = p.checkpoint();
    assert_eq!(cp["status"], "abandoned");
    assert_eq!(cp["abandoned"]["reason"], "interop test");

    assert_exit(&p.ours(&["check"]), 0, "our check after abandon");
    let check = p.py(&["check"]);
    assert_exit(&check, 0, "python check after abandon");
    assert_eq!(stdout(&check), "");
    assert_same_status(
        &p,
        "status: abandoned\n  [x] session_note\n  [x] learn\n  [ ] current_state\n  [ ] publish\n",
    );
}

#[test]
fn python_run_finishes_our_interrupted_checkpoint() {
    let Some(python) = python_cli() else { return };
    let p = Project::new(python, NOTE);
    p.block_layer2();
    assert_exit(
        &p.ours(&["run", "--config", "handover.toml"]),
        1,
        "our run with memory/layer2 blocked",
    );
    let cp = p.checkpoint();
    let run_id = cp["run_id"]
        .as_str()
        .expect("we write a run id")
        .to_string();
    let note_path = cp["step_records"]["session_note"]["output"]
        .as_str()
        .unwrap()
        .to_string();
    let note_before = std::fs::read_to_string(&note_path).unwrap();

    p.unblock_layer2();
    let run = p.py(&["run", "--config", "handover.toml"]);
    assert_exit(&run, 0, "python run resuming ours");
    assert_eq!(
        stdout(&run),
        "handover steps executed: current_state, publish\n"
    );
    assert_eq!(std::fs::read_to_string(&note_path).unwrap(), note_before);
    assert_eq!(p.memory_files().len(), 2, "{:?}", p.memory_files());

    // Python kept our keys and updated its own.
    let cp_py = p.checkpoint();
    assert_eq!(cp_py["status"], "completed");
    assert_eq!(cp_py["schema_version"], 2);
    assert_eq!(cp_py["run_id"], run_id.as_str());
    assert_eq!(cp_py["plan"], cp["plan"]);
    assert_eq!(
        steps_map(&cp_py),
        serde_json::json!({"session_note": "done", "learn": "done", "current_state": "done", "publish": "done"})
    );
    assert!(cp_py["finished_at"].is_string());

    let check = p.ours(&["check"]);
    assert_exit(&check, 2, "our check after python finished our run");
    assert_exit(&p.py(&["check"]), 2, "python check");
    assert_same_status(&p, STATUS_OURS_COMPLETED);

    let json = p.ours(&["status", "--json"]);
    assert_exit(&json, 0, "our status --json");
    let snap: Value =
        serde_json::from_str(&stdout(&json)).expect("status --json is one JSON document");
    assert_eq!(snap["status"], "completed");
    assert_eq!(snap["resume_code"], 2);
    assert_eq!(snap["run_id"], run_id.as_str());
    assert_eq!(snap["pending"], serde_json::json!([]));
    let states: Vec<(&str, &str)> = snap["steps"]
        .as_array()
        .expect("steps array")
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["state"].as_str().unwrap()))
        .collect();
    assert_eq!(
        states,
        [
            ("session_note", "done"),
            ("learn", "done"),
            ("current_state", "done"),
            ("publish", "done")
        ]
    );
}

/// Run both tools in fresh projects with the same inputs; return (python's, ours).
fn write_memory_with_both(python: &Path, note: &str, extra: &[&str]) -> (Project, Project) {
    let py = Project::new(python.to_path_buf(), note);
    let ours = Project::new(python.to_path_buf(), note);
    let args: Vec<&str> = ["run", "--config", "handover.toml"]
        .iter()
        .chain(extra)
        .copied()
        .collect();
    assert_exit(&py.py(&args), 0, "python run");
    assert_exit(&ours.ours(&args), 0, "our run");
    (py, ours)
}

#[test]
fn memory_files_match_python_byte_for_byte() {
    let Some(python) = python_cli() else { return };
    let state = "State: parser done; CLI next.\r\nNo trailing newline — ✓";
    // Retry once if the day changes mid-test (both tools date notes by local time).
    for attempt in 0.. {
        let day = today();
        let (py_a, ours_a) = write_memory_with_both(&python, NOTE, &[]);
        let (py_b, ours_b) = write_memory_with_both(
            &python,
            "from config, ignored",
            &["--note", NOTE, "--current-state", state],
        );
        if today() != day && attempt == 0 {
            continue;
        }
        let ym = day.format("%Y-%m");
        let ymd = day.format("%Y-%m-%d");
        let note_rel = format!("layer1/{ym}/t-{ymd}.md");
        let expected_files = [note_rel.clone(), "layer2/current-state.md".to_string()];
        let note_body = format!("<!-- agent-handover | layer1 | {ymd} -->\n{NOTE}");
        for (py, ours, state_text) in [(&py_a, &ours_a, NOTE), (&py_b, &ours_b, state)] {
            assert_eq!(py.memory_files(), expected_files, "python's memory files");
            assert_eq!(ours.memory_files(), expected_files, "our memory files");
            let note_path = format!("memory/{note_rel}");
            assert_eq!(
                ours.read(&note_path),
                py.read(&note_path),
                "layer-1 note differs (left: ours)"
            );
            assert_eq!(ours.read(&note_path), note_body);
            let state_path = "memory/layer2/current-state.md";
            assert_eq!(
                ours.read(state_path),
                py.read(state_path),
                "layer-2 current state differs (left: ours)"
            );
            assert_eq!(
                ours.read(state_path),
                format!("<!-- agent-handover | layer2 | {ymd} -->\n{state_text}")
            );
        }
        break;
    }
}
