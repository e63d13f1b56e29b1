//! Shared fixture for the integration tests: a temp project with its own
//! HOME, driving the real `agent-handover` binary.

pub mod mcp_client;
pub mod run_states;

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

/// A throwaway project directory.
pub struct Project {
    pub dir: tempfile::TempDir,
}

/// A config with the null backend, tag `t`, and `extra` appended.
pub fn config(extra: &str) -> String {
    format!(
        "[handover]\nmemory_dir = \"memory\"\ntag = \"t\"\n\n[backend]\ntype = \"null\"\n\n{extra}"
    )
}

impl Project {
    /// A new project holding `handover.toml` = `config_text`.
    pub fn new(config_text: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("home")).unwrap();
        std::fs::write(dir.path().join("handover.toml"), config_text).unwrap();
        Project { dir }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// The binary, run in the project with HOME inside it.
    pub fn cmd(&self) -> Command {
        let mut c = Command::cargo_bin("agent-handover").unwrap();
        c.current_dir(self.dir.path())
            .env("HOME", self.path("home"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("AGENT_HANDOVER_CHECKPOINT")
            .env("NO_COLOR", "1");
        c
    }

    /// A `std::process::Command` for the binary (for spawning and killing).
    pub fn std_cmd(&self) -> std::process::Command {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("agent-handover"));
        c.current_dir(self.dir.path())
            .env("HOME", self.path("home"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("AGENT_HANDOVER_CHECKPOINT");
        c
    }

    /// Run `agent-handover <args>` and return its output.
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }

    /// `run --config handover.toml --note <note>`.
    pub fn handover(&self, note: &str) -> Output {
        self.run(&["run", "--config", "handover.toml", "--note", note])
    }

    /// A handover with `note` and the current state read from `file` (a
    /// path in the project).
    pub fn handover_with_state_file(&self, note: &str, file: &str) -> Output {
        self.run(&[
            "run",
            "--config",
            "handover.toml",
            "--note",
            note,
            "--current-state-file",
            file,
        ])
    }

    pub fn checkpoint_path(&self) -> PathBuf {
        self.path(".agent-handover/checkpoint.json")
    }

    pub fn checkpoint_json(&self) -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(self.checkpoint_path()).unwrap()).unwrap()
    }

    /// Exit code of `check`.
    pub fn check(&self) -> i32 {
        self.run(&["check"]).status.code().unwrap()
    }

    /// Every layer-1 note's content, sorted by file name (dotfiles are not notes).
    pub fn notes(&self) -> Vec<(String, String)> {
        let mut notes = Vec::new();
        let root = self.path("memory/layer1");
        for month in read_dir_sorted(&root) {
            for f in read_dir_sorted(&month) {
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                if name.starts_with('.') {
                    continue;
                }
                notes.push((name, std::fs::read_to_string(&f).unwrap()));
            }
        }
        notes
    }

    /// Temp files of our writers (`.<name>.XXXXXX.agent-handover.tmp`) anywhere under `memory/`.
    pub fn memory_litter(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut stack = vec![self.path("memory")];
        while let Some(d) = stack.pop() {
            for e in read_dir_sorted(&d) {
                if e.is_dir() {
                    stack.push(e);
                } else if e
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .ends_with(".agent-handover.tmp")
                {
                    found.push(e);
                }
            }
        }
        found
    }

    pub fn current_state(&self) -> Option<String> {
        std::fs::read_to_string(self.path("memory/layer2/current-state.md")).ok()
    }
}

pub fn read_dir_sorted(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(e) => e.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Today's layer header.
pub fn header(layer: u8) -> String {
    format!(
        "<!-- agent-handover | layer{layer} | {} -->\n",
        chrono::Local::now().format("%Y-%m-%d")
    )
}

/// Parse stdout as JSON.
pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", stdout(o)))
}

/// `git -C dir args...`, asserting success; its stdout, trimmed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let o = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// Wait (up to 20 s) until `cond` holds.
pub fn wait_until(cond: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !cond() {
        assert!(std::time::Instant::now() < deadline, "timed out waiting");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
