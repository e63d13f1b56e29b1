//! The `git` publish backend: local work on git2 (vendored libgit2, no
//! network code), fetch and push through the `git` program.
//!
//! `publish` reconciles before it acts, so running it again after a crash
//! anywhere inside it commits and pushes nothing twice:
//! 0. refuse, with nothing done, what would commit the memory wrongly
//!    ([`super::git_setup`]: the branch checked out in another work tree,
//!    an ignored memory file, a sparse checkout leaving memory out) and a
//!    push `git push` would not make ([`super::git_push`]: where it goes);
//! 1. stage the configured paths (and only those go into the commit: other
//!    changes the user staged stay staged, uncommitted), each file under a
//!    clean filter as the filter makes it ([`super::git_filter`]);
//! 2. commit if the tree differs from HEAD's — otherwise "nothing to commit"
//!    (e.g. our commit is already there), which is success;
//! 3. push, through the user's `git` ([`super::git_cli`]); pushing what the
//!    remote already has is a no-op. If the remote moved on, fetch and
//!    integrate (fast-forward, or a merge when the memory files do not
//!    conflict; nothing when the remote's commit is already ours), then push
//!    again; the PAUSE brake is asked before every push and fetch. A conflict
//!    fails the step with the exact commands to settle it; both versions
//!    survive. A push the server refuses (a hook, a protected branch) fails
//!    at once with the server's own words: no retry, no merge. The summary
//!    names where it went and the user's own commits it took along.
//!
//! A locked index (another git process) is retried with backoff and then
//! reported; a lock file is never deleted.

use std::collections::{HashMap, HashSet};
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use git2::build::TreeUpdateBuilder;
use git2::{
    Commit, ErrorCode, FileMode, IndexAddOption, Repository, Signature, Tree, TreeWalkMode,
    TreeWalkResult,
};
use serde::{Deserialize, Serialize};

use super::git_cli::{self, Pushed};
use super::git_error::{Conflict, GitError};
use super::git_locks::{self, GitLock};
use super::git_push::{self, PushTarget};
use super::memory_merge::{self, MemoryPrefixes, Settled};
use super::{Admit, Backend, BackendError, Leftover, Synced};
use super::{git_filter, git_setup};
use crate::base::outcome::{AfterCrash, StepError};
use crate::base::{fsx, secrets};
use crate::domain::memory::history::{StateHistory, VersionedFile};
use crate::domain::memory::state_merge::Side;
use crate::domain::memory::versions::HANDOVER_AT;
pub use crate::workspace::MemoryLocations;

const INDEX_LOCK_RETRIES: [u64; 7] = [20, 40, 80, 160, 320, 640, 1280];

/// A git publish target, as staged in a run's plan (absolute paths).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GitSpec {
    /// A directory inside the repository.
    pub repo_dir: PathBuf,
    /// What to stage and commit.
    pub paths: Vec<PathBuf>,
    /// Whether to push after committing.
    pub push: bool,
    /// The branch HEAD must be on, and that is pushed.
    pub branch: String,
    /// The remote to push to.
    pub remote: String,
    /// Where the memory layers are, so that integrating the remote's
    /// commits merges them by layer (absent in plans staged by 0.6.0 and
    /// earlier: those merge by lines only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryLocations>,
    /// The most a push, or a fetch a publish needs, may take (seconds;
    /// absent: [`DEFAULT_NETWORK_SECS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
    /// `push` was left unset and the branch tracks no branch of the remote
    /// (or there is no remote): the publish commits locally and says so,
    /// and a sync has nothing to bring in.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_remote: bool,
    /// `[backend].sign = false`: commit unsigned even where the repository
    /// asks for signed commits (`commit.gpgsign`); otherwise such a
    /// repository is refused, since a handover commit cannot be signed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsigned: bool,
    /// No `type` and no `[backend].remote`: the push goes to the remote
    /// `git push` would use ([`git_push::push_remote`]), as the repository
    /// says when the publish runs (`remote` is what it said at planning).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub remote_from_git: bool,
    /// No `type` and no `[backend].branch`: the ref pushed to is the one
    /// `git push` would update ([`git_push::destination`]); otherwise
    /// `refs/heads/<branch>`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ref_from_git: bool,
}

/// A branch of a remote that a publish or sync brings in:
/// `<remote>/<branch>`, fetched to `refs/remotes/<remote>/<branch>`.
#[derive(Debug, Clone, Copy)]
struct Theirs<'a> {
    remote: &'a str,
    branch: &'a str,
}

impl Theirs<'_> {
    /// The remote-tracking ref it is fetched to.
    fn tracking(&self) -> String {
        format!("refs/remotes/{}/{}", self.remote, self.branch)
    }

    /// `<remote>/<branch>`.
    fn shown(&self) -> String {
        format!("{}/{}", self.remote, self.branch)
    }
}

