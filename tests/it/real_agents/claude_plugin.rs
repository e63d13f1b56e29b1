//! The Claude Code plugin of this repository (`plugins/agent-handover`,
//! listed by `.claude-plugin/marketplace.json`), installed into the real
//! Claude Code the way a user does it (`claude plugin marketplace add`,
//! `claude plugin install`, https://code.claude.com/docs/en/discover-plugins)
//! and run headless (`claude -p`) against the mock. These runs prove that the
//! plugin alone, with no `install claude`, gives the brief, the MCP tools,
//! one request to hand over and the skills. Beside `install claude`, in
//! either order, the brief comes once, the request to hand over comes once,
//! and there is one MCP server.

use serde_json::Value;

use crate::real_agents::harness::{Mock, Project, program};

const ID: &str = "agent-handover@agent-handover";
/// The name Claude Code 2.1.197 gives the plugin's MCP tools
/// (`mcp__plugin_<plugin>_<server>__<tool>`), as its requests to the model show.
const PLUGIN_TOOL: &str = "mcp__plugin_agent-handover_agent-handover__handover";
/// The name of the tool when the project's .mcp.json registers the server.
const PROJECT_TOOL: &str = "mcp__agent-handover__handover";
const BRIEF: &str = "# Session brief for claude";

fn env(mock: Option<&Mock>) -> Vec<(&'static str, String)> {
    let mut env = vec![
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_string()),
        ("DISABLE_AUTOUPDATER", "1".into()),
    ];
    if let Some(mock) = mock {
        env.push(("ANTHROPIC_BASE_URL", mock.url()));
        env.push(("ANTHROPIC_API_KEY", "mock-key".into()));
    }
    env
}

/// `claude plugin marketplace add <this repository>` and `claude plugin
/// install agent-handover@agent-handover` (user scope), in the project's HOME.
fn add_plugin(p: &Project) {
    let repo = env!("CARGO_MANIFEST_DIR");
    for args in [
        vec!["plugin", "marketplace", "add", repo],
        vec!["plugin", "install", ID],
    ] {
        let out = p.run_agent(&program("claude"), &args, &env(None));
        let said = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "claude {args:?}: {said}");
        assert!(said.contains("Successfully"), "claude {args:?}: {said}");
    }
    let installed = std::fs::read_to_string(p.home.join(".claude/plugins/installed_plugins.json"))
        .expect("claude plugin install records the install");
    assert!(installed.contains(ID), "{installed}");
}

