//! The Claude Code `SessionStart` hook that runs the brief, merged into
//! `.claude/settings.json`:
//!
//! ```json
//! {"hooks": {"SessionStart": [{"matcher": "startup|resume|clear|compact",
//!   "hooks": [{"type": "command", "command": "cd \"$CLAUDE_PROJECT_DIR\" && agent-handover brief --agent claude"}]}]}}
//! ```
//!
//! Other keys and other hooks stay as they are (and in their order). A
//! command that already runs `agent-handover brief` counts as installed, so
//! a hand-tuned one (say, with `--max-tokens`) is kept. Settings that are not
//! valid JSON, or have `hooks` of the wrong shape, are an error and the file
//! is left untouched.

use std::path::Path;

use serde_json::{Value, json};

use super::Edit;
use crate::error::{Error, Result};

/// The hook's command.
pub const HOOK_COMMAND: &str = "cd \"$CLAUDE_PROJECT_DIR\" && agent-handover brief --agent claude";
/// What marks a command as ours.
const OURS: &str = "agent-handover brief";
/// Every way a Claude Code session starts.
const MATCHER: &str = "startup|resume|clear|compact";

/// The settings text with our hook added, or `None` if it is already there.
pub fn merge(existing: Option<&str>, path: &Path) -> Result<Option<String>> {
    let corrupt = |detail: String| {
        Error::Corrupt {
        path: path.into(),
        detail,
        fix: "fix it by hand (or move it aside), then run `agent-handover install claude` again; agent-handover left it untouched".into(),
    }
    };
    let mut settings: Value = match existing.filter(|t| !t.trim().is_empty()) {
        Some(text) => {
            serde_json::from_str(text).map_err(|e| corrupt(format!("invalid JSON ({e})")))?
        }
        None => json!({}),
    };
    let groups = settings
        .as_object_mut()
        .ok_or_else(|| corrupt("the settings are not a JSON object".into()))?
        .entry("hooks")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| corrupt("`hooks` is not an object".into()))?
        .entry("SessionStart")
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .ok_or_else(|| corrupt("`hooks.SessionStart` is not an array".into()))?;
    let installed = groups.iter().any(|group| {
        group["hooks"].as_array().is_some_and(|hooks| {
            hooks
                .iter()
                .any(|h| h["command"].as_str().is_some_and(|c| c.contains(OURS)))
        })
    });
    if installed {
        return Ok(None);
    }
    groups.push(json!({
        "matcher": MATCHER,
        "hooks": [{"type": "command", "command": HOOK_COMMAND}],
    }));
    Ok(Some(
        serde_json::to_string_pretty(&settings).expect("settings serialize") + "\n",
    ))
}

/// Plan adding the hook to the settings file at `path` (created if missing).
pub(super) fn edit(path: &Path) -> Result<Edit> {
    Edit::plan(path, |old| {
        Ok(merge(old, path)?.unwrap_or_else(|| old.unwrap_or_default().to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new(".claude/settings.json")
    }

    #[test]
    fn adds_the_hook_beside_others_and_only_once() {
        let user = r#"{"model": "opus", "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}], "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}"#;
        let merged = merge(Some(user), p()).unwrap().unwrap();
        let v: Value = serde_json::from_str(&merged).unwrap();
        assert_eq!(v["model"], "opus");
        assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "say done");
        let start = v["hooks"]["SessionStart"].as_array().unwrap();
        assert_eq!(start[0]["hooks"][0]["command"], "echo hi");
        assert_eq!(start[1]["hooks"][0]["command"], HOOK_COMMAND);
        assert_eq!(start[1]["matcher"], MATCHER);
        let keys: Vec<_> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["model", "hooks"], "key order kept");
        assert_eq!(merge(Some(&merged), p()).unwrap(), None);
        let fresh: Value = serde_json::from_str(&merge(None, p()).unwrap().unwrap()).unwrap();
        assert_eq!(
            fresh["hooks"]["SessionStart"][0]["hooks"][0]["command"],
            HOOK_COMMAND
        );
    }

    #[test]
    fn a_tuned_hook_of_ours_counts_as_installed() {
        let user = r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "agent-handover brief --agent claude --max-tokens 800"}]}]}}"#;
        assert_eq!(merge(Some(user), p()).unwrap(), None);
    }

    #[test]
    fn malformed_settings_are_refused() {
        for bad in [
            "{not json",
            "[]",
            r#"{"hooks": []}"#,
            r#"{"hooks": {"SessionStart": {}}}"#,
        ] {
            let err = merge(Some(bad), p()).unwrap_err().to_string();
            assert!(
                err.contains("settings.json") && err.contains("untouched"),
                "{bad}: {err}"
            );
        }
    }
}
