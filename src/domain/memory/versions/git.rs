//! The git log of a versioned memory file: the commits that changed it, found
//! without reading any file content (blob sizes come from the object
//! database's headers).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use git2::{Commit, ErrorCode, ObjectType, Oid, Repository, Sort};

use crate::base::error::{Error, Result};
use crate::domain::memory::history::VersionedFile;
use crate::workspace::Workspace;

/// Hex digits of a commit id kept as its short form.
pub(super) const SHORT_COMMIT: usize = 12;

/// The trailer our publish commits carry: when the handover was made, to
/// the nanosecond (commit times have whole seconds).
pub const HANDOVER_AT: &str = "Handover-At:";

/// When `commit`'s handover was made: its [`HANDOVER_AT`] trailer, else its commit time.
pub fn handover_time(commit: &Commit<'_>) -> DateTime<Utc> {
    commit
        .message()
        .unwrap_or_default()
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(HANDOVER_AT))
        .and_then(|t| DateTime::parse_from_rfc3339(t.trim()).ok())
        .map(|t| t.with_timezone(&Utc))
        .or_else(|| DateTime::from_timestamp(commit.time().seconds(), 0))
        .unwrap_or_default()
}

/// One commit that changed the file.
#[derive(Debug, Clone)]
pub(super) struct Change {
    /// The commit's time (whole seconds).
    pub at: DateTime<Utc>,
    /// When its handover was made ([`handover_time`]).
    pub made: DateTime<Utc>,
    pub commit: Oid,
    pub summary: Option<String>,
    pub blob: Oid,
    pub size: u64,
}

/// The file's history in the repository holding the memory directory.
pub(super) struct FileLog {
    repo: Repository,
    /// The file, relative to the repository's working directory.
    path: PathBuf,
    /// The file as the workspace names it, for errors.
    file: PathBuf,
}

impl FileLog {
    /// The log of `file`, or `None` when the memory directory is in no
    /// repository (or in a bare one).
    pub fn open(ws: &Workspace, file: VersionedFile) -> Result<Option<Self>> {
        let repo = match Repository::discover(&ws.memory.root) {
            Ok(r) => r,
            Err(e) if e.code() == ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(git_error(&ws.memory.root, e)),
        };
        let Some(workdir) = repo.workdir() else {
            return Ok(None);
        };
        let canonical = |p: &Path| {
            std::fs::canonicalize(p).map_err(|e| Error::io("resolve", p.to_path_buf(), e))
        };
        let file = file.path(ws);
        let in_memory = file
            .strip_prefix(&ws.memory.root)
            .expect("a versioned file lies in the memory root");
        let memory = canonical(&ws.memory.root)?;
        let Ok(memory_in_repo) = memory.strip_prefix(canonical(workdir)?) else {
            return Ok(None);
        };
        let path = memory_in_repo.join(in_memory);
        Ok(Some(FileLog { repo, path, file }))
    }

    /// Every commit reachable from HEAD (newest first, children before their
    /// parents whatever the clocks said) whose version of the
    /// file differs from its first parent's; none when HEAD is unborn.
    pub fn changes(&self) -> Result<Vec<Change>> {
        let err = |e| git_error(&self.file, e);
        // An unborn branch (a repository with no commit yet) has no history;
        // the revwalk reports it as a generic "reference not found".
        if let Err(e) = self.repo.head()
            && matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound)
        {
            return Ok(Vec::new());
        }
        let mut walk = self.repo.revwalk().map_err(err)?;
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)
            .map_err(err)?;
        match walk.push_head() {
            Ok(()) => {}
            Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
                return Ok(Vec::new());
            }
            Err(e) => return Err(err(e)),
        }
        let odb = self.repo.odb().map_err(err)?;
        // Blob of the file per commit; a parent's is usually the next commit walked.
        let mut blobs: HashMap<Oid, Option<Oid>> = HashMap::new();
        let mut changes = Vec::new();
        for id in walk {
            let commit = self.repo.find_commit(id.map_err(err)?).map_err(err)?;
            let blob = match blobs.remove(&commit.id()) {
                Some(b) => b,
                None => self.blob_in(&commit)?,
            };
            let Some(blob) = blob else { continue };
            let parent_blob = match commit.parent_id(0) {
                Ok(pid) => match blobs.entry(pid) {
                    Entry::Occupied(e) => *e.get(),
                    Entry::Vacant(e) => {
                        let parent = self.repo.find_commit(pid).map_err(err)?;
                        *e.insert(self.blob_in(&parent)?)
                    }
                },
                Err(_) => None,
            };
            if parent_blob == Some(blob) {
                continue;
            }
            let (size, _) = odb.read_header(blob).map_err(err)?;
            changes.push(Change {
                at: DateTime::from_timestamp(commit.time().seconds(), 0).unwrap_or_default(),
                made: handover_time(&commit),
                commit: commit.id(),
                summary: commit.summary().ok().flatten().map(str::to_string),
                blob,
                size: size as u64,
            });
        }
        Ok(changes)
    }

    /// The bytes of blob `id` (hex), refusing blobs over `limit` before reading them.
    pub fn read(&self, id: &str, limit: u64, fix: &'static str) -> Result<Vec<u8>> {
        let err = |e| git_error(&self.file, e);
        let oid = Oid::from_str(id).map_err(err)?;
        let (size, _) = self
            .repo
            .odb()
            .map_err(err)?
            .read_header(oid)
            .map_err(err)?;
        if size as u64 > limit {
            return Err(Error::TooLarge {
                path: self.describe(id),
                size: size as u64,
                limit,
                fix,
            });
        }
        Ok(self.repo.find_blob(oid).map_err(err)?.content().to_vec())
    }

    /// The file named with one of its blobs (`... (git blob <id>)`), for errors.
    pub fn describe(&self, blob: &str) -> PathBuf {
        let mut name = self.file.clone().into_os_string();
        name.push(format!(
            " (git blob {})",
            &blob[..blob.len().min(SHORT_COMMIT)]
        ));
        name.into()
    }

    fn blob_in(&self, commit: &git2::Commit<'_>) -> Result<Option<Oid>> {
        let tree = commit.tree().map_err(|e| git_error(&self.file, e))?;
        match tree.get_path(&self.path) {
            Ok(entry) if entry.kind() == Some(ObjectType::Blob) => Ok(Some(entry.id())),
            Ok(_) => Ok(None),
            Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
            Err(e) => Err(git_error(&self.file, e)),
        }
    }
}

fn git_error(path: &Path, e: git2::Error) -> Error {
    Error::io(
        "read the git history of",
        path.to_path_buf(),
        std::io::Error::other(e.message().to_string()),
    )
}
