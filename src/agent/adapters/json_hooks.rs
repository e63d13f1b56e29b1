//! Hooks merged into an agent's JSON settings file, the one shape every
//! JSON-configured agent shares: `{"hooks": {"<Event>": [entry, ...]}}`,
//! where an entry is either a hook (`{"command": ...}`, `{"bash": ...}`) or a
//! group of hooks (`{"matcher": ..., "hooks": [hook, ...]}`).
//!
//! Our hooks are recognised by their command ([`is_ours`]); the user's keys,
//! hooks and order are kept. Installing replaces our entry in place (so an
//! upgrade rewrites it), removing takes only ours out. Settings that are not
//! valid JSON, or whose `hooks` have the wrong shape, are an error and the
//! file is left untouched.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::base::error::{Error, Result};

/// What every hook command agent-handover installs contains.
pub const COMMAND_MARK: &str = "agent-handover hook ";
/// What the session-start hook of agent-handover 0.6.0 ran (replaced on install).
const LEGACY_MARK: &str = "agent-handover brief --agent";

/// The hooks of one settings file: each event and the entry we put under it.
#[derive(Debug, Clone)]
pub struct HookEntries {
    /// Top-level keys the file needs (`"version": 1`), set when missing.
    pub required_top: Vec<(&'static str, Value)>,
    /// `(event, entry)`, in the order they are added.
    pub events: Vec<(&'static str, Value)>,
}

/// Whether a hook (or group) is one of ours: its command runs agent-handover.
fn is_ours(hook: &Value) -> bool {
    ["command", "bash"].iter().any(|key| {
        hook.get(key)
            .and_then(Value::as_str)
            .is_some_and(|c| c.contains(COMMAND_MARK) || c.contains(LEGACY_MARK))
    })
}

/// `entries` without our hooks (a group left empty goes too); whether any went.
fn strip_ours(entries: &mut Vec<Value>) -> bool {
    let before = entries.len();
    let mut changed = false;
    entries.retain_mut(|entry| {
        if is_ours(entry) {
            return false;
        }
        if let Some(inner) = entry.get_mut("hooks").and_then(Value::as_array_mut) {
            let n = inner.len();
            inner.retain(|h| !is_ours(h));
            if inner.len() != n {
                changed = true;
                return !inner.is_empty();
            }
        }
        true
    });
    changed || entries.len() != before
}

fn parse(existing: Option<&str>, path: &Path) -> Result<Value> {
    match existing.filter(|t| !t.trim().is_empty()) {
        Some(text) => {
            serde_json::from_str(text).map_err(|e| corrupt(path, format!("invalid JSON ({e})")))
        }
        None => Ok(json!({})),
    }
}

fn corrupt(path: &Path, detail: String) -> Error {
    Error::Corrupt {
        path: path.into(),
        detail,
        fix: "fix it by hand (or move it aside), then run `agent-handover install` again; agent-handover left it untouched".into(),
    }
}

/// The `hooks` object of `settings`, created when missing.
fn hooks_of<'v>(settings: &'v mut Value, path: &Path) -> Result<&'v mut Map<String, Value>> {
    settings
        .as_object_mut()
        .ok_or_else(|| corrupt(path, "the settings are not a JSON object".into()))?
        .entry("hooks")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| corrupt(path, "`hooks` is not an object".into()))
}

/// The settings text with our hooks set to `wanted`.
pub fn merge(existing: Option<&str>, wanted: &HookEntries, path: &Path) -> Result<String> {
    let mut settings = parse(existing, path)?;
    let top = settings
        .as_object_mut()
        .ok_or_else(|| corrupt(path, "the settings are not a JSON object".into()))?;
    for (key, value) in &wanted.required_top {
        top.entry(*key).or_insert_with(|| value.clone());
    }
    let hooks = hooks_of(&mut settings, path)?;
    for (event, entry) in &wanted.events {
        let entries = hooks
            .entry(*event)
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .ok_or_else(|| corrupt(path, format!("`hooks.{event}` is not an array")))?;
        let at = entries.iter().position(|e| {
            is_ours(e)
                || e.get("hooks")
                    .and_then(Value::as_array)
                    .is_some_and(|inner| inner.iter().any(is_ours))
        });
        strip_ours(entries);
        entries.insert(
            at.unwrap_or(entries.len()).min(entries.len()),
            entry.clone(),
        );
    }
    Ok(to_text(&settings))
}

/// The settings text without our hooks (`None`: there were none); events
/// and the `hooks` object left empty are dropped, and with them the
/// `required_top` keys when nothing else is left.
pub fn remove(existing: &str, required_top: &[&str], path: &Path) -> Result<Option<String>> {
    let mut settings = parse(Some(existing), path)?;
    let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut) else {
        return Ok(None);
    };
    let mut changed = false;
    hooks.retain(|_, entries| match entries.as_array_mut() {
        Some(list) => {
            changed |= strip_ours(list);
            !list.is_empty()
        }
        None => true,
    });
    if !changed {
        return Ok(None);
    }
    if hooks.is_empty()
        && let Some(top) = settings.as_object_mut()
    {
        top.remove("hooks");
        // What is left only because a hooks file needs it goes with the hooks.
        if top.keys().all(|k| required_top.contains(&k.as_str())) {
            top.clear();
        }
    }
    Ok(Some(to_text(&settings)))
}

