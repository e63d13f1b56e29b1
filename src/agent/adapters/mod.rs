//! Installing agent-handover into an agent's project files: its
//! instructions, its lifecycle hooks and its MCP registration.
//!
//! Each agent is one entry of [`table::ADAPTERS`]; an entry turns into a
//! list of [`Part`]s (file edits). `install` plans every edit in memory
//! before writing any, records what each file held before
//! ([`InstallRecord`]), creates `handover.toml` when missing, and
//! changes nothing when run again. `check` says whether each part is still
//! in place; `remove` takes an agent's parts out and, when no other agent
//! is left in a file, puts the file back byte for byte.

pub mod block;
pub mod json_hooks;
pub mod part;
pub mod plugin;
pub mod table;
pub mod trust;
pub mod yaml_read;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::agent::hooks::{HookEvent, HookProtocol, StartEnvelope};
use crate::base::error::{Error, Result};
use crate::base::{fsx, shell};
use crate::workspace::config::MemoryModel;
use crate::workspace::install_record::InstallRecord;
use crate::workspace::{DEFAULT_CONFIG, Workspace};
use block::Comment;
use json_hooks::HookEntries;
pub use part::Part;
pub use table::ADAPTERS;

const BOOTSTRAP: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/adapters/bootstrap.md"
));
const START_COMMAND: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/adapters/start-command.md"
));
const START_HOOK: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/adapters/start-hook.md"
));
const END_HOOK: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/adapters/end-hook.md"
));
const CURSOR_RULE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/adapters/cursor-rule.mdc"
));
const OPENCODE_PLUGIN: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/adapters/opencode-plugin.js"
));
const CLINE_HOOK: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/adapters/cline-hook.sh"
));
/// Largest project file read.
const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// The MCP server's name in every agent's configuration.
pub const MCP_SERVER_NAME: &str = "agent-handover";

/// One agent's integration (see [`table`] for every entry and its sources).
#[derive(Debug)]
pub struct Adapter {
    /// Its name on the command line, also its inbox name.
    pub name: &'static str,
    /// The agent's own name.
    pub title: &'static str,
    /// What it calls a unit of work: `session`, or `task` for Cline.
    pub unit: &'static str,
    /// Where it reads instructions.
    pub instructions: Instructions,
    /// How its hooks are configured; `None`: it has none.
    pub hooks: Option<HookSetup>,
    /// How its hooks speak.
    pub protocol: HookProtocol,
    /// Where it registers MCP servers; `None`: not per project.
    pub mcp: Option<McpSetup>,
    /// How it comes to trust a project (it skips a project's hooks and MCP
    /// servers until then); `None`: it asks for no trust.
    pub trust: Option<trust::Trust>,
}

/// Where an agent reads its instructions.
#[derive(Debug)]
pub enum Instructions {
    /// A marked block in a shared Markdown file.
    Block {
        /// The file.
        path: &'static str,
    },
    /// `CLAUDE.md`, importing `AGENTS.md` (`@AGENTS.md`) when there is one.
    ClaudeMd,
    /// `.clinerules/00-agent-handover.md`, or `.clinerules` when that is one file.
    ClineRules,
    /// A rule file of its own with front matter (Cursor).
    CursorRule {
        /// The file.
        path: &'static str,
    },
    /// A marked block in a conventions file listed in Aider's `read:`.
    AiderConventions {
        /// The conventions file.
        path: &'static str,
        /// The YAML config listing it.
        config: &'static str,
    },
}

/// How an agent's hooks are configured.
#[derive(Debug)]
pub enum HookSetup {
    /// `{"hooks": {Event: [{matcher, hooks: [{type, command, timeout}]}]}}` in a
    /// JSON settings file shared with the user.
    NestedJson {
        /// The settings file.
        path: &'static str,
        /// Our event, the agent's name for it, and its matcher.
        events: &'static [(HookEvent, &'static str, Option<&'static str>)],
        /// The unit of `timeout`.
        timeout: Timeout,
        /// The most the agent lets a session-end hook take, in seconds, when
        /// it caps it below ours (it clamps a longer one, and reports the
        /// clamp as an error).
        end_cap_secs: Option<u64>,
    },
    /// `{"version": 1, "hooks": {event: [{<command_key>, timeout}]}}`.
    FlatJson {
        /// The hooks file.
        path: &'static str,
        /// Our event and the agent's name for it.
        events: &'static [(HookEvent, &'static str)],
        /// The key holding the shell command (`command`, `bash`).
        command_key: &'static str,
    },
    /// An executable script per event, named after it.
    Scripts {
        /// The directory of scripts.
        dir: &'static str,
        /// A rules file every script leaves the brief in, for the next task
        /// (Cline CLI 3 drops a start hook's output but reads its rules).
        brief: &'static str,
        /// Our event and the script's name.
        events: &'static [(HookEvent, &'static str)],
    },
    /// A JavaScript plugin (OpenCode).
    Plugin {
        /// The plugin file.
        path: &'static str,
    },
}

