//! OpenAI Codex CLI (`@openai/codex` 0.169.0), headless (`codex exec
//! --json`, https://developers.openai.com/codex/noninteractive), on the
//! Responses API through a custom model provider in
//! `$CODEX_HOME/config.toml` (`[model_providers.<id>]` with `base_url`,
//! `env_key`, `wire_api = "responses"`:
//! https://developers.openai.com/codex/config-advanced, "Custom model
//! providers"; `check_for_update_on_startup`, `[analytics] enabled`:
//! https://developers.openai.com/codex/config-reference). Every run passes
//! `--strict-config`, so a key this version does not know fails the run
//! instead of being ignored.
//!
//! Hooks and MCP are what `install codex` writes (`.codex/hooks.json`,
//! `.codex/config.toml`). Codex loads a project's `.codex/` only in a
//! trusted project, `[projects."<dir>"] trust_level = "trusted"` in
//! `$CODEX_HOME/config.toml` (https://developers.openai.com/codex/config-advanced,
//! project config; read back by `src/agent/adapters/trust.rs`), and runs a
//! non-managed hook only once it is reviewed
//! (https://developers.openai.com/codex/hooks): the review is done the way
//! Codex's own `/hooks` screen does it, through `codex app-server`
//! (`hooks/list` gives each hook's `currentHash`, `config/batchWrite`
//! stores it as `[hooks.state."<key>"] trusted_hash`; the protocol as
//! `codex app-server generate-json-schema` prints it for 0.169.0).
//!
//! The sandbox is `danger-full-access`: the handover publishes into
//! `.git`, which Codex's `workspace-write` sandbox keeps read-only
//! (https://developers.openai.com/codex/concepts/sandboxing), so there the
//! model's `agent-handover run` fails at its publish step.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::real_agents::harness::{
    Mock, Project, idle_and_never_asked, next_session_starts_from_it, own_binary, program,
    told_once_then_handed_over, worked_and_handed_over, worked_without_the_binary,
};

/// `$CODEX_HOME`, inside the project's HOME.
fn codex_home(p: &Project) -> PathBuf {
    p.home.join(".codex")
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// `codex exec --json PROMPT` against `mock`, its events (JSONL on
/// stdout). Every run is checked to have reported no hook problem: Codex
/// reports a hook it clamps, skips or cannot load as an `error` item.
fn codex(p: &Project, mock: &Mock, prompt: &str) -> Vec<Value> {
    let base_url = format!(
        "model_providers.mock.base_url={}",
        toml_str(&format!("{}/v1", mock.url()))
    );
    let out = p.run_agent(
        &program("codex"),
        &[
            "exec",
            "--json",
            "--strict-config",
            "--sandbox",
            "danger-full-access",
            "-c",
            &base_url,
            prompt,
        ],
        &[
            ("CODEX_HOME", codex_home(p).display().to_string()),
            ("MOCK_API_KEY", "mock-key".into()),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "codex exec {prompt:?}: {stderr}");
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).expect("codex exec --json prints JSON lines"))
        .collect();
    assert!(
        events.iter().any(|e| e["type"] == "turn.completed"),
        "the turn completed: {events:#?}\n{stderr}"
    );
    let hook_errors: Vec<&Value> = events
        .iter()
        .filter(|e| {
            e["item"]["type"] == "error"
                && e["item"]["message"]
                    .as_str()
                    .is_some_and(|m| m.to_lowercase().contains("hook"))
        })
        .collect();
    assert!(
        hook_errors.is_empty(),
        "Codex reported a problem with the hooks (e.g. the SessionEnd timeout clamped to 3 s): {hook_errors:#?}"
    );
    events
}

/// One JSON-RPC exchange after another with `codex app-server` on stdio.
struct AppServer {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl AppServer {
    fn start(p: &Project) -> AppServer {
        let mut child = p
            .command(program("codex"))
            .arg("app-server")
            .env("CODEX_HOME", codex_home(p))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start codex app-server");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = AppServer {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        server.call(
            "initialize",
            json!({"clientInfo": {"name": "agent-handover-tests", "title": null, "version": "0"}}),
        );
        server.send(json!({"method": "initialized"}));
        server
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").expect("write to codex app-server");
        self.stdin.flush().unwrap();
    }

