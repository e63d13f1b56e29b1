//! Every version of `current-state.md` (or `identity.md`: a
//! [`VersionedFile`]) the project knows of, merged from three sources into
//! one list, newest first:
//!
//! * local snapshots ([`StateHistory`](super::history::StateHistory)), each
//!   labelled with the run that wrote it (or `external`);
//! * the git log of the file, when the memory directory is in a repository:
//!   one version per commit that changed it (compared with its first parent);
//! * the working file itself, when its text is in neither (edited by hand
//!   since).
//!
//! A snapshot and a commit holding the same text (same git blob id) are one
//! version carrying both the run and the commit.
//!
//! The order is not the clock's: local snapshots keep the history's order
//! (by their numbers; see [`history`](super::history)), commits keep git's
//! (children before parents), and a version only one source knows goes
//! between the other's by time ([`newest_first`]); the working file, when
//! its text is in neither, is the newest. So a clock set back, or a commit
//! from a machine whose clock was ahead, reorders nothing it knows. Listing reads no version's
//! text; [`read_version`] does, for one, and redacts every secret in it.

mod git;

pub use git::{HANDOVER_AT, handover_time};

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;

use super::MAX_MEMORY_FILE_BYTES;
use super::history::{self, StateHistory, VersionedFile};
use crate::base::error::{Error, ErrorKind, ModuleError, Result, exit_code};
use crate::base::fsx;
use crate::base::secrets;
use crate::workspace::Workspace;
use git::FileLog;

/// Hex digits of the blob id that make a version's [`Version::id`].
pub const ID_LEN: usize = 16;
/// Selector of the newest version.
pub const CURRENT: &str = "current";
/// Shortest prefix [`select`] accepts.
pub const MIN_PREFIX: usize = 4;
const TOO_LARGE_FIX: &str =
    "memory files are briefings, not dumps: move the file aside and write a shorter one";
/// Versions named in an error about a selector.
const LISTED_IN_ERRORS: usize = 8;

/// Where a version was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A snapshot in the local history folder.
    Local,
    /// A commit in the git log of the file.
    Git,
    /// The working file (`memory/layer2/current-state.md`) holds this text now.
    Working,
}

/// One version of current-state.md.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Version {
    /// The first 16 hex digits of its git blob id: it names the text, so it
    /// is the same in every source and on every machine, and it is what the
    /// CLI's selectors and the dashboard use. A text that came back (a
    /// revert) is listed once per commit that brought it, under the same id.
    pub id: String,
    /// When the text first existed: the earlier of the snapshot's time and
    /// the commit's time (a snapshot within the commit's second wins: commit
    /// times have whole seconds). For a text only the working file holds, its mtime,
    /// but never earlier than any other version's (it was edited after all of
    /// them were recorded).
    pub at: DateTime<Utc>,
    /// The run that wrote it (none for `external` snapshots, commits made by
    /// others and hand edits).
    pub run: Option<String>,
    /// The commit that brought it, short (12 hex digits).
    pub commit: Option<String>,
    /// That commit's summary line (secrets redacted).
    pub summary: Option<String>,
    /// Size in bytes.
    pub size: u64,
    /// Its git blob id: 40 hex digits, or only [`ID_LEN`] for a version
    /// known only from a local snapshot (whose text is not read to list it).
    pub blob: String,
    /// Where it was found, in [`Source`] order.
    pub sources: Vec<Source>,
    /// The local snapshot file, if there is one.
    pub snapshot: Option<PathBuf>,
    /// Made or kept by a merge of two machines' memory (see [`Self::drift`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub merge: bool,
    /// Set when a merge of two machines' memory superseded this version's
    /// text of some sections (state drift): which, and the diff to look at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift: Option<history::Drift>,
}

