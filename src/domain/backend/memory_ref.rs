//! The memory on its own ref: one memory per repository, off every code
//! branch.
//!
//! The files live in the repository's shared folder
//! (`<git common dir>/agent-handover/`: `memory/`, `messages/`, `tasks/`,
//! plain Markdown and JSON every worktree reads and writes). A publish
//! commits that folder, as it is, to [`MEMORY_REF`] with git's own object
//! database (blobs through the repository's clean filters,
//! [`git_filter`]), never touching a worktree, the index or a branch, and
//! pushes only that ref (`refs/agent-handover/memory:refs/agent-handover/memory`).
//! When the remote's memory moved on, it is fetched and merged by layer
//! (the rules of [`memory_merge`]), the shared folder brought to the merge,
//! and the push tried again. The push never holds a handover long: given
//! up after a short limit, it is *pending* (the ref is ahead of what the
//! remote was last seen to hold) and goes out with the next publish or
//! `sync`. One publish or sync at a time across worktrees
//! ([`SharedMemory::publish_lock`]).

use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use git2::build::TreeUpdateBuilder;
use git2::{Commit, FileMode, Oid, Repository, Tree};
use serde::{Deserialize, Serialize};

use super::git::{
    DEFAULT_NETWORK_SECS, MemoryLocations, admitted_message, git_error, keep_drift, on_disk_blob,
    short, signature,
};
use super::git_cli::{self, Pushed};
use super::git_error::GitError;
use super::git_filter;
use super::memory_merge::{self, MemoryPrefixes};
use super::{Admit, Backend, BackendError, Leftover, Synced};
use crate::base::outcome::{AfterCrash, StepError};
use crate::base::{fsx, secrets};
use crate::domain::memory::note_name::NoteName;
use crate::workspace::MemoryLayout;
use crate::workspace::config::BackendSection;
use crate::workspace::store::{MEMORY_REF, REMOTE_MEMORY_PREFIX, SharedMemory};

/// The folders of the shared folder that are the memory (and go in the ref).
const TREE_ROOTS: [&str; 3] = ["memory", "messages", "tasks"];

/// The message of a commit of what this repository's worktrees wrote
/// while another publish or a sync was under way.
const MEANWHILE: &str = "agent-handover: memory written here meanwhile";

/// The memory on its ref, as staged in a run's plan (absolute paths).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefSpec {
    /// A work tree of the repository (for its attributes and filters).
    pub work_tree: PathBuf,
    /// The shared folder whose `memory/`, `messages/` and `tasks/` are committed.
    pub shared_dir: PathBuf,
    /// The remote the ref is pushed to and fetched from (none: local only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<String>,
    /// Whether a publish pushes (`--no-push`, `push = false`: not).
    pub push: bool,
    /// The most a push or fetch may take (seconds; absent: [`DEFAULT_NETWORK_SECS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
    /// Where the memory's layers are, for the merge by layer and its drift.
    pub memory: MemoryLocations,
}

impl RefSpec {
    /// The memory ref of `shared`, as `[backend]` configures it: `remote`
    /// (unset: `origin` when the repository has it), `push`, `timeout_secs`.
    pub fn new(
        section: &BackendSection,
        shared: &SharedMemory,
        memory: MemoryLocations,
        no_push: bool,
    ) -> Self {
        // Read from the repository's config file alone (opening the
        // repository costs more, on every session start).
        let remote = section.remote.clone().or_else(|| {
            git2::Config::open(&shared.git.common_dir.join("config"))
                .ok()
                .filter(|c| c.get_string("remote.origin.url").is_ok())
                .map(|_| "origin".to_string())
        });
        RefSpec {
            work_tree: shared.git.work_tree.clone(),
            shared_dir: shared.dir.clone(),
            remote,
            push: !no_push && section.push.unwrap_or(true),
            timeout_secs: section.timeout_secs,
            memory,
        }
    }

    fn limit(&self) -> Duration {
        Duration::from_secs(self.timeout_secs.unwrap_or(DEFAULT_NETWORK_SECS))
    }

