//! The Claude Code plugin (`plugins/agent-handover`, listed by
//! `.claude-plugin/marketplace.json`): its files are generated from the
//! claude adapter, its hooks are the ones `install claude` writes (behind a
//! guard that keeps them quiet where those are installed), and
//! `install claude` leaves the hooks and the MCP server to it when Claude Code
//! runs it. The real Claude Code runs it in
//! tests/it/real_agents/claude_plugin.rs.
//!
//! `AGENT_HANDOVER_BLESS=1 cargo test --test it claude_plugin::the_plugin_files`
//! rewrites the generated files after a change to the adapter.

use std::path::{Path, PathBuf};

use agent_handover::agent::adapters::{find, plugin::CLAUDE};
use serde_json::{Value, json};

use crate::common::{Project, config, json, stdout};

const ID: &str = "agent-handover@agent-handover";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn plugin_file(rel: &str) -> PathBuf {
    repo().join(CLAUDE.dir).join(rel)
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `agent-handover ARGS` in the project, with no Claude Code location
/// overridden from outside.
fn run(p: &Project, args: &[&str]) -> std::process::Output {
    p.cmd()
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_CODE_PLUGIN_CACHE_DIR")
        .args(args)
        .output()
        .unwrap()
}

/// The plugin installed and enabled as `claude plugin install` 2.1.197
/// records it (user scope), in the project's HOME.
fn plugin_installed(p: &Project) {
    let claude = p.path("home/.claude");
    std::fs::create_dir_all(claude.join("plugins")).unwrap();
    std::fs::write(
        claude.join("settings.json"),
        json!({
            "extraKnownMarketplaces": {"agent-handover": {"source": {"source": "directory", "path": repo()}}},
            "enabledPlugins": {ID: true},
        })
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        claude.join("plugins/installed_plugins.json"),
        json!({"version": 2, "plugins": {ID: [{
            "scope": "user",
            "installPath": claude.join("plugins/cache/agent-handover/agent-handover/0.6.0"),
            "version": env!("CARGO_PKG_VERSION"),
            "installedAt": "2026-11-26T11:01:58.789Z",
            "lastUpdated": "2026-11-26T11:01:58.789Z",
        }]}})
        .to_string(),
    )
    .unwrap();
}

#[test]
fn the_plugin_files_are_generated_from_the_claude_adapter() {
    let claude = find("claude").unwrap();
    let files = CLAUDE.files(claude);
    assert_eq!(
        files.iter().map(|(rel, _)| *rel).collect::<Vec<_>>(),
        ["hooks/hooks.json", ".mcp.json"]
    );
    let bless = std::env::var_os("AGENT_HANDOVER_BLESS").is_some();
    for (rel, text) in files {
        let path = plugin_file(rel);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == text,
            "{} is not what the claude adapter generates: run `AGENT_HANDOVER_BLESS=1 cargo test --test it claude_plugin::the_plugin_files` and commit the result\n--- generated\n{text}",
            path.display()
        );
    }
}

#[test]
fn the_plugins_hooks_and_server_are_what_install_claude_writes() {
    let p = Project::new(&config(""));
    assert!(run(&p, &["install", "claude"]).status.success());
    let settings = read_json(&p.path(".claude/settings.json"));
    let plugin = read_json(&plugin_file("hooks/hooks.json"));
    let installed = settings["hooks"].as_object().unwrap();
    let given = plugin["hooks"].as_object().unwrap();
    // The one documented difference: each command starts with the guard
    // for its own event.
    let claude = find("claude").unwrap();
    assert_eq!(
        installed.keys().collect::<Vec<_>>(),
        given.keys().collect::<Vec<_>>(),
        "the same events, in the same order"
    );
    for (event, groups) in installed {
        let mut expected = groups.clone();
        for group in expected.as_array_mut().unwrap() {
            for hook in group["hooks"].as_array_mut().unwrap() {
                let command = hook["command"].as_str().unwrap();
                assert!(command.contains("agent-handover hook "), "{command}");
                let guard = CLAUDE.guard(claude, command);
                assert!(
                    guard.starts_with("grep -qsF 'agent-handover hook ")
                        && guard.contains(
                            " --agent claude' \"$CLAUDE_PROJECT_DIR/.claude/settings.json\""
                        )
                        && guard.ends_with(" && exit 0; "),
                    "{guard}"
                );
                hook["command"] = json!(format!("{guard}{command}"));
            }
        }
        assert_eq!(
            given[event], expected,
            "{event}: matcher, timeout and command"
        );
    }
    let mcp = read_json(&p.path(".mcp.json"));
    let plugin_mcp = read_json(&plugin_file(".mcp.json"));
    assert_eq!(
        plugin_mcp["mcpServers"]["agent-handover"], mcp["mcpServers"]["agent-handover"],
        "the same command and arguments: Claude Code drops the plugin's server as a duplicate where both are configured"
    );
}