/// The commit hooks git would run and a handover commit (made with libgit2)
/// does not: those present and executable in `repo` (`core.hooksPath`, else
/// the git folder's `hooks/`).
pub fn skipped_hooks(repo: &Repository) -> Vec<&'static str> {
    use std::os::unix::fs::PermissionsExt;
    const COMMIT_HOOKS: [&str; 4] = [
        "pre-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
    ];
    let dir = repo
        .config()
        .ok()
        .and_then(|c| c.get_path("core.hooksPath").ok())
        .map(|p| match repo.workdir() {
            Some(work) if p.is_relative() => work.join(p),
            _ => p,
        })
        .unwrap_or_else(|| repo.path().join("hooks"));
    COMMIT_HOOKS
        .into_iter()
        .filter(|hook| {
            std::fs::metadata(dir.join(hook))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .collect()
}

/// Whether `branch` tracks a branch of `remote` (`branch.<name>.remote`
/// names it): what a clone's branch does, and a branch made here does not
/// until it is pushed with `-u`.
pub fn tracks(repo: &Repository, branch: &str, remote: &str) -> bool {
    repo.find_remote(remote).is_ok()
        && repo
            .config()
            .ok()
            .and_then(|c| c.get_string(&format!("branch.{branch}.remote")).ok())
            .is_some_and(|r| r == remote)
}

/// Whether `branch` has an upstream: `branch.<name>.remote` names one of
/// `repo`'s remotes (what a clone's branch has, and `git push -u` sets).
pub fn has_upstream(repo: &Repository, branch: &str) -> bool {
    repo.config()
        .ok()
        .and_then(|c| c.get_string(&format!("branch.{branch}.remote")).ok())
        .is_some_and(|remote| tracks(repo, branch, &remote))
}

/// The branch `repo`'s HEAD is on (unborn too), if it is on one.
pub fn current_branch(repo: &Repository) -> Option<String> {
    let head = repo.find_reference("HEAD").ok()?;
    head.symbolic_target()
        .ok()
        .flatten()?
        .strip_prefix("refs/heads/")
        .map(str::to_string)
}

/// How long a publish's push or fetch may take by default, for every
/// transport (http has a low-speed limit too; ssh and git:// have none): a
/// handover runs inside an agent's tool call, which is not given minutes.
pub const DEFAULT_NETWORK_SECS: u64 = 20;

impl MemoryLocations {
    /// Where `file`'s versions and drift records are kept: the state
    /// history, or its `identity` sibling (as [`crate::Workspace`] lays
    /// them out; plans record only the state history's folder).
    pub fn history_dir(&self, file: VersionedFile) -> PathBuf {
        match file {
            VersionedFile::CurrentState => self.state_history_dir.clone(),
            VersionedFile::Identity => self
                .state_history_dir
                .parent()
                .map_or_else(|| PathBuf::from("identity"), |h| h.join("identity")),
        }
    }

    /// The folders relative to `repo`'s work tree, as index path prefixes.
    fn prefixes(&self, repo: &Repository) -> Result<MemoryPrefixes, GitError> {
        let workdir = repo
            .workdir()
            .and_then(|w| std::fs::canonicalize(w).ok())
            .ok_or_else(|| GitError::Bare {
                dir: repo.path().to_path_buf(),
            })?;
        let rel = |dir: &Path| -> String {
            let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
            match real.strip_prefix(&workdir) {
                Ok(r) if r.as_os_str().is_empty() => String::new(),
                Ok(r) => format!("{}/", r.to_string_lossy()),
                // Outside the repository: nothing of it is in the index.
                Err(_) => "\0outside/".into(),
            }
        };
        Ok(MemoryPrefixes {
            memory: rel(&self.memory_dir),
            messages: rel(&self.messages_dir),
        })
    }
}

type Outcome = Result<String, GitError>;

impl Backend for GitSpec {
    fn after_crash(&self) -> AfterCrash {
        AfterCrash::Reconcile // finds its own commit and push (module docs)
    }

    fn publish(
        &self,
        message: &str,
        gate: &dyn Fn() -> Result<(), StepError>,
        admit: &Admit<'_>,
    ) -> Result<String, StepError> {
        self.commit_and_push(message, gate, admit)
    }

    fn shares(&self) -> bool {
        true
    }

    fn sync(
        &self,
        limit: Option<Duration>,
        gate: &dyn Fn() -> Result<(), StepError>,
    ) -> Result<Synced, BackendError> {
        Ok(self.fetch_and_integrate(limit, gate)?)
    }

    fn pending(&self) -> Option<String> {
        // Found from the file system first: the repository is opened only
        // when a push is recorded pending (every status and fleet row asks).
        let dirs = crate::workspace::store::GitDirs::discover(&self.repo_dir)?;
        let pending = PendingPush::read(&dirs.git_dir)?;
        let repo = self.open_repo().ok()?;
        // Pushed since by hand: the remote-tracking branch holds the tip.
        let tip = repo.head().ok()?.target()?;
        let tracked = repo
            .refname_to_id(&format!("refs/remotes/{}", pending.to))
            .is_ok_and(|t| t == tip || repo.graph_descendant_of(t, tip).unwrap_or(false));
        (!tracked).then(|| {
            format!(
                "{} holds commits {} was not seen to receive ({}): push pending",
                self.branch, pending.to, pending.why
            )
        })
    }

    fn leftovers(&self) -> Vec<Leftover> {
        let Ok(repo) = Repository::discover(&self.repo_dir) else {
            return Vec::new();
        };
        let workdir = repo.workdir().unwrap_or(repo.path()).to_path_buf();
        let integrating = repo.path().join(INTEGRATING);
        let interrupted = integrating.exists().then(|| Leftover {
            kind: "integration_interrupted",
            what: format!(
                "bringing the remote in was interrupted ({} is there)",
                integrating.display()
            ),
            fix: "`agent-handover sync` (or the next publish) finishes it".into(),
            removable: None,
        });
        let locks = git_locks::find(repo.path(), &workdir)
            .into_iter()
            .map(|lock: GitLock| Leftover {
                kind: "git_lock",
                what: lock
                    .describe()
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_string(),
                fix: format!(
                    "rm '{}' once no git runs there, then `agent-handover resume`",
                    lock.path.display()
                ),
                removable: lock.is_stale().then(|| lock.path.clone()),
            });
        // A remote on this machine (a path, or `file://`): its locks too,
        // since a killed push leaves them there.
        let remote_dir = repo
            .find_remote(&self.remote)
            .ok()
            .and_then(|r| r.url().ok().map(str::to_string))
            .map(|url| {
                url.strip_prefix("file://")
                    .map_or(url.clone(), str::to_string)
            })
            .map(PathBuf::from)
            .filter(|p| p.is_absolute() && p.is_dir());
        let remote_locks = remote_dir
            .and_then(|dir| Repository::open_bare(&dir).ok())
            .into_iter()
            .flat_map(|remote| git_locks::find(remote.path(), remote.path()))
            .map(|lock: GitLock| Leftover {
                kind: "git_lock",
                what: format!(
                    "in the local remote {}: {}",
                    self.remote,
                    lock.describe().lines().next().unwrap_or_default()
                ),
                fix: format!(
                    "rm '{}' once no git runs there, then `agent-handover resume`",
                    lock.path.display()
                ),
                removable: lock.is_stale().then(|| lock.path.clone()),
            });
        interrupted
            .into_iter()
            .chain(locks)
            .chain(remote_locks)
            .chain(super::push_pending(self))
            .collect()
    }
}

impl GitSpec {
    /// Stage, commit and push (see the module docs); returns a summary.
    /// `admit` is asked about every file the commit would add or change
    /// (its path in the repository and its text), before the index is
    /// written; its error stops the publish with nothing staged.
    /// `gate` is asked right before every push and fetch (the PAUSE brake);
    /// its error stops the publish there.
    fn commit_and_push(
        &self,
        message: &str,
        gate: &dyn Fn() -> Result<(), StepError>,
        admit: &Admit<'_>,
    ) -> Result<String, StepError> {
        let repo = self.open_repo()?;
        let _one_publish = publish_lock(&repo)?;
        let workdir = repo.workdir().expect("open_repo checks").to_path_buf();
        // The user's own merge (or rebase, cherry-pick, ...) is theirs to
        // finish: committing over it would take its half-done state along.
        if let Some(what) = unfinished(repo.state()) {
            return Err(GitError::Unfinished {
                what: what.into(),
                dir: workdir,
            }
            .into());
        }
        self.check_branch(&repo)?;
        git_setup::check_worktrees(&repo, &self.branch)?;
        self.check_signing(&repo)?;
        self.finish_integration(&repo)?;
        // Where it goes, settled before anything is committed: a push git
        // would not make is refused with nothing done.
        let target = match self.push && !self.no_remote {
            true => Some(self.push_target(&repo)?),
            false => None,
        };
        let specs = self.pathspecs(&workdir)?;
        let message = admitted_message(&repo, message, admit)?;
        git_setup::check_sparse(&repo, &specs)?;
        git_setup::check_ignored(&repo, &specs)?;
        let committed = commit_paths(&repo, &specs, &message, admit)?;
        crate::base::failpoint::hit("publish-after-commit");
        let committed = match committed {
            Some(id) => match skipped_hooks(&repo).as_slice() {
                [] => format!("committed {}", short(id)),
                hooks => format!(
                    "committed {} (the repository's {} hook{} not run: handover commits never run commit hooks)",
                    short(id),
                    hooks.join(", "),
                    if hooks.len() == 1 { " was" } else { "s were" }
                ),
            },
            None => "nothing to commit".to_string(),
        };
        if self.no_remote {
            return Ok(format!(
                "{committed} on {}; committed locally, no remote branch to push to ({} tracks nothing on {}: `git push -u {} {}` once, and the next handovers push)",
                self.branch, self.branch, self.remote, self.remote, self.branch
            ));
        }
        let Some(target) = target else {
            return Ok(format!("{committed}; not pushed (push = false)"));
        };
        let pushed = self.push_integrating(&repo, &target, gate, &committed)?;
        Ok(format!("{committed}; {pushed}"))
    }

    /// Bring the remote's memory in without handing over: fetch (giving up
    /// after `limit`: [`Synced::Offline`]), then integrate as a publish does
    /// (fast-forward, or a merge by layer; nothing is pushed).
    fn fetch_and_integrate(
        &self,
        limit: Option<Duration>,
        gate: &dyn Fn() -> Result<(), StepError>,
    ) -> Result<Synced, GitError> {
        if self.no_remote {
            return Ok(Synced::Local(format!(
                "{} tracks nothing on {:?}: the memory is committed on this machine only (`git push -u {} {}` once to share it)",
                self.branch, self.remote, self.remote, self.branch
            )));
        }
        let repo = self.open_repo()?;
        let _one_publish = publish_lock(&repo)?;
        self.check_branch(&repo)?;
        git_setup::check_worktrees(&repo, &self.branch)?;
        self.check_signing(&repo)?;
        self.finish_integration(&repo)?;
        self.check_remote(&repo)?;
        let dir = repo.workdir().unwrap_or(repo.path()).to_path_buf();
        let limit = limit.unwrap_or_else(|| {
            Duration::from_secs(self.timeout_secs.unwrap_or(DEFAULT_NETWORK_SECS))
        });
        match git_cli::fetch_within(&dir, &self.remote, &self.branch, limit) {
            Ok(()) => {}
            Err(GitError::TimedOut { limit }) => {
                return Ok(Synced::Offline(format!(
                    "{}/{} did not answer within {} s",
                    self.remote,
                    self.branch,
                    limit.as_secs_f32()
                )));
            }
            // An empty remote: nothing to bring in (a pending push still goes).
            Err(e) if e.is_missing_remote_ref() => {}
            Err(e) => return Err(e),
        }
        let theirs = Theirs {
            remote: &self.remote,
            branch: &self.branch,
        };
        let integrated = match repo.find_reference(&theirs.tracking()) {
            Ok(_) => self.integrate(&repo, theirs)?,
            Err(_) => format!("{} has no commits yet: nothing to bring in", theirs.shown()),
        };
        let sent = match PendingPush::read(repo.path()) {
            Some(_) if self.push => {
                crate::base::failpoint::hit("sync-before-push");
                let target = self.push_target(&repo)?;
                match self.push_integrating(&repo, &target, gate, "pending") {
                    Ok(pushed) => format!("; {pushed}"),
                    Err(stop @ StepError::Paused { .. }) => super::held_by(&stop),
                    Err(e) => return Err(GitError::Write(e.to_string())),
                }
            }
            _ => String::new(),
        };
        Ok(Synced::Done(format!("{integrated}{sent}")))
    }

    fn open_repo(&self) -> Result<Repository, GitError> {
        let repo = Repository::discover(&self.repo_dir).map_err(|e| GitError::NotARepository {
            dir: self.repo_dir.clone(),
            detail: e.message().to_string(),
        })?;
        if repo.workdir().is_none() {
            return Err(GitError::Bare {
                dir: self.repo_dir.clone(),
            });
        }
        Ok(repo)
    }

    fn check_remote(&self, repo: &Repository) -> Result<(), GitError> {
        check_remote(repo, &self.remote)
    }

    /// Where this publish pushes: `[backend].remote` and `refs/heads/<branch>`
    /// as set, each left unset with no `type` found as `git push` would
    /// ([`git_push`]), from the repository's config as it is now.
    fn push_target(&self, repo: &Repository) -> Result<PushTarget, GitError> {
        let config = repo
            .config()
            .and_then(|mut c| c.snapshot())
            .map_err(|e| git_error(repo, &e))?;
        let remote = match self.remote_from_git {
            true => git_push::push_remote(&config, &self.branch),
            false => self.remote.clone(),
        };
        let dest = match self.ref_from_git {
            true => git_push::destination(&config, &self.branch, &remote).map_err(|why| {
                GitError::NoPush {
                    branch: self.branch.clone(),
                    remote: remote.clone(),
                    why,
                }
            })?,
            false => format!("refs/heads/{}", self.branch),
        };
        Ok(PushTarget { remote, dest })
    }

    /// A repository that asks for signed commits (`commit.gpgsign`) is
    /// refused, since a handover commit (or merge) cannot be signed, unless
    /// the config says `sign = false`.
    fn check_signing(&self, repo: &Repository) -> Result<(), GitError> {
        let asks = repo
            .config()
            .ok()
            .and_then(|c| c.get_bool("commit.gpgsign").ok())
            .unwrap_or(false);
        if asks && !self.unsigned {
            return Err(GitError::SigningAsked {
                dir: repo.workdir().unwrap_or(repo.path()).to_path_buf(),
            });
        }
        Ok(())
    }

    fn check_branch(&self, repo: &Repository) -> Result<(), GitError> {
        let head = repo
            .find_reference("HEAD")
            .map_err(|e| git_error(repo, &e))?;
        let target = head.symbolic_target().ok().flatten().map(str::to_string);
        let expected = format!("refs/heads/{}", self.branch);
        match target {
            Some(t) if t == expected => Ok(()),
            Some(t) => Err(GitError::WrongBranch {
                head: t.trim_start_matches("refs/heads/").to_string(),
                branch: self.branch.clone(),
            }),
            None => Err(GitError::Detached {
                branch: self.branch.clone(),
            }),
        }
    }

    /// The configured paths relative to the work tree (`""` = all of it).
    fn pathspecs(&self, workdir: &Path) -> Result<Vec<String>, GitError> {
        let real_workdir = std::fs::canonicalize(workdir).map_err(|e| GitError::WorkTree {
            what: "resolve",
            path: workdir.to_path_buf(),
            error: e.to_string(),
        })?;
        self.paths
            .iter()
            .map(|p| {
                let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
                real.strip_prefix(&real_workdir)
                    .map(|rel| rel.to_string_lossy().into_owned())
                    .map_err(|_| GitError::PathOutside {
                        path: p.clone(),
                        repo: workdir.to_path_buf(),
                    })
            })
            .collect()
    }

    /// Push to `target`; when the remote moved on, fetch it, integrate
    /// (when it is a branch), and push again (three times at most). `gate`
    /// (the PAUSE brake) is asked right before every push and every fetch,
    /// so a brake pulled while one runs holds the next; its error stops the
    /// publish there, said after `committed` and what was integrated.
    fn push_integrating(
        &self,
        repo: &Repository,
        target: &PushTarget,
        gate: &dyn Fn() -> Result<(), StepError>,
        committed: &str,
    ) -> Result<String, StepError> {
        check_remote(repo, &target.remote)?;
        let dir = repo.workdir().unwrap_or(repo.path()).to_path_buf();
        let dest = target.shown();
        let from = format!("refs/heads/{}", self.branch);
        let mut merged = None;
        let limit = Duration::from_secs(self.timeout_secs.unwrap_or(DEFAULT_NETWORK_SECS));
        let held = |merged: &Option<String>| {
            let done = merged
                .as_ref()
                .map_or(String::new(), |how| format!("; {how}"));
            move |stop: StepError| stop.context(format!("{committed}{done}; not pushed"))
        };
        let done = |merged: &Option<String>| {
            merged
                .as_ref()
                .map_or(String::new(), |how| format!("{how}, "))
        };
        for _ in 0..3 {
            gate().map_err(held(&merged))?;
            let along = commits_of_yours(repo, target);
            let pushed = match git_cli::push_ref(&dir, &target.remote, &from, &target.dest, limit) {
                Ok(pushed) => pushed,
                Err(e @ GitError::PushTimedOut { .. }) => {
                    return Ok(done(&merged) + &self.leave_pending(repo, target, &e.to_string())?);
                }
                Err(e) => return Err(e.into()),
            };
            match pushed {
                Pushed::Done => {
                    PendingPush::clear(repo)?;
                    return Ok(format!("{}pushed to {dest}{along}", done(&merged)));
                }
                Pushed::Refused(words) => {
                    return Err(GitError::PushRefused {
                        remote: target.remote.clone(),
                        to: target.to().to_string(),
                        branch: self.branch.clone(),
                        words,
                    }
                    .into());
                }
                Pushed::Failed(said) => {
                    let why = format!("push to {dest} failed: {said}");
                    return Ok(done(&merged) + &self.leave_pending(repo, target, &why)?);
                }
                Pushed::Behind => {
                    let Some(branch) = target.branch() else {
                        // Not a branch (a review ref): nothing to merge.
                        return Err(GitError::PushRefused {
                            remote: target.remote.clone(),
                            to: target.to().to_string(),
                            branch: self.branch.clone(),
                            words: format!(
                                "rejected: {} holds commits this branch lacks, and a handover merges only a branch",
                                target.dest
                            ),
                        }
                        .into());
                    };
                    let theirs = Theirs {
                        remote: &target.remote,
                        branch,
                    };
                    let refspec = format!("+{}:{}", target.dest, theirs.tracking());
                    gate().map_err(held(&merged))?;
                    match git_cli::fetch_refspec_within(&dir, &target.remote, &refspec, limit) {
                        Ok(()) => {}
                        Err(e @ GitError::TimedOut { .. }) => {
                            let why = format!("fetch from {}: {e}", target.remote);
                            return Ok(done(&merged) + &self.leave_pending(repo, target, &why)?);
                        }
                        Err(e) => return Err(e.into()),
                    }
                    merged = Some(self.integrate(repo, theirs)?);
                }
            }
        }
        Err(GitError::KeptMoving {
            remote: target.remote.clone(),
            branch: target.to().to_string(),
        }
        .into())
    }

    /// Record that the push to `target` is left for later (`why`), and say so.
    fn leave_pending(
        &self,
        repo: &Repository,
        target: &PushTarget,
        why: &str,
    ) -> Result<String, GitError> {
        let why = why.lines().next().unwrap_or_default().to_string();
        let pending = PendingPush {
            to: target.shown(),
            why,
        };
        pending.record(repo)?;
        Ok(super::pending_words(&pending.to, &pending.why))
    }

    /// Bring the remote's commits into our branch: fast-forward, or merge when
    /// nothing conflicts. Returns what was done.
    fn integrate(&self, repo: &Repository, from: Theirs<'_>) -> Outcome {
        let git = |e: git2::Error| git_error(repo, &e);
        let theirs = repo
            .find_reference(&from.tracking())
            .and_then(|r| r.peel_to_commit())
            .map_err(git)?;
        let Ok(ours) = repo.head().and_then(|h| h.peel_to_commit()) else {
            // Nothing here yet (a fresh clone of an empty branch): take theirs.
            self.move_branch(repo, None, &theirs, "agent-handover: sync", from)?;
            return Ok(format!("took {} ({})", from.shown(), short(theirs.id())));
        };
        if theirs.id() == ours.id()
            || repo
                .graph_descendant_of(ours.id(), theirs.id())
                .map_err(git)?
        {
            // Nothing of theirs is missing here: no merge commit for nothing.
            return Ok(format!("{} is already contained", from.shown()));
        }
        if repo
            .graph_descendant_of(theirs.id(), ours.id())
            .map_err(git)?
        {
            self.move_branch(
                repo,
                Some(&ours),
                &theirs,
                "agent-handover: fast-forward",
                from,
            )?;
            return Ok(format!(
                "fast-forwarded to {} ({})",
                from.shown(),
                short(theirs.id())
            ));
        }
        let mut index = repo.merge_commits(&ours, &theirs, None).map_err(git)?;
        let settled = match &self.memory {
            Some(mem) => {
                let base = repo
                    .merge_base(ours.id(), theirs.id())
                    .ok()
                    .and_then(|id| repo.find_commit(id).ok());
                let prefixes = mem.prefixes(repo)?;
                memory_merge::settle(repo, &mut index, &ours, &theirs, base.as_ref(), &prefixes)
                    .map_err(git)?
            }
            None => Settled::default(),
        };
        if index.has_conflicts() {
            let mut paths: Vec<String> = index
                .conflicts()
                .map_err(git)?
                .filter_map(|c| c.ok())
                .filter_map(|c| c.our.or(c.their))
                .map(|e| String::from_utf8_lossy(&e.path).into_owned())
                .collect();
            paths.dedup();
            return Err(self.conflict(repo, paths, &ours, &theirs, from));
        }
        let tree = repo
            .find_tree(index.write_tree_to(repo).map_err(git)?)
            .map_err(git)?;
        let sig = signature(repo);
        let message = format!("{MERGE_SUBJECT}{}", from.shown());
        let merge = repo
            .commit(None, &sig, &sig, &message, &tree, &[&ours, &theirs])
            .map_err(git)?;
        let merge_commit = repo.find_commit(merge).map_err(git)?;
        self.move_branch(repo, Some(&ours), &merge_commit, &message, from)?;
        let drift = self.keep_drift(&settled, from)?;
        Ok(format!(
            "merged {} ({}) as {}{}{drift}",
            from.shown(),
            short(theirs.id()),
            short(merge),
            match settled.files.len() {
                0 => String::new(),
                n => format!(", {n} memory file(s) merged by layer"),
            }
        ))
    }

    /// Keep the text a merge by section superseded ([`keep_drift`]).
    fn keep_drift(&self, settled: &Settled, theirs: Theirs<'_>) -> Outcome {
        let Some(mem) = &self.memory else {
            return Ok(String::new());
        };
        keep_drift(mem, settled, &theirs.shown())
    }

    /// Move the branch from `from` (none: unborn) to its descendant `to`.
    /// The work tree is checked first (a file edited here that the move
    /// would change stops it, nothing touched); then `to` is held by a ref
    /// (so no `git gc` can take it) and the intent written (durable, in the
    /// git folder); then the work tree and index are updated and the branch
    /// moved. A crash anywhere in between is finished by
    /// [`Self::finish_integration`] before the next publish or sync, so the
    /// half-updated work tree is never committed as if it were ours.
    fn move_branch(
        &self,
        repo: &Repository,
        from: Option<&Commit<'_>>,
        to: &Commit<'_>,
        why: &str,
        theirs: Theirs<'_>,
    ) -> Result<(), GitError> {
        let git = |e: git2::Error| git_error(repo, &e);
        let from_tree = from.map(Commit::tree).transpose().map_err(git)?;
        let update = WorkTreeUpdate::plan(repo, from_tree.as_ref(), &to.tree().map_err(git)?)?;
        if let Some(edited) = update.edited.first() {
            return Err(GitError::EditedHere {
                path: secrets::redact(&edited.to_string_lossy())
                    .into_owned()
                    .into(),
                remote: theirs.remote.to_string(),
                branch: theirs.branch.to_string(),
            });
        }
        repo.reference(INTEGRATING_REF, to.id(), true, why)
            .map_err(git)?;
        let from_id = from.map_or(git2::Oid::ZERO_SHA1, Commit::id);
        fsx::write_atomic(
            &repo.path().join(INTEGRATING),
            format!("{from_id} {}\n", to.id()).as_bytes(),
        )?;
        crate::base::failpoint::hit("integrate-after-intent");
        update.apply(repo)?;
        crate::base::failpoint::hit("integrate-after-work-tree");
        self.land(repo, to.id(), why)
    }

    /// The last of a move: the branch to `to`, then the intent cleared.
    fn land(&self, repo: &Repository, to: git2::Oid, why: &str) -> Result<(), GitError> {
        repo.reference(&format!("refs/heads/{}", self.branch), to, true, why)
            .map_err(|e| git_error(repo, &e))?;
        clear_intent(repo)
    }

    /// Finish a [`Self::move_branch`] a crash interrupted. The branch still
    /// at `from`: the files still at their old text are brought to the new
    /// one (a file changed since, e.g. by the handover that follows, is
    /// left as it is: a change on top of the merge), then the branch moves.
    /// The branch already at `to`: only the intent is cleared. Nothing to
    /// finish (no intent, or the branch moved elsewhere since) is fine.
    fn finish_integration(&self, repo: &Repository) -> Result<(), GitError> {
        clear_own_ref_locks(repo)?;
        let marker = repo.path().join(INTEGRATING);
        let Ok(text) = std::fs::read_to_string(&marker) else {
            return Ok(());
        };
        let why = "agent-handover: finish an interrupted integration";
        let mut ids = text.split_whitespace().map(git2::Oid::from_str);
        let head = repo.head().ok().and_then(|h| h.target());
        let (from, to) = match (ids.next(), ids.next()) {
            (Some(Ok(from)), Some(Ok(to))) => (from, to),
            _ => (git2::Oid::ZERO_SHA1, git2::Oid::ZERO_SHA1),
        };
        let moving = head == Some(from) || (from.is_zero() && head.is_none());
        let target = repo.find_commit(to);
        let (true, Ok(target)) = (moving && !to.is_zero(), target) else {
            // Landed already, or the branch moved elsewhere since.
            return clear_intent(repo);
        };
        let git = |e: git2::Error| git_error(repo, &e);
        let from_tree = (!from.is_zero())
            .then(|| repo.find_commit(from).and_then(|c| c.tree()))
            .transpose()
            .map_err(git)?;
        WorkTreeUpdate::plan(repo, from_tree.as_ref(), &target.tree().map_err(git)?)?
            .apply(repo)?;
        self.land(repo, to, why)
    }

    fn conflict(
        &self,
        repo: &Repository,
        paths: Vec<String>,
        ours: &Commit<'_>,
        theirs: &Commit<'_>,
        from: Theirs<'_>,
    ) -> GitError {
        GitError::Conflict(Box::new(Conflict {
            remote: from.remote.to_string(),
            branch: from.branch.to_string(),
            files: paths
                .iter()
                .map(|p| secrets::redact(p).into_owned())
                .collect(),
            ours: short(ours.id()),
            theirs: short(theirs.id()),
            dir: repo.workdir().unwrap_or(repo.path()).to_path_buf(),
        }))
    }
}

/// A handover commit's message, its `Handover-At:` trailer added, once
/// `admit` let the message and the commit's author through.
pub(super) fn admitted_message(
    repo: &Repository,
    message: &str,
    admit: &Admit<'_>,
) -> Result<String, StepError> {
    admit("the commit message ([backend].message)", message.as_bytes())?;
    let author = signature(repo);
    admit(
        "the commit author (git config user.name and user.email)",
        &[author.name_bytes(), b" <", author.email_bytes(), b">"].concat(),
    )?;
    Ok(format!(
        "{message}\n\n{HANDOVER_AT} {}",
        chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Nanos, true)
    ))
}