/// The unit a hook's `timeout` is given in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timeout {
    /// Seconds.
    Seconds,
    /// Milliseconds.
    Milliseconds,
}

/// Where an agent registers MCP servers.
#[derive(Debug)]
pub enum McpSetup {
    /// `{"mcpServers": {name: entry}}` in a JSON file; `flavour` picks the
    /// entry's shape (`stdio`, `plain`, `copilot`).
    McpServers {
        /// The file.
        path: &'static str,
        /// The entry's shape.
        flavour: &'static str,
    },
    /// `[mcp_servers.<name>]` in Codex CLI's TOML config.
    CodexToml {
        /// The file.
        path: &'static str,
    },
    /// `{"mcp": {name: {type: "local", command: [...]}}}` in `opencode.json`.
    OpencodeJson {
        /// The file.
        path: &'static str,
    },
}

/// The adapter named `name`.
pub fn find(name: &str) -> Result<&'static Adapter> {
    ADAPTERS.iter().find(|a| a.name == name).ok_or_else(|| {
        let names: Vec<&str> = ADAPTERS.iter().map(|a| a.name).collect();
        Error::config(
            None,
            format!("no agent {name:?}\n  fix: use one of {}", names.join(", ")),
        )
    })
}

/// How long a hook may take, in seconds, per event (a session end must be quick).
fn timeout_secs(event: HookEvent) -> u64 {
    match event {
        HookEvent::SessionEnd | HookEvent::Progress => 10,
        _ => 30,
    }
}

/// The state folder (checkpoint, sessions, drafts: this machine's, never
/// published) in the project's `.gitignore`, in the agent's marked block,
/// when the folder is inside the project; and the agent's brief file, when
/// it has one (this machine's state too, rewritten by every task).
fn ignore_part(ws: &Workspace, brief: Option<&str>) -> Option<Part> {
    let state = ws
        .state_dir()
        .strip_prefix(&ws.root)
        .ok()
        .and_then(|rel| rel.to_str())
        .filter(|r| !r.is_empty())
        .map(|rel| format!("/{rel}/\n"));
    let body: String = state
        .into_iter()
        .chain(brief.map(|b| format!("/{b}\n")))
        .collect();
    (!body.is_empty()).then(|| Part::Block {
        path: ".gitignore".into(),
        comment: Comment::Hash,
        body,
        also: None,
    })
}

/// The text an agent reads when agent-handover is not on `PATH`.
fn missing_binary_brief(agent: &str) -> String {
    format!(
        "# agent-handover: no session brief\n\nagent-handover is not installed or not on PATH, so this session starts without the handover brief (the memory of earlier sessions). Install it as its README says (`git clone https://github.com/agent-handover/agent-handover && cd agent-handover && cargo install --locked --path .`: no release is on crates.io yet) or put it on PATH, then run `agent-handover brief --agent {agent}`.\n"
    )
}

impl Adapter {
    /// What `install` does for this agent, in a few words (for help texts).
    pub fn summary(&self) -> String {
        let mut what = vec![match &self.instructions {
            Instructions::Block { path } | Instructions::CursorRule { path } => path.to_string(),
            Instructions::ClaudeMd => "CLAUDE.md".into(),
            Instructions::ClineRules => ".clinerules/".into(),
            Instructions::AiderConventions { path, config } => format!("{path} in {config}"),
        }];
        if self.hooks.is_some() {
            what.push("hooks".into());
        }
        if self.mcp.is_some() {
            what.push("MCP".into());
        }
        format!("{} ({})", self.title, what.join(", "))
    }

    /// The shell command a hook of `event` runs: agent-handover when it is on
    /// `PATH`, else a brief saying it is missing (exit 0 either way).
    pub fn hook_command(&self, event: HookEvent) -> String {
        format!(
            "command -v agent-handover >/dev/null 2>&1 && exec agent-handover hook {} --agent {} || printf '%s\\n' {}",
            event.name(),
            self.name,
            shell::quote(self.fallback(event).trim_end())
        )
    }

    /// What a hook prints when agent-handover cannot run at all.
    fn fallback(&self, event: HookEvent) -> String {
        match event {
            HookEvent::SessionStart => self.protocol.start.wrap(&missing_binary_brief(self.name)),
            _ => crate::agent::hooks::envelope::NOTHING.to_string(),
        }
    }

    /// The bootstrap text of the agent's instructions block.
    pub fn bootstrap(&self) -> String {
        let (start, end) = match (&self.hooks, self.protocol.start) {
            // Cline 4.x and Cursor may not inject the start context: say the command too.
            (
                Some(_),
                StartEnvelope::ContextModification | StartEnvelope::AdditionalContextSnake,
            )
            | (None, _) => (START_COMMAND.to_string(), ""),
            (Some(_), _) => (START_HOOK.to_string(), END_HOOK),
        };
        let end = if self.protocol.ask.is_some() { end } else { "" };
        BOOTSTRAP
            .replace("{start}", &start)
            .replace("{end}", end)
            .replace("{title}", self.title)
            .replace("{unit}", self.unit)
            .replace("{agent}", self.name)
            .replace("\n\n\n", "\n\n")
    }