    fn open(&self) -> Result<Repository, GitError> {
        Repository::open(&self.work_tree).map_err(|e| GitError::NotARepository {
            dir: self.work_tree.clone(),
            detail: e.message().to_string(),
        })
    }

    /// One publish or sync of this memory at a time, across worktrees;
    /// with it held, the lock files on `refs/agent-handover/` that a killed
    /// one left are removed (no other process writes those refs).
    fn lock(&self, repo: &Repository) -> Result<std::fs::File, GitError> {
        fsx::create_dir_durable(&self.shared_dir)?;
        let held = fsx::lock_exclusive(&self.shared_dir.join("publish.lock"))?;
        clear_ref_locks(&repo.commondir().join("refs/agent-handover"))?;
        Ok(held)
    }

    /// Where a fetch keeps `remote`'s memory ref.
    fn tracking(remote: &str) -> String {
        format!("{REMOTE_MEMORY_PREFIX}/{remote}/memory")
    }

    /// Commit the shared folder to the ref if it differs from the ref's tree;
    /// every file new or changed since is shown to `admit` first (its name
    /// and its text as written, before any filter).
    fn commit_folder(
        &self,
        repo: &Repository,
        message: &str,
        admit: &Admit<'_>,
    ) -> Result<Option<Oid>, StepError> {
        let git = |e: git2::Error| git_error(repo, &e);
        let parent = tip(repo, MEMORY_REF).map_err(git)?;
        let baseline = parent.as_ref().map(Commit::tree).transpose().map_err(git)?;
        let files = folder_files(&self.shared_dir)?;
        let mut update = TreeUpdateBuilder::new();
        for (rel, file) in &files {
            let known = baseline
                .as_ref()
                .and_then(|t| t.get_path(Path::new(rel)).ok());
            let (bytes, mode) = match file {
                FileKind::Link(target) => (target.clone(), FileMode::Link),
                FileKind::File(path) => (
                    std::fs::read(path).map_err(|e| crate::Error::io("read", path, e))?,
                    FileMode::Blob,
                ),
            };
            let blob = match mode {
                FileMode::Link => repo.blob(&bytes).map_err(git)?,
                _ => git_filter::blob_for(repo, &self.work_tree, rel, &bytes)?,
            };
            if known.as_ref().is_none_or(|e| e.id() != blob) {
                admit(
                    &format!("the file name {}", secrets::redact(rel)),
                    rel.as_bytes(),
                )?;
                let what = match mode {
                    FileMode::Link => format!("the link target of {}", secrets::redact(rel)),
                    _ => secrets::redact(rel).into_owned(),
                };
                admit(&what, &bytes)?;
            }
            update.upsert(rel.as_str(), blob, mode);
        }
        let empty = repo
            .find_tree(
                repo.treebuilder(None)
                    .and_then(|b| b.write())
                    .map_err(git)?,
            )
            .map_err(git)?;
        let tree_id = update.create_updated(repo, &empty).map_err(git)?;
        if baseline.as_ref().map(Tree::id) == Some(tree_id)
            || (parent.is_none() && files.is_empty())
        {
            return Ok(None);
        }
        let tree = repo.find_tree(tree_id).map_err(git)?;
        let sig = signature(repo);
        let parents: Vec<&Commit<'_>> = parent.iter().collect();
        crate::base::failpoint::hit("publish-before-commit");
        Ok(Some(
            repo.commit(Some(MEMORY_REF), &sig, &sig, message, &tree, &parents)
                .map_err(git)?,
        ))
    }

