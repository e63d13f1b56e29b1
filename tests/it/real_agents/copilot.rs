//! GitHub Copilot CLI (`@github/copilot`), headless (`copilot -p PROMPT`),
//! on a custom model provider (BYOK) instead of GitHub's model routing:
//! `COPILOT_PROVIDER_BASE_URL` on an OpenAI Chat Completions endpoint (the
//! default provider type and wire API), `COPILOT_MODEL`, and
//! `COPILOT_OFFLINE=true`, which skips GitHub authentication, telemetry and
//! auto-update so the CLI talks to the mock only
//! (https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/use-byok-models;
//! https://github.blog/changelog/2026-04-07-copilot-cli-now-supports-byok-and-local-models;
//! `copilot help providers` and `copilot help environment` of the pinned
//! version). Hooks (.github/hooks/agent-handover.json), MCP
//! (.github/mcp.json) and instructions (.github/copilot-instructions.md)
//! are what `install copilot` writes; Copilot loads hooks and MCP only in a
//! trusted folder, so the folder is trusted the way the trust prompt
//! records it: the `trustedFolders` list of ~/.copilot/config.json
//! (https://docs.github.com/en/copilot/how-tos/copilot-cli/set-up-copilot-cli/configure-copilot-cli,
//! "Editing trusted directories"; the CLI itself rewrites the documented
//! `trusted_folders` spelling to `trustedFolders`).
//!
//! Permissions: `-p` needs `--allow-all-tools` (`copilot --help`). The
//! stop hook's reminder names agent-handover by its absolute path, which is
//! outside the project (here target/debug, for users ~/.cargo/bin), and
//! Copilot's path verification denies such a command in `-p` ("Permission
//! denied because no interactive user response was available"), so the runs
//! also pass `--allow-all-paths` ("Disable file path verification",
//! `copilot --help`).

use crate::real_agents::harness::{
    Mock, Project, idle_and_never_asked, next_session_starts_from_it, program,
    worked_and_handed_over, worked_without_the_binary,
};

