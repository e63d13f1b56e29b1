//! Publish targets: where the `publish` step sends the memory.
//!
//! `null` keeps everything local (the files on disk are enough); `git`
//! (0.5.1's default) commits the memory and pushes it ([`git`]).

pub mod git;
pub mod git_cli;
pub mod git_error;
pub mod git_filter;
pub mod git_locks;
pub mod git_push;
pub mod git_setup;
pub mod memory_merge;
pub mod memory_ref;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::base::outcome::{AfterCrash, StepError};
use crate::base::{fsx, secrets};
use crate::workspace::Workspace;
use crate::workspace::config::BackendSection;
use git::{GitSpec, MemoryLocations};
use git_error::GitError;
use memory_ref::RefSpec;

/// A `[backend]` section that names no backend this version has.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend type: {kind:?} (expected \"ref\", \"git\" or \"null\")")]
pub struct UnknownBackend {
    /// The `type` as written.
    pub kind: String,
}

/// A backend, as staged in a run's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BackendSpec {
    /// Local only: publishing succeeds without doing anything.
    Null,
    /// Commit the configured paths and push them.
    Git(GitSpec),
    /// Commit the repository's shared memory to its own ref and push that.
    Ref(RefSpec),
}

impl BackendSpec {
    /// The backend of `ws`: the memory ref when its memory is on the
    /// repository's ref, else what its `[backend]` section says
    /// ([`Self::from_config`]).
    pub fn of_workspace(ws: &Workspace, no_push: bool) -> Result<Self, UnknownBackend> {
        match &ws.shared {
            Some(shared) => Ok(BackendSpec::Ref(RefSpec::new(
                &ws.config.backend,
                shared,
                ws.memory_locations(),
                no_push,
            ))),
            None => Self::from_config(&ws.config.backend, ws.memory_locations(), &ws.root, no_push),
        }
    }

    /// The backend a `[backend]` section describes, as 0.5.1 reads it:
    /// `repo_dir` relative to the project root, `paths` relative to
    /// `repo_dir` (default: the memory dir), `--no-push` beats `push`; with
    /// `type = "git"`, 0.5.1's defaults too (branch `main`, push on). With no
    /// `type`, what is left unset is decided by the project, so the defaults
    /// work in any: no `type` is git inside a git work tree (not one of the home
    /// folder: a dotfiles repository is not the project's) and null outside
    /// one; no `branch` is the branch HEAD is on; no `push` pushes only when
    /// that branch tracks a branch of the remote (else the publish commits
    /// locally and says so: a local feature branch is never pushed for us).
    pub fn from_config(
        section: &BackendSection,
        memory: MemoryLocations,
        root: &Path,
        no_push: bool,
    ) -> Result<Self, UnknownBackend> {
        let memory_root = memory.memory_dir.as_path();
        let repo_dir = fsx::absolutize(root, Path::new(section.repo_dir.as_deref().unwrap_or(".")));
        let home = std::env::var_os("HOME").and_then(|h| std::fs::canonicalize(h).ok());
        let repo = || {
            git2::Repository::discover(&repo_dir).ok().filter(|r| {
                r.workdir()
                    .and_then(|w| std::fs::canonicalize(w).ok())
                    .is_some_and(|w| Some(&w) != home.as_ref())
            })
        };
        let kind = match section.kind.as_deref() {
            Some(kind) => kind,
            None if repo().is_some() => "git",
            None => "null",
        };
        match kind {
            "null" => Ok(BackendSpec::Null),
            "git" => {
                let paths = match &section.paths {
                    Some(paths) if !paths.is_empty() => paths
                        .iter()
                        .map(|p| fsx::absolutize(&repo_dir, Path::new(p)))
                        .collect(),
                    _ => vec![memory_root.to_path_buf()],
                };
                // An explicit `type = "git"` keeps 0.5.1's defaults (branch
                // `main`, push on); an unset type follows the project.
                let auto = section.kind.is_none();
                let repo = repo().filter(|_| auto);
                let branch = section
                    .branch
                    .clone()
                    .or_else(|| repo.as_ref().and_then(git::current_branch))
                    .unwrap_or_else(|| "main".into());
                // Left unset with no type, the remote and the ref pushed to
                // are where `git push` would go (found again when the
                // publish runs); a push only when the branch has an upstream.
                let remote_from_git = auto && section.remote.is_none();
                let config = || repo.as_ref().and_then(|r| r.config().ok());
                let remote = match (&section.remote, remote_from_git.then(config).flatten()) {
                    (Some(remote), _) => remote.clone(),
                    (None, Some(config)) => git_push::push_remote(&config, &branch),
                    (None, None) => "origin".into(),
                };
                let no_remote = section.push.is_none()
                    && repo.as_ref().is_some_and(|r| match remote_from_git {
                        true => !git::has_upstream(r, &branch),
                        false => !git::tracks(r, &branch, &remote),
                    });
                Ok(BackendSpec::Git(GitSpec {
                    repo_dir,
                    paths,
                    push: !no_push && !no_remote && section.push.unwrap_or(true),
                    branch,
                    remote,
                    memory: Some(memory),
                    timeout_secs: section.timeout_secs,
                    no_remote,
                    unsigned: section.sign == Some(false),
                    remote_from_git,
                    ref_from_git: auto && section.branch.is_none(),
                }))
            }
            other => Err(UnknownBackend {
                kind: other.to_string(),
            }),
        }
    }