/// Keep the text a merge by section superseded (in the history of
/// current-state.md or identity.md, as a version flagged as drift; `theirs`
/// names the other side); returns what to add to the summary.
pub(super) fn keep_drift(mem: &MemoryLocations, settled: &Settled, theirs: &str) -> Outcome {
    let mut notes = Vec::new();
    for drift in &settled.drift {
        let history = StateHistory::new(mem.history_dir(drift.file));
        let from = match drift.side {
            Side::Ours => "this machine".to_string(),
            Side::Theirs => theirs.to_string(),
        };
        let record = history.record_drift(
            drift.file,
            &drift.superseded,
            drift.written_at,
            &drift.merged,
            drift.sections.clone(),
            &from,
        )?;
        notes.push(format!(
            "; {} drift: {} of {from} superseded (`{}`)",
            drift.file.command(),
            record.section_names(),
            record.diff_command()
        ));
    }
    Ok(notes.concat())
}

/// The most of the user's commits a publish summary names (the rest are
/// counted), and the most commits it walks to find them.
const NAMED_COMMITS: usize = 3;
const WALKED_COMMITS: usize = 1000;

/// Whether the commit `message` is one a handover made: a handover commit
/// (its [`HANDOVER_AT`] trailer) or a merge of a publish or sync.
fn made_by_a_handover(message: &str) -> bool {
    message.starts_with(MERGE_SUBJECT) || message.lines().any(|l| l.starts_with(HANDOVER_AT))
}

