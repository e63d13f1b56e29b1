//! Whether an agent trusts this project, as far as its own files on this
//! machine say. Several agents run a project's hooks and MCP servers only in
//! a trusted folder, and say nothing when they skip them, so `install` tells
//! the exact step and `install --check` reads the trust where the agent
//! keeps it (each reader cites the agent's source; what cannot be read is
//! "unknown", never guessed):
//!
//! * Claude Code: `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json`),
//!   `projects["<dir>"].hasTrustDialogAccepted == true` for the project's
//!   folder or a parent up to its git root
//!   (https://code.claude.com/docs/en/permissions, "trust";
//!   npm `@anthropic-ai/claude-code` 2.1.332).
//! * Codex CLI: `$CODEX_HOME/config.toml` (`~/.codex`),
//!   `[projects."<dir>"] trust_level = "trusted"` for the folder, its
//!   project root or its repository root, canonical paths
//!   (openai/codex `codex-rs/config/src/loader/mod.rs`,
//!   `project_trust_key`, `decision_for_dir`, at 99efeef). Hooks need their
//!   own review in `/hooks` (a hash of each hook in
//!   `[hooks.state]`), which is not judged here.
//! * Gemini CLI: `~/.gemini/trustedFolders.json`
//!   (`$GEMINI_CLI_TRUSTED_FOLDERS_PATH`), `{"<dir>": "TRUST_FOLDER" |
//!   "TRUST_PARENT" | "DO_NOT_TRUST"}`, the longest rule containing the
//!   folder wins, `TRUST_PARENT` trusting the rule's parent
//!   (google-gemini/gemini-cli `packages/core/src/utils/trust.ts` at
//!   5411f11); `$GEMINI_CLI_TRUST_WORKSPACE` overrides it.
//! * Copilot CLI: `~/.copilot/config.json` (`$COPILOT_HOME`),
//!   `"trustedFolders": ["<dir>", …]`, each covering its subfolders
//!   (docs.github.com, "Configure Copilot CLI"; 1.0.102); `COPILOT_ALLOW_ALL`
//!   trusts every folder.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::base::fsx;
use crate::workspace::Workspace;

/// Largest agent settings file read.
const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// What an agent's own files say about this project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TrustState {
    /// The agent trusts the project.
    Given,
    /// The agent has not been told to trust it (or was told not to).
    NotGiven,
    /// Cannot be read from disk (no such file, a format this version does
    /// not read, or the agent keeps it elsewhere).
    Unknown,
}

/// How an agent comes to trust a project.
#[derive(Debug)]
pub struct Trust {
    /// The steps, as `install` prints them.
    pub steps: &'static str,
    /// Where its trust can be read, if it can.
    pub read: Option<fn(&Workspace) -> TrustState>,
}

/// The folders a rule may name for this project: the project root and the
/// git repository's root above it, both canonical.
pub(super) fn project_keys(ws: &Workspace) -> Vec<PathBuf> {
    let root = ws.root.canonicalize().unwrap_or_else(|_| ws.root.clone());
    let mut keys = vec![root.clone()];
    if let Some(top) = git2::Repository::discover(&root)
        .ok()
        .and_then(|r| r.workdir().map(Path::to_path_buf))
        .and_then(|w| w.canonicalize().ok())
        && top != root
    {
        keys.push(top);
    }
    keys
}

/// A path as an agent wrote it, canonical when it exists.
pub(super) fn canonical(raw: &str) -> PathBuf {
    let path = PathBuf::from(raw.trim_end_matches('/'));
    path.canonicalize().unwrap_or(path)
}

pub(super) fn read_json(path: &Path) -> Option<serde_json::Value> {
    let text = fsx::read_text_bounded(path, MAX_BYTES, "").ok()??;
    serde_json::from_str(&without_comment_lines(&text)).ok()
}