    /// This spec with `[backend].sign` as the config says now (`sign` read
    /// when the step runs, so a run refused for a signing repository goes
    /// on with `resume` once `sign = false` is set).
    pub fn with_sign(&self, sign: Option<bool>) -> Self {
        let mut spec = self.clone();
        if let BackendSpec::Git(git) = &mut spec {
            git.unsigned |= sign == Some(false);
        }
        spec
    }

    /// A fresh clone's memory from its remote's memory ref: when `ws` is
    /// a git work tree with no config choosing a backend and no memory of
    /// its own, and `origin` (or `[backend].remote`) holds the ref, the
    /// repository's shared memory is set up from it. Returns what was taken,
    /// or that the remote did not answer (`None`: nothing to adopt; the
    /// workspace is as it was).
    pub fn adopt_remote_memory(
        ws: &Workspace,
        limit: Duration,
    ) -> Result<Option<Synced>, BackendError> {
        let fresh = ws.shared.is_none()
            && ws.config.backend.kind.is_none()
            && !ws.memory_in_project()
            && !ws.memory.current_state().exists();
        let Some(git) = crate::workspace::store::GitDirs::discover(&ws.root).filter(|_| fresh)
        else {
            return Ok(None);
        };
        let remote = ws
            .config
            .backend
            .remote
            .clone()
            .unwrap_or_else(|| "origin".into());
        let has_remote =
            git2::Repository::open(&git.work_tree).is_ok_and(|r| r.find_remote(&remote).is_ok());
        if !has_remote {
            return Ok(None);
        }
        let shared = crate::workspace::store::SharedMemory::of(git);
        Ok(memory_ref::adopt(
            &shared,
            ws.memory_locations(),
            &remote,
            limit,
        )?)
    }

    /// Whether a publish commits on the branch the user works on (0.5.1's
    /// layout), and pushes that branch.
    pub fn commits_on_code_branch(&self) -> bool {
        matches!(self, BackendSpec::Git(_))
    }

    /// The backend behind this spec.
    pub fn backend(&self) -> &dyn Backend {
        match self {
            BackendSpec::Null => &NullBackend,
            BackendSpec::Git(spec) => spec,
            BackendSpec::Ref(spec) => spec,
        }
    }
}

/// What a sync did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Synced {
    /// Fetched and integrated: what was done.
    Done(String),
    /// The remote did not answer in time: nothing changed.
    Offline(String),
    /// The backend keeps the memory on this machine: nothing to sync (why).
    Local(String),
}

/// Why a backend's network work failed: its own typed error (the words a
/// user reads are made when it is shown).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    /// The git backend's.
    #[error(transparent)]
    Git(#[from] GitError),
}

