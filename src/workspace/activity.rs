//! What happened in a project since a moment: the commits made and the files
//! changed, measured (never guessed) so that a draft handoff can list them and
//! a stop hook can tell whether there is anything to hand over.
//!
//! In a git repository the commits come from `HEAD`'s history and the changed
//! files from `git status` (ignored files left out); elsewhere from a bounded
//! walk of the files' modification times. The memory, the message queues and
//! agent-handover's own state are never counted as work: writing them is
//! what a handover does.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use git2::{Repository, Status, StatusOptions};
use serde::Serialize;

use crate::workspace::Workspace;

/// Most commits listed.
pub const MAX_COMMITS: usize = 30;
/// Most changed files listed.
pub const MAX_FILES: usize = 50;
/// Most directory entries a walk outside git looks at.
const MAX_WALKED: usize = 20_000;
/// Directories a walk outside git never enters (besides hidden ones).
const SKIPPED_DIRS: &[&str] = &["node_modules", "target", "dist", "build", "__pycache__"];

/// The work done in a project since a moment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Activity {
    /// The moment; `None` means "ever" (no handover yet, no session start known).
    pub since: Option<DateTime<Utc>>,
    /// Commits on `HEAD` since then that touched more than the memory, newest first.
    pub commits: Vec<Commit>,
    /// Files changed and not committed (modified since then, when known).
    pub changed_files: Vec<ChangedFile>,
    /// Whether either list was cut at its maximum.
    pub truncated: bool,
    /// Whether the project is a git repository (otherwise files were walked).
    pub git: bool,
}

/// One commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Commit {
    /// Abbreviated id (10 hex digits).
    pub id: String,
    /// First line of the message.
    pub summary: String,
    /// Commit time.
    pub time: DateTime<Utc>,
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangedFile {
    /// Path relative to the project root, `/`-separated.
    pub path: String,
    /// `new`, `modified`, `deleted` or `renamed`.
    pub change: &'static str,
}

impl Activity {
    /// Whether nothing at all was done.
    pub fn is_empty(&self) -> bool {
        self.commits.is_empty() && self.changed_files.is_empty()
    }

    /// "3 commits, 5 changed files", for messages.
    pub fn describe(&self) -> String {
        let plural = |n: usize, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
        let more = if self.truncated { " or more" } else { "" };
        format!(
            "{}, {}{more}",
            plural(self.commits.len(), "commit"),
            plural(self.changed_files.len(), "changed file")
        )
    }
}

/// The work done in `ws` since `since` (everything when `None`).
///
/// Never fails: a repository that cannot be read counts as no activity of
/// that kind, because every caller would rather say less than stop.
pub fn since(ws: &Workspace, since: Option<DateTime<Utc>>) -> Activity {
    let excluded = Excluded::of(ws);
    match Repository::discover(&ws.root) {
        Ok(repo) => from_git(&repo, since, &excluded),
        Err(_) => from_files(&ws.root, since, &excluded),
    }
}

/// The paths whose changes are a handover's own, not work.
struct Excluded {
    dirs: Vec<PathBuf>,
}

impl Excluded {
    /// The workspace's memory, state and message folders (absolute already:
    /// [`Workspace::resolve`] makes them so).
    fn of(ws: &Workspace) -> Self {
        Excluded {
            dirs: vec![
                ws.memory.root.clone(),
                ws.state_dir().to_path_buf(),
                ws.messages_dir(),
            ],
        }
    }

    fn contains(&self, path: &Path) -> bool {
        self.dirs.iter().any(|d| path.starts_with(d))
    }
}

fn from_git(repo: &Repository, since: Option<DateTime<Utc>>, excluded: &Excluded) -> Activity {
    let Some(workdir) = repo.workdir().map(|w| w.canonicalize().unwrap_or(w.into())) else {
        return Activity::default();
    };
    let excluded = Excluded {
        dirs: excluded
            .dirs
            .iter()
            .map(|d| d.canonicalize().unwrap_or_else(|_| d.clone()))
            .collect(),
    };
    let is_work = |rel: &Path| !excluded.contains(&workdir.join(rel));
    let mut activity = Activity {
        since,
        git: true,
        ..Activity::default()
    };
    activity.commits = commits_since(repo, since, &is_work, &mut activity.truncated);
    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .renames_head_to_index(true);
    let Ok(statuses) = repo.statuses(Some(&mut opts)) else {
        return activity;
    };
    for entry in statuses.iter() {
        let Ok(path) = entry.path() else { continue };
        let rel = Path::new(path);
        if !is_work(rel) {
            continue;
        }
        let status = entry.status();
        let change = if status.intersects(Status::WT_DELETED | Status::INDEX_DELETED) {
            "deleted"
        } else if status.intersects(Status::WT_NEW | Status::INDEX_NEW) {
            "new"
        } else if status.intersects(Status::INDEX_RENAMED | Status::WT_RENAMED) {
            "renamed"
        } else {
            "modified"
        };
        // A file deleted, or changed before the moment, is not new work.
        let modified = std::fs::metadata(workdir.join(rel)).and_then(|m| m.modified());
        let recent = match (since, modified) {
            (None, _) => true,
            (Some(since), Ok(at)) => DateTime::<Utc>::from(at) >= since,
            (Some(_), Err(_)) => false,
        };
        if !recent {
            continue;
        }
        if activity.changed_files.len() == MAX_FILES {
            activity.truncated = true;
            break;
        }
        activity.changed_files.push(ChangedFile {
            path: path.to_string(),
            change,
        });
    }
    activity
}