    /// Push the ref, bringing the remote's memory in when it moved on; a
    /// push that cannot finish now is pending, not a failure (what the
    /// summary says). `gate` is asked before every attempt.
    fn push_merging(
        &self,
        repo: &Repository,
        remote: &str,
        gate: &dyn Fn() -> Result<(), StepError>,
        admit: &Admit<'_>,
    ) -> Result<String, StepError> {
        let mut merged = String::new();
        for _ in 0..3 {
            gate()?;
            let pushed = git_cli::push_ref(
                &self.work_tree,
                remote,
                MEMORY_REF,
                MEMORY_REF,
                self.limit(),
            );
            match pushed {
                Ok(Pushed::Done) => {
                    if let Some(id) = tip_id(repo, MEMORY_REF) {
                        repo.reference(&Self::tracking(remote), id, true, "agent-handover: pushed")
                            .map_err(|e| git_error(repo, &e))?;
                    }
                    return Ok(format!("{merged}pushed to {remote}"));
                }
                Ok(Pushed::Behind) => {
                    gate()?;
                    match self.fetch(remote) {
                        Ok(()) => merged = format!("{}, ", self.merge_in(repo, remote, admit)?),
                        Err(e) => return Ok(super::pending_words(remote, &e.to_string())),
                    }
                }
                Ok(Pushed::Refused(words)) => {
                    return Ok(super::pending_words(
                        remote,
                        &format!("{remote} refused it: {words}"),
                    ));
                }
                Ok(Pushed::Failed(said)) => return Ok(super::pending_words(remote, &said)),
                Err(e) => return Ok(super::pending_words(remote, &e.to_string())),
            }
        }
        Ok(super::pending_words(
            remote,
            &format!("{remote}'s memory kept moving"),
        ))
    }

    /// Merge the fetched memory of `remote` in ([`Self::merge_remote`]),
    /// the shared folder committed first (through `admit`): what another
    /// worktree's handover wrote since is then ours in the merge, merged by
    /// layer, never overwritten by the remote's file of the same name.
    fn merge_in(
        &self,
        repo: &Repository,
        remote: &str,
        admit: &Admit<'_>,
    ) -> Result<String, StepError> {
        self.commit_folder(repo, MEANWHILE, admit)?;
        Ok(self.merge_remote(repo, remote)?)
    }

    /// Fetch the remote's memory ref into its tracking ref.
    fn fetch(&self, remote: &str) -> Result<(), GitError> {
        let refspec = format!("+{MEMORY_REF}:{}", Self::tracking(remote));
        git_cli::fetch_refspec_within(&self.work_tree, remote, &refspec, self.limit())
    }

