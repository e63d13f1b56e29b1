//! Why the git backend could not do its work: one typed error for the
//! local work (git2) and the network (the `git` program), each variant
//! carrying what it found; the words a user reads, with the fix, are made
//! only when it is shown (`Display`). What git printed is read by one parser
//! per output: [`super::git_cli::push_ref`] for `git push --porcelain`,
//! [`super::git_cli::fetch_within`] for a fetch, [`GitError::from_git2`]
//! for libgit2's messages (a lock file it names).

use std::path::PathBuf;
use std::time::Duration;

use super::git_locks::{self, GitLock};

/// Why the git backend failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GitError {
    /// The `git` program could not run.
    #[error(
        "cannot run `git` ({error})\n  fix: install git 2.40 or newer and put it on PATH (agent-handover pushes and fetches through it)"
    )]
    CannotRun {
        /// The operating system's reason.
        error: String,
    },
    /// The configured directory is not in a repository.
    #[error(
        "{} is not in a git repository ({detail})\n  fix: `git init` it, or set [backend].repo_dir",
        dir.display()
    )]
    NotARepository {
        /// `[backend].repo_dir`.
        dir: PathBuf,
        /// libgit2's words.
        detail: String,
    },
    /// The repository has no work tree.
    #[error("{} is a bare repository; publish needs a work tree", dir.display())]
    Bare {
        /// `[backend].repo_dir`.
        dir: PathBuf,
    },
    /// No remote of the configured name.
    #[error(
        "no remote named {remote:?}\n  fix: `git remote add {remote} <url>`, set [backend].remote, or push = false"
    )]
    NoRemote {
        /// `[backend].remote`.
        remote: String,
    },
    /// HEAD is on another branch.
    #[error(
        "HEAD is on {head:?} but [backend].branch is {branch:?}\n  fix: `git checkout {branch}`, or set [backend].branch"
    )]
    WrongBranch {
        /// The branch HEAD is on.
        head: String,
        /// `[backend].branch`.
        branch: String,
    },
    /// HEAD is detached.
    #[error(
        "HEAD is detached\n  fix: `git checkout {branch}` so the handover commit lands on a branch"
    )]
    Detached {
        /// `[backend].branch`.
        branch: String,
    },
    /// A configured path is outside the repository.
    #[error("[backend].paths: {} is outside the repository {}", path.display(), repo.display())]
    PathOutside {
        /// The path.
        path: PathBuf,
        /// The repository's work tree.
        repo: PathBuf,
    },
    /// A fetch failed.
    #[error("fetch from {remote} failed:\n{said}")]
    FetchFailed {
        /// The remote.
        remote: String,
        /// What git said.
        said: String,
    },
    /// The remote did not answer in time.
    #[error("the remote did not answer within {} s (offline?)", limit.as_secs_f32())]
    TimedOut {
        /// The time given.
        limit: Duration,
    },
    /// A push the remote did not finish in time (it may hang, or be slow).
    #[error(
        "push to {remote} gave no answer within {} s; git said: {said}",
        limit.as_secs()
    )]
    PushTimedOut {
        /// The remote.
        remote: String,
        /// The time given.
        limit: Duration,
        /// What git printed before it was ended.
        said: String,
    },
    /// The server refused the push (a hook, a protected branch).
    #[error(
        "{remote}/{to} refused the push:\n{words}\n  fix: settle what the server says (the commit stays on {branch}), then `agent-handover retry publish`"
    )]
    PushRefused {
        /// The remote.
        remote: String,
        /// What was pushed to there: a branch's name, or a full ref.
        to: String,
        /// The branch pushed.
        branch: String,
        /// The server's own lines and git's verdict.
        words: String,
    },
    /// The remote moved on three times while we integrated.
    #[error(
        "{remote}/{branch} kept moving while we integrated (3 times)\n  fix: `agent-handover retry publish`"
    )]
    KeptMoving {
        /// The remote.
        remote: String,
        /// What was pushed to there: a branch's name, or a full ref.
        branch: String,
    },
    /// `git push` would not push the branch (push.default, a push refspec),
    /// so a handover does not either.
    #[error(
        "`git push` would not push {branch} to {remote}: {}; nothing was committed\n  fix: {}, then `agent-handover resume`",
        why.reason(branch, remote),
        why.fix(branch, remote)
    )]
    NoPush {
        /// The branch.
        branch: String,
        /// The remote it would go to.
        remote: String,
        /// Why git would push nothing of it.
        why: NoPush,
    },
    /// The remote's changes conflict with ours outside the memory.
    #[error("{0}")]
    Conflict(Box<Conflict>),
    /// The repository is in the middle of the user's own merge, rebase,
    /// cherry-pick or revert.
    #[error(
        "the repository is in the middle of a {what} ({0}): a handover commit would take its unfinished state along; nothing was committed\n  fix: finish it (`git -C {0} {what} --continue`; a merge: `git -C {0} commit`) or abort it (`git -C {0} {what} --abort`; a bisect: `git -C {0} bisect reset`), then `agent-handover resume`",
        dir.display()
    )]
    Unfinished {
        /// What is unfinished (`merge`, `rebase`, ...).
        what: String,
        /// The work tree.
        dir: PathBuf,
    },
    /// The repository asks for signed commits (`commit.gpgsign`), which a
    /// handover commit cannot make.
    #[error(
        "the repository asks for signed commits (git config commit.gpgsign = true in {0}), and a handover commit cannot be signed; nothing was committed\n  fix: set `sign = false` under [backend] in handover.toml to hand over with unsigned commits (each is marked by its Handover-At trailer), then `agent-handover resume`; or keep the memory out of git (`type = \"null\"` under [backend]) and commit it yourself, signed",
        dir.display()
    )]
    SigningAsked {
        /// The work tree.
        dir: PathBuf,
    },
    /// A memory path's clean filter (`filter=<name>` in .gitattributes)
    /// failed, or ran out of time.
    #[error(
        "the clean filter {filter:?} failed on {path}: {said}; nothing was committed\n  fix: make `git add {path}` work in this repository (the filter's `filter.{filter}.clean` command), then `agent-handover resume`"
    )]
    FilterFailed {
        /// The filter's name.
        filter: String,
        /// The path, in the repository.
        path: String,
        /// What went wrong, in git's or the filter's words.
        said: String,
    },
    /// A memory path asks for a clean filter this repository does not set
    /// up (git-crypt on a clone not unlocked, a filter from another machine).
    #[error(
        "{path} is to pass through the clean filter {filter:?} (.gitattributes), which this repository does not set up (no filter.{filter}.clean or filter.{filter}.process in its git config): committed as it is, the text would go out unfiltered; nothing was committed\n  fix: set the filter up here (for git-crypt: `git-crypt unlock`), or take the attribute off the memory paths, then `agent-handover resume`"
    )]
    FilterMissing {
        /// The filter's name.
        filter: String,
        /// The path, in the repository.
        path: String,
    },
    /// A memory file that an ignore rule keeps out of git (.gitignore,
    /// .git/info/exclude, core.excludesFile): a commit would leave it out
    /// without a word.
    #[error(
        "{path} is ignored by git ({}){}: a handover commit would leave it out without a word, and the memory would not be published; nothing was committed\n  fix: take that rule out (or undo it for the memory with a `!` line after it), or keep the memory on this machine (`type = \"null\"` under [backend]); then `agent-handover resume`",
        rule.as_deref().unwrap_or("an ignore rule"),
        match more { 0 => String::new(), 1 => ", and 1 more file".to_string(), n => format!(", and {n} more files") }
    )]
    Ignored {
        /// The first such file, in the repository.
        path: String,
        /// The rule, as `git check-ignore -v` names it (`<source>:<line>:<pattern>`).
        rule: Option<String>,
        /// How many more files it keeps out.
        more: usize,
    },
    /// A sparse checkout leaves memory files out of the work tree (their
    /// index entries skip it): a handover cannot see them, and would
    /// commit over them.
    #[error(
        "the sparse checkout leaves {first}{} out of this work tree: a handover here cannot see what they hold and would commit over it; nothing was committed\n  fix: `git sparse-checkout add {}` (or `git sparse-checkout disable`){}, then `agent-handover resume`",
        match more { 0 => String::new(), n => format!(" and {n} more file(s) under {dir}") },
        if dir.is_empty() { "." } else { dir.as_str() },
        match written_over { 0 => String::new(), n => format!("; this session wrote {n} of those files anew: `git diff -- {dir}` after the add shows what it wrote over (take back what should stay)") }
    )]
    SparseCheckout {
        /// The configured path the files are under (`""`: the work tree).
        dir: String,
        /// The first file left out.
        first: String,
        /// How many more are.
        more: usize,
        /// How many of them are in the work tree all the same (written by
        /// this session over a version it could not see).
        written_over: usize,
    },
    /// The work tree's index is a sparse index (`git sparse-checkout
    /// --sparse-index`, `index.sparse = true`), which libgit2 cannot read.
    #[error(
        "this work tree's index is a sparse index (index.sparse = true), which a handover commit (libgit2) cannot read; nothing was committed\n  fix: `git sparse-checkout set --no-sparse-index $(git sparse-checkout list) {}` (your folders, and the memory's), then `agent-handover resume`",
        if dir.is_empty() { "." } else { dir.as_str() }
    )]
    SparseIndex {
        /// The configured path the memory is under (`""`: the work tree).
        dir: String,
    },
    /// The branch is checked out in another work tree of the repository
    /// too (`git worktree add -f`).
    #[error(
        "{branch} is checked out in another work tree too ({0}): two work trees committing on one branch each commit from their own index, and one drops what the other added; nothing was committed\n  fix: give each work tree a branch of its own (`git -C {0} switch -c <name>`; or `git switch -c <name>` here, with [backend].branch to match if it is set), then `agent-handover resume`",
        other.display()
    )]
    SharedBranch {
        /// The branch.
        branch: String,
        /// The other work tree.
        other: PathBuf,
    },
    /// The index holds a conflict nobody resolved.
    #[error(
        "unresolved merge conflict in {path}\n  fix: resolve and commit it, then `agent-handover retry publish`"
    )]
    Unresolved {
        /// The file.
        path: String,
    },
    /// A file the remote changed was edited here too.
    #[error(
        "{} was edited here and {remote}/{branch} changed it: nothing was updated\n  fix: commit or move your edit aside, then run the command again",
        path.display()
    )]
    EditedHere {
        /// The file.
        path: PathBuf,
        /// The remote.
        remote: String,
        /// The branch.
        branch: String,
    },
    /// The remote's commit holds a path no work tree may take.
    #[error(
        "the remote's commit holds the path {} , which no work tree may take: nothing was updated\n  fix: remove it from the remote's branch",
        path.display()
    )]
    UnsafePath {
        /// The path.
        path: PathBuf,
    },
    /// A work-tree file could not be written.
    #[error(
        "{what} {}: {error}\n  fix: make it writable, then run the command again (the update goes on where it stopped)",
        path.display()
    )]
    WorkTree {
        /// What was being done (`remove`, `link`, `set the mode of`).
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        error: String,
    },
    /// A lock file of git's is held (another git, or one left by a kill).
    #[error("{message}\n  {}", lock.describe())]
    Locked {
        /// libgit2's words.
        message: String,
        /// The lock, its age and whether git runs in the repository.
        lock: GitLock,
    },
    /// Another libgit2 error, in its words.
    #[error("{0}")]
    Git(String),
    /// One of our own writes failed (the library's error, with its fix).
    #[error("{0}")]
    Write(String),
}

