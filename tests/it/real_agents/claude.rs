//! Claude Code (`@anthropic-ai/claude-code`), headless (`claude -p`), on
//! the Anthropic Messages API through ANTHROPIC_BASE_URL
//! (https://code.claude.com/docs/en/settings#environment-variables;
//! https://code.claude.com/docs/en/headless). Hooks and MCP are what
//! `install claude` writes; the project is trusted the way the trust
//! dialog records it in ~/.claude.json.

use crate::real_agents::harness::{
    Mock, Project, idle_and_never_asked, never_told, next_session_starts_from_it, program,
    told_once_then_handed_over, worked_and_handed_over, worked_without_the_binary,
};

fn claude(p: &Project, mock: &Mock, prompt: &str) -> std::process::Output {
    claude_with(p, mock, prompt, &[])
}

/// `claude -p PROMPT`, with `more` arguments (`--continue`: the same
/// session, its conversation resumed).
fn claude_with(p: &Project, mock: &Mock, prompt: &str, more: &[&str]) -> std::process::Output {
    let mut args = vec![
        "-p",
        prompt,
        "--allowedTools",
        "Bash",
        "--output-format",
        "json",
    ];
    args.extend_from_slice(more);
    let out = p.run_agent(
        &program("claude"),
        &args,
        &[
            ("ANTHROPIC_BASE_URL", mock.url()),
            ("ANTHROPIC_API_KEY", "mock-key".into()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ("DISABLE_AUTOUPDATER", "1".into()),
        ],
    );
    assert!(
        out.status.success(),
        "claude -p {prompt:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The project trusted, and its .mcp.json server approved, as Claude Code
/// records them in ~/.claude.json.
fn trust(p: &Project) {
    let root = p.root.canonicalize().unwrap();
    let state = serde_json::json!({
        "projects": { root.to_string_lossy(): {
            "hasTrustDialogAccepted": true,
            "enabledMcpjsonServers": ["agent-handover"],
        }}
    });
    std::fs::write(p.home.join(".claude.json"), state.to_string()).unwrap();
}

#[test]
fn claude_a_session_that_worked_is_asked_once_and_hands_over_the_models_words() {
    let p = Project::new();
    p.install("claude");
    trust(&p);
    let mock = Mock::start(&p.scratch(), &[]);

    claude(&p, &mock, "MOCK-WORK");

    assert!(
        mock.requests_with("mcp__agent-handover__handover") >= 1,
        "the session offered the agent-handover MCP tools"
    );
    worked_and_handed_over(&p, &mock, "claude");
    next_session_starts_from_it(&p, |next| {
        claude(&p, next, "Say hello.");
    });
}

#[test]
fn claude_an_idle_first_session_is_never_asked_and_leaves_no_draft() {
    let p = Project::new();
    // install's own files stay uncommitted: they are not the session's work.
    p.install("claude");
    trust(&p);
    let mock = Mock::start(&p.scratch(), &[]);

    claude(&p, &mock, "Say hello.");

    idle_and_never_asked(&p, &mock, "claude");
}

#[test]
fn claude_keeps_working_without_agent_handover_on_path_and_is_told_why() {
    let mut p = Project::new();
    p.install("claude");
    trust(&p);
    p.path_dirs.clear();
    let mock = Mock::start(&p.scratch(), &[]);

    claude(&p, &mock, "MOCK-WORK");

    worked_without_the_binary(&p, &mock);
}

#[test]
fn claude_mcp_list_connects_to_agent_handover_mcp() {
    let p = Project::new();
    p.install("claude");
    trust(&p);
    let out = p.run_agent(&program("claude"), &["mcp", "list"], &[]);
    let listing = String::from_utf8_lossy(&out.stdout);
    let line = listing
        .lines()
        .find(|l| l.starts_with("agent-handover:"))
        .unwrap_or_else(|| panic!("no agent-handover server listed: {listing}"));
    assert!(line.contains("Connected"), "{line}");
    let check = p.ours(&["install", "--check", "claude"]);
    let said = String::from_utf8_lossy(&check.stdout).to_string()
        + &String::from_utf8_lossy(&check.stderr);
    assert!(check.status.success(), "{said}");
}

#[test]
fn claude_a_session_past_the_capacity_threshold_is_told_once_and_hands_over() {
    let p = Project::new();
    p.install("claude");
    trust(&p);
    // Claude Code asks for claude-opus-4-8, a 1M window
    // (assets/capacity/windows.toml): 800,000 tokens in use is 80 %.
    let mock = Mock::start(&p.scratch(), &[("MOCK_USAGE_TOKENS", "800000")]);

    claude(&p, &mock, "MOCK-WORK");

    told_once_then_handed_over(&p, &mock, "80% of 1M");
}

/// Issue 40: a session that hands over when its context runs low, keeps
/// working (the same session, resumed) and stops is asked once more, and
/// hands that work over too; it was never asked again ("a handover was
/// written this session"). Once per new piece of work: stopping again
/// without new work asks nothing.
#[test]
fn claude_a_session_that_hands_over_at_75_percent_keeps_working_and_is_asked_once_more() {
    let p = Project::new();
    p.install("claude");
    trust(&p);
    let mock = Mock::start(&p.scratch(), &[("MOCK_USAGE_TOKENS", "800000")]);

    claude(&p, &mock, "MOCK-WORK");
    told_once_then_handed_over(&p, &mock, "80% of 1M");
    assert_eq!(p.notes().len(), 1);

    // The same session goes on working: committed work its handover did
    // not cover.
    claude_with(
        &p,
        &mock,
        "MOCK-SHELL: printf 'more\\n' >> more.txt && git add more.txt && git -c user.name=m -c user.email=m@example.com commit -qm 'more work'",
        &["--continue"],
    );
    assert_eq!(
        mock.asked(),
        2,
        "asked once more at its stop: {:#?}",
        mock.replies()
    );
    assert!(
        mock.requests_with(
            "A handover was written this session, and work happened since it (1 commit"
        ) >= 1,
        "asked about the work since its own handover"
    );
    assert_eq!(p.check(), 2);
    assert_eq!(p.notes().len(), 2, "the second handover was written");

    // Stopping again with nothing new asks nothing.
    claude_with(&p, &mock, "Say hello.", &["--continue"]);
    assert_eq!(mock.asked(), 2, "{:#?}", mock.replies());
}

#[test]
fn claude_a_session_below_the_capacity_threshold_is_not_told() {
    let p = Project::new();
    p.install("claude");
    trust(&p);
    let mock = Mock::start(&p.scratch(), &[("MOCK_USAGE_TOKENS", "100000")]);

    claude(&p, &mock, "MOCK-WORK");

    never_told(&p, &mock);
    assert_eq!(mock.asked(), 1, "the stop still asks, as for any session");
    assert_eq!(p.check(), 2);
}