impl Version {
    /// True if `selector` is a prefix of its blob id, commit or run id.
    fn matches(&self, selector: &str) -> bool {
        let hex = selector.to_ascii_lowercase();
        self.blob.starts_with(&hex)
            || self.commit.as_ref().is_some_and(|c| c.starts_with(&hex))
            || self.run.as_ref().is_some_and(|r| r.starts_with(selector))
    }

    /// `3f2a9c0d1e2b3a4f (run …, commit …)`: how errors name it.
    fn describe(&self) -> String {
        let mut what = Vec::new();
        if let Some(r) = &self.run {
            what.push(format!("run {r}"));
        }
        if let Some(c) = &self.commit {
            what.push(format!("commit {c}"));
        }
        if self.sources == [Source::Working] {
            what.push("working file".into());
        }
        format!(
            "{} ({}{})",
            self.id,
            self.at.format("%Y-%m-%d %H:%MZ"),
            what.iter().map(|w| format!(", {w}")).collect::<String>()
        )
    }
}

/// Every version of `file`, newest first; see the module docs.
pub fn list_versions(ws: &Workspace, file: VersionedFile) -> Result<Vec<Version>> {
    let changes = match FileLog::open(ws, file)? {
        Some(log) => log.changes()?,
        None => Vec::new(),
    };
    let history = StateHistory::new(file.history_dir(ws));
    let snapshots = history.list()?;
    let pairs = pair_snapshots_with_commits(&snapshots, &changes);
    // The two orders to keep: git's (children before parents) and the
    // history's (by number), as indices into `versions`.
    let git_order: Vec<usize> = (0..changes.len()).collect();
    let mut local_order = Vec::with_capacity(snapshots.len());
    let mut versions: Vec<Version> = changes.into_iter().map(from_commit).collect();
    for (snap, commit) in snapshots.into_iter().zip(pairs) {
        let Some(c) = commit else {
            local_order.push(versions.len());
            versions.push(from_snapshot(snap));
            continue;
        };
        local_order.push(c);
        let v = &mut versions[c];
        // Commit times have whole seconds: a snapshot within the
        // commit's second is the more precise time of the two.
        if snap.at < v.at + TimeDelta::seconds(1) {
            v.at = snap.at;
        }
        v.run = run_of(&snap.label);
        v.merge = snap.label == history::DRIFT_LABEL;
        v.snapshot = Some(snap.path);
        v.sources.insert(0, Source::Local);
    }
    let mut versions = newest_first(versions, [local_order, git_order]);
    let working = file.path(ws);
    if let Some(text) = read_text(ws, &working)? {
        let blob = history::blob_id(&text);
        match versions.iter_mut().find(|v| blob.starts_with(&v.blob)) {
            Some(v) => v.sources.push(Source::Working),
            None => {
                let mtime: DateTime<Utc> = std::fs::metadata(&working)
                    .and_then(|m| m.modified())
                    .map_err(|e| Error::io("stat", &working, e))?
                    .into();
                // Edited after every version recorded (whatever the coarse
                // mtime says): it is the newest.
                let at = versions.first().map_or(mtime, |v| mtime.max(v.at));
                versions.insert(
                    0,
                    Version {
                        id: blob[..ID_LEN].to_string(),
                        at,
                        run: None,
                        commit: None,
                        summary: None,
                        size: text.len() as u64,
                        blob,
                        sources: vec![Source::Working],
                        snapshot: None,
                        merge: false,
                        drift: None,
                    },
                );
            }
        }
    }
    for drift in history.drifts() {
        if let Some(v) = versions.iter_mut().find(|v| v.id == drift.superseded)
            && v.drift.is_none()
        {
            v.drift = Some(drift);
        }
    }
    Ok(versions)
}