/// Why `git push` (no arguments) would push nothing of a branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoPush {
    /// `push.default = nothing`.
    Nothing,
    /// `push.default = upstream`, and the upstream is on another remote
    /// (or there is none).
    NotUpstream {
        /// The upstream's remote, if any.
        upstream_remote: Option<String>,
    },
    /// `push.default = simple` (git's default): the upstream, on the
    /// remote it would go to, has another name (a renamed branch).
    OtherName {
        /// The upstream (`refs/heads/main`).
        upstream: String,
    },
    /// `remote.<name>.push` is set, and maps nothing of the branch.
    NotInRefspecs,
}

impl NoPush {
    fn reason(&self, branch: &str, remote: &str) -> String {
        match self {
            NoPush::Nothing => "push.default is `nothing`".into(),
            NoPush::NotUpstream {
                upstream_remote: Some(other),
            } => format!("push.default is `upstream`, and the upstream of {branch} is on {other}"),
            NoPush::NotUpstream {
                upstream_remote: None,
            } => format!("push.default is `upstream`, and {branch} has no upstream"),
            NoPush::OtherName { upstream } => format!(
                "its upstream is {remote}/{}, another name, which push.default `simple` (git's default) refuses to push to",
                upstream.strip_prefix("refs/heads/").unwrap_or(upstream)
            ),
            NoPush::NotInRefspecs => {
                format!("remote.{remote}.push is set and maps nothing of refs/heads/{branch}")
            }
        }
    }