/// The user's own commits a push to `target` takes along, as the summary
/// says them (`, with 1 commit of yours: 1a2b3c4 parser: count length`;
/// empty for none): the commits of HEAD that the remote-tracking ref of
/// where it goes lacks (the upstream's for a ref that is no branch; every
/// ref of the remote when there is none), but those a handover made.
/// Subjects are redacted ([`secrets::redact`]); past [`NAMED_COMMITS`], the
/// rest are counted. A summary's detail: nothing found, nothing said.
fn commits_of_yours(repo: &Repository, target: &PushTarget) -> String {
    let exists = |name: &String| repo.find_reference(name).is_ok();
    let upstream = || {
        let config = repo.config().ok()?;
        let branch = current_branch(repo)?;
        let remote = config.get_string(&format!("branch.{branch}.remote")).ok()?;
        let merge = config.get_string(&format!("branch.{branch}.merge")).ok()?;
        Some(format!(
            "refs/remotes/{remote}/{}",
            merge.strip_prefix("refs/heads/")?
        ))
    };
    let known = target
        .branch()
        .map(|b| format!("refs/remotes/{}/{b}", target.remote))
        .filter(exists)
        .or_else(|| upstream().filter(exists));
    let walk = repo.revwalk().and_then(|mut walk| {
        walk.set_sorting(git2::Sort::TOPOLOGICAL)?;
        walk.push_head()?;
        match &known {
            Some(name) => walk.hide_ref(name)?,
            None => walk.hide_glob(&format!("refs/remotes/{}/*", target.remote))?,
        }
        Ok(walk)
    });
    let Ok(walk) = walk else {
        return String::new();
    };
    let (mut count, mut named, mut more_walked) = (0usize, Vec::new(), false);
    for (walked, id) in walk.enumerate() {
        if walked == WALKED_COMMITS {
            more_walked = true;
            break;
        }
        let Some(commit) = id.ok().and_then(|id| repo.find_commit(id).ok()) else {
            continue;
        };
        if made_by_a_handover(&String::from_utf8_lossy(commit.message_bytes())) {
            continue;
        }
        count += 1;
        if named.len() < NAMED_COMMITS {
            let subject = String::from_utf8_lossy(commit.summary_bytes().unwrap_or_default());
            let subject = secrets::redact(&subject);
            let subject: String = match subject.chars().count() > 60 {
                true => subject.chars().take(59).chain(['…']).collect(),
                false => subject.into_owned(),
            };
            named.push(format!("{} {subject}", short(commit.id())));
        }
    }
    if count == 0 {
        return String::new();
    }
    let plus = if more_walked { "+" } else { "" };
    let mut said = format!(
        ", with {count}{plus} commit{} of yours: {}",
        if count == 1 && !more_walked { "" } else { "s" },
        named.join(", ")
    );
    if count > NAMED_COMMITS {
        said += &format!(" and {}{plus} more", count - NAMED_COMMITS);
    }
    said
}

