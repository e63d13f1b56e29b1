//! Installing the session-start bootstrap where each agent reads it.
//!
//! * Codex CLI and OpenCode read `AGENTS.md`; Claude Code reads `CLAUDE.md`;
//!   Cline reads every file in `.clinerules/` (or a single `.clinerules`
//!   file). Each gets a block between `<!-- agent-handover:begin -->` and
//!   `<!-- agent-handover:end -->` (agent-handover 0.5.1's markers); text
//!   outside the markers is never touched ([`block`]).
//! * Claude Code also gets a `SessionStart` hook in `.claude/settings.json`
//!   that runs the brief, merged into the existing settings ([`claude_hooks`]).
//!
//! Installing twice changes nothing. The texts live in `assets/adapters/`.

pub mod block;
pub mod claude_hooks;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Serialize;

use crate::error::Result;
use crate::fsx;
use crate::workspace::Workspace;

const BOOTSTRAP: &str = include_str!("../../assets/adapters/bootstrap.md");
const START_COMMAND: &str = include_str!("../../assets/adapters/start-command.md");
const START_HOOK: &str = include_str!("../../assets/adapters/start-hook.md");
/// Largest bootstrap or settings file read.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// An agent `install` knows; parsed from its [`name`](AgentKind::name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentKind {
    /// OpenAI Codex CLI.
    Codex,
    /// OpenCode.
    Opencode,
    /// Claude Code.
    Claude,
    /// Cline.
    Cline,
}

impl AgentKind {
    /// Every agent `install` knows, in the order help texts list them.
    pub const ALL: [AgentKind; 4] = [
        AgentKind::Codex,
        AgentKind::Opencode,
        AgentKind::Claude,
        AgentKind::Cline,
    ];

    /// The agent's name, also its inbox name in the bootstrap.
    pub fn name(self) -> &'static str {
        match self {
            AgentKind::Codex => "codex",
            AgentKind::Opencode => "opencode",
            AgentKind::Claude => "claude",
            AgentKind::Cline => "cline",
        }
    }

    /// The agent and the files its bootstrap goes to, in a few words (for help texts).
    pub fn summary(self) -> &'static str {
        match self {
            AgentKind::Codex => "OpenAI Codex CLI (`AGENTS.md`)",
            AgentKind::Opencode => "OpenCode (`AGENTS.md`)",
            AgentKind::Claude => "Claude Code (`CLAUDE.md` and a SessionStart hook)",
            AgentKind::Cline => "Cline (`.clinerules/00-agent-handover.md`)",
        }
    }

    /// The bootstrap text placed between the markers for this agent.
    pub fn bootstrap(self) -> String {
        let (start, unit) = match self {
            AgentKind::Claude => (START_HOOK, "session"),
            AgentKind::Cline => (START_COMMAND, "task"),
            AgentKind::Codex | AgentKind::Opencode => (START_COMMAND, "session"),
        };
        BOOTSTRAP
            .replace("{start}", start)
            .replace("{unit}", unit)
            .replace("{agent}", self.name())
    }
}

impl FromStr for AgentKind {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        AgentKind::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = AgentKind::ALL.iter().map(|a| a.name()).collect();
                format!("no agent {s:?}; known: {}", names.join(", "))
            })
    }
}

/// What installing did to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// It did not exist.
    Created,
    /// It was rewritten.
    Updated,
    /// It was already up to date; not written.
    Unchanged,
}

/// One file `install` looked after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileChange {
    /// The file.
    pub path: PathBuf,
    /// What happened to it.
    pub change: Change,
}

/// Install `agent`'s bootstrap in the project at `ws.root`.
///
/// Every file is read and checked before any is written, so a malformed one
/// leaves them all untouched.
pub fn install(ws: &Workspace, agent: AgentKind) -> Result<Vec<FileChange>> {
    let text = agent.bootstrap();
    let edits = match agent {
        AgentKind::Codex | AgentKind::Opencode => vec![block::edit(&ws.agents_md(), &text)?],
        AgentKind::Claude => vec![
            block::edit(&ws.claude_md(), &text)?,
            claude_hooks::edit(&ws.claude_settings())?,
        ],
        AgentKind::Cline => vec![block::edit(&ws.cline_rules_file(), &text)?],
    };
    edits.into_iter().map(Edit::apply).collect()
}

/// A file's text before and after installing, not yet written.
#[derive(Debug)]
struct Edit {
    path: PathBuf,
    old: Option<String>,
    new: String,
}

impl Edit {
    /// Plan replacing `path`'s text (`None`: no file yet) with what `change` makes of it.
    fn plan(path: &Path, change: impl FnOnce(Option<&str>) -> Result<String>) -> Result<Edit> {
        let old = fsx::read_text_bounded(
            path,
            MAX_FILE_BYTES,
            "agent-handover edits only files under 1 MiB; add the block by hand (see `agent-handover install --help`)",
        )?;
        let new = change(old.as_deref())?;
        Ok(Edit {
            path: path.to_path_buf(),
            old,
            new,
        })
    }

    /// Write the new text atomically, unless the file already holds exactly that.
    fn apply(self) -> Result<FileChange> {
        let change = match &self.old {
            Some(old) if *old == self.new => Change::Unchanged,
            Some(_) => Change::Updated,
            None => Change::Created,
        };
        if change != Change::Unchanged {
            fsx::write_atomic(&self.path, self.new.as_bytes())?;
        }
        Ok(FileChange {
            path: self.path,
            change,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bootstraps_name_their_agent_and_run_the_brief() {
        for agent in AgentKind::ALL {
            let text = agent.bootstrap();
            assert!(
                text.contains(&format!("agent-handover brief --agent {}", agent.name())),
                "{text}"
            );
            for placeholder in ["{agent}", "{unit}", "{start}"] {
                assert!(!text.contains(placeholder), "{text}");
            }
            assert!(text.ends_with("```\n"));
        }
        assert!(AgentKind::Cline.bootstrap().contains("every task"));
        assert!(AgentKind::Claude.bootstrap().contains("SessionStart hook"));
    }

    #[test]
    fn agents_parse_from_their_names_only() {
        for agent in AgentKind::ALL {
            assert_eq!(agent.name().parse::<AgentKind>(), Ok(agent));
            assert_eq!(
                serde_json::to_value(agent).unwrap(),
                serde_json::json!(agent.name())
            );
        }
        let err = "Claude".parse::<AgentKind>().unwrap_err();
        assert!(err.contains("codex, opencode, claude, cline"), "{err}");
    }
}
