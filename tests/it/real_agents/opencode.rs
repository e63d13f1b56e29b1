//! OpenCode (`opencode-ai` 1.18.33) on the Chat Completions API: the mock
//! is a custom provider in the global config
//! (`$XDG_CONFIG_HOME/opencode/opencode.json`, https://opencode.ai/docs/config),
//! `{"provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "options":
//! {"baseURL", "apiKey"}, "models": {...}}}, "model": "mock/mock"}`
//! (https://opencode.ai/docs/providers, "Custom provider"). Update checks
//! and sharing are off in the config (`autoupdate`, `share`) and by
//! `OPENCODE_DISABLE_AUTOUPDATE` (https://opencode.ai/docs/cli, "Environment
//! variables"), as are LSP downloads (`OPENCODE_DISABLE_LSP_DOWNLOAD`);
//! `OPENCODE_DISABLE_MODELS_FETCH` (a flag the 1.18.33 binary reads) keeps
//! it from fetching the models.dev catalog. Its shell tool is `bash`
//! (`command`, `description`). It works in `$PWD` rather than its working
//! directory when PWD is set (`process.env.PWD ?? process.cwd()` in
//! `run.ts`), which is why the harness sets PWD to the project.
//!
//! Hooks and MCP are what `install opencode` writes: the plugin in
//! `.opencode/plugins/` and the `mcp` entry of `opencode.json`. A project
//! with a local plugin gets `@opencode-ai/plugin` installed into
//! `.opencode/` from the npm registry on its first run
//! (https://opencode.ai/docs/plugins, "Dependencies"), and so does the
//! global config folder: in a test's fresh HOME and project, two installs
//! of 64 MB, about a minute. [`link_plugin_api`] links in the same package,
//! installed once by scripts/agents.sh, where OpenCode would install it; it
//! finds it there and goes on (a user's machine has it after the first run).
//!
//! Two headless ways to run it (https://opencode.ai/docs/cli):
//! - `opencode run MESSAGE`, one-shot: it exits at its session's first
//!   idle, so a request to go on made on that idle would never reach the
//!   model (`packages/opencode/src/cli/cmd/run.ts`); the plugin asks in its
//!   `dispose` hook instead, which the run awaits before it exits;
//! - `opencode serve` with `opencode run --attach URL MESSAGE`: the plugin
//!   runs in the server, which goes on after the attached run exits, so the
//!   request to hand over is answered there. The server is watched through
//!   `GET /session/status` (https://opencode.ai/docs/server).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::real_agents::harness::{
    Mock, Project, next_session_starts_from_it, program, worked_and_handed_over,
};

/// How long a server may take to start, and a handover to finish.
const SERVER_WAIT: Duration = Duration::from_secs(180);

/// OpenCode's global config, in the project's HOME: `mock` is the model.
pub(crate) fn configure(p: &Project, mock: &Mock) {
    let config = json!({
        "$schema": "https://opencode.ai/config.json",
        "provider": {"mock": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Mock model",
            "options": {"baseURL": format!("{}/v1", mock.url()), "apiKey": "mock-key"},
            "models": {"mock": {
                "name": "Mock",
                "tool_call": true,
                "limit": {"context": 200000, "output": 8192},
            }},
        }},
        "model": "mock/mock",
        "autoupdate": false,
        "share": "disabled",
    });
    let dir = p.home.join(".config/opencode");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("opencode.json"), config.to_string()).unwrap();
}

fn quiet_env() -> Vec<(&'static str, String)> {
    vec![
        ("OPENCODE_DISABLE_AUTOUPDATE", "1".into()),
        ("OPENCODE_DISABLE_MODELS_FETCH", "1".into()),
        ("OPENCODE_DISABLE_LSP_DOWNLOAD", "1".into()),
    ]
}

/// The plugin API package (`opencode-plugin` in tests/agents/versions.txt)
/// in each config folder OpenCode loads and would install it into: the
/// global one, and the project's `.opencode/` when there is one. Its
/// `package.json` is the one OpenCode writes, so OpenCode takes it as
/// installed.
fn link_plugin_api(p: &Project) {
    let api = program("opencode-plugin");
    for folder in [p.home.join(".config/opencode"), p.root.join(".opencode")] {
        let global = folder.starts_with(&p.home);
        if (!global && !folder.is_dir()) || folder.join("node_modules").exists() {
            continue;
        }
        std::fs::create_dir_all(&folder).unwrap();
        for file in ["package.json", "package-lock.json"] {
            std::fs::copy(api.join(file), folder.join(file)).unwrap();
        }
        std::os::unix::fs::symlink(api.join("node_modules"), folder.join("node_modules")).unwrap();
    }
}