/// The subject of a merge a publish or sync makes (`agent-handover: merge
/// origin/main`).
const MERGE_SUBJECT: &str = "agent-handover: merge ";

/// `remote` is one of `repo`'s, or the error naming it.
fn check_remote(repo: &Repository, remote: &str) -> Result<(), GitError> {
    repo.find_remote(remote)
        .map(drop)
        .map_err(|_| GitError::NoRemote {
            remote: remote.to_string(),
        })
}

/// One publish or sync at a time in `repo`, whichever checkpoint runs it
/// (two agents' checkpoints in one repository each have their own run
/// lock): held from staging to pushing, so no two commit on the same HEAD.
/// A lock file in the git folder, never deleted, released by the kernel
/// if its holder dies.
/// A push a publish left for later: where to, and why it could not go,
/// kept in the worktree's git dir (the branch is the worktree's).
#[derive(Debug, Clone, PartialEq, Eq)]
struct PendingPush {
    /// Where it goes, as a summary names it (`origin/main`).
    to: String,
    /// Why it could not go (one line).
    why: String,
}

impl PendingPush {
    /// Its file in a worktree's git dir.
    const FILE: &'static str = "agent-handover-push-pending";

    fn record(&self, repo: &Repository) -> Result<(), GitError> {
        let text = format!("{}\n{}\n", self.to, self.why);
        Ok(fsx::write_atomic(
            &repo.path().join(Self::FILE),
            text.as_bytes(),
        )?)
    }

    /// The push left pending in the worktree whose git dir is `git_dir`, if
    /// one is recorded.
    fn read(git_dir: &Path) -> Option<Self> {
        let (text, _) =
            fsx::read_text_bounded_nofollow(&git_dir.join(Self::FILE), 64 * 1024, "remove it")
                .ok()??;
        let (to, why) = text.split_once('\n')?;
        Some(PendingPush {
            to: to.to_string(),
            why: why.trim_end().to_string(),
        })
    }

    /// The push went: nothing pending any more.
    fn clear(repo: &Repository) -> Result<(), GitError> {
        fsx::remove_files_durable(repo.path(), &[Self::FILE])?;
        Ok(())
    }
}

fn publish_lock(repo: &Repository) -> Result<std::fs::File, GitError> {
    Ok(fsx::lock_exclusive(
        &repo.path().join("agent-handover-publish.lock"),
    )?)
}

/// The git command whose operation `state` leaves unfinished (`None`: clean).
fn unfinished(state: git2::RepositoryState) -> Option<&'static str> {
    use git2::RepositoryState as S;
    match state {
        S::Clean => None,
        S::Merge => Some("merge"),
        S::Revert | S::RevertSequence => Some("revert"),
        S::CherryPick | S::CherryPickSequence => Some("cherry-pick"),
        S::Bisect => Some("bisect"),
        S::Rebase | S::RebaseInteractive | S::RebaseMerge => Some("rebase"),
        S::ApplyMailbox | S::ApplyMailboxOrRebase => Some("am"),
    }
}

