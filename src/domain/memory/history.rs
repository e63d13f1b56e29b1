//! Every version of `current-state.md`, kept as plain files named
//! `v<seq>--<UTC time>--<label>--<blob>.md` ([`StateHistoryLayout`]; seq:
//! the version's number, one more than the highest in the folder, taken
//! under the folder's lock; label: the run that wrote it, or `external` for
//! a version found on disk; blob: the first 16 hex digits of the content's
//! git blob id, so a snapshot and the same version in git are recognised as
//! one). A version is stored once, keyed by that id, so retrying a write
//! never duplicates it.
//!
//! Versions are ordered by their number, never by the clock: a clock set
//! back (or a previous run under a clock that was ahead) cannot make an
//! older version look newer. Versions written before versions were numbered
//! (`<time>--<label>--<blob>.md`) are older than every numbered one and
//! ordered by their time among themselves.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

use crate::base::error::{Error, Result};
use crate::base::fsx;
use crate::workspace::{StateHistoryLayout, StateVersionName, Workspace};

/// Label of a version that agent-handover did not write itself.
pub const EXTERNAL_LABEL: &str = "external";
/// Label of a version a merge of two machines' memory made or superseded.
pub const DRIFT_LABEL: &str = "merge";

/// One stored version of current-state.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateVersion {
    /// The snapshot file.
    pub path: PathBuf,
    /// Its number in the history (`None`: written before versions were
    /// numbered); what orders the versions.
    pub seq: Option<u64>,
    /// When it was written (or last modified, for `external`): shown, not
    /// ordered by.
    pub at: DateTime<Utc>,
    /// The run that wrote it, or `external`.
    pub label: String,
    /// First 16 hex digits of its git blob id ([`blob_id`]).
    pub hash: String,
    /// Size in bytes.
    pub size: u64,
}

/// When a text counts as kept already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// The newest version holds it.
    AsNewest,
    /// Any version holds it.
    Anywhere,
}

/// The history folder of current-state.md.
#[derive(Debug, Clone)]
pub struct StateHistory {
    layout: StateHistoryLayout,
}

impl StateHistory {
    /// A history kept in `dir` (created on first save).
    pub fn new(dir: PathBuf) -> Self {
        StateHistory {
            layout: StateHistoryLayout { dir },
        }
    }

    /// Store `content` unless the newest version already holds it; returns
    /// the new file, or `None` when it was already kept. A text written
    /// again after others (a revert) is kept again, so versions stay in the
    /// order they were written.
    pub fn save(
        &self,
        content: &str,
        label: &str,
        at: Option<DateTime<Utc>>,
    ) -> Result<Option<PathBuf>> {
        self.save_unless(Kept::AsNewest, content, label, at)
    }

    /// Store `content` unless it is `kept` already, as the newest version:
    /// numbered one more than the highest in the folder, under the folder's
    /// lock ([`StateHistoryLayout::lock_file`]), so two writers never take
    /// the same number and a version never sorts before an older one,
    /// whatever the clock says. `at` is the time it is shown with (now when
    /// `None`).
    pub fn save_unless(
        &self,
        kept: Kept,
        content: &str,
        label: &str,
        at: Option<DateTime<Utc>>,
    ) -> Result<Option<PathBuf>> {
        let hash = blob_id(content)[..16].to_string();
        let _lock = self.lock()?;
        let versions = self.list()?;
        let already = match kept {
            Kept::AsNewest => versions.first().is_some_and(|v| v.hash == hash),
            Kept::Anywhere => versions.iter().any(|v| v.hash == hash),
        };
        if already {
            return Ok(None);
        }
        let seq = versions.iter().filter_map(|v| v.seq).max().unwrap_or(0) + 1;
        let path = self.layout.version_file(&StateVersionName {
            seq: Some(seq),
            at: at.unwrap_or_else(Utc::now),
            label: label.to_string(),
            hash,
        });
        fsx::create_new(&path, content.as_bytes())?;
        Ok(Some(path))
    }

    /// Hold the folder's lock (beside it; its parent is created) until the
    /// file is dropped.
    fn lock(&self) -> Result<std::fs::File> {
        let file = self.layout.lock_file();
        if let Some(parent) = file.parent() {
            fsx::create_dir_durable(parent)?;
        }
        fsx::lock_exclusive(&file)
    }