/// Something a killed publish or sync left behind (a lock file, an
/// interrupted integration), for `doctor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    /// Its kind (`git_lock`, `integration_interrupted`, ...).
    pub kind: &'static str,
    /// What was found.
    pub what: String,
    /// What to do about it.
    pub fix: String,
    /// The file `doctor --fix` may remove, when that is safe.
    pub removable: Option<PathBuf>,
}

impl From<GitError> for StepError {
    fn from(e: GitError) -> Self {
        StepError::failed(e.to_string())
    }
}

/// What a publish asks before anything leaves: `admit(what, bytes)`, where
/// `what` names the bytes for a person (see [`Backend::publish`]).
pub type Admit<'a> = dyn Fn(&str, &[u8]) -> Result<(), StepError> + 'a;

/// The publish door: `bytes` (named `what`) may leave the machine unless
/// they hold a secret ([`secrets::check`], UTF-16/32 decoded) or cannot be
/// checked: a compressed file, a compressed stream at any offset a wide
/// encoding could hide it in, or anything else that is not text (a binary
/// file: an image, an archive, a raw deflate or zlib stream), since what it
/// carries cannot be read through. What a run's publish asks of everything a
/// backend would send, unless the run allows secrets.
pub fn admit(what: &str, bytes: &[u8]) -> Result<(), StepError> {
    let unreadable = |kind: String| {
        StepError::failed(format!(
            "{what} is {kind}: what it carries cannot be read through to check it for secrets, so nothing was committed or pushed\n  fix: {UNREADABLE_FIX}"
        ))
    };
    match secrets::decode(bytes) {
        secrets::Decoded::Text(text) => {
            secrets::check(what, &text, REFUSED_PUBLISH_FIX).map_err(StepError::SecretFound)
        }
        secrets::Decoded::Compressed(format) => Err(unreadable(format!(
            "a {format}-compressed file (or carries a {format} stream)"
        ))),
        secrets::Decoded::Binary => Err(unreadable(
            "a binary file (not UTF-8, UTF-16 or UTF-32 text)".to_string(),
        )),
    }
}

/// What a publish refused for an unreadable file says to do.
const UNREADABLE_FIX: &str = "keep it out of the published paths ([backend].paths, or a .gitignore line), then `agent-handover resume`; or, if it holds no secret, `agent-handover run --allow-secret` with the same note publishes it";

/// What a publish refused for a secret says to do.
const REFUSED_PUBLISH_FIX: &str = "nothing was committed or pushed; take the secret out of the file (rotate it if it was real), then `agent-handover resume`; or, if it is not a secret, `agent-handover run --allow-secret` with the same note publishes it";

/// A publish target. Adding one: implement this, add a variant to
/// [`BackendSpec`] and its arm in [`BackendSpec::backend`] and
/// [`BackendSpec::from_config`] (see ARCHITECTURE.md). `sync` and `doctor`
/// reach it only through this trait.
pub trait Backend {
    /// How an interrupted publish is settled after a crash. Required, not
    /// defaulted: a backend must say whether publishing again is safe.
    fn after_crash(&self) -> AfterCrash;

    /// Publish; returns a one-line summary of what was done. `gate` is
    /// asked before anything leaves the machine (the PAUSE brake); its
    /// error stops the publish as it is (a pause stays a pause). `admit` is
    /// asked about every byte the publish would send, each named for a
    /// person (secrets redacted from the name): the message, the author,
    /// and, for every file the target does not already hold, its name and
    /// its content; before anything is recorded for sending. Its error (a
    /// secret) stops the publish as it is.
    fn publish(
        &self,
        message: &str,
        gate: &dyn Fn() -> Result<(), StepError>,
        admit: &Admit<'_>,
    ) -> Result<String, StepError>;

    /// Whether the memory is shared with other machines through it (so
    /// `sync` has something to bring in, under the run lock).
    fn shares(&self) -> bool;

    /// Bring the other machines' memory in without handing over, giving
    /// the remote `limit` to answer ([`Synced::Offline`] after that), and
    /// send a push a handover left pending; `gate` (the PAUSE brake) is
    /// asked right before that push, which it holds.
    fn sync(
        &self,
        limit: Option<Duration>,
        gate: &dyn Fn() -> Result<(), StepError>,
    ) -> Result<Synced, BackendError>;

