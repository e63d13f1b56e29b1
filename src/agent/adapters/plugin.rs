//! The Claude Code plugin in this repository, `plugins/agent-handover`,
//! listed by the marketplace `.claude-plugin/marketplace.json` at the
//! repository's root, and how `install claude` lives beside it.
//!
//! The plugin gives what `install claude` writes into a project's
//! `.claude/settings.json` and `.mcp.json`, generated from the same adapter
//! entry ([`Plugin::files`]; `tests/it/claude_plugin.rs` fails when the files in
//! the repository are not what it generates, and regenerates them with
//! `AGENT_HANDOVER_BLESS=1`):
//! * `hooks/hooks.json`: every hook install writes, with its event, matcher
//!   and timeout, running the same command behind [`Plugin::guard`];
//! * `.mcp.json`: the `agent-handover` server install registers.
//!
//! The instructions block (CLAUDE.md), `handover.toml` and `.gitignore` stay
//! the project's: `install claude` writes them. Neither doubles the other:
//! * `install claude` reads whether Claude Code runs the plugin for the
//!   project ([`Plugin::in_use`]) and then writes neither the hooks nor the
//!   MCP server, saying so; `install --check` accepts that state;
//! * the plugin's hooks keep quiet in a project whose settings already hold
//!   install's hooks ([`Plugin::guard`]): install ran before the plugin was
//!   enabled, or for a teammate without it (the project's files are shared,
//!   so install never takes its hooks out because this machine has the plugin);
//! * the MCP server is not doubled by Claude Code itself: it drops a plugin's
//!   server that runs the same command and arguments as a configured one
//!   (2.1.197 logs `Suppressing plugin MCP server "…": duplicates
//!   manually-configured "…"`), which the generated `.mcp.json` does.
//!
//! Sources: https://code.claude.com/docs/en/plugins/components (the standard
//! layout: `hooks/hooks.json`, `.mcp.json` and `skills/<name>/SKILL.md` at the
//! plugin's root, a skill run as `/<plugin>:<skill>`),
//! https://code.claude.com/docs/en/plugins/manifest-reference (plugin.json;
//! `${CLAUDE_PLUGIN_ROOT}`, and `CLAUDE_PROJECT_DIR` in every hook),
//! https://code.claude.com/docs/en/plugins/marketplace-reference
//! (marketplace.json, relative `source`), and the bundle of
//! `@anthropic-ai/claude-code` 2.1.197, which the real-agent test
//! `tests/it/real_agents/claude_plugin.rs` runs: a plugin's hooks file is
//! `{"description"?, "hooks": <as in settings>}`, its hooks run with
//! `CLAUDE_PROJECT_DIR` set; `claude plugin install` records the install in
//! `<config>/plugins/installed_plugins.json` (`{"version": 2, "plugins":
//! {"<name>@<marketplace>": [{"scope": "user" | "project" | "local",
//! "projectPath"?, "installPath", ...}]}}`) and enables it in the settings
//! file of its scope (`"enabledPlugins": {"<name>@<marketplace>": true}`:
//! `~/.claude/settings.json`, `.claude/settings.json`,
//! `.claude/settings.local.json`); a session loads a plugin enabled in the
//! merged settings (local over project over user) whose install is for every
//! project (`user`, `managed`) or for this one (`projectPath`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::json_hooks::COMMAND_MARK;
use super::trust::{canonical, project_keys, read_json};
use super::{Adapter, HookSetup, MCP_SERVER_NAME, McpSetup, Part};
use crate::base::shell;
use crate::workspace::Workspace;

/// A plugin of an agent's, in this repository, that gives what `install`
/// would write into a project's hook and MCP files.
#[derive(Debug)]
pub struct Plugin {
    /// The agent (an adapter's name).
    pub agent: &'static str,
    /// The plugin's name (plugin.json `name`).
    pub name: &'static str,
    /// The marketplace listing it (marketplace.json `name`).
    pub marketplace: &'static str,
    /// Its folder, relative to the repository's root.
    pub dir: &'static str,
}

/// The Claude Code plugin.
pub const CLAUDE: Plugin = Plugin {
    agent: "claude",
    name: "agent-handover",
    marketplace: "agent-handover",
    dir: "plugins/agent-handover",
};

/// The plugin of `adapter`'s agent, if it has one.
pub fn of(adapter: &Adapter) -> Option<&'static Plugin> {
    (adapter.name == CLAUDE.agent).then_some(&CLAUDE)
}