    /// Every edit this agent's install can make in `ws` (what `remove`
    /// takes out).
    pub fn parts(&self, ws: &Workspace) -> Vec<Part> {
        self.parts_beside(ws, None)
    }

    /// The edits `install` makes in `ws`: all of [`Adapter::parts`], less
    /// the hooks and the MCP server when the agent's plugin gives them
    /// (`plugin`, from [`Adapter::plugin_in_use`]).
    pub fn parts_beside(&self, ws: &Workspace, plugin: Option<&plugin::PluginUse>) -> Vec<Part> {
        let mut parts = vec![self.instructions_part(ws)];
        if let Instructions::AiderConventions { path, config } = &self.instructions {
            parts.push(Part::YamlRead {
                path: config.to_string(),
                file: path.to_string(),
            });
        }
        if plugin.is_none() {
            parts.extend(self.hook_parts(ws));
            parts.extend(self.mcp_part());
        }
        parts.extend(ignore_part(ws, self.brief_file(ws)));
        parts
    }

    /// The agent's plugin, when it has one (see [`plugin`]) and the agent
    /// runs it for this project.
    pub fn plugin_in_use(&self, ws: &Workspace) -> Option<plugin::PluginUse> {
        plugin::of(self).and_then(|p| p.in_use(ws))
    }