/// `text` without its whole-line `//` comments: Copilot CLI 1.0 writes its
/// config.json with two of them on top ("// User settings belong in …").
/// Comments after a value, or inside a string, are not looked for.
fn without_comment_lines(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Claude Code: a project entry with the dialog accepted, for the folder
/// or a parent of it up to its git root.
pub fn claude(ws: &Workspace) -> TrustState {
    let file = match std::env::var_os("CLAUDE_CONFIG_DIR") {
        Some(dir) => PathBuf::from(dir).join(".claude.json"),
        None => match ws.home.clone() {
            Some(h) => h.join(".claude.json"),
            None => return TrustState::Unknown,
        },
    };
    let Some(config) = read_json(&file) else {
        return TrustState::Unknown;
    };
    let Some(projects) = config["projects"].as_object() else {
        return TrustState::NotGiven;
    };
    let keys = project_keys(ws);
    let (root, top) = (&keys[0], keys.last().expect("the root at least"));
    let trusted = projects.iter().any(|(dir, entry)| {
        let dir = canonical(dir);
        entry["hasTrustDialogAccepted"] == true && root.starts_with(&dir) && dir.starts_with(top)
    });
    if trusted {
        TrustState::Given
    } else {
        TrustState::NotGiven
    }
}

/// Codex CLI: `trust_level = "trusted"` for the folder, or its repository's
/// root.
pub fn codex(ws: &Workspace) -> TrustState {
    let dir = match std::env::var_os("CODEX_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => match ws.home.clone() {
            Some(h) => h.join(".codex"),
            None => return TrustState::Unknown,
        },
    };
    let Ok(Some(text)) = fsx::read_text_bounded(&dir.join("config.toml"), MAX_BYTES, "") else {
        return TrustState::Unknown;
    };
    let Ok(config) = text.parse::<toml::Table>() else {
        return TrustState::Unknown;
    };
    let Some(projects) = config.get("projects").and_then(|p| p.as_table()) else {
        return TrustState::NotGiven;
    };
    let keys = project_keys(ws);
    let level = |key: &PathBuf| {
        projects.iter().find_map(|(dir, entry)| {
            (canonical(dir) == *key)
                .then(|| entry.get("trust_level").and_then(|l| l.as_str()))
                .flatten()
        })
    };
    // The folder's own decision first, then the repository root's.
    match keys.iter().find_map(level) {
        Some("trusted") => TrustState::Given,
        _ => TrustState::NotGiven,
    }
}

/// Gemini CLI: the longest rule containing the folder decides.
pub fn gemini(ws: &Workspace) -> TrustState {
    match std::env::var("GEMINI_CLI_TRUST_WORKSPACE").as_deref() {
        Ok("true") => return TrustState::Given,
        Ok("false") => return TrustState::NotGiven,
        _ => {}
    }
    let file = match std::env::var_os("GEMINI_CLI_TRUSTED_FOLDERS_PATH") {
        Some(path) => PathBuf::from(path),
        None => match std::env::var_os("GEMINI_CLI_HOME")
            .map(PathBuf::from)
            .or_else(|| ws.home.clone())
        {
            Some(h) => h.join(".gemini/trustedFolders.json"),
            None => return TrustState::Unknown,
        },
    };
    let Some(rules) = read_json(&file) else {
        return TrustState::Unknown;
    };
    let Some(rules) = rules.as_object() else {
        return TrustState::Unknown;
    };
    let root = &project_keys(ws)[0];
    let decision = rules
        .iter()
        .filter_map(|(dir, rule)| {
            let dir = canonical(dir);
            let (covered, trusted) = match rule.as_str()? {
                "TRUST_FOLDER" => (dir, true),
                "TRUST_PARENT" => (dir.parent()?.to_path_buf(), true),
                "DO_NOT_TRUST" => (dir, false),
                _ => return None,
            };
            root.starts_with(&covered)
                .then_some((covered.as_os_str().len(), trusted))
        })
        .max_by_key(|(len, _)| *len);
    match decision {
        Some((_, true)) => TrustState::Given,
        _ => TrustState::NotGiven,
    }
}