    /// What a killed publish or sync left behind, for `doctor`.
    fn leftovers(&self) -> Vec<Leftover>;

    /// A push left for later (it could not finish in time): what is
    /// pending, in a few words, read from this machine alone (no network).
    fn pending(&self) -> Option<String> {
        None
    }
}

/// Local only: publishing succeeds without doing anything.
#[derive(Debug, Clone, Copy)]
pub struct NullBackend;

impl Backend for NullBackend {
    fn after_crash(&self) -> AfterCrash {
        AfterCrash::Rerun
    }

    fn publish(
        &self,
        _message: &str,
        _gate: &dyn Fn() -> Result<(), StepError>,
        _admit: &Admit<'_>,
    ) -> Result<String, StepError> {
        Ok("null backend: nothing to publish".into())
    }

    fn shares(&self) -> bool {
        false
    }

    fn sync(
        &self,
        _limit: Option<Duration>,
        _gate: &dyn Fn() -> Result<(), StepError>,
    ) -> Result<Synced, BackendError> {
        Ok(Synced::Local(
            "the null backend keeps the memory on this machine: nothing to sync".into(),
        ))
    }

    fn leftovers(&self) -> Vec<Leftover> {
        Vec::new()
    }
}

/// What a publish says of a push it left for later: why, and where it
/// goes when it goes.
pub(crate) fn pending_words(to: &str, why: &str) -> String {
    let why = why.lines().next().unwrap_or_default();
    format!(
        "push pending ({why}): the memory is committed here and goes to {to} with the next handover or `agent-handover sync`"
    )
}

/// What a sync says of a pending push that `gate` (PAUSE) held.
fn held_by(stop: &StepError) -> String {
    format!(
        "; the pending push is held: {}",
        stop.to_string().lines().next().unwrap_or_default()
    )
}

