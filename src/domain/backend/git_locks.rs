//! Lock files git leaves when it is killed (`index.lock`,
//! `refs/heads/<branch>.lock`, `refs/remotes/…/*.lock`, `packed-refs.lock`,
//! `HEAD.lock`, `config.lock`): found, described (path, age, whether a git
//! process is running in that repository, the command that removes it), and
//! removed only when that is safe: old enough and no git process alive.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Serialize;

/// A lock younger than this may belong to a git that is still starting.
pub const SAFE_AGE: Duration = Duration::from_secs(10 * 60);

/// One lock file in a repository's git folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GitLock {
    /// The lock file.
    pub path: PathBuf,
    /// How long ago it was last modified.
    pub age_secs: u64,
    /// Git processes running in that repository (pids).
    pub git_pids: Vec<u32>,
}

impl GitLock {
    /// Inspect the lock at `path` of the repository whose work tree is `workdir`.
    pub fn at(path: &Path, workdir: &Path) -> Self {
        let age_secs = std::fs::symlink_metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .map_or(0, |d| d.as_secs());
        GitLock {
            path: path.to_path_buf(),
            age_secs,
            git_pids: git_processes_in(workdir),
        }
    }

    /// Whether `doctor --fix` may remove it: old and no git running there.
    pub fn is_stale(&self) -> bool {
        self.git_pids.is_empty() && self.age_secs >= SAFE_AGE.as_secs()
    }

    /// One paragraph: what it is, and what to do about it.
    pub fn describe(&self) -> String {
        let running = if self.git_pids.is_empty() {
            "no git process is running in this repository, so it is stale".to_string()
        } else {
            format!(
                "git is running in this repository (pid {}): wait for it to finish",
                self.git_pids
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        format!(
            "git lock {} ({} old; {running})\n  fix: rm '{}' once no git runs there (or `agent-handover doctor --fix`), then `agent-handover resume`",
            self.path.display(),
            age(self.age_secs),
            self.path.display()
        )
    }
}

fn age(secs: u64) -> String {
    match secs {
        0..=119 => format!("{secs} s"),
        120..=7199 => format!("{} min", secs / 60),
        _ => format!("{} h", secs / 3600),
    }
}

/// Every lock file in `git_dir` (the repository's `.git`), oldest first.
pub fn find(git_dir: &Path, workdir: &Path) -> Vec<GitLock> {
    let mut found = Vec::new();
    for name in [
        "index.lock",
        "HEAD.lock",
        "config.lock",
        "packed-refs.lock",
        "shallow.lock",
    ] {
        let path = git_dir.join(name);
        if path.symlink_metadata().is_ok() {
            found.push(path);
        }
    }
    let mut stack = vec![git_dir.join("refs")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "lock") {
                found.push(path);
            }
        }
    }
    let mut locks: Vec<GitLock> = found.iter().map(|p| GitLock::at(p, workdir)).collect();
    locks.sort_by_key(|l| std::cmp::Reverse(l.age_secs));
    locks
}

/// The lock a git2 error message names (`failed to lock file '…' for
/// writing`, `… .lock': File exists`), if it names one.
pub fn named_in(message: &str) -> Option<PathBuf> {
    let start = message.find('\'')? + 1;
    let end = start + message[start..].find('\'')?;
    let path = &message[start..end];
    path.ends_with(".lock").then(|| PathBuf::from(path))
}

/// Pids of git processes working in `workdir`: their working directory
/// or an argument is inside it (as the system says, [`crate::base::procs`];
/// where it does not, none are found, and a lock still needs [`SAFE_AGE`]
/// to be stale).
pub fn git_processes_in(workdir: &Path) -> Vec<u32> {
    let Ok(root) = std::fs::canonicalize(workdir) else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = crate::base::procs::all()
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.name == "git" || p.name.starts_with("git-"))
        .filter(|p| crate::base::procs::works_in(p.pid, &root))
        .map(|p| p.pid)
        .collect();
    pids.sort_unstable();
    pids
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A git that works in the repository (here one waiting on its stdin)
    /// is found; once it ends, it is not.
    #[test]
    fn a_git_working_in_the_repository_is_found_while_it_runs() {
        let dir = tempfile::tempdir().unwrap();
        let init = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(init.success());
        let mut git = std::process::Command::new("git")
            .arg("-C")
            .arg(dir.path())
            .args(["cat-file", "--batch"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = git.id();
        let until = std::time::Instant::now() + Duration::from_secs(10);
        while !git_processes_in(dir.path()).contains(&pid) {
            assert!(std::time::Instant::now() < until, "git {pid} not found");
            std::thread::sleep(Duration::from_millis(20));
        }
        let elsewhere = tempfile::tempdir().unwrap();
        assert!(!git_processes_in(elsewhere.path()).contains(&pid));
        drop(git.stdin.take());
        git.wait().unwrap();
        assert!(!git_processes_in(dir.path()).contains(&pid));
    }

    #[test]
    fn a_lock_is_found_described_and_stale_only_when_old_and_unowned() {
        let dir = tempfile::tempdir().unwrap();
        let git_dir = dir.path().join(".git");
        std::fs::create_dir_all(git_dir.join("refs/heads")).unwrap();
        std::fs::write(git_dir.join("refs/heads/main.lock"), "").unwrap();
        std::fs::write(git_dir.join("index.lock"), "").unwrap();
        let locks = find(&git_dir, dir.path());
        assert_eq!(locks.len(), 2);
        let text = locks[0].describe();
        assert!(text.contains("rm '") && text.contains(".lock"), "{text}");
        assert!(text.contains("no git process"), "{text}");
        assert!(!locks[0].is_stale(), "a fresh lock may be a starting git's");
        let old = GitLock {
            age_secs: SAFE_AGE.as_secs(),
            ..locks[0].clone()
        };
        assert!(old.is_stale());
        let busy = GitLock {
            git_pids: vec![1],
            ..old
        };
        assert!(!busy.is_stale());
    }

    #[test]
    fn the_lock_a_git2_message_names_is_read_from_it() {
        assert_eq!(
            named_in("failed to lock file '/r/.git/refs/heads/main.lock' for writing: "),
            Some(PathBuf::from("/r/.git/refs/heads/main.lock"))
        );
        assert_eq!(named_in("failed to write 'x'"), None);
    }
}
