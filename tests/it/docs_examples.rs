//! The documentation's examples, run against the real binary: every command
//! of a fenced `sh`, `bash` or `console` block of README.md and docs/*.md that
//! invokes `agent-handover` (docs/testing.md, "The documentation examples").
//!
//! Each block runs in a fresh workspace with its own HOME: the demo's (a
//! completed handover, notes, facts, metrics; a git repository), the same
//! with a handover SIGKILLed halfway (`<!-- docs-test: interrupted -->` above
//! the block), or an empty git repository (`<!-- docs-test: empty -->`). Its
//! commands run in order through `sh`, the binary reached through a shim on
//! PATH that records every invocation's exit code. Each must be a documented
//! code: a usage error (64: an unknown subcommand or flag), a signal or a
//! panic fails, and so does any other code than `# exit N` says. Lines marked
//! `# not run: REASON` are listed in [`NOT_RUN`] and only parsed (`--help`
//! appended). Every `toml` block is a handover.toml the binary accepts
//! without a warning, and every relative link resolves.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use regex::Regex;

/// The exit codes the documents promise (docs/commands.md, "Exit codes");
/// 64, the usage error, is not among them on purpose.
const DOCUMENTED: &[i32] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 74, 78];

/// What the shell says of a process that wrote into a closed pipe: the
/// binary ends quietly by SIGPIPE there, as `cat` does (documented beside
/// the exit codes), e.g. `agent-handover man | man -l -` without `man`.
const CLOSED_PIPE: i32 = 128 + libc::SIGPIPE;

/// The examples the documents mark `# not run:` (file, command without its
/// comment): they need a terminal or a live agent. Each is only parsed,
/// with `--help` appended. A mark added or removed in a document must be
/// added or removed here too.
const NOT_RUN: &[(&str, &str)] = &[
    ("README.md", "agent-handover demo"),
    ("README.md", "agent-handover demo --fleet"),
    ("README.md", "agent-handover dashboard --all"),
    ("docs/agents.md", "agent-handover mcp"),
    ("docs/dashboard.md", "agent-handover dashboard"),
    ("docs/dashboard.md", "agent-handover ui ~/code/parser"),
    (
        "docs/dashboard.md",
        "agent-handover dashboard ~/code/parser ~/code/billing",
    ),
    ("docs/dashboard.md", "agent-handover dashboard --all"),
];

/// Programs a block may use besides agent-handover, to prepare a file or
/// look at one. `cd` is not run: the workspace stands for the directory.
const SETUP: &[&str] = &[
    "printf",
    "echo",
    "cat",
    "mkdir",
    "git",
    "$EDITOR",
    "\"$EDITOR\"",
];

/// How long one command may take.
const TIMEOUT: Duration = Duration::from_secs(120);

/// The workspace a block runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Preset {
    /// `agent-handover demo --tour --dir`: its last handover completed.
    Demo,
    /// The demo with a handover SIGKILLed while its `tests` step ran.
    Interrupted,
    /// An empty git repository, no handover.toml.
    Empty,
}

/// A fenced block of a document.
struct Fence {
    /// The document, relative to the repository (`docs/commands.md`).
    file: String,
    /// The line of its opening fence (1-based).
    line: usize,
    /// Its info string's first word.
    lang: String,
    /// Its lines, with their line numbers.
    body: Vec<(usize, String)>,
    /// The `<!-- docs-test: X -->` directive just above it.
    directive: Option<String>,
}

/// One shell command of a block (one or more lines).
struct Example {
    file: String,
    line: usize,
    /// As written, comments included (what `sh` runs).
    text: String,
    /// Without its comments, whitespace collapsed (what [`NOT_RUN`] holds).
    code: String,
    /// Its first word (after `NAME=value` assignments).
    program: String,
    /// How many times it invokes agent-handover.
    invocations: usize,
    /// `# not run: REASON`.
    not_run: Option<String>,
    /// `# exit N`.
    exit: Option<i32>,
}