/// `versions` in one order, newest first, that keeps each of `chains`
/// (indices into `versions`, each newest first: the local history's order
/// by number, git's order of commits) and never the clock over them: the
/// next version is one at the head of every chain it is in, and of those
/// (a version only one source knows, beside the other's head) the one with
/// the latest time, git's on a tie. When none is at the head of every chain
/// (the two orders disagree: a snapshot paired with a commit the history
/// wrote in another order), the latest of the heads goes next.
fn newest_first(versions: Vec<Version>, chains: [Vec<usize>; 2]) -> Vec<Version> {
    let n = versions.len();
    let mut member = vec![[false; 2]; n];
    for (c, chain) in chains.iter().enumerate() {
        for &i in chain {
            member[i][c] = true;
        }
    }
    let mut heads = [0usize; 2];
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    loop {
        for (c, chain) in chains.iter().enumerate() {
            while chain.get(heads[c]).is_some_and(|&i| done[i]) {
                heads[c] += 1;
            }
        }
        let fronts: Vec<usize> = (0..2)
            .filter_map(|c| chains[c].get(heads[c]).copied())
            .collect();
        let at_every_head =
            |i: usize| (0..2).all(|c| !member[i][c] || chains[c].get(heads[c]) == Some(&i));
        let latest = |candidates: &mut dyn Iterator<Item = usize>| {
            candidates.max_by_key(|&i| versions[i].at)
        };
        let Some(next) = latest(&mut fronts.iter().copied().filter(|&i| at_every_head(i)))
            .or_else(|| latest(&mut fronts.iter().copied()))
        else {
            break;
        };
        done[next] = true;
        order.push(next);
    }
    let mut slots: Vec<Option<Version>> = versions.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// The text of `version` as it is shown (`state diff`, the dashboard):
/// every secret redacted ([`secrets::redact`]).
pub fn read_version(ws: &Workspace, file: VersionedFile, version: &Version) -> Result<String> {
    let text = read_text_of(ws, file, version)?;
    Ok(match secrets::redact(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(redacted) => redacted,
    })
}

/// The text of `version`: from its snapshot, else its git blob, else the
/// working file (refused if that changed since it was listed).
fn read_text_of(ws: &Workspace, file: VersionedFile, version: &Version) -> Result<String> {
    if let Some(path) = &version.snapshot {
        return read_text(ws, path)?
            .ok_or_else(|| Error::io("read", path, std::io::ErrorKind::NotFound.into()));
    }
    if version.sources.contains(&Source::Git) {
        let log = FileLog::open(ws, file)?.ok_or_else(|| {
            Error::io(
                "find the git repository of",
                file.path(ws),
                std::io::ErrorKind::NotFound.into(),
            )
        })?;
        let bytes = log.read(&version.blob, MAX_MEMORY_FILE_BYTES, TOO_LARGE_FIX)?;
        return String::from_utf8(bytes).map_err(|e| Error::Corrupt {
            path: log.describe(&version.blob),
            detail: format!("not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()),
            fix: "it cannot be shown as text; pick another version".into(),
        });
    }
    let path = file.path(ws);
    match read_text(ws, &path)? {
        Some(text) if history::blob_id(&text).starts_with(&version.blob) => Ok(text),
        _ => Err(Error::io(
            "read",
            path,
            std::io::Error::other(format!(
                "it changed since version {} was listed; list the versions again",
                version.id
            )),
        )),
    }
}

/// A version selector (`state diff FROM TO`, `identity diff FROM TO`) that
/// names no version of the file, or several different ones.
#[derive(Debug, thiserror::Error)]
pub enum VersionError {
    /// The selector matches no version, or different ones.
    #[error(
        "version {selector:?} {why}; versions:{known}\n  fix: name one by index (0 = newest), `current`, or a longer prefix of its id, commit or run id (`agent-handover state list` or `identity list` shows them)"
    )]
    Unknown {
        /// The selector given.
        selector: String,
        /// What is wrong with it.
        why: String,
        /// The versions it could mean (or all of them), one per line.
        known: String,
    },
}

impl ModuleError for VersionError {
    fn kind(&self) -> ErrorKind {
        ErrorKind {
            name: "unknown_version",
            exit_code: exit_code::USAGE,
        }
    }
}

