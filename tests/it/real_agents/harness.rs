//! What every real-agent scenario shares: the agent programs from the
//! cache (`scripts/agents.sh`), the mock model server
//! (`tests/agents/mock_model`), and a throwaway project with its own HOME
//! in which an agent is installed and run.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

/// How long one agent program may run before it is killed.
pub const RUN_TIMEOUT_SECS: u32 = 240;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Our binary, as cargo built it for the tests.
pub fn own_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_agent-handover"))
}

/// The command of the agent program `name` (as tests/agents/versions.txt
/// names it), installed into the cache on first use.
pub fn program(name: &str) -> PathBuf {
    static INSTALLED: OnceLock<Vec<(String, PathBuf)>> = OnceLock::new();
    let all = INSTALLED.get_or_init(|| {
        let out = Command::new("bash")
            .arg(repo().join("scripts/agents.sh"))
            .stderr(Stdio::inherit())
            .output()
            .expect("run scripts/agents.sh");
        assert!(
            out.status.success(),
            "scripts/agents.sh could not install the agent programs (it needs npm and python3 with the registries reachable)"
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(n, p)| (n.to_string(), PathBuf::from(p)))
            .collect()
    });
    all.iter()
        .find(|(n, _)| n == name)
        .map(|(_, p)| p.clone())
        .unwrap_or_else(|| panic!("{name} is not in tests/agents/versions.txt"))
}

/// The mock model server, killed when dropped.
pub struct Mock {
    /// The port it listens on, on 127.0.0.1.
    pub port: u16,
    log: PathBuf,
    child: Child,
}

impl Mock {
    /// Starts a mock whose request log lives in `dir`; `env` is passed to
    /// it (e.g. `MOCK_USAGE_TOKENS`).
    pub fn start(dir: &Path, env: &[(&str, &str)]) -> Mock {
        use std::io::BufRead;
        let log = dir.join("mock-requests.jsonl");
        let mut child = Command::new("python3")
            .arg(repo().join("tests/agents/mock_model"))
            .arg("--log")
            .arg(&log)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start python3 tests/agents/mock_model");
        let mut first = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .expect("read the mock's port");
        let port = first
            .trim()
            .strip_prefix("port ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("the mock model did not say its port: {first:?}"));
        Mock { port, log, child }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request it got, in order, each as it logged it (`method`,
    /// `path`, `body`, `status`, and the `reply` it chose).
    pub fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("a logged request is JSON"))
            .collect()
    }

    /// The replies it chose (`{"text"}` or `{"command"}`), in order.
    pub fn replies(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter_map(|r| r.get("reply").cloned())
            .collect()
    }

    /// How many model requests carried `text` anywhere in their body.
    pub fn requests_with(&self, text: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.get("reply").is_some() && r["body"].to_string().contains(text))
            .count()
    }

    /// How many times the model was asked to hand over and followed it
    /// (its reply reads the draft it was pointed to).
    pub fn asked(&self) -> usize {
        self.replies()
            .iter()
            .filter(|r| {
                r["command"].as_str().is_some_and(|c| {
                    c.starts_with("cat ") && !c.contains('\n') && c.contains("drafts/")
                })
            })
            .count()
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A git project in a temporary folder with its own HOME beside it.
pub struct Project {
    _dir: tempfile::TempDir,
    /// The project's root (a git repository with one commit).
    pub root: PathBuf,
    /// HOME for every program run here.
    pub home: PathBuf,
    /// Directories put first on PATH (our binary's, unless taken off).
    pub path_dirs: Vec<PathBuf>,
}

impl Project {
    /// A fresh project with a README committed, our binary on PATH.
    pub fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let p = Project {
            _dir: dir,
            root,
            home,
            path_dirs: vec![own_binary().parent().unwrap().to_path_buf()],
        };
        p.git(&["init", "-q", "-b", "main"]);
        std::fs::write(p.root.join("README.md"), "# demo\n").unwrap();
        p.git(&["add", "-A"]);
        p.git(&["commit", "-q", "-m", "init"]);
        p
    }

    /// The folder the test's logs (the mock's among them) go in.
    pub fn scratch(&self) -> PathBuf {
        self.root.parent().unwrap().to_path_buf()
    }

    /// PATH for programs run here.
    pub fn path_var(&self) -> String {
        let mut dirs: Vec<PathBuf> = self.path_dirs.clone();
        dirs.extend(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .filter(|d| !d.join("agent-handover").exists()),
        );
        std::env::join_paths(dirs).unwrap().into_string().unwrap()
    }

    /// A command run in the project with this project's HOME and PATH
    /// (XDG folders inside HOME).
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(program);
        // Nothing of the developer's environment but the locale and the
        // temp folder: a provider variable (CLAUDE_CODE_USE_BEDROCK,
        // GOOGLE_GENAI_USE_VERTEXAI, GH_TOKEN, OPENCODE_CONFIG, ...) could
        // send a test's prompts, with real credentials, somewhere other than
        // the mock.
        c.env_clear();
        for kept in ["LANG", "LC_ALL", "TMPDIR", "TERM"] {
            if let Some(value) = std::env::var_os(kept) {
                c.env(kept, value);
            }
        }
        c.current_dir(&self.root)
            // As a shell would: some agents (OpenCode) take PWD over the
            // working directory, and the test's own PWD is the repository.
            .env("PWD", &self.root)
            .env("HOME", &self.home)
            .env("PATH", self.path_var())
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("XDG_STATE_HOME", self.home.join(".local/state"))
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("GIT_AUTHOR_NAME", "mock")
            .env("GIT_AUTHOR_EMAIL", "mock@example.com")
            .env("GIT_COMMITTER_NAME", "mock")
            .env("GIT_COMMITTER_EMAIL", "mock@example.com")
            .stdin(Stdio::null());
        c
    }