/// `opencode ARGS`, asserted to succeed.
fn opencode(p: &Project, args: &[&str]) -> Output {
    link_plugin_api(p);
    let out = p.run_agent(&program("opencode"), args, &quiet_env());
    assert!(
        out.status.success(),
        "opencode {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `opencode serve` in the project, killed when dropped.
pub(crate) struct Server {
    url: String,
    child: Child,
}

impl Server {
    pub(crate) fn start(p: &Project) -> Server {
        link_plugin_api(p);
        let log = std::fs::File::create(p.scratch().join("opencode-serve.log")).unwrap();
        let mut child = p
            .command(program("opencode"))
            .args(["serve", "--port", "0", "--print-logs"])
            .envs(quiet_env())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("start opencode serve");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(at) = line.find("http://") {
                    let _ = tx.send(line[at..].trim().to_string());
                }
            }
        });
        let url = rx
            .recv_timeout(SERVER_WAIT)
            .expect("opencode serve says where it listens");
        Server { url, child }
    }

    /// `opencode run --attach URL MESSAGE` (a new session, or with
    /// `--continue` the last one).
    pub(crate) fn run(&self, p: &Project, extra: &[&str], message: &str) -> Output {
        let mut args = vec!["run", "--attach", &self.url];
        args.extend_from_slice(extra);
        args.push(message);
        opencode(p, &args)
    }

    /// `GET /session/status`: the sessions that are not idle.
    fn busy(&self) -> usize {
        let addr = self.url.trim_start_matches("http://").trim_end_matches('/');
        let mut s = TcpStream::connect(addr).expect("connect to opencode serve");
        write!(
            s,
            "GET /session/status HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut reply = String::new();
        s.read_to_string(&mut reply).unwrap();
        let body = reply
            .split_once("\r\n\r\n")
            .map(|(_, b)| b)
            .unwrap_or_default();
        let status: Value = serde_json::from_str(body.trim())
            .unwrap_or_else(|e| panic!("GET /session/status is JSON ({e}): {reply}"));
        status
            .as_object()
            .map(|m| m.values().filter(|s| s["type"] != "idle").count())
            .unwrap_or(0)
    }

    /// Waits until `done` holds and then no session is busy for a few
    /// seconds in a row (a request to go on is made within moments of the
    /// idle it follows).
    pub(crate) fn settle(&self, done: impl Fn() -> bool) {
        let start = Instant::now();
        let mut quiet_since: Option<Instant> = None;
        while start.elapsed() < SERVER_WAIT {
            if done() && self.busy() == 0 {
                let since = *quiet_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= Duration::from_secs(4) {
                    return;
                }
            } else {
                quiet_since = None;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        panic!("opencode serve did not settle within {SERVER_WAIT:?}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first request holding the prompt `MOCK-WORK` has the brief before
/// it (`what` says whose brief, when it does not).
pub(crate) fn brief_before_the_prompt(mock: &Mock, what: &str) {
    let first = first_turn_with(mock, "MOCK-WORK");
    let (brief, prompt) = (
        position(&first, "# Session brief for opencode"),
        position(&first, "MOCK-WORK"),
    );
    assert!(brief.is_some() && brief < prompt, "{what}: {first:#?}");
}

/// The messages of the first agent turn (a request offering tools: not
/// the title OpenCode has the model write) that carried `text`.
fn first_turn_with(mock: &Mock, text: &str) -> Vec<Value> {
    mock.requests()
        .into_iter()
        .filter(|r| r.get("reply").is_some() && r["body"]["tools"].is_array())
        .find(|r| r["body"].to_string().contains(text))
        .and_then(|r| r["body"]["messages"].as_array().cloned())
        .unwrap_or_default()
}

fn position(messages: &[Value], text: &str) -> Option<usize> {
    messages
        .iter()
        .position(|m| m["role"] == "user" && m["content"].to_string().contains(text))
}

#[test]
fn opencode_a_session_that_worked_is_asked_once_and_hands_over_the_models_words() {
    let p = Project::new();
    p.install("opencode");
    let mock = Mock::start(&p.scratch(), &[]);
    configure(&p, &mock);

    let server = Server::start(&p);
    server.run(&p, &[], "MOCK-WORK");
    server.settle(|| p.check() == 2);
    drop(server);

    brief_before_the_prompt(&mock, "the brief reached the model before the prompt");
    assert!(
        mock.requests_with("agent-handover_handover") >= 1,
        "the session offered the agent-handover MCP tools"
    );
    assert!(p.root.join("work.txt").exists(), "the agent did its work");
    worked_and_handed_over(&p, &mock, "opencode");
    next_session_starts_from_it(&p, |next| {
        configure(&p, next);
        let server = Server::start(&p);
        server.run(&p, &[], "Say hello.");
        server.settle(|| true);
    });
}

#[test]
fn opencode_an_idle_first_session_is_never_asked_and_leaves_no_draft() {
    let p = Project::new();
    // install's own files stay uncommitted: they are not the session's work.
    p.install("opencode");
    let mock = Mock::start(&p.scratch(), &[]);
    configure(&p, &mock);

    let server = Server::start(&p);
    server.run(&p, &[], "Say hello.");
    server.settle(|| true);
    drop(server);

    assert!(mock.requests_with("# Session brief for opencode") >= 1);
    assert_eq!(mock.asked(), 0, "{:#?}", mock.replies());
    assert_eq!(p.check(), 0, "no handover was started");
    assert!(p.drafts().is_empty(), "{:?}", p.drafts());
    assert!(p.brief_drafts().is_empty());
}

/// Issue 43: `opencode run` exits at its session's first idle; the plugin
/// asks there, in its `dispose` hook (which OpenCode awaits before the
/// process exits), so the one-shot run is asked once and hands over, and
/// the next one-shot run starts from that handover and is not asked. The
/// plugin passes the session's token use, which `sessions` shows.
#[test]
fn opencode_one_shot_run_is_asked_once_and_hands_over_before_it_exits() {
    let p = Project::new();
    p.install("opencode");
    // Every reply reports 50,000 prompt tokens, of the model's 200,000.
    let mock = Mock::start(&p.scratch(), &[("MOCK_USAGE_TOKENS", "50000")]);
    configure(&p, &mock);

    opencode(&p, &["run", "MOCK-WORK"]);

    brief_before_the_prompt(&mock, "the brief reached the model before the prompt");
    assert!(p.root.join("work.txt").exists(), "the agent did its work");
    worked_and_handed_over(&p, &mock, "opencode");
    // Its context, as the plugin passed it from OpenCode's token counts.
    let out = p.ours(&["sessions", "--json"]);
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let session = &listed["sessions"][0];
    assert_eq!(session["agent"], "opencode", "{listed}");
    assert_eq!(session["context"]["used_tokens"], 50_000, "{listed}");
    assert_eq!(session["context"]["window_tokens"], 200_000, "{listed}");
    assert_eq!(session["context"]["model"], "mock", "{listed}");
    assert_eq!(session["context_percent"], 25, "{listed}");
    next_session_starts_from_it(&p, |next| {
        configure(&p, next);
        opencode(&p, &["run", "Say hello."]);
    });
}

#[test]
fn opencode_keeps_working_without_agent_handover_on_path_and_is_told_why() {
    let mut p = Project::new();
    p.install("opencode");
    p.path_dirs.clear();
    let mock = Mock::start(&p.scratch(), &[]);
    configure(&p, &mock);

    opencode(&p, &["run", "MOCK-WORK"]);

    assert!(p.root.join("work.txt").exists(), "the agent did its work");
    assert!(mock.requests_with("agent-handover is not installed or not on PATH") >= 1);
    assert_eq!(mock.asked(), 0);
}

#[test]
fn opencode_mcp_list_connects_to_agent_handover_mcp() {
    let p = Project::new();
    p.install("opencode");
    let out = opencode(&p, &["mcp", "list"]);
    let ansi = regex::Regex::new(r"\x1b\[[0-9;]*m").unwrap();
    let listing = ansi
        .replace_all(&String::from_utf8_lossy(&out.stdout), "")
        .into_owned();
    let line = listing
        .lines()
        .find(|l| l.contains("agent-handover") && !l.contains("agent-handover mcp"))
        .unwrap_or_else(|| panic!("no agent-handover server listed: {listing}"));
    assert!(line.contains("✓") && line.contains("connected"), "{line}");
    let check = p.ours(&["install", "--check", "opencode"]);
    let said = String::from_utf8_lossy(&check.stdout).to_string()
        + &String::from_utf8_lossy(&check.stderr);
    assert!(check.status.success(), "{said}");
}