/// Stage `specs` and commit them (only them) on HEAD if anything changed.
/// Every file added or changed is shown to `admit` first; if it refuses
/// one, the index on disk is left as it was and nothing is committed.
/// A file under a clean filter (`filter=` in .gitattributes, which libgit2
/// does not run) is committed as the filter makes it
/// ([`git_filter::blob_for`]) and held so in the index, as `git add` would;
/// `admit` reads its text as written.
fn commit_paths(
    repo: &Repository,
    specs: &[String],
    message: &str,
    admit: &Admit<'_>,
) -> Result<Option<git2::Oid>, StepError> {
    let git = |e: git2::Error| git_error(repo, &e);
    let workdir = work_tree(repo)?;
    let in_scope = |p: &str| git_setup::in_scope(specs, p);
    let (mut index, known) = with_index_lock_retry(repo, || {
        let mut index = repo.index()?;
        // What the index held before: a filtered file add_all leaves alone
        // keeps its filtered blob; one it added again holds the raw bytes.
        let known: HashMap<Vec<u8>, git2::Oid> = index
            .iter()
            .filter(|e| in_scope(&String::from_utf8_lossy(&e.path)))
            .map(|e| (e.path, e.id))
            .collect();
        index.add_all(specs, IndexAddOption::DEFAULT, None)?;
        index.update_all(specs, None)?;
        Ok((index, known))
    })?;
    let parent = match repo.head() {
        Ok(h) => Some(h.peel_to_commit().map_err(git)?),
        Err(e) if e.code() == ErrorCode::UnbornBranch || e.code() == ErrorCode::NotFound => None,
        Err(e) => return Err(git(e).into()),
    };
    let baseline = match &parent {
        Some(c) => c.tree().map_err(git)?,
        None => repo
            .find_tree(
                repo.treebuilder(None)
                    .and_then(|b| b.write())
                    .map_err(git)?,
            )
            .map_err(git)?,
    };
    // What HEAD holds under `specs`, read in one walk of only the folders
    // that lead to them (looking each file up by its path decodes its
    // folders' trees again every time).
    let mut in_head: HashMap<String, git2::Oid> = HashMap::new();
    baseline
        .walk(TreeWalkMode::PreOrder, |root, entry| {
            let path = format!("{root}{}", entry.name().unwrap_or_default());
            if entry.kind() == Some(git2::ObjectType::Tree) {
                let leads_in = in_scope(&path)
                    || specs.iter().any(|s| {
                        s.strip_prefix(path.as_str())
                            .is_some_and(|r| r.starts_with('/'))
                    });
                return match leads_in {
                    true => TreeWalkResult::Ok,
                    false => TreeWalkResult::Skip,
                };
            }
            if in_scope(&path) {
                in_head.insert(path, entry.id());
            }
            TreeWalkResult::Ok
        })
        .map_err(git)?;
    let mut update = TreeUpdateBuilder::new();
    let mut staged = HashSet::new();
    let mut filtered = Vec::new();
    for mut entry in index.iter() {
        let path = String::from_utf8_lossy(&entry.path).into_owned();
        if !in_scope(&path) {
            continue;
        }
        if (entry.flags >> 12) & 0x3 != 0 {
            return Err(GitError::Unresolved {
                path: secrets::redact(&path).into_owned(),
            }
            .into());
        }
        let mode = file_mode(entry.mode);
        let is_blob = matches!(mode, FileMode::Blob | FileMode::BlobExecutable);
        let committed = |id: git2::Oid| in_head.get(&path) == Some(&id);
        let added = known.get(&entry.path) != Some(&entry.id);
        let mut unchanged = committed(entry.id);
        // A filtered file added again by add_all (its id is new) or staged
        // unfiltered before (its id is the raw bytes'), so not as HEAD holds
        // it: through the filter. Its text as written is what the door reads.
        let (mut written, mut refiltered) = (None, false);
        if is_blob && (added || !unchanged) && git_filter::filter_of(repo, &path).is_some() {
            let bytes = read_work_file(&workdir, &path)?;
            let raw = git2::Oid::hash_object(git2::ObjectType::Blob, &bytes).map_err(git)?;
            if added || entry.id == raw {
                entry.id = git_filter::blob_for(repo, &workdir, &path, &bytes)?;
                unchanged = committed(entry.id);
                refiltered = true;
            }
            written = Some(bytes);
        }
        if !unchanged {
            // Its name goes with it, whatever it is (a file, a link).
            let name = format!("the file name {}", secrets::redact(&path));
            admit(&name, path.as_bytes())?;
        }
        if !unchanged && is_blob {
            match &written {
                Some(bytes) => admit(&secrets::redact(&path), bytes)?,
                None => {
                    let blob = repo.find_blob(entry.id).map_err(git)?;
                    admit(&secrets::redact(&path), blob.content())?;
                }
            }
        }
        if !unchanged && mode == FileMode::Link {
            // git stores a link's target text as its blob: it is sent too.
            let blob = repo.find_blob(entry.id).map_err(git)?;
            let name = format!("the link target of {}", secrets::redact(&path));
            admit(&name, blob.content())?;
        }
        update.upsert(path.as_str(), entry.id, mode);
        staged.insert(path);
        if refiltered {
            filtered.push(entry);
        }
    }
    for entry in &filtered {
        index.add(entry).map_err(git)?;
    }
    with_index_lock_retry(repo, || index.write())?;
    index.read(false).map_err(git)?;
    for path in in_head.keys().filter(|p| !staged.contains(*p)) {
        update.remove(path.as_str());
    }
    let tree_id = update.create_updated(repo, &baseline).map_err(git)?;
    if parent.is_some() && tree_id == baseline.id() {
        return Ok(None);
    }
    let tree = repo.find_tree(tree_id).map_err(git)?;
    let sig = signature(repo);
    let parents: Vec<&Commit<'_>> = parent.iter().collect();
    crate::base::failpoint::hit("publish-before-commit");
    Ok(repo
        .commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
        .map(Some)
        .map_err(git)?)
}

fn file_mode(mode: u32) -> FileMode {
    match mode {
        0o100755 => FileMode::BlobExecutable,
        0o120000 => FileMode::Link,
        0o160000 => FileMode::Commit,
        _ => FileMode::Blob,
    }
}

/// The git folder's note of an integration in progress: `<from> <to>`.
pub const INTEGRATING: &str = "agent-handover-integrate";
/// The ref that holds an integration's target until it lands.
const INTEGRATING_REF: &str = "refs/agent-handover/integrating";

/// Lock files on the refs only agent-handover writes (`refs/agent-handover/`):
/// found while the run lock is held (publish and sync hold it), they were
/// left by an agent-handover that was killed, since no other process writes
/// those refs, and are removed at once. (git's own locks keep their safe
/// age: another git may hold them.)
fn clear_own_ref_locks(repo: &Repository) -> Result<(), GitError> {
    let dir = repo.path().join("refs/agent-handover");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(());
    };
    let stale: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|name| name.ends_with(".lock"))
        .collect();
    if stale.is_empty() {
        return Ok(());
    }
    fsx::remove_files_durable(&dir, &stale)?;
    Ok(())
}

/// Remove the intent of an integration and the ref holding its target.
fn clear_intent(repo: &Repository) -> Result<(), GitError> {
    fsx::remove_files_durable(repo.path(), &[INTEGRATING])?;
    if let Ok(mut held) = repo.find_reference(INTEGRATING_REF) {
        held.delete().map_err(|e| git_error(repo, &e))?;
    }
    Ok(())
}

/// One file of a work-tree update: its path, and its new blob and mode
/// (none: removed).
struct FileChange {
    path: PathBuf,
    new: Option<(git2::Oid, FileMode)>,
}

/// The work tree and index brought from one tree to another, file by file,
/// each file written atomically; the index keeps whatever else the user
/// staged. Planned first, so a file edited here is found before anything is
/// touched.
struct WorkTreeUpdate {
    /// Files still at their old text (or already at the new one).
    changes: Vec<FileChange>,
    /// Files holding neither text: edited here.
    edited: Vec<PathBuf>,
}

impl WorkTreeUpdate {
    fn plan(repo: &Repository, from: Option<&Tree<'_>>, to: &Tree<'_>) -> Result<Self, GitError> {
        let git = |e: git2::Error| git_error(repo, &e);
        let workdir = work_tree(repo)?;
        let diff = repo.diff_tree_to_tree(from, Some(to), None).map_err(git)?;
        let mut update = WorkTreeUpdate {
            changes: Vec::new(),
            edited: Vec::new(),
        };
        for delta in diff.deltas() {
            let (old, new) = (delta.old_file(), delta.new_file());
            let Some(path) = new.path().or(old.path()).map(Path::to_path_buf) else {
                continue;
            };
            if path.components().any(|c| {
                matches!(c, std::path::Component::ParentDir)
                    || c.as_os_str().eq_ignore_ascii_case(".git")
            }) {
                return Err(GitError::UnsafePath { path });
            }
            let on_disk = workdir.join(&path);
            let current = on_disk_blob(&on_disk).map_err(git)?;
            let known = |f: &git2::DiffFile<'_>| (!f.id().is_zero()).then(|| f.id());
            let (old_id, new_id) = (known(&old), known(&new));
            if current != old_id && current != new_id {
                update.edited.push(on_disk);
                continue;
            }
            update.changes.push(FileChange {
                path,
                new: new_id.map(|id| (id, new.mode())),
            });
        }
        Ok(update)
    }