/// Whether the settings hold exactly the entries `wanted` (and its top keys).
pub fn holds(existing: &str, wanted: &HookEntries) -> bool {
    let Ok(settings) = serde_json::from_str::<Value>(existing) else {
        return false;
    };
    wanted
        .required_top
        .iter()
        .all(|(k, _)| settings.get(*k).is_some())
        && wanted.events.iter().all(|(event, entry)| {
            settings["hooks"][*event]
                .as_array()
                .is_some_and(|list| list.contains(entry))
        })
}

/// The JSON text with `parent.key` set to `value` (an MCP server entry).
pub fn set_entry(
    existing: Option<&str>,
    parent: &str,
    key: &str,
    value: &Value,
    path: &Path,
) -> Result<String> {
    let mut settings = parse(existing, path)?;
    settings
        .as_object_mut()
        .ok_or_else(|| corrupt(path, "the file is not a JSON object".into()))?
        .entry(parent)
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| corrupt(path, format!("`{parent}` is not an object")))?
        .insert(key.to_string(), value.clone());
    Ok(to_text(&settings))
}

/// The JSON text without `parent.key` (and `parent`, if left empty).
pub fn remove_entry(
    existing: &str,
    parent: &str,
    key: &str,
    path: &Path,
) -> Result<Option<String>> {
    let mut settings = parse(Some(existing), path)?;
    let Some(top) = settings.as_object_mut() else {
        return Ok(None);
    };
    let Some(entries) = top.get_mut(parent).and_then(Value::as_object_mut) else {
        return Ok(None);
    };
    if entries.remove(key).is_none() {
        return Ok(None);
    }
    if entries.is_empty() {
        top.remove(parent);
    }
    Ok(Some(to_text(&settings)))
}

/// Whether the JSON text has `parent.key` equal to `value`.
pub fn entry_is(existing: &str, parent: &str, key: &str, value: &Value) -> bool {
    serde_json::from_str::<Value>(existing).is_ok_and(|v| v[parent][key] == *value)
}

fn to_text(settings: &Value) -> String {
    serde_json::to_string_pretty(settings).expect("settings serialize") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new(".claude/settings.json")
    }

    fn wanted(cmd: &str) -> HookEntries {
        HookEntries {
            required_top: vec![],
            events: vec![
                (
                    "SessionStart",
                    json!({"matcher": "startup", "hooks": [{"type": "command", "command": cmd}]}),
                ),
                (
                    "Stop",
                    json!({"hooks": [{"type": "command", "command": cmd}]}),
                ),
            ],
        }
    }

    #[test]
    fn merges_beside_the_users_hooks_replaces_in_place_and_removes_only_ours() {
        let user = r#"{"model": "opus", "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}], "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}"#;
        let v1 = merge(Some(user), &wanted("agent-handover hook v1"), p()).unwrap();
        assert!(holds(&v1, &wanted("agent-handover hook v1")));
        let v: Value = serde_json::from_str(&v1).unwrap();
        assert_eq!(
            v["hooks"]["SessionStart"][0]["hooks"][0]["command"],
            "echo hi"
        );
        assert_eq!(
            v["hooks"]["Stop"][1]["hooks"][0]["command"],
            "agent-handover hook v1"
        );
        let keys: Vec<_> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["model", "hooks"], "key order kept");
        let v2 = merge(Some(&v1), &wanted("agent-handover hook v2"), p()).unwrap();
        let v: Value = serde_json::from_str(&v2).unwrap();
        assert_eq!(
            v["hooks"]["Stop"].as_array().unwrap().len(),
            2,
            "replaced, not added"
        );
        assert_eq!(
            merge(Some(&v2), &wanted("agent-handover hook v2"), p()).unwrap(),
            v2
        );
        let back: Value = serde_json::from_str(&remove(&v2, &[], p()).unwrap().unwrap()).unwrap();
        assert_eq!(back, serde_json::from_str::<Value>(user).unwrap());
        assert_eq!(remove(user, &[], p()).unwrap(), None);
    }

    #[test]
    fn removing_from_a_file_we_created_leaves_an_empty_object() {
        let flat = HookEntries {
            required_top: vec![("version", json!(1))],
            events: vec![("stop", json!({"command": "agent-handover hook stop"}))],
        };
        let ours = merge(None, &flat, p()).unwrap();
        assert!(ours.contains("\"version\": 1"), "{ours}");
        assert_eq!(remove(&ours, &["version"], p()).unwrap().unwrap(), "{}\n");
        let ours = merge(None, &wanted("agent-handover hook x"), p()).unwrap();
        assert_eq!(remove(&ours, &[], p()).unwrap().unwrap(), "{}\n");
    }

    #[test]
    fn malformed_settings_are_refused() {
        for bad in [
            "{not json",
            "[]",
            r#"{"hooks": []}"#,
            r#"{"hooks": {"Stop": {}}}"#,
        ] {
            let err = merge(Some(bad), &wanted("agent-handover hook"), p())
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("settings.json") && err.contains("untouched"),
                "{bad}: {err}"
            );
        }
    }
}