    /// Keep `superseded` (the losing side's whole file, written at
    /// `written_at`) and `merged` (now) as versions, and record the drift,
    /// all durably.
    pub fn record_drift(
        &self,
        file: VersionedFile,
        superseded: &str,
        written_at: DateTime<Utc>,
        merged: &str,
        sections: Vec<String>,
        from: &str,
    ) -> Result<Drift> {
        // A record made again after a crash adds no version.
        self.save_unless(Kept::Anywhere, superseded, DRIFT_LABEL, Some(written_at))?;
        self.save_unless(Kept::Anywhere, merged, DRIFT_LABEL, None)?;
        let drift = Drift {
            file,
            at: Utc::now(),
            superseded: blob_id(superseded)[..16].to_string(),
            merged: blob_id(merged)[..16].to_string(),
            sections,
            from: from.to_string(),
        };
        // Named by the two versions: recording the same merge again (after
        // a crash) replaces the record instead of adding a second one.
        let name = format!("{}--{}.json", drift.superseded, drift.merged);
        let json = serde_json::to_vec_pretty(&drift).expect("a drift record serializes");
        fsx::write_atomic(&self.layout.drift_dir().join(name), &json)?;
        Ok(drift)
    }

    /// Every recorded drift, newest first (unreadable records are skipped:
    /// they only flag versions, which are kept either way).
    pub fn drifts(&self) -> Vec<Drift> {
        let Ok(entries) = std::fs::read_dir(self.layout.drift_dir()) else {
            return Vec::new();
        };
        let mut drifts: Vec<Drift> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .filter_map(|t| serde_json::from_str(&t).ok())
            .collect();
        drifts.sort_by_key(|d| std::cmp::Reverse(d.at));
        drifts
    }

    /// All versions, newest first: by number, then (for versions written
    /// before versions were numbered, all older than the numbered ones) by
    /// time, then by file name.
    pub fn list(&self) -> Result<Vec<StateVersion>> {
        let dir = &self.layout.dir;
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io("list", dir, e)),
        };
        let mut versions: Vec<StateVersion> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let StateVersionName {
                    seq,
                    at,
                    label,
                    hash,
                } = StateHistoryLayout::parse_version_name(&name)?;
                let size = e.metadata().ok()?.len();
                Some(StateVersion {
                    path: e.path(),
                    seq,
                    at,
                    label,
                    hash,
                    size,
                })
            })
            .collect();
        versions.sort_by(|a, b| {
            (b.seq, b.at)
                .cmp(&(a.seq, a.at))
                .then_with(|| b.path.cmp(&a.path))
        });
        Ok(versions)
    }

    /// The text of one version.
    pub fn read(&self, version: &StateVersion) -> Result<String> {
        fsx::read_text_within(
            &self.layout.dir,
            &version.path,
            super::MAX_MEMORY_FILE_BYTES,
            "move the oversized snapshot aside",
        )?
        .ok_or_else(|| Error::io("read", &version.path, std::io::ErrorKind::NotFound.into()))
    }
}

/// The memory files whose every version is kept (each in a history folder
/// of its own, with its drift records), which a merge of two machines'
/// memory merges by section, and which so can drift.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VersionedFile {
    /// `layer2/current-state.md` (records written before identity drift
    /// existed name no file: they are this one's).
    #[default]
    CurrentState,
    /// `identity.md`.
    Identity,
}

impl VersionedFile {
    /// The file's name, as a person looks for it.
    pub fn file_name(self) -> &'static str {
        match self {
            VersionedFile::CurrentState => "current-state.md",
            VersionedFile::Identity => "identity.md",
        }
    }

    /// The history folder of this file in `ws`.
    pub fn history_dir(self, ws: &Workspace) -> PathBuf {
        match self {
            VersionedFile::CurrentState => ws.state_history_dir(),
            VersionedFile::Identity => ws.identity_history_dir(),
        }
    }

    /// The file itself in `ws`'s memory.
    pub fn path(self, ws: &Workspace) -> PathBuf {
        match self {
            VersionedFile::CurrentState => ws.memory.current_state(),
            VersionedFile::Identity => ws.memory.identity(),
        }
    }

    /// The command that lists and compares its versions (`state`,
    /// `identity`), also the word faces put before "drift".
    pub fn command(self) -> &'static str {
        match self {
            VersionedFile::CurrentState => "state",
            VersionedFile::Identity => "identity",
        }
    }
}