    /// The rules file the hooks keep the brief in, when they are installed.
    fn brief_file(&self, ws: &Workspace) -> Option<&'static str> {
        match &self.hooks {
            Some(HookSetup::Scripts { dir, brief, .. }) if !blocked_by_a_file(ws, dir) => {
                Some(brief)
            }
            _ => None,
        }
    }

    fn instructions_part(&self, ws: &Workspace) -> Part {
        let block = |path: &str, body: String| Part::Block {
            path: path.to_string(),
            comment: Comment::Html,
            body,
            also: None,
        };
        match &self.instructions {
            Instructions::Block { path } | Instructions::AiderConventions { path, .. } => {
                block(path, self.bootstrap())
            }
            Instructions::ClaudeMd => {
                // An import of the user's own, outside our block, is enough.
                let claude_md = std::fs::read_to_string(ws.claude_md()).unwrap_or_default();
                let outside =
                    block::remove(&claude_md, Comment::Html, self.name, Path::new("CLAUDE.md"))
                        .ok()
                        .flatten()
                        .unwrap_or(claude_md);
                let imported = outside.lines().any(|l| l.trim() == "@AGENTS.md");
                let plain = self.bootstrap();
                let importing = format!("@AGENTS.md\n\n{plain}");
                let (body, also) = if ws.agents_md().exists() && !imported {
                    (importing, plain)
                } else {
                    (plain, importing)
                };
                Part::Block {
                    path: "CLAUDE.md".into(),
                    comment: Comment::Html,
                    body,
                    also: Some(also),
                }
            }
            Instructions::ClineRules => {
                let rules = ws.cline_rules_file();
                let rel = rules.strip_prefix(&ws.root).unwrap_or(&rules);
                block(&rel.to_string_lossy(), self.bootstrap())
            }
            Instructions::CursorRule { path } => Part::Owned {
                path: path.to_string(),
                text: CURSOR_RULE.replace("{bootstrap}", self.bootstrap().trim_end()),
                executable: false,
            },
        }
    }

    /// The hooks this agent's install merges into its JSON settings file,
    /// when they are nested the Claude Code way (`{"hooks": {Event: [{matcher,
    /// hooks: [...]}]}}`); also what its plugin gives, when it has one
    /// ([`plugin`]).
    pub fn settings_hooks(&self) -> Option<HookEntries> {
        let Some(HookSetup::NestedJson {
            events,
            timeout,
            end_cap_secs,
            ..
        }) = &self.hooks
        else {
            return None;
        };
        let entries = events
            .iter()
            .map(|(event, name, matcher)| {
                let secs = match (event, end_cap_secs) {
                    (HookEvent::SessionEnd, Some(cap)) => timeout_secs(*event).min(*cap),
                    _ => timeout_secs(*event),
                };
                let timeout = match timeout {
                    Timeout::Seconds => secs,
                    Timeout::Milliseconds => secs * 1000,
                };
                let hook = json!({
                    "type": "command",
                    "command": self.hook_command(*event),
                    "timeout": timeout,
                });
                let group = match matcher {
                    Some(m) => json!({"matcher": m, "hooks": [hook]}),
                    None => json!({"hooks": [hook]}),
                };
                (*name, group)
            })
            .collect();
        Some(HookEntries {
            required_top: vec![],
            events: entries,
        })
    }

    fn hook_parts(&self, ws: &Workspace) -> Vec<Part> {
        let Some(hooks) = &self.hooks else {
            return Vec::new();
        };
        match hooks {
            HookSetup::NestedJson { path, .. } => self
                .settings_hooks()
                .map(|entries| Part::JsonHooks {
                    path: path.to_string(),
                    entries,
                })
                .into_iter()
                .collect(),
            HookSetup::FlatJson {
                path,
                events,
                command_key,
            } => {
                let timeout_key = if *command_key == "bash" {
                    "timeoutSec"
                } else {
                    "timeout"
                };
                let entries = events
                    .iter()
                    .map(|(event, name)| {
                        let mut hook = serde_json::Map::new();
                        hook.insert("type".into(), json!("command"));
                        hook.insert(command_key.to_string(), json!(self.hook_command(*event)));
                        hook.insert(timeout_key.into(), json!(timeout_secs(*event)));
                        (*name, Value::Object(hook))
                    })
                    .collect();
                vec![Part::JsonHooks {
                    path: path.to_string(),
                    entries: HookEntries {
                        required_top: vec![("version", json!(1))],
                        events: entries,
                    },
                }]
            }
            // Beside a single `.clinerules` file there is no hooks directory to write.
            HookSetup::Scripts { dir, .. } if blocked_by_a_file(ws, dir) => Vec::new(),
            HookSetup::Scripts { dir, brief, events } => {
                let mut parts: Vec<Part> = events
                    .iter()
                    .map(|(event, name)| Part::Owned {
                        path: format!("{dir}/{name}"),
                        text: CLINE_HOOK
                            .replace("{hook}", name)
                            .replace("{what}", self.script_purpose(*event))
                            .replace("{event}", event.name())
                            .replace("{brief}", &shell::quote(&relative_to(dir, brief)))
                            .replace(
                                "{missing}",
                                &shell::quote(missing_binary_brief(self.name).trim_end()),
                            )
                            .replace(
                                "{fallback}",
                                &shell::quote(self.fallback(*event).trim_end()),
                            ),
                        executable: true,
                    })
                    .collect();
                parts.push(Part::Refreshed {
                    path: brief.to_string(),
                    text: crate::agent::hooks::brief_within(
                        ws,
                        self.name,
                        self.protocol.start_cap_chars,
                    ),
                });
                parts
            }
            HookSetup::Plugin { path } => {
                let missing = serde_json::to_string(&missing_binary_brief(self.name))
                    .expect("a string serializes");
                vec![Part::Owned {
                    path: path.to_string(),
                    text: OPENCODE_PLUGIN.replace("{missing}", &missing),
                    executable: false,
                }]
            }
        }
    }

    /// For an agent that reads its brief from a rules file its hooks keep
    /// (Cline): that file rewritten with the brief as it is now, under the
    /// same cap as the brief a session-start hook gives, atomically and
    /// durably. A brief that cannot be made leaves the last one (the error
    /// would go into every prompt); another agent has no such file.
    pub fn refresh_rules_brief(&self, ws: &Workspace) -> Result<()> {
        match &self.hooks {
            Some(HookSetup::Scripts { dir, brief, .. }) if !blocked_by_a_file(ws, dir) => {
                let text = crate::agent::hooks::whole_brief_within(
                    ws,
                    self.name,
                    self.protocol.start_cap_chars,
                )?;
                fsx::write_atomic(&ws.root.join(brief), text.as_bytes())
            }
            _ => Ok(()),
        }
    }

    fn script_purpose(&self, event: HookEvent) -> &'static str {
        match event {
            HookEvent::SessionStart => "the session brief as context",
            HookEvent::Stop => "a request to hand over",
            HookEvent::PreCompact => "a draft handoff before the context is compacted",
            HookEvent::SessionEnd => "a draft handoff when the task ends without one",
            HookEvent::Progress => "a word when the context runs low",
        }
    }

    fn mcp_part(&self) -> Option<Part> {
        let setup = self.mcp.as_ref()?;
        Some(match setup {
            McpSetup::McpServers { path, flavour } => {
                let value = match *flavour {
                    "stdio" => {
                        json!({"type": "stdio", "command": "agent-handover", "args": ["mcp"]})
                    }
                    "copilot" => {
                        json!({"type": "local", "command": "agent-handover", "args": ["mcp"], "tools": ["*"]})
                    }
                    _ => json!({"command": "agent-handover", "args": ["mcp"]}),
                };
                Part::JsonEntry {
                    path: path.to_string(),
                    parent: "mcpServers",
                    key: MCP_SERVER_NAME,
                    value,
                }
            }
            McpSetup::CodexToml { path } => Part::Block {
                path: path.to_string(),
                comment: Comment::Hash,
                also: None,
                body: format!(
                    "[mcp_servers.{MCP_SERVER_NAME}]\ncommand = \"agent-handover\"\nargs = [\"mcp\"]\n"
                ),
            },
            McpSetup::OpencodeJson { path } => Part::JsonEntry {
                path: path.to_string(),
                parent: "mcp",
                key: MCP_SERVER_NAME,
                value: json!({"type": "local", "command": ["agent-handover", "mcp"], "enabled": true}),
            },
        })
    }
}

