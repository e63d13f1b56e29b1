//! What `install` changed, kept in `.agent-handover/install.json` so that
//! `install --remove` can put each file back exactly as it was.
//!
//! For every file an install touched: its text before the first install of
//! any agent (`null`: it did not exist) and the agents whose parts are in it
//! now. When the last of them is removed and what is left equals that text
//! (as text, or as JSON for settings files), the original bytes are written
//! back, or the file is deleted if install created it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Result};
use crate::base::fsx;

/// Largest record read.
const MAX_RECORD_BYTES: u64 = 16 * 1024 * 1024;

/// The install record of a project.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstallRecord {
    /// Format version.
    pub version: u32,
    /// Per file (relative to the project root, `/`-separated).
    pub files: BTreeMap<String, FileRecord>,
}

/// One file install touched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// Its text before any install; `None` when install created it.
    pub before: Option<String>,
    /// The agents whose parts are in it.
    pub agents: BTreeSet<String>,
}

impl InstallRecord {
    /// Read the record at `path` (empty when there is none).
    pub fn load(path: &Path) -> Result<Self> {
        let Some(text) = fsx::read_text_bounded(
            path,
            MAX_RECORD_BYTES,
            "move the oversized install record aside; `install` writes a new one",
        )?
        else {
            return Ok(InstallRecord {
                version: 1,
                ..Default::default()
            });
        };
        serde_json::from_str(&text).map_err(|e| Error::Corrupt {
            path: path.into(),
            detail: format!("invalid install record ({e})"),
            fix: "move it aside; install then records anew (remove can no longer restore files byte for byte, only take agent-handover's parts out)".into(),
        })
    }

    /// Write the record atomically.
    pub fn save(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent() {
            fsx::create_dir_durable(dir)?;
        }
        let text = serde_json::to_string_pretty(self).expect("record serializes") + "\n";
        fsx::write_atomic(path, text.as_bytes())
    }

    /// Note that `agent` put a part in `file`, whose text before that was `before`.
    pub fn touch(&mut self, file: &str, agent: &str, before: Option<&str>) {
        let entry = self
            .files
            .entry(file.to_string())
            .or_insert_with(|| FileRecord {
                before: before.map(str::to_string),
                agents: BTreeSet::new(),
            });
        entry.agents.insert(agent.to_string());
    }

    /// Note that `agent`'s part left `file`; returns the file's original text
    /// (`Some(None)`: it did not exist) once no agent is left in it.
    pub fn release(&mut self, file: &str, agent: &str) -> Option<Option<String>> {
        let entry = self.files.get_mut(file)?;
        entry.agents.remove(agent);
        if entry.agents.is_empty() {
            return self.files.remove(file).map(|f| f.before);
        }
        None
    }

    /// Whether `agent` has a part in `file`.
    pub fn has(&self, file: &str, agent: &str) -> bool {
        self.files
            .get(file)
            .is_some_and(|f| f.agents.contains(agent))
    }

    /// The agents recorded in any file.
    pub fn agents(&self) -> BTreeSet<String> {
        self.files
            .values()
            .flat_map(|f| f.agents.iter().cloned())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_original_text_comes_back_when_the_last_agent_leaves() {
        let mut r = InstallRecord::default();
        r.touch("AGENTS.md", "codex", Some("mine\n"));
        r.touch("AGENTS.md", "opencode", Some("mine\n<block>\n"));
        assert!(r.has("AGENTS.md", "opencode"));
        assert_eq!(r.release("AGENTS.md", "codex"), None);
        assert_eq!(
            r.release("AGENTS.md", "opencode"),
            Some(Some("mine\n".into()))
        );
        assert!(r.files.is_empty());
        r.touch("GEMINI.md", "gemini", None);
        assert_eq!(r.release("GEMINI.md", "gemini"), Some(None));

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s/install.json");
        r.touch("x", "claude", None);
        r.save(&path).unwrap();
        assert_eq!(InstallRecord::load(&path).unwrap(), r);
        std::fs::write(&path, "{").unwrap();
        assert!(
            InstallRecord::load(&path)
                .unwrap_err()
                .to_string()
                .contains("install.json")
        );
    }
}