/// `claude -p PROMPT` against the mock, with the stream-json events it
/// printed (the `init` event lists the skills and MCP servers).
fn claude(p: &Project, mock: &Mock, prompt: &str) -> Vec<Value> {
    let out = p.run_agent(
        &program("claude"),
        &[
            "-p",
            prompt,
            "--allowedTools",
            "Bash",
            "--output-format",
            "stream-json",
            "--verbose",
        ],
        &env(Some(mock)),
    );
    assert!(
        out.status.success(),
        "claude -p {prompt:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The session's `init` event.
fn init(events: &[Value]) -> &Value {
    events
        .iter()
        .find(|e| e["type"] == "system" && e["subtype"] == "init")
        .expect("an init event")
}

/// The project trusted, and its .mcp.json server approved, as Claude Code
/// records them in ~/.claude.json (tests/it/real_agents/claude.rs does the same).
fn trust(p: &Project) {
    let root = p.root.canonicalize().unwrap();
    let file = p.home.join(".claude.json");
    let mut state: Value = std::fs::read_to_string(&file)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| serde_json::json!({}));
    state["projects"][root.to_string_lossy().as_ref()] = serde_json::json!({
        "hasTrustDialogAccepted": true,
        "enabledMcpjsonServers": ["agent-handover"],
    });
    std::fs::write(file, state.to_string()).unwrap();
}

/// A project set up for agent-handover without `install claude`: its
/// `handover.toml` from `agent-handover init`, committed (a teammate's set-up).
fn initialised() -> Project {
    let p = Project::new();
    let out = p.ours(&["init"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    p.git(&["add", "handover.toml"]);
    p.git(&["commit", "-q", "-m", "agent-handover init"]);
    p
}

/// Every model request carried the brief exactly once (a second
/// SessionStart hook would put it in twice).
fn brief_once_per_request(mock: &Mock) {
    let requests: Vec<Value> = mock
        .requests()
        .into_iter()
        .filter(|r| r.get("reply").is_some())
        .collect();
    assert!(!requests.is_empty());
    for r in &requests {
        let times = r["body"].to_string().matches(BRIEF).count();
        assert_eq!(times, 1, "the brief came {times} times in {}", r["body"]);
    }
}

/// A session that worked was asked once and handed over the model's words.
fn handed_over_once(p: &Project, mock: &Mock) {
    assert_eq!(mock.asked(), 1, "asked once: {:#?}", mock.replies());
    assert_eq!(p.check(), 2, "the handover completed");
    let notes = p.notes();
    assert_eq!(notes.len(), 1);
    assert!(notes[0].contains("MOCK-NOTE 1:"), "{}", notes[0]);
    assert!(p.brief_drafts().is_empty());
}

#[test]
fn claude_plugin_alone_gives_the_brief_the_tools_and_one_request_to_hand_over() {
    let p = initialised();
    add_plugin(&p);
    assert!(!p.root.join(".claude").exists() && !p.root.join(".mcp.json").exists());
    let mock = Mock::start(&p.scratch(), &[]);

    let events = claude(&p, &mock, "MOCK-WORK");

    let init = init(&events);
    let skills = init["slash_commands"].to_string();
    assert!(
        skills.contains("\"agent-handover:handover\"")
            && skills.contains("\"agent-handover:brief\""),
        "{skills}"
    );
    let servers = init["mcp_servers"].as_array().unwrap();
    assert!(
        servers
            .iter()
            .any(|s| s["name"] == "plugin:agent-handover:agent-handover"
                && s["status"] == "connected"),
        "{servers:?}"
    );
    assert!(
        mock.requests_with(BRIEF) >= 1,
        "the plugin's SessionStart hook gave the brief"
    );
    brief_once_per_request(&mock);
    assert!(
        mock.requests_with(PLUGIN_TOOL) >= 1,
        "the session offered the plugin's MCP tools"
    );
    handed_over_once(&p, &mock);
}

#[test]
fn claude_plugin_then_install_claude_brief_once_asked_once() {
    let p = Project::new();
    add_plugin(&p);
    let out = p.ours(&["install", "claude"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("come from the Claude Code plugin agent-handover@agent-handover"),
        "{said}"
    );
    assert!(
        !p.root.join(".claude/settings.json").exists() && !p.root.join(".mcp.json").exists(),
        "install left the hooks and the server to the plugin"
    );
    assert!(p.root.join("CLAUDE.md").exists() && p.root.join("handover.toml").exists());
    let check = p.ours(&["install", "--check", "claude"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    trust(&p);
    let mock = Mock::start(&p.scratch(), &[]);

    claude(&p, &mock, "MOCK-WORK");

    brief_once_per_request(&mock);
    assert!(mock.requests_with(PLUGIN_TOOL) >= 1);
    assert_eq!(mock.requests_with(PROJECT_TOOL), 0);
    handed_over_once(&p, &mock);
}

#[test]
fn claude_install_claude_then_plugin_brief_once_asked_once_one_server() {
    let p = Project::new();
    p.install("claude");
    trust(&p);
    add_plugin(&p);
    let check = p.ours(&["install", "--check", "claude"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let mock = Mock::start(&p.scratch(), &[]);

    let events = claude(&p, &mock, "MOCK-WORK");

    // The project's hooks ran and the plugin's kept quiet.
    brief_once_per_request(&mock);
    // Claude Code dropped the plugin's server as a duplicate of the project's.
    assert!(mock.requests_with(PROJECT_TOOL) >= 1);
    assert_eq!(mock.requests_with(PLUGIN_TOOL), 0);
    let servers = init(&events)["mcp_servers"].to_string();
    assert!(!servers.contains("plugin:agent-handover"), "{servers}");
    handed_over_once(&p, &mock);
}

#[test]
fn claude_plugin_skills_print_the_brief_and_hand_over() {
    let p = initialised();
    add_plugin(&p);

    let mock = Mock::start(&p.scratch(), &[]);
    claude(&p, &mock, "/agent-handover:brief");
    let expanded = mock.requests().iter().any(|r| {
        r["body"]["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["role"] == "user")
            .any(|m| {
                let text = m["content"].to_string();
                text.contains("The session brief, from `agent-handover brief --agent claude`")
                    && text.contains(BRIEF)
            })
    });
    assert!(
        expanded,
        "/agent-handover:brief put the brief in the prompt"
    );
    assert_eq!(p.check(), 0);

    // Work done outside a session; /agent-handover:handover hands it over.
    std::fs::write(p.root.join("work.txt"), "work\n").unwrap();
    let dir = p.scratch().join("handover");
    std::fs::create_dir_all(&dir).unwrap();
    let mock = Mock::start(&dir, &[]);
    claude(&p, &mock, "/agent-handover:handover");
    assert!(
        mock.replies()
            .iter()
            .any(|r| r["command"] == "cat .agent-handover/handoff.md"),
        "the model read the draft the skill wrote: {:#?}",
        mock.replies()
    );
    assert_eq!(p.check(), 2, "the handover completed");
    let notes = p.notes();
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].contains("MOCK-NOTE 1:") && notes[0].contains("work.txt"),
        "{}",
        notes[0]
    );
    assert_eq!(mock.asked(), 0, "handed over: the stop hook did not ask");
}

#[test]
fn claude_plugin_validate_strict_passes_for_the_marketplace_and_the_plugin() {
    let p = Project::new();
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in [repo.to_path_buf(), repo.join("plugins/agent-handover")] {
        let dir = dir.to_string_lossy().into_owned();
        let out = p.run_agent(
            &program("claude"),
            &["plugin", "validate", "--strict", &dir],
            &env(None),
        );
        let said = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && said.contains("Validation passed"),
            "{dir}: {said}"
        );
    }
}