/// Copilot CLI: a trusted folder containing the project.
pub fn copilot(ws: &Workspace) -> TrustState {
    if std::env::var("COPILOT_ALLOW_ALL").as_deref() == Ok("true") {
        return TrustState::Given;
    }
    let dir = match std::env::var_os("COPILOT_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => match ws.home.clone() {
            Some(h) => h.join(".copilot"),
            None => return TrustState::Unknown,
        },
    };
    let Some(config) = read_json(&dir.join("config.json")) else {
        return TrustState::Unknown;
    };
    let Some(folders) = config["trustedFolders"].as_array() else {
        return TrustState::NotGiven;
    };
    let root = &project_keys(ws)[0];
    let trusted = folders
        .iter()
        .filter_map(|f| f.as_str())
        .any(|f| root.starts_with(canonical(f)));
    if trusted {
        TrustState::Given
    } else {
        TrustState::NotGiven
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(dir: &Path) -> Workspace {
        std::fs::create_dir_all(dir.join("home")).unwrap();
        std::fs::create_dir_all(dir.join("p/sub")).unwrap();
        Workspace::resolve(crate::WorkspaceOptions {
            cwd: Some(dir.join("p/sub")),
            home: Some(dir.join("home")),
            ..Default::default()
        })
        .unwrap()
    }

    #[test]
    fn each_agents_own_record_is_read_and_nothing_is_guessed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().canonicalize().unwrap();
        let ws = workspace(&d);
        let sub = d.join("p/sub");
        for read in [claude, codex, gemini, copilot] {
            assert_eq!(read(&ws), TrustState::Unknown, "no file: unknown");
        }
        let home = d.join("home");
        std::fs::write(
            home.join(".claude.json"),
            format!(
                r#"{{"projects": {{"{}": {{"hasTrustDialogAccepted": false}}}}}}"#,
                sub.display()
            ),
        )
        .unwrap();
        assert_eq!(claude(&ws), TrustState::NotGiven);
        std::fs::write(
            home.join(".claude.json"),
            format!(
                r#"{{"projects": {{"{}/": {{"hasTrustDialogAccepted": true}}}}}}"#,
                sub.display()
            ),
        )
        .unwrap();
        assert_eq!(claude(&ws), TrustState::Given);

        std::fs::create_dir_all(home.join(".codex")).unwrap();
        std::fs::write(
            home.join(".codex/config.toml"),
            format!(
                "[projects.\"{}\"]\ntrust_level = \"untrusted\"\n",
                sub.display()
            ),
        )
        .unwrap();
        assert_eq!(codex(&ws), TrustState::NotGiven);
        std::fs::write(
            home.join(".codex/config.toml"),
            format!(
                "[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
                sub.display()
            ),
        )
        .unwrap();
        assert_eq!(codex(&ws), TrustState::Given);

        std::fs::create_dir_all(home.join(".gemini")).unwrap();
        let rules =
            |json: String| std::fs::write(home.join(".gemini/trustedFolders.json"), json).unwrap();
        rules(format!(r#"{{"{}": "TRUST_PARENT"}}"#, sub.display()));
        assert_eq!(
            gemini(&ws),
            TrustState::Given,
            "the parent of the rule covers it"
        );
        rules(format!(
            r#"{{"{}": "TRUST_FOLDER", "{}": "DO_NOT_TRUST"}}"#,
            d.join("p").display(),
            sub.display()
        ));
        assert_eq!(gemini(&ws), TrustState::NotGiven, "the longest rule wins");

        std::fs::create_dir_all(home.join(".copilot")).unwrap();
        std::fs::write(
            home.join(".copilot/config.json"),
            format!(r#"{{"trustedFolders": ["{}"]}}"#, d.join("p").display()),
        )
        .unwrap();
        assert_eq!(copilot(&ws), TrustState::Given, "a parent folder covers it");
        // As Copilot CLI 1.0.102 rewrites it, with comment lines on top.
        std::fs::write(
            home.join(".copilot/config.json"),
            format!(
                "// User settings belong in settings.json.\n// This file is managed automatically.\n{{\n  \"trustedFolders\": [\n    \"{}\"\n  ]\n}}\n",
                d.join("p").display()
            ),
        )
        .unwrap();
        assert_eq!(
            copilot(&ws),
            TrustState::Given,
            "its own comment lines are skipped"
        );
    }
}