/// The newest drift of each versioned file of `ws` that drifted, newest
/// first.
pub fn latest_drifts(ws: &Workspace) -> Vec<Drift> {
    let mut seen = Vec::new();
    workspace_drifts(ws)
        .into_iter()
        .filter(|d| {
            let first = !seen.contains(&d.file);
            seen.push(d.file);
            first
        })
        .collect()
}

/// Every drift recorded in `ws`, of current-state.md and identity.md
/// alike, newest first.
pub fn workspace_drifts(ws: &Workspace) -> Vec<Drift> {
    let mut drifts: Vec<Drift> = [VersionedFile::CurrentState, VersionedFile::Identity]
        .into_iter()
        .flat_map(|file| StateHistory::new(file.history_dir(ws)).drifts())
        .collect();
    drifts.sort_by_key(|d| std::cmp::Reverse(d.at));
    drifts
}

/// Drift: a merge of two machines' memory in which both had changed the
/// same sections of current-state.md (or identity.md); the later text was
/// kept and the other side's file is kept as a version (its id is
/// [`Drift::superseded`]) in that file's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drift {
    /// The file that drifted.
    #[serde(default)]
    pub file: VersionedFile,
    /// When the merge happened.
    pub at: DateTime<Utc>,
    /// The superseded version (first 16 hex digits of its blob id).
    pub superseded: String,
    /// The merged version that replaced it.
    pub merged: String,
    /// The sections whose text was superseded (their heading lines).
    pub sections: Vec<String>,
    /// Where the superseded text came from (`this machine`, `origin/main`).
    pub from: String,
}

impl Drift {
    /// The superseded sections as a person reads them: their headings, and
    /// "the text before the first heading" for what has none.
    pub fn section_names(&self) -> String {
        super::state_merge::section_names(&self.sections)
    }

    /// The command that shows what was superseded.
    pub fn diff_command(&self) -> String {
        format!(
            "agent-handover {} diff {} {}",
            self.file.command(),
            self.superseded,
            self.merged
        )
    }
}

