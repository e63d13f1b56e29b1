//! The registry of workspaces: every project where `install` or a handover
//! ran, kept in the user's config directory
//! (`$XDG_CONFIG_HOME/agent-handover/workspaces.toml`, else
//! `~/.config/agent-handover/workspaces.toml`), so `dashboard --all` can
//! show them side by side.
//!
//! Writes are atomic and durable, under a lock beside the file; a registry
//! that cannot be read is an error naming the file and the fix, and is never
//! overwritten. An entry whose directory is gone stays listed (as missing)
//! until it is forgotten.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Result};
use crate::base::fsx;

/// The registry's file name inside the config directory.
pub const FILE_NAME: &str = "workspaces.toml";
/// How stale `last_seen` may get before a sighting rewrites the file (a
/// handover a minute reads the registry but does not write it each time).
pub const LAST_SEEN_PRECISION: TimeDelta = TimeDelta::hours(1);
/// The largest registry read.
const MAX_BYTES: u64 = 4 << 20;

/// One registered workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The project root, canonical.
    pub path: PathBuf,
    /// When it was first registered.
    pub first_seen: DateTime<Utc>,
    /// When `install` or a handover last ran there (to [`LAST_SEEN_PRECISION`]).
    pub last_seen: DateTime<Utc>,
}

impl Entry {
    /// Whether its directory is gone (moved or deleted).
    pub fn is_missing(&self) -> bool {
        !self.path.is_dir()
    }
}

/// The file as written.
#[derive(Debug, Default, Serialize, Deserialize)]
struct RegistryFile {
    #[serde(default, rename = "workspace")]
    workspaces: Vec<Entry>,
}

/// The registry file of one user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registry {
    /// Where it is.
    pub file: PathBuf,
}

impl Registry {
    /// The user's registry: under `$XDG_CONFIG_HOME` when set (absolute),
    /// else `$HOME/.config`; `None` when neither is known.
    pub fn for_user() -> Option<Registry> {
        Registry::from_env(
            std::env::var_os("XDG_CONFIG_HOME"),
            std::env::var_os("HOME"),
        )
    }

    /// The registry for these values of `$XDG_CONFIG_HOME` and `$HOME`
    /// (an empty or relative `$XDG_CONFIG_HOME` is ignored, as the XDG
    /// specification says).
    pub fn from_env(xdg_config_home: Option<OsString>, home: Option<OsString>) -> Option<Registry> {
        let config = xdg_config_home
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| {
                home.filter(|h| !h.is_empty())
                    .map(|h| PathBuf::from(h).join(".config"))
            })?;
        Some(Registry::at(config.join("agent-handover").join(FILE_NAME)))
    }

    /// The registry kept in `file`.
    pub fn at(file: impl Into<PathBuf>) -> Registry {
        Registry { file: file.into() }
    }

    /// Every entry, oldest registration first (none when the file does not exist).
    pub fn load(&self) -> Result<Vec<Entry>> {
        let Some(text) = fsx::read_text_bounded(&self.file, MAX_BYTES, "move it aside")? else {
            return Ok(Vec::new());
        };
        toml::from_str::<RegistryFile>(&text)
            .map(|f| f.workspaces)
            .map_err(|e| self.corrupt(e.message()))
    }

    /// Register `root` as seen at `now`: added if new, its `last_seen`
    /// moved if older than [`LAST_SEEN_PRECISION`]. Returns whether the
    /// file was written.
    pub fn record(&self, root: &Path, now: DateTime<Utc>) -> Result<bool> {
        let path = canonical(root)?;
        self.update(|entries| {
            match entries.iter_mut().find(|e| e.path == path) {
                Some(e) if now - e.last_seen < LAST_SEEN_PRECISION => return false,
                Some(e) => e.last_seen = now,
                None => entries.push(Entry {
                    path: path.clone(),
                    first_seen: now,
                    last_seen: now,
                }),
            }
            true
        })
    }

    /// Remove every workspace whose directory is gone (moved or deleted);
    /// returns their paths.
    pub fn forget_missing(&self) -> Result<Vec<PathBuf>> {
        let mut gone = Vec::new();
        self.update(|entries| {
            entries.retain(|e| {
                let missing = e.is_missing();
                if missing {
                    gone.push(e.path.clone());
                }
                !missing
            });
            !gone.is_empty()
        })?;
        Ok(gone)
    }

    /// Remove `root` (as given, or canonical when it still exists); returns
    /// whether it was registered.
    pub fn forget(&self, root: &Path) -> Result<bool> {
        let given = fsx::normalize(&fsx::absolutize(
            &std::env::current_dir().unwrap_or_default(),
            root,
        ));
        let real = std::fs::canonicalize(root).ok();
        self.update(|entries| {
            let before = entries.len();
            entries.retain(|e| e.path != given && Some(&e.path) != real.as_ref());
            entries.len() != before
        })
    }

    /// Change the entries under the lock; `change` says whether to write.
    fn update(&self, change: impl FnOnce(&mut Vec<Entry>) -> bool) -> Result<bool> {
        let dir = self.file.parent().unwrap_or(Path::new("."));
        fsx::create_dir_durable(dir)?;
        let lock_path = self.file.with_extension("lock");
        let _lock = fsx::lock_exclusive(&lock_path)?;
        let mut entries = self.load()?;
        if !change(&mut entries) {
            return Ok(false);
        }
        let text = toml::to_string(&RegistryFile {
            workspaces: entries,
        })
        .map_err(|e| self.corrupt(&e.to_string()))?;
        let header = "# Workspaces agent-handover has seen (install or a handover ran there).\n\
                      # `agent-handover workspaces` lists them; `workspaces forget DIR` removes one.\n\n";
        fsx::write_atomic(&self.file, (header.to_string() + &text).as_bytes())?;
        Ok(true)
    }

    fn corrupt(&self, detail: &str) -> Error {
        Error::Corrupt {
            path: self.file.clone(),
            detail: detail.trim().to_string(),
            fix: format!(
                "fix the TOML by hand, or move it aside (mv '{0}' '{0}.bad') to start a new registry; it was left untouched",
                self.file.display()
            ),
        }
    }
}

