//! Where a git repository's memory is kept when it is on its own ref.
//!
//! One memory per repository: the folder `agent-handover/` in the git
//! folder every worktree shares (the common dir), holding `memory/`,
//! `messages/` and `tasks/` as plain files, committed to the ref
//! [`MEMORY_REF`], never to a code branch. Each worktree's branch is a
//! *workstream* with its own current state. Found from the file system
//! alone (a few `stat`s and two small reads), so `check` stays quick.

use std::path::{Path, PathBuf};

use crate::base::fsx;

/// `[backend] type` of the memory on its own ref.
pub const REF_BACKEND: &str = "ref";
/// The shared folder's name in the git common dir.
pub const SHARED_DIR: &str = "agent-handover";
/// The ref the memory is committed to.
pub const MEMORY_REF: &str = "refs/agent-handover/memory";
/// Where a fetch keeps the remote's memory ref: `<prefix>/<remote>`.
pub const REMOTE_MEMORY_PREFIX: &str = "refs/agent-handover/remotes";

/// The git folders of the work tree a path lies in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitDirs {
    /// The work tree's top folder.
    pub work_tree: PathBuf,
    /// This work tree's own git folder (`.git`, or `.git/worktrees/<name>`).
    pub git_dir: PathBuf,
    /// The folder every worktree of the repository shares.
    pub common_dir: PathBuf,
}

impl GitDirs {
    /// The work tree holding `start` (or one of its parents), as git finds it:
    /// the nearest `.git` folder, or `.git` file naming one (a linked
    /// worktree, whose `commondir` names the shared folder). `None` outside
    /// a repository.
    pub fn discover(start: &Path) -> Option<GitDirs> {
        start.ancestors().find_map(|dir| {
            let dot_git = dir.join(".git");
            let meta = std::fs::symlink_metadata(&dot_git).ok()?;
            let git_dir = if meta.is_dir() {
                dot_git
            } else if meta.is_file() {
                let text = fsx::read_text_bounded(&dot_git, 4096, "").ok()??;
                let named = text.trim().strip_prefix("gitdir:")?.trim();
                fsx::normalize(&fsx::absolutize(dir, Path::new(named)))
            } else {
                return None;
            };
            let common_dir = match std::fs::read_to_string(git_dir.join("commondir")) {
                Ok(named) => fsx::normalize(&fsx::absolutize(&git_dir, Path::new(named.trim()))),
                Err(_) => git_dir.clone(),
            };
            Some(GitDirs {
                work_tree: dir.to_path_buf(),
                git_dir,
                common_dir,
            })
        })
    }

    /// How many linked worktrees the repository has (`git worktree add`).
    pub fn linked_worktrees(&self) -> usize {
        std::fs::read_dir(self.common_dir.join("worktrees"))
            .map(|entries| entries.flatten().filter(|e| e.path().is_dir()).count())
            .unwrap_or(0)
    }

    /// The repository's shared memory folder, `<common dir>/agent-handover`.
    pub fn shared_dir(&self) -> PathBuf {
        self.common_dir.join(SHARED_DIR)
    }

    /// The workstream this work tree is on: the branch its HEAD names
    /// (`feature/x`), or `detached` on a detached HEAD.
    pub fn stream(&self) -> String {
        let head = std::fs::read_to_string(self.git_dir.join("HEAD")).unwrap_or_default();
        head.trim()
            .strip_prefix("ref: refs/heads/")
            .filter(|b| is_stream_name(b))
            .map_or_else(|| DETACHED_STREAM.to_string(), str::to_string)
    }
}

/// The workstream of a work tree whose HEAD names no branch.
pub const DETACHED_STREAM: &str = "detached";

/// Whether `name` can name a workstream's folder: `/`-separated parts, each
/// neither empty nor `.` or `..` nor starting with a dot (git's own rules
/// for branch names say as much).
pub fn is_stream_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .split('/')
            .all(|part| !part.is_empty() && !part.starts_with('.') && !part.contains('\\'))
}

/// A repository's memory kept on its own ref: the shared folder and this
/// work tree's workstream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedMemory {
    /// The repository's folders.
    pub git: GitDirs,
    /// `<common dir>/agent-handover`.
    pub dir: PathBuf,
    /// This work tree's workstream (its branch).
    pub stream: String,
}

impl SharedMemory {
    /// The shared memory of the repository `git` belongs to.
    pub fn of(git: GitDirs) -> Self {
        SharedMemory {
            dir: git.shared_dir(),
            stream: git.stream(),
            git,
        }
    }

    /// `memory/`: the layers, the index, identity.
    pub fn memory_dir(&self) -> PathBuf {
        self.dir.join("memory")
    }

    /// `messages/`: every worktree's agents' queues.
    pub fn messages_dir(&self) -> PathBuf {
        self.dir.join("messages")
    }

    /// `tasks/`: the repository's multi-step tasks.
    pub fn tasks_dir(&self) -> PathBuf {
        self.dir.join("tasks")
    }

    /// The lock one publish or sync of this memory holds, across worktrees.
    pub fn publish_lock(&self) -> PathBuf {
        self.dir.join("publish.lock")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::testing::git;

    #[test]
    fn every_worktree_finds_the_one_shared_folder_and_its_own_stream() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        std::fs::create_dir(&main).unwrap();
        git(&main, &["init", "-q", "-b", "trunk"]);
        git(
            &main,
            &["commit", "-q", "--allow-empty", "-m", "c", "--no-gpg-sign"],
        );
        git(
            &main,
            &["worktree", "add", "-q", "-b", "feature/x", "../wt"],
        );
        let here = GitDirs::discover(&main.join("src/deep")).unwrap();
        assert_eq!(here.work_tree, main);
        let there = GitDirs::discover(&dir.path().join("wt")).unwrap();
        assert_eq!(there.work_tree, dir.path().join("wt"));
        assert_ne!(here.git_dir, there.git_dir);
        let real = |p: &Path| std::fs::canonicalize(p).unwrap();
        assert_eq!(real(&here.common_dir), real(&there.common_dir));
        assert_eq!(here.stream(), "trunk");
        assert_eq!(there.stream(), "feature/x");
        git(&dir.path().join("wt"), &["checkout", "-q", "--detach"]);
        assert_eq!(there.stream(), DETACHED_STREAM);
        assert!(GitDirs::discover(Path::new("/")).is_none());
    }

    #[test]
    fn stream_names_never_leave_their_folder() {
        assert!(is_stream_name("feature/x"));
        for bad in ["", "a//b", "../x", "a/./b", ".hidden", "a/..", "a\\b"] {
            assert!(!is_stream_name(bad), "{bad:?}");
        }
    }
}