/// The push `backend` left for later, as `doctor` lists it.
fn push_pending(backend: &dyn Backend) -> Option<Leftover> {
    backend.pending().map(|what| Leftover {
        kind: "push_pending",
        what,
        fix: "`agent-handover sync` sends it (the next handover does too)".into(),
        removable: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(root: &str) -> MemoryLocations {
        MemoryLocations {
            memory_dir: Path::new(root).join("memory"),
            messages_dir: Path::new(root).join("messages"),
            state_history_dir: Path::new(root).join(".agent-handover/history/current-state"),
        }
    }

    fn section(kind: Option<&str>) -> BackendSection {
        BackendSection {
            kind: kind.map(Into::into),
            ..Default::default()
        }
    }

    #[test]
    fn unknown_backend_type_is_an_error() {
        let err = BackendSpec::from_config(&section(Some("s3")), mem("."), Path::new("."), false)
            .unwrap_err();
        assert_eq!(err.kind, "s3");
        assert!(
            err.to_string()
                .contains("unknown backend type: \"s3\" (expected \"ref\", \"git\" or \"null\")"),
            "{err}"
        );
    }

    /// Issue 25: with no handover.toml, a fresh `git init` on `master`, or a
    /// repository without a remote, failed its publish (branch `main`, push
    /// on) and left the handover interrupted.
    #[test]
    fn unset_keys_follow_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let here = || {
            BackendSpec::from_config(&section(None), mem(&root.to_string_lossy()), root, false)
                .unwrap()
        };
        assert_eq!(here(), BackendSpec::Null, "no repository: local");
        let mut opts = git2::RepositoryInitOptions::new();
        opts.initial_head("trunk");
        let repo = git2::Repository::init_opts(root, &opts).unwrap();
        let BackendSpec::Git(g) = here() else {
            panic!("a repository: git")
        };
        assert_eq!(g.branch, "trunk", "the branch HEAD is on (unborn too)");
        assert!(!g.push && g.no_remote, "no remote: commit locally");
        repo.remote("origin", "https://example.com/r.git").unwrap();
        let BackendSpec::Git(g) = here() else {
            panic!("git")
        };
        assert!(
            !g.push && g.no_remote,
            "a branch made here tracks nothing: it is not pushed for us"
        );
        let mut config = repo.config().unwrap();
        config.set_str("branch.trunk.remote", "origin").unwrap();
        config
            .set_str("branch.trunk.merge", "refs/heads/trunk")
            .unwrap();
        let BackendSpec::Git(g) = here() else {
            panic!("git")
        };
        assert!(g.push && !g.no_remote, "a tracking branch is pushed");
        let mut explicit = section(Some("git"));
        explicit.push = Some(true);
        explicit.remote = Some("upstream".into());
        let Ok(BackendSpec::Git(g)) =
            BackendSpec::from_config(&explicit, mem(&root.to_string_lossy()), root, false)
        else {
            panic!("git")
        };
        assert!(
            g.push && !g.no_remote,
            "push = true is kept: a missing remote is an error"
        );
    }

    /// Issue 39, item 6.5: with no type, a remote or branch left unset is
    /// where `git push` would go (found again when the publish runs); set,
    /// or with `type = "git"`, the key (or 0.5.1's default) wins.
    #[test]
    fn unset_remote_and_branch_are_left_to_git_only_with_no_type() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut opts = git2::RepositoryInitOptions::new();
        opts.initial_head("main");
        let repo = git2::Repository::init_opts(root, &opts).unwrap();
        repo.remote("origin", "https://example.com/r.git").unwrap();
        repo.remote("fork", "https://example.com/f.git").unwrap();
        let mut config = repo.config().unwrap();
        config.set_str("branch.main.remote", "origin").unwrap();
        config
            .set_str("branch.main.merge", "refs/heads/main")
            .unwrap();
        config.set_str("branch.main.pushRemote", "fork").unwrap();
        let spec = |section: &BackendSection| {
            let Ok(BackendSpec::Git(g)) =
                BackendSpec::from_config(section, mem(&root.to_string_lossy()), root, false)
            else {
                panic!("git")
            };
            g
        };
        let g = spec(&section(None));
        assert_eq!(g.remote, "fork", "branch.main.pushRemote");
        assert!(g.push && g.remote_from_git && g.ref_from_git, "{g:?}");
        let mut set = section(None);
        set.remote = Some("origin".into());
        set.branch = Some("main".into());
        let g = spec(&set);
        assert_eq!(g.remote, "origin");
        assert!(g.push && !g.remote_from_git && !g.ref_from_git, "{g:?}");
        let g = spec(&section(Some("git")));
        assert_eq!(g.remote, "origin", "0.5.1's default");
        assert!(!g.remote_from_git && !g.ref_from_git, "{g:?}");
    }

    #[test]
    fn git_keys_mean_what_they_mean_in_0_5_1() {
        let mut s = section(Some("git"));
        s.paths = Some(vec!["notes".into()]);
        s.repo_dir = Some("repo".into());
        let memory = Path::new("/p/memory");
        let Ok(BackendSpec::Git(g)) =
            BackendSpec::from_config(&s, mem("/p"), Path::new("/p"), false)
        else {
            panic!("git")
        };
        assert_eq!(g.repo_dir, Path::new("/p/repo"));
        assert_eq!(g.paths, [Path::new("/p/repo/notes")]);
        assert!(g.push);
        assert_eq!((g.branch.as_str(), g.remote.as_str()), ("main", "origin"));
        s.paths = None;
        s.push = Some(true);
        let Ok(BackendSpec::Git(g)) =
            BackendSpec::from_config(&s, mem("/p"), Path::new("/p"), true)
        else {
            panic!("git")
        };
        assert_eq!(g.paths, [memory]);
        assert!(!g.push, "--no-push wins over the file");
    }

    #[test]
    fn null_backend_publishes_nothing() {
        let b = BackendSpec::from_config(&section(Some("null")), mem("."), Path::new("."), false)
            .unwrap();
        assert_eq!(b.backend().after_crash(), AfterCrash::Rerun);
        assert!(
            b.backend()
                .publish("m", &|| Ok(()), &|_, _| Err("refused".into()))
                .is_ok(),
            "the null backend sends no file"
        );
    }
}