    fn apply(&self, repo: &Repository) -> Result<(), GitError> {
        use std::os::unix::fs::PermissionsExt;
        let workdir = work_tree(repo)?;
        for change in &self.changes {
            let on_disk = workdir.join(&change.path);
            let fail = |what: &'static str, e: &dyn std::fmt::Display| GitError::WorkTree {
                what,
                path: on_disk.clone(),
                error: e.to_string(),
            };
            if fsx::is_symlink(&on_disk) {
                std::fs::remove_file(&on_disk).map_err(|e| fail("remove", &e))?;
            }
            match change.new {
                Some((id, FileMode::Link)) => {
                    let target = repo.find_blob(id).map_err(|e| git_error(repo, &e))?;
                    let target = std::ffi::OsStr::from_bytes(target.content());
                    let _ = std::fs::remove_file(&on_disk);
                    if let Some(dir) = on_disk.parent() {
                        fsx::create_dir_durable(dir)?;
                    }
                    std::os::unix::fs::symlink(target, &on_disk).map_err(|e| fail("link", &e))?;
                }
                Some((id, mode)) => {
                    let blob = repo.find_blob(id).map_err(|e| git_error(repo, &e))?;
                    fsx::write_atomic(&on_disk, blob.content())?;
                    let bits = if mode == FileMode::BlobExecutable {
                        0o755
                    } else {
                        0o644
                    };
                    std::fs::set_permissions(&on_disk, std::fs::Permissions::from_mode(bits))
                        .map_err(|e| fail("set the mode of", &e))?;
                }
                None => match std::fs::remove_file(&on_disk) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(fail("remove", &e)),
                },
            }
        }
        with_index_lock_retry(repo, || {
            let mut index = repo.index()?;
            for change in &self.changes {
                match change.new {
                    Some(_) => index.add_path(&change.path)?,
                    None => index.remove_path(&change.path)?,
                }
            }
            index.write()
        })
    }
}

/// The bytes of the file at `path` (relative to the work tree `workdir`).
fn read_work_file(workdir: &Path, path: &str) -> Result<Vec<u8>, GitError> {
    let file = workdir.join(path);
    std::fs::read(&file).map_err(|e| GitError::WorkTree {
        what: "read",
        path: file,
        error: e.to_string(),
    })
}

/// The blob id of what is at `path` in the work tree: a file's content, a
/// link's target; `None` when nothing is there (a folder counts as neither
/// side's text).
pub(super) fn on_disk_blob(path: &Path) -> Result<Option<git2::Oid>, git2::Error> {
    use std::os::unix::ffi::OsStrExt;
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => git2::Oid::hash_file(git2::ObjectType::Blob, path).map(Some),
        Ok(m) if m.file_type().is_symlink() => {
            let target = std::fs::read_link(path).unwrap_or_default();
            git2::Oid::hash_object(git2::ObjectType::Blob, target.as_os_str().as_bytes()).map(Some)
        }
        Ok(_) => Ok(Some(git2::Oid::ZERO_SHA1)),
        Err(_) => Ok(None),
    }
}

/// A git2 error in `repo`, typed ([`GitError::from_git2`]: a lock file it
/// names is [`GitError::Locked`]).
pub(super) fn git_error(repo: &Repository, e: &git2::Error) -> GitError {
    GitError::from_git2(e, repo.path(), repo.workdir().unwrap_or(repo.path()))
}

/// The work tree of `repo` (a bare one has none).
fn work_tree(repo: &Repository) -> Result<PathBuf, GitError> {
    repo.workdir()
        .map(Path::to_path_buf)
        .ok_or_else(|| GitError::Bare {
            dir: repo.path().to_path_buf(),
        })
}

/// Run `op`, retrying with backoff while another git process holds the index lock.
fn with_index_lock_retry<T>(
    repo: &Repository,
    mut op: impl FnMut() -> Result<T, git2::Error>,
) -> Result<T, GitError> {
    for delay in INDEX_LOCK_RETRIES {
        match op() {
            Err(e) if e.code() == ErrorCode::Locked => {
                std::thread::sleep(Duration::from_millis(delay))
            }
            other => return other.map_err(|e| git_error(repo, &e)),
        }
    }
    op().map_err(|e| git_error(repo, &e))
}

/// The commit identity from the repository's or user's git config, or a fallback.
pub(super) fn signature(repo: &Repository) -> Signature<'static> {
    repo.signature()
        .map(|s| s.to_owned())
        .or_else(|_| Signature::now("agent-handover", "agent-handover@localhost"))
        .expect("a fixed signature is valid")
}

