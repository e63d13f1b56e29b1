//! Which messages each agent has read, kept beside the queues so that reading
//! never moves or deletes a sender's file.
//!
//! `messages/.read/<agent>.json` holds `{"version": 1, "agent": ..., "read":
//! ["<queue>/<id>", ...]}`, replaced atomically. Marking takes an exclusive
//! lock on `messages/.read/<agent>.lock` (never deleted) around the
//! read-merge-replace, so two processes acking at once both keep their marks;
//! readers need no lock.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::queue::{Queue, check_agent};
use crate::base::error::{Error, Result};
use crate::base::fsx;
use crate::workspace::MessagesLayout;

const VERSION: u32 = 1;
const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The key of a message in a read set: `<queue>/<id>`.
pub fn key(queue: &Queue, id: &str) -> String {
    format!("{}/{id}", queue.name())
}

#[derive(Debug, Serialize, Deserialize)]
struct ReadFile {
    version: u32,
    agent: String,
    read: Vec<String>,
}

/// One agent's read marks, by queue.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadSet(HashMap<String, HashSet<String>>);

impl ReadSet {
    fn from_keys(keys: Vec<String>) -> Self {
        let mut set = ReadSet::default();
        for k in keys {
            if let Some((queue, id)) = k.split_once('/') {
                set.0
                    .entry(queue.to_string())
                    .or_default()
                    .insert(id.to_string());
            }
        }
        set
    }

    /// Whether message `id` of `queue` is marked read.
    pub fn contains(&self, queue: &Queue, id: &str) -> bool {
        self.0.get(queue.name()).is_some_and(|ids| ids.contains(id))
    }
}

/// Two machines' versions of one agent's read-marks file, merged as the
/// union of their marks (sorted, as [`ReadMarks::mark`] writes them);
/// `None` if either is not a read-marks file.
pub fn merge_marks(ours: &str, theirs: &str) -> Option<String> {
    let ours: ReadFile = serde_json::from_str(ours).ok()?;
    let theirs: ReadFile = serde_json::from_str(theirs).ok()?;
    let mut read: Vec<String> = ours.read.into_iter().chain(theirs.read).collect();
    read.sort_unstable();
    read.dedup();
    let body = ReadFile {
        version: VERSION,
        agent: ours.agent,
        read,
    };
    let mut json = serde_json::to_string_pretty(&body).expect("read marks serialize");
    json.push('\n');
    Some(json)
}

/// The read marks of every agent of one messages layout.
#[derive(Debug, Clone)]
pub struct ReadMarks {
    layout: MessagesLayout,
}

impl ReadMarks {
    /// The marks kept in `layout`.
    pub fn new(layout: MessagesLayout) -> Self {
        ReadMarks { layout }
    }

    /// What `agent` has read (nothing if it never marked any).
    pub fn load(&self, agent: &str) -> Result<ReadSet> {
        Ok(ReadSet::from_keys(self.load_file(
            &self.layout.read_marks_file(check_agent(agent)?),
        )?))
    }