/// The agent runs the plugin for this project: as its own files say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginUse {
    /// `<name>@<marketplace>`, as the agent records it.
    pub id: String,
    /// The settings file whose `enabledPlugins` enables it (the one of
    /// highest precedence that names it).
    pub enabled_in: PathBuf,
    /// The scope it is installed for (`user`, `project`, `local`, `managed`).
    pub scope: String,
}

impl std::fmt::Display for PluginUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({} install, enabled in {})",
            self.id,
            self.scope,
            self.enabled_in.display()
        )
    }
}

impl Plugin {
    /// `<name>@<marketplace>`.
    pub fn id(&self) -> String {
        format!("{}@{}", self.name, self.marketplace)
    }

    /// The shell words the plugin hook running `command` starts with: it
    /// exits, quiet, when the project's settings (`.claude/settings.json`
    /// or `.claude/settings.local.json`, in `$CLAUDE_PROJECT_DIR`) hold the
    /// same hook of install's (`agent-handover hook EVENT --agent NAME`, the
    /// part of [`COMMAND_MARK`] on of `command`); there Claude Code runs
    /// that one, and the plugin's would say it twice. Per event: a project
    /// installed by an older version, without a newer event's hook, still
    /// gets that one from the plugin. A plain `grep` on the file Claude
    /// Code reads its project hooks from: no JSON parsing, no second
    /// program, and a missing file (or variable) only means "not there".
    pub fn guard(&self, adapter: &Adapter, command: &str) -> String {
        let Some(HookSetup::NestedJson { path, .. }) = &adapter.hooks else {
            return String::new();
        };
        let var = adapter.protocol.project_dir_env.unwrap_or("PWD");
        let local = path.replace(".json", ".local.json");
        let agent = format!(" --agent {}", adapter.name);
        let mark = command
            .find(COMMAND_MARK)
            .map(|start| &command[start..])
            .and_then(|rest| rest.find(&agent).map(|end| &rest[..end + agent.len()]))
            .unwrap_or(COMMAND_MARK);
        format!(
            "grep -qsF {} \"${var}/{path}\" \"${var}/{local}\" && exit 0; ",
            shell::quote(mark),
        )
    }