pub(super) fn short(id: git2::Oid) -> String {
    id.to_string()[..7].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::testing::git;

    #[test]
    fn a_plans_memory_locations_find_each_files_history_where_the_workspace_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        let ws = crate::Workspace::in_dir(dir.path());
        let mem = ws.memory_locations();
        for file in [VersionedFile::CurrentState, VersionedFile::Identity] {
            assert_eq!(mem.history_dir(file), file.history_dir(&ws), "{file:?}");
        }
    }

    /// A work repo on `main` with a bare remote `origin`, and a spec for it.
    fn repos() -> (tempfile::TempDir, GitSpec) {
        let dir = tempfile::tempdir().unwrap();
        let remote = Repository::init_bare(dir.path().join("remote.git")).unwrap();
        drop(remote);
        let work = dir.path().join("work");
        let mut opts = git2::RepositoryInitOptions::new();
        opts.initial_head("main");
        let repo = Repository::init_opts(&work, &opts).unwrap();
        let url = format!("file://{}", dir.path().join("remote.git").display());
        repo.remote("origin", &url).unwrap();
        std::fs::create_dir_all(work.join("memory")).unwrap();
        std::fs::write(work.join("memory/note.md"), "n").unwrap();
        let spec = GitSpec {
            repo_dir: work.clone(),
            paths: vec![work.join("memory")],
            push: true,
            branch: "main".into(),
            remote: "origin".into(),
            memory: None,
            timeout_secs: None,
            no_remote: false,
            unsigned: false,
            remote_from_git: false,
            ref_from_git: false,
        };
        (dir, spec)
    }

    #[test]
    fn the_gate_holds_the_push_but_not_the_commit() {
        let (dir, spec) = repos();
        let paused = StepError::Paused {
            file: dir.path().join("PAUSE"),
            reason: None,
        };
        let err = spec
            .publish("m", &|| Err(paused.clone()), &admit_all)
            .unwrap_err();
        assert_eq!(err, paused, "a pause stays a pause, not a failure");
        let err = spec
            .publish("m", &|| Err(StepError::failed("gate broke")), &admit_all)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("nothing to commit; not pushed: gate broke"),
            "{err}"
        );
        let remote = Repository::open_bare(dir.path().join("remote.git")).unwrap();
        assert!(
            remote.find_reference("refs/heads/main").is_err(),
            "nothing was pushed"
        );
        let done = spec.publish("m", &|| Ok(()), &admit_all).unwrap();
        assert_eq!(done, "nothing to commit; pushed to origin/main");
        assert!(remote.find_reference("refs/heads/main").is_ok());
    }

    /// Issue 39, item 6.6: the gate is asked before every push and every
    /// fetch, so a brake pulled during a rejected push holds the fetch (and
    /// one pulled during the fetch, the push after it).
    #[test]
    fn the_gate_is_asked_before_every_push_and_fetch() {
        let (dir, spec) = repos();
        let remote = dir.path().join("remote.git");
        let other = dir.path().join("other");
        git(
            dir.path(),
            &[
                "clone",
                "-q",
                &remote.to_string_lossy(),
                &other.to_string_lossy(),
            ],
        );
        git(
            &other,
            &[
                "-c",
                "user.name=o",
                "-c",
                "user.email=o@e",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "theirs",
            ],
        );
        git(&other, &["push", "-q", "origin", "HEAD:refs/heads/main"]);
        let paused = StepError::Paused {
            file: dir.path().join("PAUSE"),
            reason: None,
        };
        for (stop_at, what) in [(2, "the fetch"), (3, "the second push")] {
            let asked = std::cell::Cell::new(0);
            let err = spec
                .publish(
                    "m",
                    &|| {
                        asked.set(asked.get() + 1);
                        match asked.get() == stop_at {
                            true => Err(paused.clone()),
                            false => Ok(()),
                        }
                    },
                    &admit_all,
                )
                .unwrap_err();
            assert_eq!(err, paused, "held before {what}");
            let theirs = Repository::open_bare(&remote).unwrap();
            let tip = theirs.find_reference("refs/heads/main").unwrap();
            assert_eq!(
                tip.peel_to_commit().unwrap().summary().unwrap(),
                Some("theirs"),
                "nothing was pushed ({what})"
            );
        }
        let asked = std::cell::Cell::new(0);
        let done = spec
            .publish(
                "m",
                &|| {
                    asked.set(asked.get() + 1);
                    Ok(())
                },
                &admit_all,
            )
            .unwrap();
        assert!(done.ends_with("pushed to origin/main"), "{done}");
        assert_eq!(asked.get(), 1, "integrated already: one push, one ask");
    }

    /// Issue 39, item 6.7: the user's commits a push takes along are said,
    /// three by name, the rest counted; handover commits and merges are not.
    #[test]
    fn the_users_commits_a_push_takes_along_are_said() {
        let (_dir, spec) = repos();
        let done = spec.publish("first", &|| Ok(()), &admit_all).unwrap();
        assert!(done.ends_with("; pushed to origin/main"), "{done}");
        let repo = Repository::open(&spec.repo_dir).unwrap();
        let sig = Signature::now("u", "u@example.com").unwrap();
        let mut ids = Vec::new();
        for n in 1..=5 {
            let head = repo.head().unwrap().peel_to_commit().unwrap();
            let subject = format!("parser: step {n}");
            let id = repo
                .commit(
                    Some("HEAD"),
                    &sig,
                    &sig,
                    &subject,
                    &head.tree().unwrap(),
                    &[&head],
                )
                .unwrap();
            ids.push(short(id));
        }
        let done = spec.publish("second", &|| Ok(()), &admit_all).unwrap();
        assert!(
            done.ends_with(&format!(
                "pushed to origin/main, with 5 commits of yours: {} parser: step 5, {} parser: step 4, {} parser: step 3 and 2 more",
                ids[4], ids[3], ids[2]
            )),
            "{done}"
        );
        let done = spec.publish("third", &|| Ok(()), &admit_all).unwrap();
        assert!(done.ends_with("; pushed to origin/main"), "{done}");
        assert!(made_by_a_handover("m\n\nHandover-At: 2026-05-01T00:00:00Z"));
        assert!(made_by_a_handover("agent-handover: merge origin/main"));
        assert!(!made_by_a_handover("parser: count length"));
    }

    fn admit_all(_path: &str, _bytes: &[u8]) -> Result<(), StepError> {
        Ok(())
    }

    #[test]
    fn a_refused_file_stages_and_commits_nothing() {
        let (_dir, spec) = repos();
        spec.publish("first", &|| Ok(()), &admit_all).unwrap();
        let work = &spec.repo_dir;
        std::fs::write(work.join("memory/note.md"), "n2").unwrap();
        std::fs::write(work.join("memory/new.md"), "new").unwrap();
        let asked = std::cell::RefCell::new(Vec::new());
        let err = spec
            .publish("second", &|| Ok(()), &|what, bytes| {
                asked.borrow_mut().push(what.to_string());
                match what {
                    "memory/new.md" if bytes == b"new" => Err(StepError::failed("refused")),
                    _ => Ok(()),
                }
            })
            .unwrap_err();
        assert_eq!(err, StepError::failed("refused"));
        // Everything that would leave is asked about, before anything is
        // staged: the message, the author, then each added or changed file's
        // name and content (in index order: new.md comes first).
        assert_eq!(
            asked.into_inner(),
            [
                "the commit message ([backend].message)",
                "the commit author (git config user.name and user.email)",
                "the file name memory/new.md",
                "memory/new.md",
            ]
        );
        let repo = Repository::open(work).unwrap();
        let head = repo.head().unwrap().peel_to_commit().unwrap();
        assert_eq!(head.summary().unwrap(), Some("first"));
        let index = repo.index().unwrap();
        assert!(
            index.get_path(Path::new("memory/new.md"), 0).is_none(),
            "the index on disk is untouched"
        );
        let asked = std::cell::RefCell::new(0);
        spec.publish("second", &|| Ok(()), &|_, _| {
            *asked.borrow_mut() += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(
            asked.into_inner(),
            6,
            "the message, the author, and the names and texts of new.md and the changed note.md"
        );
    }

    /// Issue 41, item 1: git sends a link's target as its blob, so the
    /// target text is asked about too.
    #[test]
    fn a_links_target_is_asked_about() {
        let (_dir, spec) = repos();
        spec.publish("first", &|| Ok(()), &admit_all).unwrap();
        std::os::unix::fs::symlink("creds/target", spec.repo_dir.join("memory/link")).unwrap();
        let asked = std::cell::RefCell::new(Vec::new());
        spec.publish("second", &|| Ok(()), &|what, bytes| {
            asked.borrow_mut().push((what.to_string(), bytes.to_vec()));
            Ok(())
        })
        .unwrap();
        assert!(
            asked.into_inner().contains(&(
                "the link target of memory/link".to_string(),
                b"creds/target".to_vec()
            )),
            "the target was asked about"
        );
    }

    /// Issue 41, item 3a: a repository asking for signed commits is
    /// refused before anything is staged, unless `sign = false`; a commit
    /// hook present is said to be skipped.
    #[test]
    fn a_signing_repository_is_refused_and_skipped_hooks_are_said() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, mut spec) = repos();
        let repo = Repository::open(&spec.repo_dir).unwrap();
        repo.config()
            .unwrap()
            .set_bool("commit.gpgsign", true)
            .unwrap();
        let err = spec
            .publish("m", &|| Ok(()), &admit_all)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("commit.gpgsign") && err.contains("sign = false"),
            "{err}"
        );
        assert!(repo.head().is_err(), "nothing was committed");
        let hook = repo.path().join("hooks/pre-commit");
        std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
        std::fs::write(&hook, "#!/bin/sh\nexit 1\n").unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(skipped_hooks(&repo), ["pre-commit"]);
        spec.unsigned = true;
        let done = spec.publish("m", &|| Ok(()), &admit_all).unwrap();
        assert!(done.contains("pre-commit hook was not run"), "{done}");
    }

    /// Issue 39, item 6.1: a file under a clean filter is committed as the
    /// filter makes it and held so in the index (as `git add` would), while
    /// the door reads it as written; one staged unfiltered before (by an
    /// older version) is put through the filter too.
    #[test]
    fn a_filtered_file_is_committed_as_its_filter_makes_it() {
        let (_dir, spec) = repos();
        let work = &spec.repo_dir;
        std::fs::write(work.join(".gitattributes"), "memory/** filter=rot\n").unwrap();
        let repo = Repository::open(work).unwrap();
        repo.config()
            .unwrap()
            .set_str("filter.rot.clean", "tr a-z n-za-m")
            .unwrap();
        std::fs::write(work.join("memory/note.md"), "hello\n").unwrap();
        let asked = std::cell::RefCell::new(Vec::new());
        spec.publish("m", &|| Ok(()), &|what, bytes| {
            asked.borrow_mut().push((what.to_string(), bytes.to_vec()));
            Ok(())
        })
        .unwrap();
        assert!(
            asked
                .into_inner()
                .contains(&("memory/note.md".to_string(), b"hello\n".to_vec())),
            "the door reads the text as written"
        );
        let committed = |repo: &Repository| {
            let tree = repo.head().unwrap().peel_to_tree().unwrap();
            let id = tree.get_path(Path::new("memory/note.md")).unwrap().id();
            (id, repo.find_blob(id).unwrap().content().to_vec())
        };
        let (id, text) = committed(&repo);
        assert_eq!(text, b"uryyb\n");
        let index = repo.index().unwrap();
        let staged = index.get_path(Path::new("memory/note.md"), 0).unwrap();
        assert_eq!(staged.id, id, "the index holds the filtered blob");
        // Staged unfiltered (the raw bytes' blob): filtered on the next publish.
        let raw = repo.blob(b"again\n").unwrap();
        std::fs::write(work.join("memory/note.md"), "again\n").unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("memory/note.md")).unwrap();
        assert_eq!(
            index.get_path(Path::new("memory/note.md"), 0).unwrap().id,
            raw
        );
        index.write().unwrap();
        spec.publish("m2", &|| Ok(()), &admit_all).unwrap();
        assert_eq!(committed(&repo).1, b"ntnva\n");
    }

    #[test]
    fn first_commit_on_an_unborn_branch_has_no_parent() {
        let (_dir, spec) = repos();
        spec.publish("first", &|| Ok(()), &admit_all).unwrap();
        let repo = Repository::open(&spec.repo_dir).unwrap();
        let head = repo.head().unwrap().peel_to_commit().unwrap();
        assert_eq!(head.summary().unwrap(), Some("first"));
        assert!(
            head.message().unwrap().contains("\n\nHandover-At: 20"),
            "the trailer that orders handovers across machines"
        );
        assert_eq!(head.parent_count(), 0);
        assert!(
            head.tree()
                .unwrap()
                .get_path(Path::new("memory/note.md"))
                .is_ok()
        );
    }
}