/// The version `selector` names in `versions` (newest first): an index
/// (`0` = newest), `current` (the newest), or a prefix of at least
/// [`MIN_PREFIX`] characters of a blob id, commit id or run id (a number is
/// an index when there is a version with that index, a prefix otherwise).
/// A prefix matching several versions of the same text picks the newest;
/// one matching different texts is ambiguous.
pub fn select<'a>(versions: &'a [Version], selector: &str) -> Result<&'a Version> {
    let unknown = |why: String, candidates: &[&Version]| {
        Error::from(VersionError::Unknown {
            selector: selector.to_string(),
            why,
            known: listing(candidates),
        })
    };
    let all: Vec<&Version> = versions.iter().collect();
    if versions.is_empty() {
        return Err(unknown("there are no versions yet".into(), &all));
    }
    if selector == CURRENT {
        return Ok(&versions[0]);
    }
    if let Ok(index) = selector.parse::<usize>() {
        if index < versions.len() {
            return Ok(&versions[index]);
        }
        if selector.len() < MIN_PREFIX {
            let why = format!("is past the oldest version (index {})", versions.len() - 1);
            return Err(unknown(why, &all));
        }
    }
    if selector.len() < MIN_PREFIX {
        let why = format!("is too short for a prefix ({MIN_PREFIX} characters at least)");
        return Err(unknown(why, &all));
    }
    let found: Vec<&Version> = versions.iter().filter(|v| v.matches(selector)).collect();
    match found.as_slice() {
        [] => Err(unknown("matches no version".into(), &all)),
        [first, rest @ ..] if rest.iter().all(|v| v.id == first.id) => Ok(first),
        _ => Err(unknown(
            format!(
                "is ambiguous: it matches {} different versions",
                found.len()
            ),
            &found,
        )),
    }
}

fn listing(versions: &[&Version]) -> String {
    if versions.is_empty() {
        return " none (a handover writes the first)".into();
    }
    let mut lines: Vec<String> = versions
        .iter()
        .take(LISTED_IN_ERRORS)
        .map(|v| format!("\n    {}", v.describe()))
        .collect();
    if versions.len() > LISTED_IN_ERRORS {
        lines.push(format!(
            "\n    ... and {} more",
            versions.len() - LISTED_IN_ERRORS
        ));
    }
    lines.concat()
}

/// For each snapshot, the commit that published it (an index into
/// `changes`), if any: a commit of the same text, each commit taken once,
/// nearest pairs first by when the handover was made. So a text written
/// again (a revert, or a handover that changed nothing) pairs with its own
/// run's commit, not the oldest commit of that text, and a snapshot not yet
/// published stays a version of its own.
fn pair_snapshots_with_commits(
    snapshots: &[history::StateVersion],
    changes: &[git::Change],
) -> Vec<Option<usize>> {
    let mut by_id: HashMap<String, Vec<usize>> = HashMap::new();
    for (c, change) in changes.iter().enumerate() {
        let mut id = change.blob.to_string();
        id.truncate(ID_LEN);
        by_id.entry(id).or_default().push(c);
    }
    let mut candidates: Vec<(TimeDelta, usize, usize)> = Vec::new();
    for (s, snap) in snapshots.iter().enumerate() {
        for &c in by_id.get(&snap.hash).into_iter().flatten() {
            candidates.push(((snap.at - changes[c].made).abs(), s, c));
        }
    }
    candidates.sort();
    let mut pairs = vec![None; snapshots.len()];
    let mut taken = vec![false; changes.len()];
    for (_, s, c) in candidates {
        if pairs[s].is_none() && !taken[c] {
            pairs[s] = Some(c);
            taken[c] = true;
        }
    }
    pairs
}

fn from_commit(c: git::Change) -> Version {
    let blob = c.blob.to_string();
    Version {
        id: blob[..ID_LEN].to_string(),
        at: c.at,
        run: None,
        commit: Some(c.commit.to_string()[..git::SHORT_COMMIT].to_string()),
        summary: c.summary.map(|s| secrets::redact(&s).into_owned()),
        size: c.size,
        blob,
        sources: vec![Source::Git],
        snapshot: None,
        merge: false,
        drift: None,
    }
}