/// Commits reachable from `HEAD` made after `since` that changed a path of work.
fn commits_since(
    repo: &Repository,
    since: Option<DateTime<Utc>>,
    is_work: &dyn Fn(&Path) -> bool,
    truncated: &mut bool,
) -> Vec<Commit> {
    let Ok(mut walk) = repo.revwalk() else {
        return Vec::new();
    };
    if walk.push_head().is_err() || walk.set_sorting(git2::Sort::TIME).is_err() {
        return Vec::new();
    }
    let mut commits = Vec::new();
    for oid in walk.flatten() {
        let Ok(commit) = repo.find_commit(oid) else {
            continue;
        };
        let time = DateTime::from_timestamp(commit.time().seconds(), 0).unwrap_or_default();
        if since.is_some_and(|since| time <= since) {
            break;
        }
        if !touches_work(repo, &commit, is_work) {
            continue;
        }
        if commits.len() == MAX_COMMITS {
            *truncated = true;
            break;
        }
        commits.push(Commit {
            id: oid.to_string()[..10].to_string(),
            summary: commit.summary().ok().flatten().unwrap_or("").to_string(),
            time,
        });
    }
    commits
}

/// Whether `commit` changed anything outside the memory (a publish commit does not).
fn touches_work(
    repo: &Repository,
    commit: &git2::Commit<'_>,
    is_work: &dyn Fn(&Path) -> bool,
) -> bool {
    let Ok(tree) = commit.tree() else {
        return true;
    };
    let parent = commit.parent(0).ok().and_then(|p| p.tree().ok());
    let Ok(diff) = repo.diff_tree_to_tree(parent.as_ref(), Some(&tree), None) else {
        return true;
    };
    diff.deltas().any(|d| {
        [d.new_file().path(), d.old_file().path()]
            .into_iter()
            .flatten()
            .any(is_work)
    })
}

/// Outside git: files under `root` modified after `since` (nothing when `None`:
/// without a moment every file would count).
fn from_files(root: &Path, since: Option<DateTime<Utc>>, excluded: &Excluded) -> Activity {
    let mut activity = Activity {
        since,
        ..Activity::default()
    };
    let Some(since) = since else {
        return activity;
    };
    let since = SystemTime::from(since);
    let mut stack = vec![root.to_path_buf()];
    let mut walked = 0usize;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            walked += 1;
            if walked > MAX_WALKED {
                activity.truncated = true;
                return activity;
            }
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || excluded.contains(&path) {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !SKIPPED_DIRS.contains(&name.as_ref()) {
                    stack.push(path);
                }
                continue;
            }
            let recent = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|at| at >= since);
            if !recent {
                continue;
            }
            if activity.changed_files.len() == MAX_FILES {
                activity.truncated = true;
                return activity;
            }
            let rel = path.strip_prefix(root).unwrap_or(&path);
            activity.changed_files.push(ChangedFile {
                path: rel.to_string_lossy().replace('\\', "/"),
                change: "modified",
            });
        }
    }
    activity.changed_files.sort_by(|a, b| a.path.cmp(&b.path));
    activity
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(dir: &Path) -> Workspace {
        Workspace::in_dir(dir)
    }

    fn commit_all(repo: &Repository, message: &str) {
        let mut index = repo.index().unwrap();
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        index.write().unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
        let parents: Vec<_> = parent.iter().collect();
        repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
            .unwrap();
    }

    #[test]
    fn git_work_is_commits_and_changed_files_but_not_the_memory() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
        commit_all(&repo, "add a");
        std::fs::create_dir_all(dir.path().join("memory/layer2")).unwrap();
        std::fs::write(dir.path().join("memory/layer2/current-state.md"), "x\n").unwrap();
        commit_all(&repo, "handover: general session");
        std::fs::write(dir.path().join("b.rs"), "fn b() {}\n").unwrap();
        std::fs::create_dir_all(dir.path().join(".agent-handover")).unwrap();
        std::fs::write(dir.path().join(".agent-handover/checkpoint.json"), "{}").unwrap();
        std::fs::write(dir.path().join("memory/layer2/current-state.md"), "y\n").unwrap();

        let ws = workspace(dir.path());
        let got = since(&ws, None);
        assert!(got.git);
        let summaries: Vec<_> = got.commits.iter().map(|c| c.summary.as_str()).collect();
        assert_eq!(summaries, ["add a"], "the publish commit is not work");
        let files: Vec<_> = got
            .changed_files
            .iter()
            .map(|f| (f.path.as_str(), f.change))
            .collect();
        assert_eq!(files, [("b.rs", "new")]);
        assert_eq!(got.describe(), "1 commit, 1 changed file");

        let later = Utc::now() + chrono::Duration::hours(1);
        assert!(
            since(&ws, Some(later)).is_empty(),
            "nothing after the moment"
        );
    }

    #[test]
    fn outside_git_files_modified_after_the_moment_count() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/main.py"), "print(1)\n").unwrap();
        std::fs::create_dir_all(dir.path().join("node_modules/x")).unwrap();
        std::fs::write(dir.path().join("node_modules/x/i.js"), "1").unwrap();
        assert!(since(&ws, None).is_empty(), "no moment, no claim");
        let before = Utc::now() - chrono::Duration::hours(1);
        let got = since(&ws, Some(before));
        assert!(!got.git);
        let files: Vec<_> = got.changed_files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(files, ["src/main.py"]);
    }
}