    /// What every agent has read.
    pub fn load_all(&self) -> Result<HashMap<String, ReadSet>> {
        let dir = self.layout.read_marks_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
            Err(e) => return Err(Error::io("list", &dir, e)),
        };
        let mut all = HashMap::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("list", &dir, e))?;
            let name = entry.file_name();
            let Some(agent) = name.to_str().and_then(MessagesLayout::read_marks_owner) else {
                continue;
            };
            if check_agent(agent).is_ok() {
                let keys = self.load_file(&entry.path())?;
                all.insert(agent.to_string(), ReadSet::from_keys(keys));
            }
        }
        Ok(all)
    }

    /// Mark `keys` read for `agent`; returns how many were not read before.
    /// Sweeps the temp files killed writers left beside the marks.
    pub fn mark(&self, agent: &str, keys: impl IntoIterator<Item = String>) -> Result<usize> {
        let agent = check_agent(agent)?;
        let file = self.layout.read_marks_file(agent);
        fsx::create_dir_durable(&self.layout.read_marks_dir())?;
        let lock_path = self.layout.read_marks_lock(agent);
        let _lock = fsx::lock_exclusive(&lock_path)?;
        fsx::remove_orphan_temps(&self.layout.read_marks_dir(), super::FOREIGN_TEMP_AGE);
        let mut read: HashSet<String> = self.load_file(&file)?.into_iter().collect();
        let before = read.len();
        read.extend(keys);
        let added = read.len() - before;
        if added > 0 {
            let mut read: Vec<String> = read.into_iter().collect();
            read.sort_unstable();
            let body = ReadFile {
                version: VERSION,
                agent: agent.to_string(),
                read,
            };
            let mut json = serde_json::to_vec_pretty(&body).expect("read marks serialize");
            json.push(b'\n');
            fsx::write_atomic(&file, &json)?;
        }
        Ok(added) // the lock is released when `lock` is dropped
    }

    fn load_file(&self, path: &Path) -> Result<Vec<String>> {
        let Some(text) = fsx::read_text_bounded(
            path,
            MAX_BYTES,
            "read marks are a list of ids; move the file aside (the agent's messages list as unread again)",
        )?
        else {
            return Ok(Vec::new());
        };
        let corrupt = |detail: String| Error::Corrupt {
            path: path.into(),
            detail,
            fix: format!(
                "move it aside (mv {0} {0}.bad): the agent's messages then list as unread again; agent-handover left it untouched",
                path.display()
            ),
        };
        let parsed: ReadFile = serde_json::from_str(&text)
            .map_err(|e| corrupt(format!("invalid read marks ({e})")))?;
        if parsed.version > VERSION {
            return Err(Error::FutureVersion {
                path: path.into(),
                found: parsed.version.into(),
                supported: VERSION,
            });
        }
        Ok(parsed.read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_machines_marks_merge_as_their_union() {
        let a = r#"{"version": 1, "agent": "claude", "read": ["shared/1", "for_claude/2"]}"#;
        let b = r#"{"version": 1, "agent": "claude", "read": ["shared/1", "shared/3"]}"#;
        let merged: serde_json::Value = serde_json::from_str(&merge_marks(a, b).unwrap()).unwrap();
        assert_eq!(
            merged["read"],
            serde_json::json!(["for_claude/2", "shared/1", "shared/3"])
        );
        assert!(merge_marks(a, "not json").is_none());
    }

    #[test]
    fn marks_accumulate_and_count_only_new_ones() {
        let dir = tempfile::tempdir().unwrap();
        let marks = ReadMarks::new(MessagesLayout {
            root: dir.path().into(),
        });
        assert_eq!(marks.load("codex").unwrap(), ReadSet::default());
        assert_eq!(
            marks
                .mark("codex", ["codex/a".into(), "shared/b".into()])
                .unwrap(),
            2
        );
        assert_eq!(
            marks
                .mark("codex", ["codex/a".into(), "codex/c".into()])
                .unwrap(),
            1
        );
        assert_eq!(marks.mark("codex", Vec::new()).unwrap(), 0);
        let read = marks.load("codex").unwrap();
        let codex = Queue::agent("codex").unwrap();
        assert!(read.contains(&codex, "a") && read.contains(&codex, "c"));
        assert!(read.contains(&Queue::Shared, "b"));
        assert!(!read.contains(&Queue::Shared, "a"));
        let all = marks.load_all().unwrap();
        assert_eq!(all.keys().collect::<Vec<_>>(), ["codex"]);
        assert!(marks.mark("../x", Vec::new()).is_err());
    }

    #[test]
    fn corrupt_marks_are_an_error_that_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let marks = ReadMarks::new(MessagesLayout {
            root: dir.path().into(),
        });
        std::fs::create_dir(dir.path().join(".read")).unwrap();
        let file = dir.path().join(".read/codex.json");
        std::fs::write(&file, "{not json").unwrap();
        let err = marks.load("codex").unwrap_err().to_string();
        assert!(err.contains("codex.json") && err.contains("mv "), "{err}");
        assert!(marks.mark("codex", ["codex/a".into()]).is_err());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "{not json");
    }

    #[test]
    fn key_names_the_queue() {
        assert_eq!(key(&Queue::Shared, "x"), "shared/x");
        assert_eq!(key(&Queue::agent("codex").unwrap(), "x"), "codex/x");
    }
}