/// `file` (relative to the project root) as seen from the directory `dir`
/// (relative to it too): `../01-brief.md` from `.clinerules/hooks`.
fn relative_to(dir: &str, file: &str) -> String {
    let dir: Vec<&str> = dir.split('/').filter(|c| !c.is_empty()).collect();
    let file: Vec<&str> = file.split('/').filter(|c| !c.is_empty()).collect();
    let common = dir.iter().zip(&file).take_while(|(a, b)| a == b).count();
    let mut path: Vec<&str> = vec![".."; dir.len() - common];
    path.extend(&file[common..]);
    path.join("/")
}

/// Whether a file stands where a directory of `dir` would have to be.
fn blocked_by_a_file(ws: &Workspace, dir: &str) -> bool {
    ws.root
        .join(dir)
        .ancestors()
        .take_while(|p| *p != ws.root)
        .any(Path::is_file)
}

/// What installing (or removing) did to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// It did not exist.
    Created,
    /// It was rewritten.
    Updated,
    /// It was already as wanted; not written.
    Unchanged,
    /// It was put back as it was before any install.
    Restored,
    /// It was deleted (install had created it).
    Deleted,
    /// It was edited since install and is left as it is.
    Kept,
}

/// One file `install` looked after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileChange {
    /// The file, relative to the project root.
    pub path: PathBuf,
    /// What happened to it.
    pub change: Change,
}

/// Whether one file holds what `install` would put there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileCheck {
    /// The file, relative to the project root.
    pub path: PathBuf,
    /// `installed`, `outdated` (ours but not the current text) or `missing`.
    pub state: &'static str,
}

/// A file's planned text, not yet written.
struct Planned {
    rel: String,
    abs: PathBuf,
    old: Option<String>,
    new: Option<String>,
    executable: bool,
}

/// Read an agent's file of the project: never through a link leading out
/// of it (`.claude` linked to a folder elsewhere is refused, so nothing is
/// read or written there: every file is read before any is written).
fn read(ws: &Workspace, abs: &Path) -> Result<Option<String>> {
    fsx::read_text_within(
        &ws.root,
        abs,
        MAX_FILE_BYTES,
        "agent-handover edits only files under 1 MiB; add its part by hand (see `agent-handover install --help`)",
    )
}

/// The parts grouped by file, in first-seen order.
fn by_file(parts: Vec<Part>) -> Vec<(String, Vec<Part>)> {
    let mut files: Vec<(String, Vec<Part>)> = Vec::new();
    for part in parts {
        match files.iter_mut().find(|(p, _)| p == part.path()) {
            Some((_, list)) => list.push(part),
            None => files.push((part.path().to_string(), vec![part])),
        }
    }
    files
}

/// One install or removal at a time in `ws`, from reading the files it
/// edits to writing them and the install record (two agents installed at
/// once both keep their blocks in a file they share, such as AGENTS.md).
/// The lock is on the state folder itself, so it leaves no file behind.
fn lock(ws: &Workspace) -> Result<std::fs::File> {
    let record = ws.install_record();
    let dir = record.parent().unwrap_or(&ws.root);
    crate::base::fsx::create_dir_durable(dir)?;
    let folder = std::fs::File::open(dir).map_err(|e| crate::Error::io("open", dir, e))?;
    folder
        .lock()
        .map_err(|e| crate::Error::io("lock", dir, e))?;
    Ok(folder)
}

/// Remove what a killed install or removal left (our unlocked temp files,
/// never another tool's) in the folders `adapter`'s files and the install
/// record live in.
fn sweep(ws: &Workspace, adapter: &Adapter) {
    let mut dirs: Vec<PathBuf> = by_file(adapter.parts(ws))
        .into_iter()
        .filter_map(|(rel, _)| ws.root.join(rel).parent().map(Path::to_path_buf))
        .collect();
    dirs.extend(ws.install_record().parent().map(Path::to_path_buf));
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        crate::base::fsx::remove_orphan_temps(&dir, std::time::Duration::MAX);
    }
}