#[test]
fn the_marketplace_lists_the_plugin_at_the_crates_version() {
    let version = env!("CARGO_PKG_VERSION");
    let market = read_json(&repo().join(".claude-plugin/marketplace.json"));
    assert_eq!(market["name"], CLAUDE.marketplace);
    assert_eq!(market["metadata"]["version"], version);
    let entries = market["plugins"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["name"], CLAUDE.name);
    assert_eq!(entries[0]["version"], version);
    assert_eq!(entries[0]["source"], format!("./{}", CLAUDE.dir));
    let manifest = read_json(&plugin_file(".claude-plugin/plugin.json"));
    assert_eq!(manifest["name"], CLAUDE.name);
    assert_eq!(manifest["version"], version);
    assert_eq!(CLAUDE.id(), ID);
    for (skill, command) in [
        ("brief", "agent-handover brief --agent claude"),
        ("handover", "agent-handover draft --agent claude -o "),
        ("handover", "agent-handover run --note-file "),
    ] {
        let text =
            std::fs::read_to_string(plugin_file(&format!("skills/{skill}/SKILL.md"))).unwrap();
        assert!(text.starts_with("---\n"), "{skill}: front matter");
        assert!(text.contains(command), "{skill}: {command}");
    }
}

#[test]
fn the_plugins_hooks_keep_quiet_where_install_claude_wrote_its_own() {
    let claude = find("claude").unwrap();
    let plugin = read_json(&plugin_file("hooks/hooks.json"));
    let start = plugin["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let bin = assert_cmd::cargo::cargo_bin("agent-handover");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let p = Project::new(&config(""));
    let session_start = || {
        let out = std::process::Command::new("/bin/sh")
            .args(["-c", &start])
            .current_dir(p.path(""))
            .env("HOME", p.path("home"))
            .env("PATH", &path)
            .env("CLAUDE_PROJECT_DIR", p.path(""))
            .env_remove("AGENT_HANDOVER_CHECKPOINT")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let brief = session_start();
    assert!(
        brief.contains("# Session brief for claude")
            && brief.contains("\"hookEventName\":\"SessionStart\""),
        "without install's hooks the plugin gives the brief: {brief}"
    );
    assert!(run(&p, &["install", "claude"]).status.success());
    assert_eq!(session_start(), "", "beside install's hooks it keeps quiet");
    // install's own hook, in the same settings, still speaks.
    let own = claude.hook_command(agent_handover::agent::hooks::HookEvent::SessionStart);
    assert!(!own.starts_with("grep"), "{own}");
}

#[test]
fn install_claude_beside_the_plugin_writes_only_what_the_plugin_does_not_give() {
    let p = Project::new(&config(""));
    std::fs::remove_file(p.path("handover.toml")).unwrap();
    plugin_installed(&p);

    let out = run(&p, &["--json", "install", "claude"]);
    assert!(out.status.success());
    let report = json(&out);
    assert_eq!(report["plugin"]["id"], ID);
    assert_eq!(report["plugin"]["scope"], "user");
    let written: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(written, ["handover.toml", "CLAUDE.md", ".gitignore"]);
    assert!(!p.path(".claude/settings.json").exists());
    assert!(!p.path(".mcp.json").exists());
    assert!(
        std::fs::read_to_string(p.path("CLAUDE.md"))
            .unwrap()
            .contains("agent-handover brief --agent claude")
    );

    let again = run(&p, &["install", "claude"]);
    let said = stdout(&again);
    assert!(
        said.contains("the hooks and the MCP server come from the Claude Code plugin agent-handover@agent-handover (user install, enabled in ")
            && said.contains(".claude/settings.json and .mcp.json left to it")
            && said.contains("was already installed"),
        "{said}"
    );
    let check = run(&p, &["install", "--check", "claude"]);
    assert!(check.status.success(), "{}", stdout(&check));
    assert!(stdout(&check).contains("plugin "), "{}", stdout(&check));

    // Disabled for this project (the local settings win): install's hooks
    // are missing again, and install writes them.
    std::fs::create_dir_all(p.path(".claude")).unwrap();
    std::fs::write(
        p.path(".claude/settings.local.json"),
        json!({"enabledPlugins": {ID: false}}).to_string(),
    )
    .unwrap();
    let check = run(&p, &["install", "--check", "claude"]);
    assert_eq!(check.status.code(), Some(1), "{}", stdout(&check));
    assert!(
        stdout(&check).contains("missing    .claude/settings.json"),
        "{}",
        stdout(&check)
    );
    assert!(run(&p, &["install", "claude"]).status.success());
    let settings = std::fs::read_to_string(p.path(".claude/settings.json")).unwrap();
    assert!(settings.contains("agent-handover hook session-start --agent claude"));
    assert!(p.path(".mcp.json").exists());
}

#[test]
fn hooks_install_claude_wrote_before_the_plugin_stay_and_pass_the_check() {
    let p = Project::new(&config(""));
    assert!(run(&p, &["install", "claude"]).status.success());
    let settings = std::fs::read_to_string(p.path(".claude/settings.json")).unwrap();
    plugin_installed(&p);
    let out = run(&p, &["--json", "install", "claude"]);
    assert!(out.status.success());
    assert_eq!(json(&out)["changed"], false, "{}", stdout(&out));
    assert_eq!(
        std::fs::read_to_string(p.path(".claude/settings.json")).unwrap(),
        settings,
        "the project's hooks (perhaps a teammate's) stay: the plugin's keep quiet beside them"
    );
    assert!(run(&p, &["install", "--check", "claude"]).status.success());
    // --remove still takes out everything install ever wrote.
    assert!(run(&p, &["install", "--remove", "claude"]).status.success());
    assert!(!p.path(".claude/settings.json").exists());
    assert!(!p.path(".mcp.json").exists());
}