fn from_snapshot(s: history::StateVersion) -> Version {
    Version {
        id: s.hash.clone(),
        at: s.at,
        run: run_of(&s.label),
        commit: None,
        summary: None,
        size: s.size,
        blob: s.hash,
        sources: vec![Source::Local],
        merge: s.label == history::DRIFT_LABEL,
        snapshot: Some(s.path),
        drift: None,
    }
}

fn run_of(label: &str) -> Option<String> {
    (label != history::EXTERNAL_LABEL && label != history::DRIFT_LABEL).then(|| label.to_string())
}

fn read_text(ws: &Workspace, path: &std::path::Path) -> Result<Option<String>> {
    fsx::read_text_within(ws.tree_of(path), path, MAX_MEMORY_FILE_BYTES, TOO_LARGE_FIX)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use chrono::NaiveDate;
    use git2::{Repository, Signature, Time};

    use super::*;

    const STATE: VersionedFile = VersionedFile::CurrentState;
    use crate::domain::memory::MemoryStore;
    use crate::workspace::WorkspaceOptions;

    const T0: i64 = 1_700_000_000;

    fn workspace(dir: &Path) -> Workspace {
        Workspace::resolve(WorkspaceOptions {
            cwd: Some(dir.to_path_buf()),
            home: Some(dir.join("home")),
            ..Default::default()
        })
        .unwrap()
    }

    fn store(ws: &Workspace) -> MemoryStore {
        MemoryStore::new(ws.memory.clone(), ws.state_history_dir())
    }

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
    }

    /// Commit the working current-state.md at `T0 + n` seconds.
    fn commit(repo: &Repository, message: &str, n: i64) -> String {
        let mut index = repo.index().unwrap();
        index
            .add_path(Path::new("memory/layer2/current-state.md"))
            .unwrap();
        index.write().unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = Signature::new("t", "t@example.com", &Time::new(T0 + n, 0)).unwrap();
        let parent = repo.head().ok().map(|h| h.peel_to_commit().unwrap());
        let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
        let id = repo
            .commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
            .unwrap();
        id.to_string()
    }

    fn hand_write(ws: &Workspace, text: &str) {
        std::fs::write(ws.memory.current_state(), text).unwrap();
    }

    fn text(v: &str) -> String {
        crate::domain::memory::header(2, day()) + v
    }

    #[test]
    fn versions_are_read_and_listed_with_secrets_redacted() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let ws = workspace(dir.path());
        store(&ws)
            .write_current_state(day(), "the password is hunter2\n", "run-a")
            .unwrap();
        commit(&repo, "handover: curl -u ops:hunter2 worked", 1);
        hand_write(&ws, "login with curl -u ops:hunter2\n");
        let versions = list_versions(&ws, STATE).unwrap();
        assert_eq!(versions.len(), 2);
        assert_eq!(
            read_version(&ws, STATE, &versions[0]).unwrap(),
            "login with curl -u ops:[REDACTED]\n"
        );
        assert_eq!(
            read_version(&ws, STATE, &versions[1]).unwrap(),
            text("the password is [REDACTED]\n")
        );
        assert_eq!(
            versions[1].summary.as_deref(),
            Some("handover: curl -u ops:[REDACTED] worked")
        );
    }

    #[test]
    fn snapshots_commits_and_the_working_file_merge_into_one_list() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let ws = workspace(dir.path());
        let s = store(&ws);
        s.write_current_state(day(), "v1", "run-a").unwrap();
        let c1 = commit(&repo, "handover 1", 1);
        hand_write(&ws, "hand 2"); // committed, then replaced unseen: git only
        let c2 = commit(&repo, "hand edit 2", 2);
        hand_write(&ws, "hand 3"); // kept as `external` by the next write
        let c3 = commit(&repo, "hand edit 3", 3);
        s.write_current_state(day(), "v4", "run-d").unwrap();
        let c4 = commit(&repo, "handover 4", 4);
        s.write_current_state(day(), "v5", "run-e").unwrap(); // not committed
        hand_write(&ws, "v6 by hand"); // only on disk

        let versions = list_versions(&ws, STATE).unwrap();
        let summary: Vec<(Option<&str>, Option<&str>, &[Source])> = versions
            .iter()
            .map(|v| (v.run.as_deref(), v.commit.as_deref(), v.sources.as_slice()))
            .collect();
        use Source::*;
        assert_eq!(
            summary,
            [
                (None, None, &[Working][..]),
                (Some("run-e"), None, &[Local][..]),
                (Some("run-d"), Some(&c4[..12]), &[Local, Git][..]),
                (None, Some(&c3[..12]), &[Local, Git][..]),
                (None, Some(&c2[..12]), &[Git][..]),
                (Some("run-a"), Some(&c1[..12]), &[Local, Git][..]),
            ]
        );
        let texts = [
            "v6 by hand",
            &text("v5"),
            &text("v4"),
            "hand 3",
            "hand 2",
            &text("v1"),
        ];
        for (v, expected) in versions.iter().zip(texts) {
            assert_eq!(read_version(&ws, STATE, v).unwrap(), expected, "{v:?}");
            assert_eq!(v.size, expected.len() as u64);
            let blob = history::blob_id(expected);
            assert_eq!(v.id, blob[..ID_LEN]);
            assert!(blob.starts_with(&v.blob));
        }
        assert_eq!(versions[4].summary.as_deref(), Some("hand edit 2"));
        // Merged versions take the earlier time: the commit's.
        assert_eq!(versions[2].at.timestamp(), T0 + 4);
        assert_eq!(versions[5].blob.len(), 40);

        // Once the working file matches a version, it is not listed twice.
        s.write_current_state(day(), "v7", "run-f").unwrap();
        let versions = list_versions(&ws, STATE).unwrap();
        assert_eq!(versions.len(), 7);
        assert_eq!(versions[0].sources, [Local, Working]);
        assert_eq!(
            versions[1].sources,
            [Local],
            "the hand edit was kept as a snapshot"
        );
    }

    #[test]
    fn without_a_repository_there_are_snapshots_and_the_working_file() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        assert!(list_versions(&ws, STATE).unwrap().is_empty());
        store(&ws)
            .write_current_state(day(), "v1", "run-a")
            .unwrap();
        let versions = list_versions(&ws, STATE).unwrap();
        assert_eq!(versions.len(), 1);
        assert_eq!(versions[0].sources, [Source::Local, Source::Working]);
        assert_eq!(versions[0].blob.len(), ID_LEN);
    }

    /// Issue 14, seen 4: a repository with no commit yet showed a git error
    /// ("reference 'refs/heads/master' not found") instead of the local versions.
    #[test]
    fn a_repository_with_no_commit_lists_the_local_versions() {
        let dir = tempfile::tempdir().unwrap();
        Repository::init(dir.path()).unwrap();
        let ws = workspace(dir.path());
        let s = store(&ws);
        s.write_current_state(day(), "v1", "run-a").unwrap();
        s.write_current_state(day(), "v2", "run-b").unwrap();
        let runs: Vec<Option<String>> = list_versions(&ws, STATE)
            .unwrap()
            .into_iter()
            .map(|v| v.run)
            .collect();
        assert_eq!(runs, [Some("run-b".into()), Some("run-a".into())]);
    }

    #[test]
    fn a_file_never_committed_has_no_git_versions() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let ws = workspace(dir.path());
        store(&ws)
            .write_current_state(day(), "v1", "run-a")
            .unwrap();
        std::fs::write(dir.path().join("other"), "x").unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("other")).unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = Signature::now("t", "t@example.com").unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "other", &tree, &[])
            .unwrap();
        let versions = list_versions(&ws, STATE).unwrap();
        assert_eq!(versions.len(), 1);
        assert_eq!(versions[0].commit, None);
    }

    #[test]
    fn reverted_text_is_listed_per_commit_and_selected_as_one() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let ws = workspace(dir.path());
        std::fs::create_dir_all(ws.memory.current_state().parent().unwrap()).unwrap();
        for (n, t) in [(1, "A"), (2, "B"), (3, "A")] {
            hand_write(&ws, t);
            commit(&repo, t, n);
        }
        let versions = list_versions(&ws, STATE).unwrap();
        assert_eq!(versions.len(), 3);
        assert_eq!(versions[0].id, versions[2].id);
        assert_eq!(versions[0].sources, [Source::Git, Source::Working]);
        let picked = select(&versions, &versions[2].id[..6]).unwrap();
        assert_eq!(picked, &versions[0], "the newest of the same text");
    }

    /// Issue 14, seen 4: a text written again pairs with its own run's
    /// commit, so versions stay in the order they were written.
    #[test]
    fn a_revert_is_its_own_version_paired_with_its_own_commit() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let ws = workspace(dir.path());
        let s = store(&ws);
        let mut commits = Vec::new();
        for (n, (body, run)) in [("A", "run-a"), ("B", "run-b"), ("A", "run-c")]
            .into_iter()
            .enumerate()
        {
            s.write_current_state(day(), body, run).unwrap();
            let made = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Nanos, true);
            let message = format!("handover {run}\n\n{HANDOVER_AT} {made}");
            commits.push(commit(&repo, &message, n as i64));
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let versions = list_versions(&ws, STATE).unwrap();
        let listed: Vec<(Option<&str>, Option<&str>)> = versions
            .iter()
            .map(|v| (v.run.as_deref(), v.commit.as_deref()))
            .collect();
        assert_eq!(
            listed,
            [
                (Some("run-c"), Some(&commits[2][..12])),
                (Some("run-b"), Some(&commits[1][..12])),
                (Some("run-a"), Some(&commits[0][..12])),
            ]
        );
        assert_eq!(versions[0].id, versions[2].id, "the same text");
    }

    /// Issue 41: after the clock stepped back a day, `state list` put the
    /// working file at index 2, under the versions a run had written (and
    /// committed) under the clock that was ahead. The history's numbers and
    /// git's parents order them, not their times.
    #[test]
    fn a_clock_set_back_reorders_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let ws = workspace(dir.path());
        let s = store(&ws);
        let tomorrow = Utc::now() + TimeDelta::days(1);
        for (n, body) in [(1, "ahead 1"), (2, "ahead 2")] {
            // What a run under a clock a day ahead wrote and committed.
            let at = tomorrow + TimeDelta::seconds(n);
            s.history()
                .save(&text(body), &format!("run-a{n}"), Some(at))
                .unwrap();
            std::fs::create_dir_all(ws.memory.current_state().parent().unwrap()).unwrap();
            hand_write(&ws, &text(body));
            commit(&repo, body, at.timestamp() - T0);
        }
        for (n, body) in [(1, "now 1"), (2, "now 2")] {
            s.write_current_state(day(), body, &format!("run-n{n}"))
                .unwrap();
            commit(&repo, body, Utc::now().timestamp() - T0 + n);
        }
        hand_write(&ws, "now 3 by hand");
        commit(&repo, "hand edit", Utc::now().timestamp() - T0 + 3); // git only
        let versions = list_versions(&ws, STATE).unwrap();
        let listed: Vec<(Option<&str>, &[Source])> = versions
            .iter()
            .map(|v| (v.run.as_deref(), v.sources.as_slice()))
            .collect();
        use Source::*;
        assert_eq!(
            listed,
            [
                (None, &[Git, Working][..]),
                (Some("run-n2"), &[Local, Git][..]),
                (Some("run-n1"), &[Local, Git][..]),
                (Some("run-a2"), &[Local, Git][..]),
                (Some("run-a1"), &[Local, Git][..]),
            ]
        );
    }

    /// Two orders that disagree (the history wrote B after A, git committed
    /// A after B) still list every version once.
    #[test]
    fn orders_that_disagree_list_every_version_once() {
        let at = |s: i64| DateTime::from_timestamp(T0 + s, 0).unwrap();
        let versions: Vec<Version> = ["a", "b", "c"]
            .iter()
            .enumerate()
            .map(|(i, id)| Version {
                at: at(i as i64),
                ..fake(id, None, None)
            })
            .collect();
        let ids = |order: Vec<Version>| order.into_iter().map(|v| v.id).collect::<Vec<_>>();
        assert_eq!(
            ids(newest_first(versions.clone(), [vec![1, 0], vec![0, 1, 2]])),
            ["b", "a", "c"].map(String::from),
            "the disagreement goes by time; c, git's oldest, stays last"
        );
        assert_eq!(
            ids(newest_first(versions, [vec![0, 2], vec![1]])),
            ["b", "a", "c"].map(String::from),
            "the history's order holds over time; b, git only, is the newest head"
        );
    }

    fn fake(id: &str, run: Option<&str>, commit: Option<&str>) -> Version {
        Version {
            id: id.into(),
            at: DateTime::from_timestamp(T0, 0).unwrap(),
            run: run.map(Into::into),
            commit: commit.map(Into::into),
            summary: None,
            size: 1,
            blob: id.into(),
            sources: vec![Source::Local],
            snapshot: None,
            merge: false,
            drift: None,
        }
    }

    #[test]
    fn selectors() {
        let versions = [
            fake("aaaa111122223333", Some("20261121-100000-0001"), None),
            fake(
                "aaaa211122223333",
                Some("20261120-090000-0002"),
                Some("c0ffee000000"),
            ),
            fake("bbbb111122223333", None, Some("1234beef0000")),
        ];
        let pick = |s: &str| select(&versions, s).map(|v| v.id.as_str());
        assert_eq!(pick("0").unwrap(), "aaaa111122223333");
        assert_eq!(pick("2").unwrap(), "bbbb111122223333");
        assert_eq!(pick(CURRENT).unwrap(), "aaaa111122223333");
        assert_eq!(pick("aaaa2").unwrap(), "aaaa211122223333");
        assert_eq!(pick("BBBB").unwrap(), "bbbb111122223333");
        assert_eq!(pick("c0ffee").unwrap(), "aaaa211122223333");
        assert_eq!(pick("20261120").unwrap(), "aaaa211122223333");
        assert_eq!(
            pick("1234").unwrap(),
            "bbbb111122223333",
            "no index 1234: a prefix"
        );

        let err = pick("aaaa").unwrap_err();
        assert!(
            matches!(err.module(), Some(VersionError::Unknown { .. })),
            "{err}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains("ambiguous: it matches 2 different versions"),
            "{msg}"
        );
        assert!(
            msg.contains("aaaa111122223333") && !msg.contains("bbbb"),
            "{msg}"
        );
        assert!(msg.contains("fix: "), "{msg}");

        for (bad, why) in [
            ("zzzz", "matches no version"),
            ("3", "is past the oldest version (index 2)"),
            ("999", "is past the oldest version"),
            ("zz", "is too short for a prefix"),
            ("", "is too short for a prefix"),
        ] {
            let msg = pick(bad).unwrap_err().to_string();
            assert!(msg.contains(why), "{bad}: {msg}");
            assert!(
                msg.contains("bbbb111122223333 (2023-11-14 22:13Z, commit 1234beef0000)"),
                "{msg}"
            );
        }
        let msg = select(&[], "0").unwrap_err().to_string();
        assert!(msg.contains("there are no versions yet"), "{msg}");
    }
}