/// Install `adapter` in `ws`: idempotent; every file is read and checked
/// before any is written, so a malformed one leaves them all untouched.
/// When the agent's plugin is in use ([`Adapter::plugin_in_use`]) the hooks
/// and the MCP server are not written (the plugin gives them), and what an
/// earlier install wrote there is left as it is: the plugin's hooks keep
/// quiet beside it ([`plugin`]).
pub fn install(ws: &Workspace, adapter: &Adapter) -> Result<Vec<FileChange>> {
    let _one_at_a_time = lock(ws)?;
    sweep(ws, adapter);
    Intent::finish_pending(ws)?;
    let mut planned = Vec::new();
    let plugin = adapter.plugin_in_use(ws);
    for (rel, parts) in by_file(adapter.parts_beside(ws, plugin.as_ref())) {
        let abs = ws.root.join(&rel);
        let old = read(ws, &abs)?;
        let mut text = old.clone();
        for part in &parts {
            text = Some(part.plan(adapter.name, text.as_deref(), &abs)?);
        }
        planned.push(Planned {
            rel,
            abs,
            old,
            new: text,
            executable: parts.iter().any(Part::executable),
        });
    }
    let config = ws.root.join(DEFAULT_CONFIG);
    let config_missing = ws.config_path.is_none() && !config.exists();
    let mut record = InstallRecord::load(&ws.install_record())?;
    let before = record.clone();
    for p in &planned {
        record.touch(&p.rel, adapter.name, p.old.as_deref());
    }
    // The handover.toml install created stays while any agent uses it.
    if config_missing || record.files.contains_key(DEFAULT_CONFIG) {
        record.touch(DEFAULT_CONFIG, adapter.name, None);
    }
    let mut writes = Vec::new();
    let mut changes = Vec::new();
    if config_missing {
        writes.push(Write {
            path: config.clone(),
            text: Some(crate::workspace::config::starter(
                adapter.name,
                ws.starter_model(),
            )),
            executable: false,
        });
        changes.push(FileChange {
            path: DEFAULT_CONFIG.into(),
            change: Change::Created,
        });
    }
    for p in planned {
        let new = p.new.unwrap_or_default();
        let change = match &p.old {
            Some(old) if *old == new => Change::Unchanged,
            Some(_) => Change::Updated,
            None => Change::Created,
        };
        if change != Change::Unchanged || p.executable {
            writes.push(Write {
                path: p.abs,
                text: (change != Change::Unchanged).then_some(new),
                executable: p.executable,
            });
        }
        changes.push(FileChange {
            path: p.rel.into(),
            change,
        });
    }
    let intent = Intent {
        record: (record != before).then_some(record),
        writes,
    };
    intent.carry_out(ws)?;
    Ok(changes)
}

/// Every write of one install or removal, recorded durably before the first
/// (`.agent-handover/install-intent.json`), so that one killed halfway is
/// carried out whole by the next install or removal: the files end
/// in the before or the after state, never a mix.
#[derive(Debug, Serialize, Deserialize)]
struct Intent {
    /// The install record to save, if it changes.
    record: Option<InstallRecord>,
    /// The files to write or delete, in order.
    writes: Vec<Write>,
}

/// One file of an [`Intent`].
#[derive(Debug, Serialize, Deserialize)]
struct Write {
    /// The file.
    path: PathBuf,
    /// Its new text; `None`: delete it (or, with `executable`, leave it).
    text: Option<String>,
    /// Whether it must be executable.
    executable: bool,
}

impl Intent {
    fn file(ws: &Workspace) -> PathBuf {
        ws.install_record().with_file_name("install-intent.json")
    }

    /// Record the intent, carry it out, then let it go.
    fn carry_out(&self, ws: &Workspace) -> Result<()> {
        if self.record.is_none() && self.writes.is_empty() {
            return Ok(());
        }
        let file = Intent::file(ws);
        let json = serde_json::to_vec(self).expect("an install intent serializes");
        fsx::write_atomic(&file, &json)?;
        crate::base::failpoint::hit("install-after-intent");
        self.apply(ws)?;
        fsx::remove_files_durable(file.parent().unwrap_or(&ws.root), &["install-intent.json"])?;
        Ok(())
    }

    /// Each write, idempotent (carried out again after a kill).
    fn apply(&self, ws: &Workspace) -> Result<()> {
        if let Some(record) = &self.record {
            record.save(&ws.install_record())?;
        }
        for w in &self.writes {
            // A link may have been put on the way since the intent was recorded.
            fsx::check_links_within(&ws.root, &w.path)?;
            match &w.text {
                Some(text) => {
                    if let Some(dir) = w.path.parent() {
                        fsx::create_dir_durable(dir)?;
                    }
                    fsx::write_atomic(&w.path, text.as_bytes())?;
                    crate::base::failpoint::hit("install-after-file");
                }
                None if w.executable => {}
                None => match std::fs::remove_file(&w.path) {
                    Ok(()) => remove_empty_dirs(ws, &w.path),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(Error::io("remove", &w.path, e)),
                },
            }
            if w.executable {
                make_executable(&w.path)?;
            }
        }
        Ok(())
    }