    fn fix(&self, branch: &str, remote: &str) -> String {
        match self {
            NoPush::Nothing => format!(
                "say where it goes: `git config push.default simple` (or `upstream`), or set [backend].branch (and remote) in handover.toml to push {branch} there by name"
            ),
            NoPush::NotUpstream { .. } => format!(
                "`git branch -u {remote}/<branch>` to push there, or set [backend].remote to the upstream's remote"
            ),
            NoPush::OtherName { upstream } => format!(
                "`git config push.default upstream` to push to {remote}/{}, or `git push -u {remote} {branch}` once for a branch of its own there",
                upstream.strip_prefix("refs/heads/").unwrap_or(upstream)
            ),
            NoPush::NotInRefspecs => format!(
                "add one that does (`git config --add remote.{remote}.push refs/heads/{branch}:refs/heads/{branch}`), or set [backend].branch to push {branch} by name"
            ),
        }
    }
}

/// A conflict outside the memory: both sides are kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{remote}/{branch} has changes that conflict with this handover in: {}\n  both versions are kept: ours is commit {ours} on {branch}, theirs is {remote}/{branch} ({theirs})\n  fix: `git -C {} merge {remote}/{branch}`, resolve {}, commit, then `agent-handover retry publish`",
    files.join(", "),
    dir.display(),
    files.join(", ")
)]
pub struct Conflict {
    /// The remote.
    pub remote: String,
    /// The branch.
    pub branch: String,
    /// The conflicting files.
    pub files: Vec<String>,
    /// Our commit (short id).
    pub ours: String,
    /// Theirs (short id).
    pub theirs: String,
    /// The work tree.
    pub dir: PathBuf,
}