/// The git blob id of `content` (40 hex digits): SHA-1 of `blob <len>\0<content>`.
pub fn blob_id(content: &str) -> String {
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", content.len()).as_bytes());
    hasher.update(content.as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_skips_the_text_already_newest_and_keeps_a_revert_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let h = StateHistory::new(dir.path().join("h"));
        assert!(h.list().unwrap().is_empty());
        assert!(h.save("a", "run-1", None).unwrap().is_some());
        assert!(h.save("a", "run-2", None).unwrap().is_none());
        assert!(h.save("b", "run-2", None).unwrap().is_some());
        let v = h.list().unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].label, "run-2");
        assert_eq!(h.read(&v[1]).unwrap(), "a");
        assert_eq!(v[1].size, 1);
        // Back to "a": a version of its own, newest, not folded into run-1's.
        assert!(h.save("a", "run-3", None).unwrap().is_some());
        let labels: Vec<String> = h.list().unwrap().into_iter().map(|v| v.label).collect();
        assert_eq!(labels, ["run-3", "run-2", "run-1"]);
    }

    /// Issue 41: after the clock stepped back a day, versions written now
    /// sorted after the ones written under the clock that was ahead.
    /// Numbered, they keep the order they were written in; versions from
    /// before numbering are older than every numbered one, by time.
    #[test]
    fn versions_keep_the_order_they_were_written_in_whatever_the_clock() {
        let dir = tempfile::tempdir().unwrap();
        let h = StateHistory::new(dir.path().join("h"));
        let at = |days: i64| Some(Utc::now() + chrono::Duration::days(days));
        // Written before versions were numbered, one of them "tomorrow".
        std::fs::create_dir_all(dir.path().join("h")).unwrap();
        for (name, text) in [
            ("20200101T000000.000000Z--run-0--0000000000000000.md", "0"),
            ("20991231T000000.000000Z--run-1--1111111111111111.md", "1"),
        ] {
            std::fs::write(dir.path().join("h").join(name), text).unwrap();
        }
        h.save("ahead", "run-2", at(1)).unwrap();
        h.save("back", "run-3", at(0)).unwrap();
        h.save("further back", "run-4", at(-30)).unwrap();
        let listed: Vec<(Option<u64>, String)> = h
            .list()
            .unwrap()
            .into_iter()
            .map(|v| (v.seq, v.label))
            .collect();
        assert_eq!(
            listed,
            [
                (Some(3), "run-4".into()),
                (Some(2), "run-3".into()),
                (Some(1), "run-2".into()),
                (None, "run-1".into()),
                (None, "run-0".into()),
            ]
        );
        // The text already newest is not kept again, whatever its time.
        assert!(h.save("further back", "run-5", at(2)).unwrap().is_none());
        assert!(dir.path().join("h.lock").exists(), "the lock lies beside");
    }

    /// Writers at once (threads here; processes in `tests/it`) never take
    /// the same number, and every version is kept.
    #[test]
    fn writers_at_once_take_distinct_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let h = StateHistory::new(dir.path().join("h"));
        std::thread::scope(|s| {
            for t in 0..4 {
                let h = &h;
                s.spawn(move || {
                    for i in 0..10 {
                        h.save_unless(Kept::Anywhere, &format!("{t}-{i}"), "run", None)
                            .unwrap();
                    }
                });
            }
        });
        let mut seqs: Vec<u64> = h.list().unwrap().iter().filter_map(|v| v.seq).collect();
        seqs.sort();
        assert_eq!(seqs, (1..=40).collect::<Vec<u64>>());
    }

    #[test]
    fn a_drift_recorded_again_adds_no_version() {
        let dir = tempfile::tempdir().unwrap();
        let h = StateHistory::new(dir.path().join("h"));
        h.save("ours", "run-1", None).unwrap();
        for _ in 0..2 {
            h.record_drift(
                VersionedFile::CurrentState,
                "ours",
                Utc::now(),
                "merged",
                vec!["# S".into()],
                "origin/main",
            )
            .unwrap();
        }
        assert_eq!(h.list().unwrap().len(), 2);
        assert_eq!(h.drifts().len(), 1);
    }

    #[test]
    fn each_versioned_file_keeps_its_drift_apart_and_the_newest_of_each_is_listed() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::in_dir(dir.path());
        let record = |file: VersionedFile, text: &str| {
            StateHistory::new(file.history_dir(&ws))
                .record_drift(file, text, Utc::now(), "merged", vec!["## S".into()], "b")
                .unwrap()
        };
        record(VersionedFile::CurrentState, "old state");
        record(VersionedFile::Identity, "old identity 1");
        let newest = record(VersionedFile::Identity, "old identity 2");
        let state = StateHistory::new(ws.state_history_dir()).drifts();
        assert_eq!(state.len(), 1, "identity's records are not state's");
        assert_eq!(state[0].file, VersionedFile::CurrentState);
        assert_eq!(workspace_drifts(&ws).len(), 3);
        let latest = latest_drifts(&ws);
        assert_eq!(latest.len(), 2);
        assert_eq!(latest[0], newest);
        assert!(
            newest
                .diff_command()
                .starts_with("agent-handover identity diff ")
        );
        // A record written before files were named is current-state.md's.
        let old: Drift = serde_json::from_str(
            r#"{"at":"2026-11-01T00:00:00Z","superseded":"a","merged":"b","sections":[],"from":"x"}"#,
        )
        .unwrap();
        assert_eq!(old.file, VersionedFile::CurrentState);
    }

    #[test]
    fn blob_id_matches_git() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            blob_id("hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(blob_id(""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    }

    #[test]
    fn unrelated_files_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        std::fs::write(dir.path().join(".tmp--x--y.md"), "x").unwrap();
        assert!(
            StateHistory::new(dir.path().into())
                .list()
                .unwrap()
                .is_empty()
        );
    }
}
