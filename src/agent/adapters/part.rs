//! The kinds of file edits an adapter is made of, and for each how it is
//! installed, checked and removed. Every edit is planned in memory first
//! ([`Part::plan`]), so a malformed file stops the install before anything
//! is written.

use std::path::Path;

use serde_json::Value;

use super::block::{self, Comment};
use super::json_hooks::{self, HookEntries};
use super::yaml_read;
use crate::base::error::Result;

/// One edit an adapter makes to a project.
#[derive(Debug, Clone)]
pub enum Part {
    /// The agent's marked block in a shared text file.
    Block {
        /// The file, relative to the project root.
        path: String,
        /// How the file writes comments (the markers are comments).
        comment: Comment,
        /// The block's text, ending with a newline.
        body: String,
        /// Another text that counts as installed too (Claude Code's block
        /// with or without the `@AGENTS.md` import that depends on the project).
        also: Option<String>,
    },
    /// A file that is agent-handover's alone.
    Owned {
        /// The file, relative to the project root.
        path: String,
        /// Its text.
        text: String,
        /// Whether it must be executable (a hook script).
        executable: bool,
    },
    /// A file that is agent-handover's alone and that its hooks rewrite
    /// (Cline's brief among its rules): install writes `text` when the file
    /// is missing and leaves what the hooks wrote; it is installed while it
    /// exists.
    Refreshed {
        /// The file, relative to the project root.
        path: String,
        /// Its first text.
        text: String,
    },
    /// Hooks merged into a JSON settings file.
    JsonHooks {
        /// The file, relative to the project root.
        path: String,
        /// What goes in.
        entries: HookEntries,
    },
    /// An entry under a key of a JSON file (an MCP server registration).
    JsonEntry {
        /// The file, relative to the project root.
        path: String,
        /// The object holding the entry (`mcpServers`, `mcp`).
        parent: &'static str,
        /// The entry's key.
        key: &'static str,
        /// Its value.
        value: Value,
    },
    /// A file in Aider's `read:` list.
    YamlRead {
        /// The YAML config, relative to the project root.
        path: String,
        /// The file to list.
        file: String,
    },
}

impl Part {
    /// The file it edits, relative to the project root.
    pub fn path(&self) -> &str {
        match self {
            Part::Block { path, .. }
            | Part::Owned { path, .. }
            | Part::Refreshed { path, .. }
            | Part::JsonHooks { path, .. }
            | Part::JsonEntry { path, .. }
            | Part::YamlRead { path, .. } => path,
        }
    }

    /// Whether the file must be executable.
    pub fn executable(&self) -> bool {
        matches!(
            self,
            Part::Owned {
                executable: true,
                ..
            }
        )
    }

    /// The file's text with this part in it, for `agent`.
    pub fn plan(&self, agent: &str, existing: Option<&str>, file: &Path) -> Result<String> {
        let old = existing.unwrap_or("");
        match self {
            Part::Block { comment, body, .. } => block::splice(old, *comment, agent, body, file),
            Part::Owned { text, .. } => Ok(text.clone()),
            Part::Refreshed { text, .. } => Ok(existing.unwrap_or(text).to_string()),
            Part::JsonHooks { entries, .. } => json_hooks::merge(existing, entries, file),
            Part::JsonEntry {
                parent, key, value, ..
            } => json_hooks::set_entry(existing, parent, key, value, file),
            Part::YamlRead { file: listed, .. } => yaml_read::add(old, listed, file),
        }
    }

    /// Whether `existing` already holds this part exactly.
    pub fn holds(&self, agent: &str, existing: &str) -> bool {
        match self {
            Part::Block {
                comment,
                body,
                also,
                ..
            } => {
                block::holds(existing, *comment, agent, body)
                    || also
                        .as_ref()
                        .is_some_and(|b| block::holds(existing, *comment, agent, b))
            }
            Part::Owned { text, .. } => existing == text,
            Part::Refreshed { .. } => true,
            Part::JsonHooks { entries, .. } => json_hooks::holds(existing, entries),
            Part::JsonEntry {
                parent, key, value, ..
            } => json_hooks::entry_is(existing, parent, key, value),
            Part::YamlRead { file, .. } => yaml_read::lists(existing, file),
        }
    }

    /// The file's text without this part; `None` when it is not there.
    /// An owned file comes back as an empty text (the file goes).
    pub fn unplan(&self, agent: &str, existing: &str, file: &Path) -> Result<Option<String>> {
        match self {
            Part::Block { comment, .. } => block::remove(existing, *comment, agent, file),
            Part::Owned { .. } | Part::Refreshed { .. } => Ok(Some(String::new())),
            Part::JsonHooks { entries, .. } => {
                let top: Vec<&str> = entries.required_top.iter().map(|(k, _)| *k).collect();
                json_hooks::remove(existing, &top, file)
            }
            Part::JsonEntry { parent, key, .. } => {
                json_hooks::remove_entry(existing, parent, key, file)
            }
            Part::YamlRead { .. } => Ok(yaml_read::remove(existing)),
        }
    }

    /// Whether `a` and `b` say the same (JSON compared as values, so the
    /// original bytes can be restored when only the layout differs).
    pub fn same_content(&self, a: &str, b: &str) -> bool {
        match self {
            Part::JsonHooks { .. } | Part::JsonEntry { .. } => {
                let parse = |t: &str| {
                    if t.trim().is_empty() {
                        Some(serde_json::json!({}))
                    } else {
                        serde_json::from_str::<Value>(t).ok()
                    }
                };
                a == b || parse(a).is_some_and(|x| Some(x) == parse(b))
            }
            // Only the blank lines around a block can differ from the original.
            _ => a.trim_end() == b.trim_end(),
        }
    }
}