impl GitError {
    /// A libgit2 error in the repository whose git folder is `git_dir` and
    /// work tree `workdir`: one naming a lock file (`index.lock`, a ref's
    /// `.lock`, or a lock error without a name: the index) is
    /// [`GitError::Locked`].
    pub fn from_git2(
        e: &git2::Error,
        git_dir: &std::path::Path,
        workdir: &std::path::Path,
    ) -> Self {
        let lock = git_locks::named_in(e.message())
            .or_else(|| (e.code() == git2::ErrorCode::Locked).then(|| git_dir.join("index.lock")));
        match lock {
            Some(path) => GitError::Locked {
                message: e.message().trim_end_matches([':', ' ']).to_string(),
                lock: GitLock::at(&path, workdir),
            },
            None => GitError::Git(e.message().to_string()),
        }
    }

    /// A fetch of a ref the remote does not have (yet).
    pub fn is_missing_remote_ref(&self) -> bool {
        matches!(self, GitError::FetchFailed { said, .. } if said.contains("couldn't find remote ref"))
    }
}

impl From<crate::Error> for GitError {
    fn from(e: crate::Error) -> Self {
        GitError::Write(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_named_by_libgit2_is_typed_and_shown_with_its_age_and_fix() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join(".git/refs/heads/main.lock");
        std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
        std::fs::write(&lock, "").unwrap();
        let e = git2::Error::new(
            git2::ErrorCode::Locked,
            git2::ErrorClass::Reference,
            format!("failed to lock file '{}' for writing: ", lock.display()),
        );
        let typed = GitError::from_git2(&e, &dir.path().join(".git"), dir.path());
        let GitError::Locked { lock: found, .. } = &typed else {
            panic!("not typed as a lock: {typed:?}");
        };
        assert_eq!(found.path, lock);
        let shown = typed.to_string();
        assert!(
            shown.contains("main.lock") && shown.contains("rm "),
            "{shown}"
        );
        let other = git2::Error::from_str("object not found");
        assert_eq!(
            GitError::from_git2(&other, dir.path(), dir.path()),
            GitError::Git("object not found".into())
        );
    }
}