    /// The result of `method`, notifications in between skipped.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"method": method, "id": id, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|e| panic!("codex app-server did not answer {method}: {e}"));
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message["id"] == id {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].clone();
            }
        }
    }

    /// The hooks Codex discovers for the project.
    fn hooks(&mut self, p: &Project) -> Vec<Value> {
        let root = p.root.canonicalize().unwrap();
        let listed = self.call("hooks/list", json!({"cwds": [root]}));
        listed["data"][0]["hooks"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

impl Drop for AppServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The provider pointing at the mock (its port given per run), no update
/// check or analytics, and the project trusted, as Codex records it; then
/// the project's hooks reviewed and trusted through Codex's own
/// app-server, as its `/hooks` screen does.
fn trust(p: &Project) {
    let root = p.root.canonicalize().unwrap();
    std::fs::create_dir_all(codex_home(p)).unwrap();
    let config = format!(
        r#"model = "mock-model"
model_provider = "mock"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.mock]
name = "mock model"
base_url = "http://127.0.0.1:9/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"

[projects.{}]
trust_level = "trusted"
"#,
        toml_str(&root.to_string_lossy())
    );
    std::fs::write(codex_home(p).join("config.toml"), config).unwrap();

    let mut server = AppServer::start(p);
    let hooks = server.hooks(p);
    let mut events: Vec<&str> = hooks
        .iter()
        .filter_map(|h| h["eventName"].as_str())
        .collect();
    events.sort_unstable();
    assert_eq!(
        events,
        [
            "postToolUse",
            "preCompact",
            "sessionEnd",
            "sessionStart",
            "stop",
            "userPromptSubmit"
        ],
        "Codex discovers the hooks install wrote: {hooks:#?}"
    );
    let state: serde_json::Map<String, Value> = hooks
        .iter()
        .map(|h| {
            (
                h["key"].as_str().unwrap().to_string(),
                json!({"trusted_hash": h["currentHash"]}),
            )
        })
        .collect();
    server.call(
        "config/batchWrite",
        json!({"edits": [{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": state}]}),
    );
    let hooks = server.hooks(p);
    assert!(
        hooks.iter().all(|h| h["trustStatus"] == "trusted"),
        "every hook is trusted now: {hooks:#?}"
    );
}

/// Whether the first model request offered the agent-handover MCP server's
/// `handover` tool: Codex started `agent-handover mcp` and listed its
/// tools (it offers MCP tools as the namespace `mcp__<server>`).
fn offers_mcp_handover(mock: &Mock) -> bool {
    mock.requests()
        .iter()
        .filter(|r| r.get("reply").is_some())
        .take(1)
        .any(|r| {
            r["body"]["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|t| {
                    t["name"] == "mcp__agent_handover"
                        && t["tools"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .any(|f| f["name"] == "handover")
                })
        })
}

#[test]
fn codex_a_session_that_worked_is_asked_once_and_hands_over_the_models_words() {
    let p = Project::new();
    p.install("codex");
    trust(&p);
    let mock = Mock::start(&p.scratch(), &[]);

    codex(&p, &mock, "MOCK-WORK");

    assert!(
        offers_mcp_handover(&mock),
        "the session offered the agent-handover MCP tools"
    );
    worked_and_handed_over(&p, &mock, "codex");
    next_session_starts_from_it(&p, |next| {
        codex(&p, next, "Say hello.");
    });
}

#[test]
fn codex_an_idle_first_session_is_never_asked_and_leaves_no_draft() {
    let p = Project::new();
    // install's own files stay uncommitted: they are not the session's work.
    p.install("codex");
    trust(&p);
    let mock = Mock::start(&p.scratch(), &[]);

    codex(&p, &mock, "Say hello.");

    idle_and_never_asked(&p, &mock, "codex");
}

#[test]
fn codex_keeps_working_without_agent_handover_on_path_and_is_told_why() {
    let mut p = Project::new();
    p.install("codex");
    trust(&p);
    p.path_dirs.clear();
    let mock = Mock::start(&p.scratch(), &[]);

    codex(&p, &mock, "MOCK-WORK");

    worked_without_the_binary(&p, &mock);
}

#[test]
fn codex_mcp_list_shows_agent_handover_mcp_and_a_session_connects_to_it() {
    let p = Project::new();
    p.install("codex");
    trust(&p);

    // `codex mcp list` reads the configuration only (it starts no server).
    let out = p.run_agent(
        &program("codex"),
        &["mcp", "list", "--json"],
        &[("CODEX_HOME", codex_home(&p).display().to_string())],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listing: Value =
        serde_json::from_slice(&out.stdout).expect("codex mcp list --json is JSON");
    let server = listing
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["name"] == "agent-handover")
        .unwrap_or_else(|| panic!("no agent-handover server listed: {listing:#}"));
    assert_eq!(server["enabled"], true, "{server:#}");
    assert_eq!(
        server["transport"]["command"], "agent-handover",
        "{server:#}"
    );
    assert_eq!(server["transport"]["args"], json!(["mcp"]), "{server:#}");

    // A session connects: its model request offers the server's tools.
    let mock = Mock::start(&p.scratch(), &[]);
    codex(&p, &mock, "Say hello.");
    assert!(
        offers_mcp_handover(&mock),
        "{:#?}",
        mock.requests().first().map(|r| &r["body"]["tools"])
    );

    let check = p
        .command(own_binary())
        .args(["install", "--check", "codex"])
        .env("CODEX_HOME", codex_home(&p))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&check.stdout).to_string()
        + &String::from_utf8_lossy(&check.stderr);
    assert!(check.status.success(), "{said}");
    assert!(
        said.contains("trusts this project") && !said.contains("untrusted"),
        "install --check reads the trust Codex recorded: {said}"
    );
}

#[test]
fn codex_a_session_past_the_capacity_threshold_is_told_once_and_hands_over() {
    let p = Project::new();
    p.install("codex");
    trust(&p);
    // Codex records the window itself (258,400 for the mock's model); a
    // request of 200,000 input tokens (+10 output) fills 77 %.
    let mock = Mock::start(&p.scratch(), &[("MOCK_USAGE_TOKENS", "200000")]);

    codex(&p, &mock, "MOCK-WORK");

    told_once_then_handed_over(&p, &mock, "77% of 258K");
}