impl Example {
    fn at(&self) -> String {
        format!("{}:{}: `{}`", self.file, self.line, self.code)
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and docs/*.md, relative to the repository, sorted.
fn documents() -> Vec<String> {
    let mut docs = vec!["README.md".to_string()];
    let mut pages: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    pages.sort();
    docs.extend(pages);
    docs
}

fn read(file: &str) -> String {
    std::fs::read_to_string(repo().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Every fenced block of `file`.
fn fences(file: &str) -> Vec<Fence> {
    let directive_re = Regex::new(r"^<!--\s*docs-test:\s*(.+?)\s*-->$").unwrap();
    let mut out = Vec::new();
    // The open fence: its backticks, its indentation, the block so far.
    let mut open: Option<(usize, usize, Fence)> = None;
    let mut last_text: Option<String> = None;
    for (i, raw) in read(file).lines().enumerate() {
        let line = raw.trim();
        let ticks = line.chars().take_while(|&c| c == '`').count();
        match open.take() {
            Some((n, _, fence)) if ticks >= n && line[ticks..].trim().is_empty() => {
                out.push(fence);
                last_text = Some(line.to_string());
            }
            Some((n, indent, mut fence)) => {
                let cut = raw.len() - raw.trim_start_matches(' ').len();
                fence.body.push((i + 1, raw[cut.min(indent)..].to_string()));
                open = Some((n, indent, fence));
            }
            None if ticks >= 3 => {
                let directive = last_text
                    .as_deref()
                    .and_then(|t| directive_re.captures(t))
                    .map(|c| c[1].to_string());
                let lang = line[ticks..]
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_string();
                open = Some((
                    ticks,
                    raw.len() - raw.trim_start_matches(' ').len(),
                    Fence {
                        file: file.to_string(),
                        line: i + 1,
                        lang,
                        body: Vec::new(),
                        directive,
                    },
                ));
            }
            None => {
                if !line.is_empty() {
                    last_text = Some(line.to_string());
                }
            }
        }
    }
    assert!(open.is_none(), "{file}: a fence is never closed");
    out
}

/// What a shell scanner sees in a command's text.
struct Scan {
    /// A quote or a trailing backslash is still open: the command goes on.
    open: bool,
    /// The comments (`# ...`, each to the end of its line).
    comments: Vec<String>,
    /// The text without its comments.
    code: String,
    /// The text without comments, quoted text blanked (for finding commands).
    bare: String,
}

fn scan(text: &str) -> Scan {
    #[derive(PartialEq)]
    enum Quote {
        None,
        Single,
        Double,
    }
    let (mut quote, mut trailing) = (Quote::None, false);
    let (mut comments, mut code, mut bare) = (Vec::new(), String::new(), String::new());
    let mut prev = '\n';
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let blank = |c: char| if c == '\n' { '\n' } else { '_' };
        match quote {
            Quote::Single => {
                code.push(c);
                bare.push(if c == '\'' { '\'' } else { blank(c) });
                if c == '\'' {
                    quote = Quote::None;
                }
            }
            Quote::Double => {
                code.push(c);
                bare.push(if c == '"' { '"' } else { blank(c) });
                if c == '\\' {
                    if let Some(n) = chars.next() {
                        code.push(n);
                        bare.push(blank(n));
                    }
                } else if c == '"' {
                    quote = Quote::None;
                }
            }
            Quote::None => match c {
                '\\' => match chars.next() {
                    Some(n) => {
                        code.push(c);
                        code.push(n);
                        bare.push('_');
                        bare.push(if n == '\n' { ' ' } else { '_' });
                    }
                    None => trailing = true,
                },
                '\'' | '"' => {
                    quote = if c == '\'' {
                        Quote::Single
                    } else {
                        Quote::Double
                    };
                    code.push(c);
                    bare.push(c);
                }
                '#' if prev.is_whitespace() || ";&|(".contains(prev) => {
                    let mut comment = String::from("#");
                    while let Some(&n) = chars.peek() {
                        if n == '\n' {
                            break;
                        }
                        comment.push(n);
                        chars.next();
                    }
                    comments.push(comment);
                }
                c => {
                    code.push(c);
                    bare.push(c);
                }
            },
        }
        prev = c;
    }
    Scan {
        open: quote != Quote::None || trailing,
        comments,
        code,
        bare,
    }
}

/// The commands of a shell block (`console`: those after `$ `).
fn examples(fence: &Fence) -> Vec<Example> {
    let invocation = Regex::new(
        r"(?m)(?:^|[;&|(\n]|\$\()\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*agent-handover(?:\s|$)",
    )
    .unwrap();
    let exit_re = Regex::new(r"^#\s*exits?\s+(\d+)\b").unwrap();
    let assignment = Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*=").unwrap();
    let console = fence.lang == "console";
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (n, line) in &fence.body {
        let (start, text) = match pending.take() {
            Some((start, text)) => (start, format!("{text}\n{line}")),
            None => {
                let line = match (console, line.trim_start().strip_prefix("$ ")) {
                    (true, Some(command)) => command,
                    (true, None) => continue,
                    (false, _) => line.as_str(),
                };
                if line.trim().is_empty() || line.trim_start().starts_with('#') {
                    continue;
                }
                (*n, line.to_string())
            }
        };
        let s = scan(&text);
        if s.open {
            pending = Some((start, text));
            continue;
        }
        assert!(
            !s.code.contains("<<"),
            "{}:{start}: heredocs are not supported here",
            fence.file
        );
        let program = s
            .code
            .split_whitespace()
            .find(|w| !assignment.is_match(w))
            .unwrap_or("")
            .to_string();
        let not_run = s
            .comments
            .iter()
            .find_map(|c| c.strip_prefix("# not run:"))
            .map(|r| r.trim().to_string());
        let exit = s
            .comments
            .iter()
            .find_map(|c| exit_re.captures(c))
            .map(|c| c[1].parse().unwrap());
        out.push(Example {
            file: fence.file.clone(),
            line: start,
            code: s.code.split_whitespace().collect::<Vec<_>>().join(" "),
            invocations: invocation.find_iter(&s.bare).count(),
            text,
            program,
            not_run,
            exit,
        });
    }
    assert!(
        pending.is_none(),
        "{}:{}: a command never ends (an open quote?)",
        fence.file,
        fence.line
    );
    out
}

/// A block's examples and the workspace they need; only blocks that invoke
/// agent-handover.
struct Scenario {
    preset: Preset,
    examples: Vec<Example>,
}

fn scenarios() -> Vec<Scenario> {
    let mut out = Vec::new();
    for file in documents() {
        for fence in fences(&file) {
            if !matches!(fence.lang.as_str(), "sh" | "bash" | "console" | "shell") {
                continue;
            }
            let examples = examples(&fence);
            if examples.iter().all(|e| e.invocations == 0) {
                continue;
            }
            let preset = match fence.directive.as_deref() {
                None | Some("demo") => Preset::Demo,
                Some("interrupted") => Preset::Interrupted,
                Some("empty") => Preset::Empty,
                Some(other) => panic!(
                    "{}:{}: unknown docs-test directive {other:?} (demo, interrupted, empty)",
                    fence.file, fence.line
                ),
            };
            out.push(Scenario { preset, examples });
        }
    }
    out
}

/// A block's temporary world: its workspace, HOME, the shim and the log.
struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    ws: PathBuf,
    log: PathBuf,
}

impl World {
    fn new(preset: Preset) -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        for d in ["home", "bin", "tmp"] {
            std::fs::create_dir(root.join(d)).unwrap();
        }
        let shim = "#!/bin/sh\n\
            # Runs the binary the tests built and records its exit code.\n\
            if [ -n \"$DOCS_HELP_ONLY\" ]; then \"$DOCS_REAL_BIN\" \"$@\" --help; else \"$DOCS_REAL_BIN\" \"$@\"; fi\n\
            rc=$?\n\
            printf '%s\\t%s\\n' \"$rc\" \"$(printf '%s' \"$*\" | tr '\\n' ' ')\" >> \"$DOCS_LOG\"\n\
            exit $rc\n";
        // The agent (or you) completing a draft: a sentence over every TODO.
        let editor = "#!/bin/sh\n\
            for f in \"$@\"; do\n\
            \x20 [ -f \"$f\" ] && sed -i 's/TODO:.*/Wired the parser into src\\/cli\\/mod.rs: 90\\/90 tests pass (cargo test --test parser)./' \"$f\"\n\
            done\n\
            exit 0\n";
        for (name, text) in [("agent-handover", shim), ("docs-editor", editor)] {
            let path = root.join("bin").join(name);
            std::fs::write(&path, text).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let world = World {
            ws: root.join("ws"),
            log: root.join("calls.log"),
            root,
            _dir: dir,
        };
        world.prepare(preset);
        world
    }

    /// The environment of every command: a HOME of its own, nothing of the
    /// user's agents or config, the shim first on PATH.
    fn env(&self, c: &mut Command) {
        let path = std::env::var("PATH").unwrap_or_default();
        for var in [
            "XDG_CONFIG_HOME",
            "AGENT_HANDOVER_CHECKPOINT",
            "AGENT_HANDOVER_AGENT",
            "AGENT_HANDOVER_DEMO_SLEEP",
            "AGENT_HANDOVER_DEMO_PASSED",
            "DOCS_HELP_ONLY",
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
            "COPILOT_HOME",
            "GIT_DIR",
            "GIT_WORK_TREE",
        ] {
            c.env_remove(var);
        }
        let editor = self.root.join("bin/docs-editor");
        c.current_dir(&self.ws)
            .env("HOME", self.root.join("home"))
            .env("TMPDIR", self.root.join("tmp"))
            .env(
                "PATH",
                format!("{}:{path}", self.root.join("bin").display()),
            )
            .env(
                "DOCS_REAL_BIN",
                assert_cmd::cargo::cargo_bin("agent-handover"),
            )
            .env("DOCS_LOG", &self.log)
            .env("EDITOR", &editor)
            .env("VISUAL", &editor)
            .env("PAGER", "cat")
            .env("MANPAGER", "cat")
            .env("NO_COLOR", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1");
    }

    /// The real binary (not through the shim), to prepare the workspace.
    fn bin(&self, args: &[&str]) -> Command {
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("agent-handover"));
        self.env(&mut c);
        c.args(args);
        c
    }

    fn git(&self, args: &[&str]) {
        let mut c = Command::new("git");
        self.env(&mut c);
        let out = c.args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
    }

    fn git_repo(&self) {
        self.git(&["init", "-q", "-b", "main"]);
        self.git(&["config", "user.name", "Docs Example"]);
        self.git(&["config", "user.email", "docs@example.invalid"]);
    }

    fn prepare(&self, preset: Preset) {
        if preset == Preset::Empty {
            std::fs::create_dir(&self.ws).unwrap();
            self.git_repo();
            return;
        }
        let mut demo = self.bin(&["demo", "--tour", "--dir"]);
        demo.arg(&self.ws).current_dir(&self.root);
        let out = demo.output().unwrap();
        assert!(out.status.success(), "demo --tour: {}", text(&out.stderr));
        std::fs::write(self.ws.join(".gitignore"), "/.agent-handover/\n/home/\n").unwrap();
        self.git_repo();
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", "the demo project"]);
        if preset == Preset::Interrupted {
            self.interrupt();
        }
    }

    /// A handover SIGKILLed while its `tests` step runs (the demo's step
    /// sleeps as long as AGENT_HANDOVER_DEMO_SLEEP says).
    fn interrupt(&self) {
        let mut run = self.bin(&[
            "run",
            "--note",
            "## Next step\nWire the CLI to the new parser",
        ]);
        run.env("AGENT_HANDOVER_DEMO_SLEEP", "60")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = run.spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let out = self.bin(&["--json", "status"]).output().unwrap();
            let running = serde_json::from_slice::<serde_json::Value>(&out.stdout)
                .ok()
                .and_then(|v| {
                    v["steps"].as_array().map(|steps| {
                        steps
                            .iter()
                            .any(|s| s["name"] == "tests" && s["state"] == "running")
                    })
                })
                .unwrap_or(false);
            if running {
                break;
            }
            assert!(Instant::now() < deadline, "the tests step never started");
            std::thread::sleep(Duration::from_millis(20));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        // The step's process group is ended by its watcher; until it is,
        // `resume` and `abandon` would rightly say busy.
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.live_step_groups() {
            assert!(
                Instant::now() < deadline,
                "the killed step's processes live on"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.bin(&["check"]).output().unwrap().status.code() != Some(1) {
            assert!(Instant::now() < deadline, "check never said interrupted");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether a process of a recorded step group still lives.
    fn live_step_groups(&self) -> bool {
        let dir = self.ws.join(".agent-handover/groups");
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                std::fs::read_to_string(e.path())
                    .ok()
                    .and_then(|t| t.trim().parse::<i32>().ok())
                    // SAFETY: signal 0 only asks whether the group exists.
                    .is_some_and(|pgid| unsafe { libc::kill(-pgid, 0) } == 0)
            })
    }

    /// The invocations logged so far: (exit code, arguments).
    fn calls(&self) -> Vec<(i32, String)> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let (rc, args) = l.split_once('\t').unwrap_or((l, ""));
                (rc.parse().unwrap_or(-1), args.to_string())
            })
            .collect()
    }