    /// The project files `install` leaves to the plugin (its hooks' and MCP
    /// server's), when the plugin is in use.
    pub fn replaces(&self, adapter: &Adapter) -> Vec<&'static str> {
        let hooks = match &adapter.hooks {
            Some(HookSetup::NestedJson { path, .. }) => Some(*path),
            _ => None,
        };
        let mcp = match &adapter.mcp {
            Some(McpSetup::McpServers { path, .. }) => Some(*path),
            _ => None,
        };
        hooks.into_iter().chain(mcp).collect()
    }

    /// The plugin's generated files, relative to its folder, with their
    /// text: what `install` writes into the project's hook and MCP files,
    /// in the plugin's form.
    pub fn files(&self, adapter: &Adapter) -> Vec<(&'static str, String)> {
        let mut files = Vec::new();
        if let Some(entries) = adapter.settings_hooks() {
            let mut hooks = Map::new();
            for (event, mut group) in entries.events {
                for hook in group["hooks"].as_array_mut().into_iter().flatten() {
                    let command = hook["command"].as_str().unwrap_or_default();
                    let guard = self.guard(adapter, command);
                    hook["command"] = json!(format!("{guard}{command}"));
                }
                hooks
                    .entry(event)
                    .or_insert_with(|| json!([]))
                    .as_array_mut()
                    .expect("an event's hooks are a list")
                    .push(group);
            }
            let file = json!({
                "description": format!(
                    "agent-handover for {}: the hooks `agent-handover install {}` writes into the project's settings (the session brief, one request to hand over when work was done, drafts), quiet in a project whose settings hold those",
                    adapter.title, adapter.name
                ),
                "hooks": hooks,
            });
            files.push(("hooks/hooks.json", pretty(&file)));
        }
        if let Some(Part::JsonEntry { parent, value, .. }) = adapter.mcp_part() {
            let file = json!({ parent: { MCP_SERVER_NAME: value } });
            files.push((".mcp.json", pretty(&file)));
        }
        files
    }

    /// Whether Claude Code runs this plugin in `ws`'s project, as its
    /// files on this machine say: enabled in the merged settings (user,
    /// then the project's `.claude/settings.json`, then its
    /// `.claude/settings.local.json`; managed settings are not read), and
    /// installed for every project or for this one. `$CLAUDE_CONFIG_DIR`
    /// replaces `~/.claude`, `$CLAUDE_CODE_PLUGIN_CACHE_DIR` its `plugins`.
    pub fn in_use(&self, ws: &Workspace) -> Option<PluginUse> {
        let config = match std::env::var_os("CLAUDE_CONFIG_DIR") {
            Some(dir) => PathBuf::from(dir),
            None => ws.home.as_ref()?.join(".claude"),
        };
        let plugins = std::env::var_os("CLAUDE_CODE_PLUGIN_CACHE_DIR")
            .map_or_else(|| config.join("plugins"), PathBuf::from);
        let installed = read_json(&plugins.join("installed_plugins.json"))?;
        let mut enabled: BTreeMap<String, (bool, PathBuf)> = BTreeMap::new();
        for file in [
            config.join("settings.json"),
            ws.root.join(".claude/settings.json"),
            ws.root.join(".claude/settings.local.json"),
        ] {
            let Some(settings) = read_json(&file) else {
                continue;
            };
            for (id, on) in settings["enabledPlugins"].as_object().into_iter().flatten() {
                if id
                    .split_once('@')
                    .is_some_and(|(name, _)| name == self.name)
                {
                    // `true`, or a list of version constraints.
                    let on = *on == Value::Bool(true) || on.is_array();
                    enabled.insert(id.clone(), (on, file.clone()));
                }
            }
        }
        let keys = project_keys(ws);
        enabled
            .into_iter()
            .filter(|(_, (on, _))| *on)
            .find_map(|(id, (_, file))| {
                let scope = installed["plugins"][&id]
                    .as_array()?
                    .iter()
                    .find_map(|install| {
                        let scope = install["scope"].as_str()?;
                        let here = matches!(scope, "user" | "managed")
                            || install["projectPath"]
                                .as_str()
                                .is_some_and(|p| keys.contains(&canonical(p)));
                        here.then(|| scope.to_string())
                    })?;
                Some(PluginUse {
                    id,
                    enabled_in: file,
                    scope,
                })
            })
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("JSON serializes") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::adapters::find;

    fn workspace(dir: &std::path::Path) -> Workspace {
        std::fs::create_dir_all(dir.join("home")).unwrap();
        std::fs::create_dir_all(dir.join("p/.claude")).unwrap();
        std::fs::write(dir.join("p/handover.toml"), "").unwrap();
        Workspace::resolve(crate::WorkspaceOptions {
            cwd: Some(dir.join("p")),
            home: Some(dir.join("home")),
            ..Default::default()
        })
        .unwrap()
    }

    fn write(path: PathBuf, value: Value) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, value.to_string()).unwrap();
    }

    #[test]
    fn in_use_only_when_enabled_by_the_merged_settings_and_installed_for_the_project() {
        if std::env::var_os("CLAUDE_CONFIG_DIR").is_some()
            || std::env::var_os("CLAUDE_CODE_PLUGIN_CACHE_DIR").is_some()
        {
            return; // the test's files are where the defaults are
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().canonicalize().unwrap();
        let ws = workspace(&d);
        let id = "agent-handover@agent-handover";
        let user = d.join("home/.claude/settings.json");
        let project = d.join("p/.claude/settings.json");
        let local = d.join("p/.claude/settings.local.json");
        let installs = d.join("home/.claude/plugins/installed_plugins.json");
        let installed = |list: Value| {
            write(
                installs.clone(),
                json!({"version": 2, "plugins": {id: list}}),
            )
        };

        write(user.clone(), json!({"enabledPlugins": {id: true}}));
        assert_eq!(CLAUDE.in_use(&ws), None, "enabled, not installed");
        installed(json!([{"scope": "project", "projectPath": d.join("elsewhere")}]));
        assert_eq!(CLAUDE.in_use(&ws), None, "installed for another project");
        installed(json!([{"scope": "user", "installPath": "/x"}]));
        let used = CLAUDE.in_use(&ws).unwrap();
        assert_eq!((used.id.as_str(), used.scope.as_str()), (id, "user"));
        assert_eq!(used.enabled_in, user);

        write(local.clone(), json!({"enabledPlugins": {id: false}}));
        assert_eq!(CLAUDE.in_use(&ws), None, "the local settings disable it");
        write(project.clone(), json!({"enabledPlugins": {id: true}}));
        assert_eq!(CLAUDE.in_use(&ws), None, "local wins over project");
        std::fs::remove_file(&local).unwrap();
        write(user.clone(), json!({"enabledPlugins": {id: false}}));
        assert_eq!(
            CLAUDE.in_use(&ws).unwrap().enabled_in,
            project,
            "project wins over user"
        );

        std::fs::remove_file(&user).unwrap();
        installed(json!([{"scope": "project", "projectPath": d.join("p")}]));
        assert_eq!(CLAUDE.in_use(&ws).unwrap().scope, "project");
        write(
            project,
            json!({"enabledPlugins": {"agent-handover@elsewhere": true, "other@agent-handover": true}}),
        );
        assert_eq!(
            CLAUDE.in_use(&ws),
            None,
            "another plugin, or another id not installed"
        );
    }

    #[test]
    fn the_plugins_hooks_are_installs_behind_the_guard_and_its_server_is_installs() {
        let claude = find("claude").unwrap();
        let files = CLAUDE.files(claude);
        let hooks: Value = serde_json::from_str(&files[0].1).unwrap();
        let settings = claude.settings_hooks().unwrap();
        for (event, group) in &settings.events {
            let mut expected = group.clone();
            let command = expected["hooks"][0]["command"]
                .as_str()
                .unwrap()
                .to_string();
            let guard = CLAUDE.guard(claude, &command);
            assert!(
                guard.contains("$CLAUDE_PROJECT_DIR/.claude/settings.json")
                    && guard.contains("$CLAUDE_PROJECT_DIR/.claude/settings.local.json"),
                "{guard}"
            );
            expected["hooks"][0]["command"] = json!(format!("{guard}{command}"));
            let listed = hooks["hooks"][*event].as_array().unwrap();
            assert!(listed.contains(&expected), "{event}: {listed:?}");
        }
        let mcp: Value = serde_json::from_str(&files[1].1).unwrap();
        assert_eq!(
            mcp["mcpServers"]["agent-handover"],
            json!({"type": "stdio", "command": "agent-handover", "args": ["mcp"]})
        );
        assert!(of(find("codex").unwrap()).is_none());
    }

    #[test]
    fn the_guard_is_quiet_where_the_settings_hold_installs_hooks() {
        use crate::agent::hooks::HookEvent::{Progress, Stop};
        let claude = find("claude").unwrap();
        let guard = CLAUDE.guard(claude, &claude.hook_command(Stop));
        assert!(
            guard.starts_with("grep -qsF 'agent-handover hook stop --agent claude' "),
            "{guard}"
        );
        let dir = tempfile::tempdir().unwrap();
        let run = || {
            let out = std::process::Command::new("/bin/sh")
                .args(["-c", &format!("{guard}echo spoke")])
                .env("CLAUDE_PROJECT_DIR", dir.path())
                .output()
                .unwrap();
            assert!(out.status.success());
            String::from_utf8(out.stdout).unwrap()
        };
        assert_eq!(run(), "spoke\n", "no settings");
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::fs::write(
            dir.path().join(".claude/settings.json"),
            r#"{"enabledPlugins": {"agent-handover@agent-handover": true}}"#,
        )
        .unwrap();
        assert_eq!(run(), "spoke\n", "settings without install's hooks");
        let installed = format!(
            r#"{{"hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": {}}}]}}]}}}}"#,
            serde_json::to_string(&claude.hook_command(Stop)).unwrap()
        );
        std::fs::write(dir.path().join(".claude/settings.local.json"), &installed).unwrap();
        assert_eq!(run(), "", "install's hooks in the local settings");
        std::fs::remove_file(dir.path().join(".claude/settings.local.json")).unwrap();
        std::fs::write(dir.path().join(".claude/settings.json"), &installed).unwrap();
        assert_eq!(run(), "", "install's hooks in the project settings");
        // A project installed before the progress hook: the plugin's own
        // progress hook still speaks there.
        let progress = CLAUDE.guard(claude, &claude.hook_command(Progress));
        let out = std::process::Command::new("/bin/sh")
            .args(["-c", &format!("{progress}echo spoke")])
            .env("CLAUDE_PROJECT_DIR", dir.path())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), "spoke\n");
    }
}