    /// Bring the fetched memory of `remote` into the ref and the shared
    /// folder: a fast-forward, or a merge by layer. The folder's files still
    /// at the ref's text are brought to the new one first (a file written
    /// since, by a handover in another worktree, is left as it is: it is
    /// newer, and its own publish commits it), then the ref moves. Returns
    /// what was done.
    fn merge_remote(&self, repo: &Repository, remote: &str) -> Result<String, GitError> {
        let git = |e: git2::Error| git_error(repo, &e);
        let Some(theirs) = tip(repo, &Self::tracking(remote)).map_err(git)? else {
            return Ok(format!("{remote} has no memory yet"));
        };
        let Some(ours) = tip(repo, MEMORY_REF).map_err(git)? else {
            self.bring_folder(repo, None, &theirs.tree().map_err(git)?)?;
            repo.reference(
                MEMORY_REF,
                theirs.id(),
                true,
                "agent-handover: take the remote's memory",
            )
            .map_err(git)?;
            return Ok(format!("took {remote}'s memory ({})", short(theirs.id())));
        };
        if ours.id() == theirs.id()
            || repo
                .graph_descendant_of(ours.id(), theirs.id())
                .map_err(git)?
        {
            return Ok(format!("{remote}'s memory is already contained"));
        }
        if repo
            .graph_descendant_of(theirs.id(), ours.id())
            .map_err(git)?
        {
            self.bring_folder(
                repo,
                Some(&ours.tree().map_err(git)?),
                &theirs.tree().map_err(git)?,
            )?;
            repo.reference(
                MEMORY_REF,
                theirs.id(),
                true,
                "agent-handover: fast-forward",
            )
            .map_err(git)?;
            return Ok(format!(
                "fast-forwarded to {remote}'s memory ({})",
                short(theirs.id())
            ));
        }
        let mut index = repo.merge_commits(&ours, &theirs, None).map_err(git)?;
        let base = repo
            .merge_base(ours.id(), theirs.id())
            .ok()
            .and_then(|id| repo.find_commit(id).ok());
        let prefixes = MemoryPrefixes {
            memory: "memory/".into(),
            messages: "messages/".into(),
        };
        let settled =
            memory_merge::settle(repo, &mut index, &ours, &theirs, base.as_ref(), &prefixes)
                .map_err(git)?;
        // What no layer's rule settles (a task's JSON changed on both
        // sides) keeps this machine's text; theirs stays in the merge's
        // second parent.
        let kept: Vec<String> = index
            .conflicts()
            .map_err(git)?
            .filter_map(Result::ok)
            .filter_map(|c| c.our.or(c.their).or(c.ancestor))
            .map(|e| String::from_utf8_lossy(&e.path).into_owned())
            .collect();
        for path in &kept {
            index.conflict_remove(Path::new(path)).map_err(git)?;
            if let Ok(entry) = ours.tree().and_then(|t| t.get_path(Path::new(path))) {
                memory_merge::put_blob(&mut index, path, entry.id(), entry.filemode() as u32)
                    .map_err(git)?;
            }
        }
        let tree = repo
            .find_tree(index.write_tree_to(repo).map_err(git)?)
            .map_err(git)?;
        let sig = signature(repo);
        let message = format!("agent-handover: merge {remote}'s memory");
        let merge = repo
            .commit(None, &sig, &sig, &message, &tree, &[&ours, &theirs])
            .map_err(git)?;
        self.bring_folder(repo, Some(&ours.tree().map_err(git)?), &tree)?;
        repo.reference(MEMORY_REF, merge, true, &message)
            .map_err(git)?;
        let drift = keep_drift(&self.memory, &settled, &format!("{remote}'s memory"))?;
        let kept = match kept.len() {
            0 => String::new(),
            n => format!(
                ", {n} file(s) changed on both sides kept as here ({}; theirs is {})",
                kept.iter()
                    .map(|p| secrets::redact(p).into_owned())
                    .collect::<Vec<_>>()
                    .join(", "),
                short(theirs.id())
            ),
        };
        Ok(format!(
            "merged {remote}'s memory ({}) as {}{}{kept}{drift}",
            short(theirs.id()),
            short(merge),
            match settled.files.len() {
                0 => String::new(),
                n => format!(", {n} memory file(s) merged by layer"),
            }
        ))
    }