    /// `sh -c text` in the workspace, killed (its whole group) after TIMEOUT.
    fn sh(&self, text: &str, help_only: bool) -> Output {
        let mut c = Command::new("sh");
        self.env(&mut c);
        c.arg("-c")
            .arg(text)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if help_only {
            c.env("DOCS_HELP_ONLY", "1");
        }
        let child = c.spawn().unwrap();
        let pid = child.id() as i32;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait_with_output());
        });
        match rx.recv_timeout(TIMEOUT) {
            Ok(out) => out.unwrap(),
            Err(_) => {
                // SAFETY: kill(2) on the process group this test started.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
                panic!("timed out after {TIMEOUT:?}: {text}");
            }
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Run one example; what is wrong with it, if anything.
fn run(world: &World, e: &Example) -> Vec<String> {
    let before = world.calls().len();
    let out = world.sh(&e.text, e.not_run.is_some());
    let calls: Vec<(i32, String)> = world.calls().split_off(before);
    let said = || {
        format!(
            "stdout: {}\nstderr: {}",
            text(&out.stdout),
            text(&out.stderr)
        )
    };
    let mut wrong = Vec::new();
    if e.invocations == 0 {
        if !out.status.success() {
            wrong.push(format!("{}: the setup command failed\n{}", e.at(), said()));
        }
        return wrong;
    }
    if calls.is_empty() {
        wrong.push(format!(
            "{}: agent-handover was never reached\n{}",
            e.at(),
            said()
        ));
    }
    let stderr = text(&out.stderr);
    for (rc, args) in &calls {
        if e.not_run.is_some() {
            if *rc != 0 {
                wrong.push(format!(
                    "{}: `agent-handover {args}` does not parse (exit {rc})\n{}",
                    e.at(),
                    said()
                ));
            }
        } else if *rc == 64 {
            wrong.push(format!(
                "{}: `agent-handover {args}` is a usage error (exit 64: a subcommand or flag that does not exist?)\n{}",
                e.at(),
                said()
            ));
        } else if !DOCUMENTED.contains(rc) && *rc != CLOSED_PIPE {
            wrong.push(format!(
                "{}: `agent-handover {args}` exited {rc}, not a documented code (a crash or a signal?)\n{}",
                e.at(),
                said()
            ));
        }
    }
    if stderr.contains("panicked at") {
        wrong.push(format!("{}: a panic\n{}", e.at(), said()));
    }
    if let Some(want) = e.exit {
        assert_eq!(
            e.invocations,
            1,
            "{}: `# exit N` on a line with several agent-handover commands is ambiguous",
            e.at()
        );
        if let Some((rc, args)) = calls.last()
            && *rc != want
        {
            wrong.push(format!(
                "{}: `agent-handover {args}` exited {rc}; the document says {want}\n{}",
                e.at(),
                said()
            ));
        }
    }
    wrong
}

#[test]
fn every_command_example_runs_with_a_documented_exit_code() {
    let scenarios = scenarios();
    let mut wrong = Vec::new();
    let (mut ran, mut setup, mut not_run) = (0, 0, Vec::new());
    for s in &scenarios {
        for e in &s.examples {
            if e.invocations > 0 || e.not_run.is_some() || e.program == "cd" {
                continue;
            }
            if !SETUP.contains(&e.program.as_str()) {
                wrong.push(format!(
                    "{}: `{}` is not a program this test prepares a workspace with ({SETUP:?}); mark the line `# not run: REASON` or move it out of the block",
                    e.at(),
                    e.program
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    for s in &scenarios {
        let world = World::new(s.preset);
        for e in &s.examples {
            if e.program == "cd" && e.invocations == 0 {
                continue;
            }
            if e.invocations == 0 && e.not_run.is_some() {
                continue;
            }
            wrong.extend(run(&world, e));
            match (&e.not_run, e.invocations) {
                (Some(reason), _) => not_run.push((e.file.clone(), e.code.clone(), reason.clone())),
                (None, 0) => setup += 1,
                (None, _) => ran += 1,
            }
        }
    }
    eprintln!(
        "docs examples: {ran} run in {} blocks (and {setup} setup commands); {} not run, only parsed with --help:",
        scenarios.len(),
        not_run.len()
    );
    for (file, code, reason) in &not_run {
        eprintln!("  {file}: {code}  ({reason})");
    }
    let marked: BTreeSet<(String, String)> = not_run
        .iter()
        .map(|(f, c, _)| (f.clone(), c.clone()))
        .collect();
    let listed: BTreeSet<(String, String)> = NOT_RUN
        .iter()
        .map(|(f, c)| (f.to_string(), c.to_string()))
        .collect();
    if marked != listed || not_run.len() != NOT_RUN.len() {
        wrong.push(format!(
            "the examples marked `# not run:` in the documents differ from NOT_RUN in this test: marked but not listed {:?}, listed but not marked {:?} (or one is marked twice)",
            marked.difference(&listed).collect::<Vec<_>>(),
            listed.difference(&marked).collect::<Vec<_>>()
        ));
    }
    if ran < 80 {
        wrong.push(format!(
            "only {ran} examples ran: is the extraction broken?"
        ));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn every_toml_example_is_a_handover_toml_the_binary_accepts() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for file in documents() {
        for fence in fences(&file) {
            if fence.lang != "toml" || fence.directive.as_deref() == Some("not a handover.toml") {
                continue;
            }
            let world = World::new(Preset::Empty);
            let body: Vec<&str> = fence.body.iter().map(|(_, l)| l.as_str()).collect();
            std::fs::write(world.ws.join("handover.toml"), body.join("\n") + "\n").unwrap();
            let out = world
                .bin(&["status", "--config", "handover.toml"])
                .output()
                .unwrap();
            let stderr = text(&out.stderr);
            let rc = out.status.code().unwrap_or(-1);
            if !matches!(rc, 0..=2) || stderr.contains("warning") {
                wrong.push(format!(
                    "{file}:{}: the binary does not take it as a handover.toml (exit {rc}): {stderr}",
                    fence.line
                ));
            }
            checked += 1;
        }
    }
    assert!(checked >= 3, "only {checked} toml blocks found");
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces
/// as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of `file`'s headings (outside code blocks).
fn anchors(file: &str) -> BTreeSet<String> {
    let mut inside = false;
    let mut out = BTreeSet::new();
    for line in read(file).lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
        } else if !inside && line.starts_with('#') {
            out.insert(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

#[test]
fn links_resolve_and_the_readme_links_every_page() {
    let link = Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut wrong = Vec::new();
    let mut linked = BTreeSet::new();
    let docs = documents();
    for file in &docs {
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        let mut inside = false;
        let mut to_pages = 0;
        for (i, line) in read(file).lines().enumerate() {
            if line.trim_start().starts_with("```") {
                inside = !inside;
                continue;
            }
            if inside {
                continue;
            }
            for c in link.captures_iter(line) {
                let target = &c[1];
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
                let resolved = if path.is_empty() {
                    PathBuf::from(file)
                } else {
                    normalize(&dir.join(path))
                };
                let name = resolved.to_string_lossy().into_owned();
                if !repo().join(&resolved).exists() {
                    wrong.push(format!("{file}:{}: {target}: no such file", i + 1));
                    continue;
                }
                if name.starts_with("docs/") && name.ends_with(".md") && name != *file {
                    to_pages += 1;
                    if file == "README.md" {
                        linked.insert(name.clone());
                    }
                }
                if !fragment.is_empty()
                    && name.ends_with(".md")
                    && !anchors(&name).contains(fragment)
                {
                    wrong.push(format!("{file}:{}: {target}: no such heading", i + 1));
                }
            }
        }
        if file.starts_with("docs/") && to_pages == 0 {
            wrong.push(format!("{file}: links to no other page of docs/"));
        }
    }
    for page in docs.iter().filter(|d| d.starts_with("docs/")) {
        if !linked.contains(page) {
            wrong.push(format!("README.md does not link {page}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `a/../b` as `b` (the documents link with `..`).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}