/// `root` made canonical (symlinks resolved), as the registry keys it.
fn canonical(root: &Path) -> Result<PathBuf> {
    std::fs::canonicalize(root).map_err(|e| Error::io("resolve", root, e))
}

/// Register `root` in the user's registry now, if a registry is known.
/// Callers treat an error as a warning: the registry never stops a handover.
pub fn remember(root: &Path) -> Result<()> {
    match Registry::for_user() {
        Some(registry) => registry.record(root, Utc::now()).map(drop),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap()
    }

    #[test]
    fn records_once_and_moves_last_seen_only_when_stale() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        std::fs::create_dir(&project).unwrap();
        let reg = Registry::at(dir.path().join("cfg").join(FILE_NAME));
        assert_eq!(reg.load().unwrap(), vec![], "no file: empty");
        assert!(reg.record(&project, at(0)).unwrap());
        assert!(
            !reg.record(&project, at(60)).unwrap(),
            "fresh: not rewritten"
        );
        assert!(reg.record(&project.join("."), at(7200)).unwrap());
        let entries = reg.load().unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].path, std::fs::canonicalize(&project).unwrap());
        assert_eq!(
            (entries[0].first_seen, entries[0].last_seen),
            (at(0), at(7200))
        );
        assert!(!entries[0].is_missing());
    }

    #[test]
    fn a_deleted_workspace_is_listed_as_missing_and_can_be_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("gone");
        std::fs::create_dir(&project).unwrap();
        let reg = Registry::at(dir.path().join(FILE_NAME));
        reg.record(&project, at(0)).unwrap();
        let canonical = std::fs::canonicalize(&project).unwrap();
        std::fs::remove_dir(&project).unwrap();
        let entries = reg.load().unwrap();
        assert!(entries[0].is_missing());
        assert!(reg.forget(&canonical).unwrap());
        assert!(!reg.forget(&canonical).unwrap());
        assert_eq!(reg.load().unwrap(), vec![]);
    }

    #[test]
    fn an_unreadable_registry_is_named_with_its_fix_and_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let reg = Registry::at(dir.path().join(FILE_NAME));
        std::fs::write(&reg.file, "[[workspace]]\npath = 3\n").unwrap();
        let err = reg.record(dir.path(), at(0)).unwrap_err();
        assert_eq!(err.kind().name, "corrupt");
        let text = err.to_string();
        assert!(
            text.contains(FILE_NAME) && text.contains("move it aside"),
            "{text}"
        );
        assert_eq!(
            std::fs::read_to_string(&reg.file).unwrap(),
            "[[workspace]]\npath = 3\n"
        );
    }

    #[test]
    fn the_user_registry_follows_xdg_config_home_then_home() {
        let file = |xdg: Option<&str>, home: Option<&str>| {
            Registry::from_env(xdg.map(Into::into), home.map(Into::into)).map(|r| r.file)
        };
        assert_eq!(
            file(Some("/x"), Some("/h")),
            Some(PathBuf::from("/x/agent-handover/workspaces.toml"))
        );
        let home = Some(PathBuf::from("/h/.config/agent-handover/workspaces.toml"));
        assert_eq!(file(Some("rel"), Some("/h")), home);
        assert_eq!(file(Some(""), Some("/h")), home);
        assert_eq!(file(None, Some("/h")), home);
        assert_eq!(file(None, None), None);
    }
}