    /// Bring the shared folder's files from tree `from` to tree `to`, new
    /// files first: each file still at its `from` text (or already at its
    /// `to` text) is written atomically (through the path's smudge filter when it has a
    /// clean one); a file changed since is left as it is.
    fn bring_folder(
        &self,
        repo: &Repository,
        from: Option<&Tree<'_>>,
        to: &Tree<'_>,
    ) -> Result<(), GitError> {
        let git = |e: git2::Error| git_error(repo, &e);
        let diff = repo.diff_tree_to_tree(from, Some(to), None).map_err(git)?;
        // New files first, replaced ones next, removed ones last: a note the
        // other side renamed (its name taken by another) is at its new
        // name before its old one changes, so a kill in between never
        // leaves it nowhere.
        let mut deltas: Vec<_> = diff.deltas().collect();
        deltas.sort_by_key(|d| match d.status() {
            git2::Delta::Added => 0,
            git2::Delta::Deleted => 2,
            _ => 1,
        });
        for delta in deltas {
            let (old, new) = (delta.old_file(), delta.new_file());
            let Some(rel) = new.path().or(old.path()).map(Path::to_path_buf) else {
                continue;
            };
            let rel_text = rel.to_string_lossy().into_owned();
            let safe = rel
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
                && TREE_ROOTS.iter().any(|root| rel.starts_with(root));
            if !safe {
                return Err(GitError::UnsafePath { path: rel });
            }
            let on_disk = self.shared_dir.join(&rel);
            let known = |f: &git2::DiffFile<'_>| (!f.id().is_zero()).then(|| f.id());
            let (old_id, new_id) = (known(&old), known(&new));
            let filtered = git_filter::filter_of(repo, &rel_text).is_some();
            if !filtered {
                let current = on_disk_blob(&on_disk).map_err(git)?;
                if current != old_id && current != new_id {
                    // Written here since: newer than either side. A note of
                    // theirs by the same name is kept under a free one.
                    if let (None, Some(id)) = (old_id, new_id) {
                        let theirs = repo.find_blob(id).map_err(git)?;
                        self.keep_beside(&on_disk, theirs.content())?;
                    }
                    continue;
                }
            }
            match new_id {
                Some(id) => {
                    let bytes = if filtered {
                        git_filter::smudged(&self.work_tree, &rel_text, id)?
                    } else {
                        repo.find_blob(id).map_err(git)?.content().to_vec()
                    };
                    if fsx::is_symlink(&on_disk) {
                        fsx::remove_files_durable(
                            on_disk.parent().unwrap_or(&self.shared_dir),
                            &[on_disk.file_name().unwrap_or_default()],
                        )?;
                    }
                    if new.mode() == git2::FileMode::Link {
                        if let Some(dir) = on_disk.parent() {
                            fsx::create_dir_durable(dir)?;
                        }
                        let _ = std::fs::remove_file(&on_disk);
                        std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(&bytes), &on_disk)
                            .map_err(|e| GitError::WorkTree {
                            what: "link",
                            path: on_disk.clone(),
                            error: e.to_string(),
                        })?;
                    } else if old_id.is_some() {
                        fsx::write_atomic(&on_disk, &bytes)?;
                    } else if !fsx::create_new(&on_disk, &bytes)?
                        && std::fs::read(&on_disk).ok().as_deref() != Some(&bytes[..])
                    {
                        // New on their side, and a handover here took the
                        // name meanwhile: never written over.
                        self.keep_beside(&on_disk, &bytes)?;
                    }
                }
                None => {
                    if let (Some(dir), Some(name)) = (on_disk.parent(), on_disk.file_name()) {
                        fsx::remove_files_durable(dir, &[name])?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Theirs, a session note named like one written here since, as the
    /// next free note of its day (the next commit holds both); once.
    fn keep_beside(&self, ours: &Path, theirs: &[u8]) -> Result<(), GitError> {
        let Some(name) = ours
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(NoteName::parse)
        else {
            return Ok(());
        };
        let layout = MemoryLayout::at(&self.shared_dir.join("memory"));
        for n in name.n.max(1) + 1..name.n + 10_000 {
            let free = layout.layer1_note(&name.tag, name.date, n);
            if free.parent() != ours.parent() {
                return Ok(()); // not in its month's folder: not a note of ours
            }
            // Free, or holding theirs already (kept by a run that was stopped).
            if fsx::create_new(&free, theirs)?
                || std::fs::read(&free).ok().as_deref() == Some(theirs)
            {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Whether the ref holds commits `remote` was not seen to receive.
    fn pending_push(&self, repo: &Repository, remote: &str) -> Option<String> {
        let ours = tip_id(repo, MEMORY_REF)?;
        let theirs = tip_id(repo, &Self::tracking(remote));
        let sent =
            theirs.is_some_and(|t| t == ours || repo.graph_descendant_of(t, ours).unwrap_or(false));
        (!sent).then(|| short(ours))
    }
}

/// Take the remote's memory ref into a repository that has none yet (a
/// fresh clone with no config of its own): when `remote` holds
/// [`MEMORY_REF`], the shared folder is set up from it (which puts this
/// clone's memory on the ref) and what was taken is returned; `None` when
/// the remote has no memory ref (or did not answer: [`Synced::Offline`]).
pub fn adopt(
    shared: &SharedMemory,
    memory: MemoryLocations,
    remote: &str,
    limit: Duration,
) -> Result<Option<Synced>, GitError> {
    let spec = RefSpec {
        work_tree: shared.git.work_tree.clone(),
        shared_dir: shared.dir.clone(),
        remote: Some(remote.to_string()),
        push: false,
        timeout_secs: Some(limit.as_secs().max(1)),
        memory,
    };
    match spec.fetch(remote) {
        Ok(()) => {}
        Err(GitError::FetchFailed { said, .. }) if said.contains("couldn't find remote ref") => {
            return Ok(None);
        }
        Err(GitError::TimedOut { limit }) => {
            return Ok(Some(Synced::Offline(format!(
                "{remote} did not answer within {} s",
                limit.as_secs_f32()
            ))));
        }
        Err(e) => return Err(e),
    }
    let repo = spec.open()?;
    let _one_publish = spec.lock(&repo)?;
    let taken = spec.merge_remote(&repo, remote)?;
    fsx::create_dir_durable(&shared.memory_dir())?;
    Ok(Some(Synced::Done(format!(
        "{taken}; this clone's memory is on the repository's own ref from now on"
    ))))
}

/// Remove every `*.lock` file under `dir` (our refs' folder), durably.
fn clear_ref_locks(dir: &Path) -> Result<(), crate::Error> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let mut stale = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => clear_ref_locks(&entry.path())?,
            Ok(_) if name.to_string_lossy().ends_with(".lock") => stale.push(name),
            _ => {}
        }
    }
    if !stale.is_empty() {
        fsx::remove_files_durable(dir, &stale)?;
    }
    Ok(())
}

/// The commit `name` points at, if the ref exists.
fn tip<'r>(repo: &'r Repository, name: &str) -> Result<Option<Commit<'r>>, git2::Error> {
    match repo.find_reference(name) {
        Ok(r) => r.peel_to_commit().map(Some),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn tip_id(repo: &Repository, name: &str) -> Option<Oid> {
    tip(repo, name).ok().flatten().map(|c| c.id())
}

/// A file of the shared folder as it goes into the ref.
enum FileKind {
    File(PathBuf),
    /// A link, by its target's text (never followed).
    Link(Vec<u8>),
}

/// Every file under the shared folder's [`TREE_ROOTS`], by its path in
/// the ref; our own temp files and locks are not memory.
fn folder_files(shared: &Path) -> Result<BTreeMap<String, FileKind>, crate::Error> {
    fn walk(
        dir: &Path,
        rel: &str,
        out: &mut BTreeMap<String, FileKind>,
    ) -> Result<(), crate::Error> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(crate::Error::io("read", dir, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| crate::Error::io("read", dir, e))?;
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if name.ends_with(".tmp") || name.ends_with(".lock") {
                continue;
            }
            let path = entry.path();
            let rel = format!("{rel}/{name}");
            let kind = entry
                .file_type()
                .map_err(|e| crate::Error::io("read", &path, e))?;
            if kind.is_dir() {
                walk(&path, &rel, out)?;
            } else if kind.is_symlink() {
                let target =
                    std::fs::read_link(&path).map_err(|e| crate::Error::io("read", &path, e))?;
                out.insert(rel, FileKind::Link(target.as_os_str().as_bytes().to_vec()));
            } else if kind.is_file() {
                out.insert(rel, FileKind::File(path));
            }
        }
        Ok(())
    }
    let mut files = BTreeMap::new();
    for root in TREE_ROOTS {
        walk(&shared.join(root), root, &mut files)?;
    }
    Ok(files)
}

impl Backend for RefSpec {
    fn after_crash(&self) -> AfterCrash {
        // Commits only a folder that differs from the ref, pushes only what
        // the remote lacks: running it again does nothing twice.
        AfterCrash::Rerun
    }

    fn publish(
        &self,
        message: &str,
        gate: &dyn Fn() -> Result<(), StepError>,
        admit: &Admit<'_>,
    ) -> Result<String, StepError> {
        let repo = self.open()?;
        let _one_publish = self.lock(&repo)?;
        let message = admitted_message(&repo, message, admit)?;
        let committed = match self.commit_folder(&repo, &message, admit)? {
            Some(id) => format!("committed {} on {MEMORY_REF}", short(id)),
            None => format!("nothing new for {MEMORY_REF}"),
        };
        crate::base::failpoint::hit("publish-after-commit");
        let Some(remote) = &self.remote else {
            return Ok(format!(
                "{committed}; kept on this machine (the repository has no remote: `git remote add origin URL`, and the next handover pushes the memory ref)"
            ));
        };
        if !self.push {
            return Ok(format!("{committed}; not pushed (push = false)"));
        }
        if self.pending_push(&repo, remote).is_none() {
            return Ok(format!("{committed}; {remote} has it already"));
        }
        gate().map_err(|stop| stop.context(format!("{committed}; not pushed")))?;
        let pushed = self.push_merging(&repo, remote, gate, admit)?;
        Ok(format!("{committed}; {pushed}"))
    }

    fn shares(&self) -> bool {
        self.remote.is_some()
    }

    fn sync(
        &self,
        limit: Option<Duration>,
        gate: &dyn Fn() -> Result<(), StepError>,
    ) -> Result<Synced, BackendError> {
        let Some(remote) = &self.remote else {
            return Ok(Synced::Local(format!(
                "the repository has no remote: the memory ({MEMORY_REF}) is on this machine only"
            )));
        };
        let repo = self.open()?;
        let _one_publish = self.lock(&repo)?;
        let spec = RefSpec {
            timeout_secs: limit.map(|l| l.as_secs().max(1)).or(self.timeout_secs),
            ..self.clone()
        };
        let brought = match spec.fetch(remote) {
            Ok(()) => true,
            Err(GitError::TimedOut { limit }) => {
                return Ok(Synced::Offline(format!(
                    "{remote} did not answer within {} s",
                    limit.as_secs_f32()
                )));
            }
            // A remote without the ref yet: nothing to bring in.
            Err(e) if e.is_missing_remote_ref() => false,
            Err(e) => return Err(e.into()),
        };
        let merged = match brought {
            true => spec
                .merge_in(&repo, remote, &super::admit)
                .map_err(|e| GitError::Write(e.to_string()))?,
            false => format!("{remote} has no memory yet: nothing to bring in"),
        };
        crate::base::failpoint::hit("sync-before-push");
        let pushed = match spec.pending_push(&repo, remote) {
            Some(_) if self.push => match gate() {
                Err(stop) => super::held_by(&stop),
                // Everything in the ref was let through a publish's door
                // (ours) or came from the remote (theirs): it goes now.
                Ok(()) => match git_cli::push_ref(
                    &self.work_tree,
                    remote,
                    MEMORY_REF,
                    MEMORY_REF,
                    spec.limit(),
                ) {
                    Ok(Pushed::Done) => {
                        if let Some(id) = tip_id(&repo, MEMORY_REF) {
                            repo.reference(
                                &Self::tracking(remote),
                                id,
                                true,
                                "agent-handover: pushed",
                            )
                            .map_err(|e| git_error(&repo, &e))?;
                        }
                        format!("; pushed to {remote}")
                    }
                    Ok(other) => {
                        format!("; {}", super::pending_words(remote, &format!("{other:?}")))
                    }
                    Err(e) => format!("; {}", super::pending_words(remote, &e.to_string())),
                },
            },
            _ => String::new(),
        };
        Ok(Synced::Done(format!("{merged}{pushed}")))
    }

    fn leftovers(&self) -> Vec<Leftover> {
        super::push_pending(self).into_iter().collect()
    }

    fn pending(&self) -> Option<String> {
        // No remote: nothing can be pending (and no repository is opened).
        let remote = self.remote.as_ref()?;
        let repo = self.open().ok()?;
        self.pending_push(&repo, remote)
            .filter(|_| self.push)
            .map(|ours| {
                format!("the memory ref ({MEMORY_REF} at {ours}) holds commits {remote} was not seen to receive: push pending")
            })
    }
}