fn copilot(p: &Project, mock: &Mock, prompt: &str) -> std::process::Output {
    let out = p.run_agent(
        &program("copilot"),
        &[
            "-p",
            prompt,
            "--allow-all-tools",
            "--allow-all-paths",
            "--no-auto-update",
        ],
        &[
            ("COPILOT_PROVIDER_BASE_URL", format!("{}/v1", mock.url())),
            ("COPILOT_PROVIDER_API_KEY", "mock-key".into()),
            ("COPILOT_MODEL", "mock".into()),
            ("COPILOT_OFFLINE", "true".into()),
            ("COPILOT_AUTO_UPDATE", "false".into()),
        ],
    );
    assert!(
        out.status.success(),
        "copilot -p {prompt:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The project trusted for this and future sessions, as Copilot records it
/// in ~/.copilot/config.json.
fn trust(p: &Project) {
    let root = p.root.canonicalize().unwrap();
    let config = serde_json::json!({ "trustedFolders": [root] });
    std::fs::create_dir_all(p.home.join(".copilot")).unwrap();
    std::fs::write(p.home.join(".copilot/config.json"), config.to_string()).unwrap();
}

/// The names of the tools the model was offered in its first request.
fn offered_tools(mock: &Mock) -> Vec<String> {
    let first = mock
        .requests()
        .into_iter()
        .find(|r| r.get("reply").is_some())
        .expect("the model got a request");
    first["body"]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(String::from))
        .collect()
}

#[test]
fn copilot_a_session_that_worked_is_asked_once_and_hands_over_the_models_words() {
    let p = Project::new();
    p.install("copilot");
    trust(&p);
    let mock = Mock::start(&p.scratch(), &[]);

    copilot(&p, &mock, "MOCK-WORK");

    assert!(
        mock.requests_with("agent-handover:begin copilot") >= 1,
        "the instructions reached the model"
    );
    assert!(p.root.join("work.txt").exists(), "the agent did its work");
    worked_and_handed_over(&p, &mock, "copilot");
    assert!(
        !p.notes()[0].contains("<shellId"),
        "no tool output in the note: {}",
        p.notes()[0]
    );
    next_session_starts_from_it(&p, |next| {
        copilot(&p, next, "Say hello.");
    });
}

#[test]
fn copilot_an_idle_first_session_is_never_asked_and_leaves_no_draft() {
    let p = Project::new();
    // install's own files stay uncommitted: they are not the session's work.
    p.install("copilot");
    trust(&p);
    let mock = Mock::start(&p.scratch(), &[]);

    copilot(&p, &mock, "Say hello.");

    idle_and_never_asked(&p, &mock, "copilot");
}

#[test]
fn copilot_keeps_working_without_agent_handover_on_path_and_is_told_why() {
    let mut p = Project::new();
    p.install("copilot");
    trust(&p);
    p.path_dirs.clear();
    let mock = Mock::start(&p.scratch(), &[]);

    copilot(&p, &mock, "MOCK-WORK");

    worked_without_the_binary(&p, &mock);
}

#[test]
fn copilot_session_connects_to_agent_handover_mcp() {
    let p = Project::new();
    p.install("copilot");
    trust(&p);

    // Copilot's own view of the server: from .github/mcp.json, enabled.
    let out = p.run_agent(
        &program("copilot"),
        &["mcp", "get", "agent-handover"],
        &[("COPILOT_OFFLINE", "true".into())],
    );
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{shown}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(shown.contains("Status: Enabled"), "{shown}");
    assert!(shown.contains("Command: agent-handover mcp"), "{shown}");
    assert!(shown.contains(".github/mcp.json"), "{shown}");

    // In a session it starts `agent-handover mcp` and offers its tools
    // (tools/list answered over stdio) to the model.
    let mock = Mock::start(&p.scratch(), &[]);
    copilot(&p, &mock, "Say hello.");
    let tools = offered_tools(&mock);
    for tool in [
        "agent-handover-brief",
        "agent-handover-handover",
        "agent-handover-draft",
    ] {
        assert!(
            tools.iter().any(|t| t == tool),
            "{tool} not offered: {tools:?}"
        );
    }

    let check = p.ours(&["install", "--check", "copilot"]);
    let said = String::from_utf8_lossy(&check.stdout).to_string()
        + &String::from_utf8_lossy(&check.stderr);
    assert!(check.status.success(), "{said}");
}

#[test]
fn copilot_ignores_the_hooks_and_mcp_of_a_folder_it_does_not_trust() {
    // Why `install copilot` tells the user to trust the folder: without it
    // the same installation gives the model no brief and no MCP tools.
    let p = Project::new();
    p.install("copilot");
    let mock = Mock::start(&p.scratch(), &[]);

    copilot(&p, &mock, "Say hello.");

    assert!(
        mock.requests_with("Say hello.") >= 1,
        "the session reached the model"
    );
    assert_eq!(mock.requests_with("# Session brief for copilot"), 0);
    let tools = offered_tools(&mock);
    assert!(
        !tools.iter().any(|t| t.starts_with("agent-handover-")),
        "{tools:?}"
    );
}

/// Copilot rewrites ~/.copilot/config.json with `//` comment lines on top;
/// `install --check` read it as strict JSON and said `trust?` from then on.
#[test]
fn copilot_install_check_still_sees_the_trust_after_copilot_rewrote_its_config() {
    let p = Project::new();
    p.install("copilot");
    trust(&p);
    let trusted = "trusted    GitHub Copilot trusts this project";
    let check =
        || String::from_utf8_lossy(&p.ours(&["install", "--check", "copilot"]).stdout).into_owned();
    assert!(check().contains(trusted), "{}", check());

    let mock = Mock::start(&p.scratch(), &[]);
    copilot(&p, &mock, "Say hello.");
    let config = std::fs::read_to_string(p.home.join(".copilot/config.json")).unwrap();
    assert!(
        config.contains("trustedFolders"),
        "Copilot kept the trust: {config}"
    );
    assert!(
        check().contains(trusted),
        "{}\nconfig.json as Copilot wrote it:\n{config}",
        check()
    );
}