    /// Carry out what a killed install or removal recorded, if anything.
    fn finish_pending(ws: &Workspace) -> Result<()> {
        let file = Intent::file(ws);
        let Some(text) = fsx::read_text_bounded(
            &file,
            64 * 1024 * 1024,
            "move it aside; the next install writes its files again",
        )?
        else {
            return Ok(());
        };
        let intent: Intent = serde_json::from_str(&text).map_err(|e| Error::Corrupt {
            path: file.clone(),
            detail: format!("invalid install intent ({e})"),
            fix: "move it aside; the next install writes its files again".into(),
        })?;
        intent.apply(ws)?;
        fsx::remove_files_durable(file.parent().unwrap_or(&ws.root), &["install-intent.json"])?;
        Ok(())
    }
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).map_err(|e| Error::io("stat", path, e))?;
    let mut perms = meta.permissions();
    if perms.mode() & 0o111 != 0o111 {
        perms.set_mode(perms.mode() | 0o755);
        std::fs::set_permissions(path, perms).map_err(|e| Error::io("chmod", path, e))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> Result<()> {
    Ok(())
}

/// Whether each of `adapter`'s files holds what `install` would write now
/// (beside the agent's plugin, when it is in use: not its hooks and MCP server).
pub fn check(ws: &Workspace, adapter: &Adapter) -> Result<Vec<FileCheck>> {
    let record = InstallRecord::load(&ws.install_record())?;
    let mut checks = Vec::new();
    let plugin = adapter.plugin_in_use(ws);
    for (rel, parts) in by_file(adapter.parts_beside(ws, plugin.as_ref())) {
        let abs = ws.root.join(&rel);
        let text = read(ws, &abs)?;
        let state = match &text {
            Some(t) if parts.iter().all(|p| p.holds(adapter.name, t)) => "installed",
            Some(_) if record.has(&rel, adapter.name) => "outdated",
            _ => "missing",
        };
        let state =
            if state == "installed" && parts.iter().any(Part::executable) && !is_executable(&abs) {
                "outdated"
            } else {
                state
            };
        checks.push(FileCheck {
            path: rel.into(),
            state,
        });
    }
    Ok(checks)
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_path: &Path) -> bool {
    true
}

/// Take `adapter`'s parts out of `ws`; a file no other agent is in any more
/// goes back to its text before the first install (or is deleted if install
/// created it), unless it was edited since, in which case only our parts go.
pub fn remove(ws: &Workspace, adapter: &Adapter) -> Result<Vec<FileChange>> {
    let _one_at_a_time = lock(ws)?;
    sweep(ws, adapter);
    Intent::finish_pending(ws)?;
    let mut record = InstallRecord::load(&ws.install_record())?;
    let mut writes: Vec<(PathBuf, String, Option<String>, Change)> = Vec::new();
    let mut files = by_file(adapter.parts(ws));
    if record.files.contains_key(DEFAULT_CONFIG) {
        files.push((DEFAULT_CONFIG.to_string(), Vec::new()));
    }
    for (rel, parts) in files {
        let abs = ws.root.join(&rel);
        let Some(current) = read(ws, &abs)? else {
            record.release(&rel, adapter.name);
            continue;
        };
        let others = record
            .files
            .get(&rel)
            .is_some_and(|f| f.agents.iter().any(|a| a != adapter.name));
        let mut cleaned = current.clone();
        for part in &parts {
            // A shared entry (the MCP server in a file two agents read) stays
            // while another agent is installed there.
            if others && matches!(part, Part::JsonEntry { .. } | Part::YamlRead { .. }) {
                continue;
            }
            if let Some(text) = part.unplan(adapter.name, &cleaned, &abs)? {
                cleaned = text;
            }
        }
        let recorded = record.has(&rel, adapter.name);
        let (new, change) = match record.release(&rel, adapter.name) {
            Some(before) => {
                let original = before.clone().unwrap_or_default();
                let same = if rel == DEFAULT_CONFIG {
                    before.is_none() && is_starter(&cleaned)
                } else {
                    parts
                        .first()
                        .is_some_and(|p| p.same_content(&cleaned, &original))
                };
                match (same, before) {
                    (true, Some(text)) => (Some(text), Change::Restored),
                    (true, None) => (None, Change::Deleted),
                    (false, _) if rel == DEFAULT_CONFIG => (Some(cleaned), Change::Kept),
                    (false, _) => (Some(cleaned), Change::Updated),
                }
            }
            None if !recorded && cleaned.trim().is_empty() => (None, Change::Deleted),
            None => (Some(cleaned), Change::Updated),
        };
        let change = match (&new, change) {
            (Some(text), Change::Updated | Change::Kept) if *text == current => {
                if change == Change::Kept {
                    Change::Kept
                } else {
                    Change::Unchanged
                }
            }
            (_, c) => c,
        };
        writes.push((abs, rel, new, change));
    }
    let mut changes = Vec::new();
    let mut files = Vec::new();
    for (abs, rel, new, change) in writes {
        if !matches!(change, Change::Unchanged | Change::Kept) {
            files.push(Write {
                path: abs,
                text: new,
                executable: false,
            });
        }
        changes.push(FileChange {
            path: rel.into(),
            change,
        });
    }
    Intent {
        record: Some(record),
        writes: files,
    }
    .carry_out(ws)?;
    Ok(changes)
}

/// Whether `text` is a `handover.toml` exactly as `install` writes it, for any agent.
fn is_starter(text: &str) -> bool {
    ADAPTERS.iter().any(|a| {
        [MemoryModel::OwnRef, MemoryModel::InProject]
            .into_iter()
            .any(|model| crate::workspace::config::starter(a.name, model) == text)
    })
}

/// Remove the directories above `file` that install created and left empty.
fn remove_empty_dirs(ws: &Workspace, file: &Path) {
    let mut dir = file.parent();
    while let Some(d) = dir {
        if d == ws.root || !d.starts_with(&ws.root) || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// The agents recorded as installed in `ws`, with the files each is in.
pub fn installed(ws: &Workspace) -> Result<BTreeMap<String, Vec<String>>> {
    let record = InstallRecord::load(&ws.install_record())?;
    let mut agents: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (file, entry) in &record.files {
        for agent in &entry.agents {
            agents.entry(agent.clone()).or_default().push(file.clone());
        }
    }
    Ok(agents)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claude Code's project hooks go where it reads them; the table is the
    /// one place that says so.
    #[test]
    fn claude_hooks_live_in_its_project_settings() {
        let Some(HookSetup::NestedJson { path, .. }) = &find("claude").unwrap().hooks else {
            panic!("claude's hooks are nested JSON");
        };
        assert_eq!(*path, ".claude/settings.json");
    }

    #[test]
    fn bootstraps_name_their_agent_and_the_handover_commands() {
        for adapter in ADAPTERS {
            let text = adapter.bootstrap();
            assert!(
                text.contains(&format!("agent-handover brief --agent {}", adapter.name)),
                "{text}"
            );
            assert!(
                text.contains(&format!("agent-handover draft --agent {}", adapter.name)),
                "{text}"
            );
            assert!(text.contains("agent-handover run --note-file"), "{text}");
            for placeholder in ["{agent}", "{unit}", "{start}", "{end}", "{title}"] {
                assert!(!text.contains(placeholder), "{text}");
            }
        }
        assert!(find("cline").unwrap().bootstrap().contains("every task"));
        assert!(
            find("claude")
                .unwrap()
                .bootstrap()
                .contains("session-start hook")
        );
        assert!(
            find("aider")
                .unwrap()
                .bootstrap()
                .contains("At the START of every session")
        );
        let err = find("Claude").unwrap_err().to_string();
        assert!(
            err.contains("claude, codex") || err.contains("use one of"),
            "{err}"
        );
    }

    #[test]
    fn names_are_unique_and_safe() {
        let mut names: Vec<&str> = ADAPTERS.iter().map(|a| a.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ADAPTERS.len());
        for name in names {
            crate::domain::inbox::check_agent(name).unwrap();
        }
    }

    #[test]
    fn a_refreshed_file_is_written_once_and_left_to_the_hooks() {
        let part = Part::Refreshed {
            path: ".clinerules/01-agent-handover-brief.md".into(),
            text: "# Session brief\n".into(),
        };
        let file = Path::new("brief.md");
        assert_eq!(part.plan("cline", None, file).unwrap(), "# Session brief\n");
        assert_eq!(
            part.plan("cline", Some("a newer brief\n"), file).unwrap(),
            "a newer brief\n",
            "install leaves what the hooks wrote"
        );
        assert!(part.holds("cline", "a newer brief\n"));
        assert_eq!(
            part.unplan("cline", "a newer brief\n", file).unwrap(),
            Some(String::new())
        );
        assert_eq!(
            relative_to(
                ".clinerules/hooks",
                ".clinerules/01-agent-handover-brief.md"
            ),
            "../01-agent-handover-brief.md"
        );
        assert_eq!(relative_to("a/b", "c.md"), "../../c.md");
        assert_eq!(relative_to(".clinerules/hooks", ""), "../..");
    }

    #[test]
    fn hook_commands_fall_back_to_a_brief_in_the_agents_envelope() {
        for adapter in ADAPTERS.iter().filter(|a| a.hooks.is_some()) {
            let cmd = adapter.hook_command(HookEvent::SessionStart);
            let out = std::process::Command::new("/bin/sh")
                .args(["-c", &cmd])
                .env("PATH", "/nonexistent")
                .output()
                .unwrap();
            assert!(out.status.success(), "{}: {cmd}", adapter.name);
            let stdout = String::from_utf8(out.stdout).unwrap();
            assert!(stdout.contains("not installed or not on PATH"), "{stdout}");
            if adapter.protocol.start != StartEnvelope::Plain {
                serde_json::from_str::<Value>(&stdout).unwrap();
            }
        }
    }

    /// Issue 40: the fallback said `cargo install agent-handover`, and no
    /// release is on crates.io: it gives the README's install commands.
    #[test]
    fn the_missing_binary_brief_installs_as_the_readme_says() {
        let readme = include_str!("../../../README.md");
        let section = readme
            .split("## Install for an agent")
            .nth(1)
            .and_then(|s| s.split("```sh\n").nth(1))
            .and_then(|s| s.split("```").next())
            .expect("the README's install block");
        let brief = missing_binary_brief("claude");
        for line in section.lines() {
            let command = line.split('#').next().unwrap().trim();
            for part in command.split(" && ") {
                assert!(brief.contains(part), "{part:?} missing from: {brief}");
            }
        }
        assert!(!brief.contains("`cargo install agent-handover`"), "{brief}");
    }
}