    /// Runs git here, asserting it worked.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.command("git").args(args).output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs agent-handover here, returning its output.
    pub fn ours(&self, args: &[&str]) -> Output {
        self.command(own_binary()).args(args).output().unwrap()
    }

    /// `agent-handover install AGENT`, asserting it worked.
    pub fn install(&self, agent: &str) {
        let out = self.ours(&["install", agent]);
        assert!(
            out.status.success(),
            "install {agent}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// `agent-handover check`'s exit code: 0 nothing yet, 1 interrupted,
    /// 2 completed.
    pub fn check(&self) -> i32 {
        self.ours(&["check"]).status.code().unwrap()
    }

    /// The memory folder, where `status --json` says it is (install keeps
    /// a git project's memory on the repository's own ref).
    pub fn memory_dir(&self) -> PathBuf {
        let out = self.ours(&["status", "--json"]);
        let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "status --json: {e}: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        PathBuf::from(
            status["memory"]["dir"]
                .as_str()
                .expect("the memory's folder"),
        )
    }

    /// The session notes written so far (layer 1), their texts.
    pub fn notes(&self) -> Vec<String> {
        let mut found = Vec::new();
        let layer1 = self.memory_dir().join("layer1");
        for month in std::fs::read_dir(&layer1).into_iter().flatten().flatten() {
            for note in std::fs::read_dir(month.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                found.push(std::fs::read_to_string(note.path()).unwrap());
            }
        }
        found
    }

    /// The drafts waiting in .agent-handover/drafts.
    pub fn drafts(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.root.join(".agent-handover/drafts"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect()
    }

    /// The drafts `agent-handover brief` points the next session to.
    pub fn brief_drafts(&self) -> Vec<PathBuf> {
        let out = self.ours(&["brief", "--json"]);
        let brief: Value = serde_json::from_slice(&out.stdout).expect("brief --json is JSON");
        let text = brief["next_steps"].to_string();
        regex::Regex::new(r"\.agent-handover/drafts/[^\s`'\\]+\.md")
            .unwrap()
            .find_iter(&text)
            .map(|m| self.root.join(m.as_str()))
            .collect()
    }

    /// Runs an agent program here under a timeout, with `env` added.
    pub fn run_agent(&self, program: &Path, args: &[&str], env: &[(&str, String)]) -> Output {
        let mut c = self.command("timeout");
        c.arg("--kill-after=5")
            .arg(RUN_TIMEOUT_SECS.to_string())
            .arg(program)
            .args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert_ne!(
            out.status.code(),
            Some(124),
            "{} timed out after {RUN_TIMEOUT_SECS} s; stderr: {}",
            program.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
}

/// The words the progress hook tells an agent with when its context runs low.
pub const CAPACITY_LOW: &str = "context capacity low";

/// What the session records of `p` say they were told of their context.
pub fn capacity_told(p: &Project) -> Vec<String> {
    let dir = p.root.join(".agent-handover/sessions");
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .flat_map(|e| {
            let record: Value =
                serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
            record["capacity_told"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|t| t.as_str().unwrap().to_string())
        })
        .collect()
}

/// A session driven past `[capacity] warn_at` (75 %) by the mock's usage:
/// told once how full (`how_full`, as measured), in the conversation once;
/// it followed the words and handed over, so the stop asked nothing more.
pub fn told_once_then_handed_over(p: &Project, mock: &Mock, how_full: &str) {
    let requests = mock.requests();
    let last = requests
        .iter()
        .rev()
        .find(|r| r.get("reply").is_some())
        .expect("the model was asked");
    assert_eq!(
        last["body"].to_string().matches(CAPACITY_LOW).count(),
        1,
        "told exactly once in the conversation"
    );
    assert!(
        mock.requests_with(how_full) >= 1,
        "told {how_full:?}, as measured"
    );
    assert_eq!(capacity_told(p), ["75%"]);
    assert_eq!(
        mock.asked(),
        1,
        "it handed over on being told, and the stop then asked nothing: {:#?}",
        mock.replies()
    );
    assert_eq!(p.check(), 2);
    assert!(p.notes()[0].contains("MOCK-NOTE 1:"));
}

/// A session below the threshold: never told of its context.
pub fn never_told(p: &Project, mock: &Mock) {
    assert_eq!(mock.requests_with(CAPACITY_LOW), 0);
    assert!(capacity_told(p).is_empty());
}

/// After a session that worked (prompt `MOCK-WORK`): the brief reached the
/// model, it was asked to hand over exactly once, and its handover
/// completed (`check` 2) with the model's words and none of the draft's own
/// instructions; the brief points to no draft.
pub fn worked_and_handed_over(p: &Project, mock: &Mock, agent: &str) {
    assert!(
        mock.requests_with(&format!("# Session brief for {agent}")) >= 1,
        "the brief reached the model"
    );
    assert_eq!(
        mock.asked(),
        1,
        "asked to hand over exactly once: {:#?}",
        mock.replies()
    );
    assert_eq!(p.check(), 2, "the handover completed");
    let notes = p.notes();
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].contains("MOCK-NOTE 1:"),
        "the note holds the model's words: {}",
        notes[0]
    );
    assert!(
        !notes[0].contains("TODO") && !notes[0].contains("Drafted by"),
        "neither a TODO nor the draft's own instructions are handed over: {}",
        notes[0]
    );
    assert!(
        p.brief_drafts().is_empty(),
        "the brief points to no draft after the handover"
    );
}

/// The next session, run by `run` against a fresh mock with an idle prompt,
/// starts from that handover (its brief carries the model's words, and no
/// drafting instructions) and, doing nothing, is not asked again.
pub fn next_session_starts_from_it(p: &Project, run: impl FnOnce(&Mock)) {
    let next_dir = p.scratch().join("next");
    std::fs::create_dir_all(&next_dir).unwrap();
    let next = Mock::start(&next_dir, &[]);
    run(&next);
    assert!(
        next.requests_with("MOCK-NOTE 1:") >= 1,
        "the next brief carries the handover"
    );
    assert_eq!(
        next.requests_with("Replace every TODO"),
        0,
        "no drafting instructions reach the next session"
    );
    assert_eq!(next.asked(), 0, "{:#?}", next.replies());
}

/// After an idle first session (install's own files uncommitted): the
/// brief reached the model, it was never asked, no handover was started
/// and no draft is left or pointed to.
pub fn idle_and_never_asked(p: &Project, mock: &Mock, agent: &str) {
    assert!(mock.requests_with(&format!("# Session brief for {agent}")) >= 1);
    assert_eq!(mock.asked(), 0, "{:#?}", mock.replies());
    assert_eq!(p.check(), 0, "no handover was started");
    assert!(p.drafts().is_empty(), "{:?}", p.drafts());
    assert!(p.brief_drafts().is_empty());
}

/// After a session with agent-handover off PATH: the agent did its work,
/// the model was told why there is no brief, and nothing asked.
pub fn worked_without_the_binary(p: &Project, mock: &Mock) {
    assert!(p.root.join("work.txt").exists(), "the agent did its work");
    assert!(mock.requests_with("agent-handover is not installed or not on PATH") >= 1);
    assert_eq!(mock.asked(), 0);
}
