//! What happened in a project since a moment: the commits made and the files
//! changed, measured (never guessed) so that a draft handoff can list them and
//! a stop hook can tell whether there is anything to hand over.
//!
//! In a git repository the commits come from `HEAD`'s history and the changed
//! files from `git status` (ignored files left out); elsewhere from a bounded
//! walk of the files' modification times. The memory, the message queues and
//! agent-handover's own state are never counted as work: writing them is
//! what a handover does; nor are the agents' settings files that `install`
//! manages (an agent rewrites its own, as OpenCode adds `$schema` to
//! `opencode.json`).
//!
//! Work is measured from what a handover covered ([`since_covered`]: the
//! [`Baseline`] it took of the work tree, by ancestry alone: the commits
//! `HEAD` has that the handover's `HEAD` has not, and the files changed
//! after it saw them, so a commit in the handover's second is before or
//! after it as the commit graph says, never the clock); from a [`Baseline`]
//! taken when a session started ([`since_baseline`]: the same, and commits
//! older than the start that a pull or a checkout brings are not the
//! session's); or from a moment ([`since`]: the last handover of a record
//! that holds no baseline, written before handovers took one, or outside
//! git, where file times are all there is). Commit times have whole seconds:
//! measured from a moment, a commit in the same second as the moment counts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use git2::{Repository, Status, StatusOptions};
use serde::{Deserialize, Serialize};

use crate::workspace::Workspace;
use crate::workspace::install_record::InstallRecord;

/// Most commits listed.
pub const MAX_COMMITS: usize = 30;
/// Most changed files listed.
pub const MAX_FILES: usize = 50;
/// An index this large (about 5,000 tracked files) has its status read by
/// `git status` itself: libgit2 stats the files one at a time and walks
/// `HEAD`'s tree without the index's cache of it, and beyond this costs
/// more than starting git (benches/hooks.rs: at 50,000 files libgit2's
/// status took 1.5 times `git status`).
const CLI_STATUS_INDEX_BYTES: u64 = 512 * 1024;
/// Most directory entries a walk outside git looks at.
const MAX_WALKED: usize = 20_000;
/// Directories a walk outside git never enters (besides hidden ones).
const SKIPPED_DIRS: &[&str] = &["node_modules", "target", "dist", "build", "__pycache__"];

/// The work done in a project since a moment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Activity {
    /// The moment; `None` means "ever" (no handover yet, no session start known).
    pub since: Option<DateTime<Utc>>,
    /// What it was measured from.
    pub from: Measured,
    /// Commits on `HEAD` since then that touched more than the memory, newest first.
    pub commits: Vec<Commit>,
    /// Files changed and not committed (modified since then, when known).
    pub changed_files: Vec<ChangedFile>,
    /// Whether either list was cut at its maximum.
    pub truncated: bool,
    /// Whether the project is a git repository (otherwise files were walked).
    pub git: bool,
}

/// What work was measured from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measured {
    /// Nothing: all of `HEAD`'s history (no handover, no session start known).
    #[default]
    Ever,
    /// What a handover covered (its `HEAD` and work tree): by ancestry.
    Covered,
    /// A session's start (its baseline).
    SessionStart,
    /// A moment, by the clock: a handover recorded without what it
    /// covered, or outside git.
    Moment,
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

/// Most uncommitted files a [`Baseline`] lists (beyond them, a file counts
/// when it was modified after the baseline was taken).
pub const MAX_BASELINE_FILES: usize = 300;

/// The work tree as a session found it when it started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    /// When it was taken.
    pub at: DateTime<Utc>,
    /// `HEAD`'s commit then (none: not a git repository, or no commit yet).
    pub head: Option<String>,
    /// The files that were uncommitted then (work paths only), each with
    /// its size and modification time in nanoseconds.
    pub dirty: BTreeMap<String, (u64, i128)>,
    /// More were uncommitted than [`MAX_BASELINE_FILES`].
    pub truncated: bool,
}

/// What a handover starting now covers in `ws`: its work tree (see
/// [`baseline`]), when `ws` is in a git repository (elsewhere there is no
/// `HEAD` to measure from, and the handover's moment is what work is
/// measured from).
pub fn covered(ws: &Workspace) -> Option<Baseline> {
    Repository::discover(&ws.root).is_ok().then(|| baseline(ws))
}

/// The work tree of `ws` now, as a baseline for a session starting now.
pub fn baseline(ws: &Workspace) -> Baseline {
    let mut baseline = Baseline {
        at: Utc::now(),
        head: None,
        dirty: BTreeMap::new(),
        truncated: false,
    };
    let Ok(repo) = Repository::discover(&ws.root) else {
        return baseline;
    };
    let Some(tree) = WorkTree::open(&repo, &Excluded::of(ws)) else {
        return baseline;
    };
    baseline.head = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .map(|c| c.id().to_string());
    for (path, _) in tree.changed() {
        if baseline.dirty.len() == MAX_BASELINE_FILES {
            baseline.truncated = true;
            break;
        }
        baseline.dirty.insert(path.clone(), tree.fingerprint(&path));
    }
    baseline
}

/// The work done in `ws` since `since` (everything when `None`).
///
/// Never fails: a repository that cannot be read counts as no activity of
/// that kind, because every caller would rather say less than stop.
pub fn since(ws: &Workspace, since: Option<DateTime<Utc>>) -> Activity {
    let excluded = Excluded::of(ws);
    match Repository::discover(&ws.root) {
        Ok(repo) => from_git(&repo, Start::Moment(since), &excluded),
        Err(_) => from_files(&ws.root, since, &excluded),
    }
}

/// The work done in `ws` since a session's `baseline` was taken: commits
/// `HEAD` gained since (not older than the start: a pull's or a
/// checkout's), and files changed after the baseline saw them.
pub fn since_baseline(ws: &Workspace, baseline: &Baseline) -> Activity {
    let excluded = Excluded::of(ws);
    match Repository::discover(&ws.root) {
        Ok(repo) => from_git(&repo, Start::Baseline(baseline), &excluded),
        Err(_) => Activity {
            from: Measured::SessionStart,
            ..from_files(&ws.root, Some(baseline.at), &excluded)
        },
    }
}

/// The work done in `ws` since a handover that `covered` this (see
/// [`covered`]), by ancestry alone: the commits `HEAD` has that the
/// covered `HEAD` has not, and the files changed after the handover saw
/// them. (A covered `HEAD` no longer in the repository, rewritten and
/// collected, leaves the commits made from the handover's second on.)
pub fn since_covered(ws: &Workspace, covered: &Baseline) -> Activity {
    let excluded = Excluded::of(ws);
    match Repository::discover(&ws.root) {
        Ok(repo) => from_git(&repo, Start::Covered(covered), &excluded),
        Err(_) => from_files(&ws.root, Some(covered.at), &excluded),
    }
}

/// The newest (at most `max`) commits `HEAD` has that the `HEAD` a
/// handover covered (`covered_head`) has not, each with those of `paths` (relative to the
/// project root; asked for only when there are commits to look at) it changed: the commit graph alone, no status read and no
/// diff, for the brief made at every session start. When `HEAD` is still
/// the covered one (read from git's files: no repository opened), nothing
/// is looked up. Empty when the covered `HEAD` is no longer in the
/// repository: what came after it cannot be told.
pub fn commits_after(
    ws: &Workspace,
    covered_head: &str,
    max: usize,
    paths: impl FnOnce() -> Vec<String>,
) -> Vec<(Commit, Vec<String>)> {
    if head_from_files(&ws.root).as_deref() == Some(covered_head) {
        return Vec::new();
    }
    let paths = paths();
    let Ok(repo) = Repository::discover(&ws.root) else {
        return Vec::new();
    };
    let Ok(mut walk) = repo.revwalk() else {
        return Vec::new();
    };
    let hidden = git2::Oid::from_str(covered_head).is_ok_and(|oid| walk.hide(oid).is_ok());
    if !hidden || walk.push_head().is_err() || walk.set_sorting(git2::Sort::TIME).is_err() {
        return Vec::new();
    }
    // The paths as the repository names them (the project may be a folder of it).
    let prefix = repo
        .workdir()
        .and_then(|w| {
            let root = ws.root.canonicalize().ok()?;
            let work = w.canonicalize().ok()?;
            root.strip_prefix(&work).ok().map(Path::to_path_buf)
        })
        .unwrap_or_default();
    let entry = |tree: Option<&git2::Tree<'_>>, path: &Path| {
        tree.and_then(|t| t.get_path(path).ok()).map(|e| e.id())
    };
    let mut found = Vec::new();
    for oid in walk.flatten().take(max) {
        let Ok(commit) = repo.find_commit(oid) else {
            continue;
        };
        let tree = commit.tree().ok();
        let parent = commit.parent(0).ok().and_then(|p| p.tree().ok());
        let changed: Vec<String> = paths
            .iter()
            .filter(|p| {
                let path = prefix.join(p);
                entry(tree.as_ref(), &path) != entry(parent.as_ref(), &path)
            })
            .cloned()
            .collect();
        found.push((
            Commit {
                id: oid.to_string()[..10].to_string(),
                summary: commit.summary().ok().flatten().unwrap_or("").to_string(),
                time: DateTime::from_timestamp(commit.time().seconds(), 0).unwrap_or_default(),
            },
            changed,
        ));
    }
    found
}

/// `HEAD`'s commit id read from the files git keeps it in (a loose or a
/// packed ref, or a detached `HEAD`), without opening the repository;
/// `None` when it cannot be told so.
fn head_from_files(root: &Path) -> Option<String> {
    let dirs = crate::workspace::store::GitDirs::discover(root)?;
    let head = std::fs::read_to_string(dirs.git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    let is_id = |s: &str| s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit());
    let Some(name) = head.strip_prefix("ref: ") else {
        return is_id(head).then(|| head.to_string());
    };
    for dir in [&dirs.git_dir, &dirs.common_dir] {
        if let Ok(id) = std::fs::read_to_string(dir.join(name)) {
            let id = id.trim();
            return is_id(id).then(|| id.to_string());
        }
    }
    let packed = std::fs::read_to_string(dirs.common_dir.join("packed-refs")).ok()?;
    packed.lines().find_map(|l| {
        let (id, ref_name) = l.split_once(' ')?;
        (ref_name == name && is_id(id)).then(|| id.to_string())
    })
}

/// Where work is measured from.
#[derive(Clone, Copy)]
enum Start<'a> {
    Moment(Option<DateTime<Utc>>),
    Baseline(&'a Baseline),
    Covered(&'a Baseline),
}

impl<'a> Start<'a> {
    /// The work tree a baseline saw, when work is measured from one.
    fn seen(self) -> Option<&'a Baseline> {
        match self {
            Start::Moment(_) => None,
            Start::Baseline(b) | Start::Covered(b) => Some(b),
        }
    }

    fn measured(self) -> Measured {
        match self {
            Start::Moment(None) => Measured::Ever,
            Start::Moment(Some(_)) => Measured::Moment,
            Start::Baseline(_) => Measured::SessionStart,
            Start::Covered(_) => Measured::Covered,
        }
    }
}

/// The paths whose changes are no work (see [`Excluded`]) that lie in the
/// work tree of the repository holding `ws`, relative to it and
/// `/`-separated, folders ending in `/`: what a commit that changed only
/// these did was a handover's or an install's.
pub fn not_work_paths(ws: &Workspace) -> Vec<String> {
    let Some(top) = Repository::discover(&ws.root)
        .ok()
        .and_then(|r| r.workdir().and_then(|w| w.canonicalize().ok()))
    else {
        return Vec::new();
    };
    let excluded = Excluded::of(ws).canonical();
    let relative = |p: &Path| -> Option<String> {
        let rel = p.strip_prefix(&top).ok()?.to_str()?;
        (!rel.is_empty()).then(|| rel.replace('\\', "/"))
    };
    let dirs = excluded
        .dirs
        .iter()
        .filter_map(|d| relative(d))
        .map(|d| format!("{d}/"));
    let files = excluded.files.iter().filter_map(|f| relative(f));
    dirs.chain(files).collect()
}

/// The paths whose changes are not work: a handover's own, and the agents'
/// settings files `install` manages.
struct Excluded {
    dirs: Vec<PathBuf>,
    files: Vec<PathBuf>,
}

impl Excluded {
    /// The workspace's memory, state and message folders (absolute already:
    /// [`Workspace::resolve`] makes them so), its config, and every file of
    /// the install record but the instructions (Markdown: an agent's edit
    /// of those is work).
    fn of(ws: &Workspace) -> Self {
        let mut files: Vec<PathBuf> = ws.config_path.iter().cloned().collect();
        files.extend(installed_settings(ws).into_iter().map(|f| ws.root.join(f)));
        Excluded {
            dirs: vec![
                ws.memory.root.clone(),
                ws.state_dir().to_path_buf(),
                ws.messages_dir(),
            ],
            files,
        }
    }

    fn contains(&self, path: &Path) -> bool {
        self.dirs.iter().any(|d| path.starts_with(d)) || self.files.iter().any(|f| path == f)
    }

    /// The same paths with symlinks resolved (git reports real paths).
    fn canonical(&self) -> Self {
        let real = |p: &PathBuf| p.canonicalize().unwrap_or_else(|_| p.clone());
        Excluded {
            dirs: self.dirs.iter().map(real).collect(),
            files: self
                .files
                .iter()
                .map(|f| match (f.parent(), f.file_name()) {
                    // The file itself may not exist: resolve its folder.
                    (Some(dir), Some(name)) => real(&dir.to_path_buf()).join(name),
                    _ => f.clone(),
                })
                .collect(),
        }
    }
}

/// The files `install` manages that are settings, not instructions (an
/// agent's edit of those is work): every file of the install record but
/// Markdown. No record, or one that cannot be read, excludes nothing.
fn installed_settings(ws: &Workspace) -> Vec<String> {
    InstallRecord::load(&ws.install_record())
        .map(|record| {
            record
                .files
                .into_keys()
                .filter(|f| !f.ends_with(".md") && !f.ends_with(".mdc"))
                .collect()
        })
        .unwrap_or_default()
}

/// A repository's work tree, its work paths only.
struct WorkTree<'r> {
    repo: &'r Repository,
    workdir: PathBuf,
    excluded: Excluded,
}

impl<'r> WorkTree<'r> {
    fn open(repo: &'r Repository, excluded: &Excluded) -> Option<Self> {
        let workdir = repo
            .workdir()
            .map(|w| w.canonicalize().unwrap_or(w.into()))?;
        Some(WorkTree {
            repo,
            workdir,
            excluded: excluded.canonical(),
        })
    }

    fn is_work(&self, rel: &Path) -> bool {
        !self.excluded.contains(&self.workdir.join(rel))
    }

    /// Uncommitted work files (ignored ones left out), with their change:
    /// in a large repository (an index of [`CLI_STATUS_INDEX_BYTES`] or
    /// more) as `git status` lists them (the user's git, with what makes it
    /// quick there: its parallel index preload, an untracked cache,
    /// fsmonitor), else (or when git cannot be run) as libgit2 reads them.
    fn changed(&self) -> Vec<(String, &'static str)> {
        let large = std::fs::metadata(self.repo.path().join("index"))
            .is_ok_and(|m| m.len() >= CLI_STATUS_INDEX_BYTES);
        let listed = large
            .then(|| git_status(&self.workdir))
            .flatten()
            .unwrap_or_else(|| self.statuses());
        listed
            .into_iter()
            .filter(|(path, _)| self.is_work(Path::new(path)))
            .collect()
    }

    /// [`WorkTree::changed`] through libgit2.
    fn statuses(&self) -> Vec<(String, &'static str)> {
        let mut opts = StatusOptions::new();
        opts.include_untracked(true)
            .recurse_untracked_dirs(true)
            .include_ignored(false)
            .renames_head_to_index(true);
        let Ok(statuses) = self.repo.statuses(Some(&mut opts)) else {
            return Vec::new();
        };
        let mut changed = Vec::new();
        for entry in statuses.iter() {
            let Ok(path) = entry.path() else { continue };
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
            changed.push((path.to_string(), change));
        }
        changed
    }

    /// A file's size and modification time (nanoseconds), `(0, 0)` when it
    /// is gone.
    fn fingerprint(&self, rel: &str) -> (u64, i128) {
        std::fs::metadata(self.workdir.join(rel))
            .map(|m| {
                let at = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos() as i128);
                (m.len(), at)
            })
            .unwrap_or((0, 0))
    }

    /// When a file was last modified, if it exists.
    fn modified(&self, rel: &str) -> Option<DateTime<Utc>> {
        std::fs::metadata(self.workdir.join(rel))
            .and_then(|m| m.modified())
            .ok()
            .map(DateTime::<Utc>::from)
    }
}

/// The uncommitted files of the work tree at `workdir` (paths relative to
/// it; ignored files left out), with their change, as `git status
/// --porcelain -z` lists them; `None` when git cannot be run or fails. It
/// takes no lock and writes nothing (`--no-optional-locks`), and the
/// repository is the one at `workdir`, whatever the environment names.
fn git_status(workdir: &Path) -> Option<Vec<(String, &'static str)>> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(workdir)
        .args([
            "--no-optional-locks",
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
        ])
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_COMMON_DIR")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(parse_porcelain(&out.stdout))
}

/// `git status --porcelain=v1 -z` output: `XY path`, a rename or copy
/// followed by its original path. Paths that are not UTF-8 are skipped (as
/// libgit2's are).
fn parse_porcelain(out: &[u8]) -> Vec<(String, &'static str)> {
    let mut entries = out.split(|b| *b == 0);
    let mut changed = Vec::new();
    while let Some(entry) = entries.next() {
        let [x, y, b' ', path @ ..] = entry else {
            continue;
        };
        if matches!(x, b'R' | b'C') {
            entries.next();
        }
        let change = match (x, y) {
            (b'D', _) | (_, b'D') => "deleted",
            (b'A' | b'?', _) => "new",
            (b'R' | b'C', _) => "renamed",
            _ => "modified",
        };
        if let Ok(path) = std::str::from_utf8(path) {
            changed.push((path.to_string(), change));
        }
    }
    changed
}

fn from_git(repo: &Repository, from: Start<'_>, excluded: &Excluded) -> Activity {
    let Some(tree) = WorkTree::open(repo, excluded) else {
        return Activity {
            from: from.measured(),
            ..Activity::default()
        };
    };
    let since = match from {
        Start::Moment(since) => since,
        Start::Baseline(b) | Start::Covered(b) => Some(b.at),
    };
    let mut activity = Activity {
        since,
        from: from.measured(),
        git: true,
        ..Activity::default()
    };
    // A commit of what the baseline found uncommitted, unchanged since (the
    // files `install` wrote, committed now; what a handover described,
    // committed as it was), is not new work.
    let is_work = |rel: &Path| {
        tree.is_work(rel)
            && !from.seen().is_some_and(|b| {
                rel.to_str()
                    .and_then(|r| b.dirty.get(r).map(|seen| (r, seen)))
                    .is_some_and(|(r, seen)| *seen == tree.fingerprint(r))
            })
    };
    activity.commits = commits_since(repo, from, &is_work, &mut activity.truncated);
    for (path, change) in tree.changed() {
        let new_work = match from.seen() {
            None => match since {
                None => true,
                // A file deleted, or changed before the moment, is not new work.
                Some(since) => tree.modified(&path).is_some_and(|at| at >= since),
            },
            // Changed since the baseline saw it (or new to it).
            Some(b) => match b.dirty.get(&path) {
                Some(seen) => *seen != tree.fingerprint(&path),
                None if b.truncated => tree.modified(&path).is_none_or(|at| at >= b.at),
                None => true,
            },
        };
        if !new_work {
            continue;
        }
        if activity.changed_files.len() == MAX_FILES {
            activity.truncated = true;
            break;
        }
        activity.changed_files.push(ChangedFile { path, change });
    }
    activity
}

/// Commits reachable from `HEAD` that changed a path of work: from a
/// handover's coverage, those its `HEAD` does not reach (the graph alone);
/// from a session's baseline, those its `HEAD` does not reach made in or
/// after the start's second; from a moment, those made in or after its
/// second (commit times have whole seconds).
fn commits_since(
    repo: &Repository,
    from: Start<'_>,
    is_work: &dyn Fn(&Path) -> bool,
    truncated: &mut bool,
) -> Vec<Commit> {
    let Ok(mut walk) = repo.revwalk() else {
        return Vec::new();
    };
    if walk.push_head().is_err() || walk.set_sorting(git2::Sort::TIME).is_err() {
        return Vec::new();
    }
    let hidden = |walk: &mut git2::Revwalk<'_>, b: &Baseline| match b.head.as_deref() {
        None => true,
        Some(head) => git2::Oid::from_str(head).is_ok_and(|oid| walk.hide(oid).is_ok()),
    };
    let since_second = match from {
        Start::Moment(since) => since.map(|s| s.timestamp()),
        // What HEAD had at the start is not this session's; nor is what a
        // pull or a checkout brings that is older than the start.
        Start::Baseline(b) => {
            hidden(&mut walk, b);
            Some(b.at.timestamp())
        }
        // What the handover's HEAD reaches it covered, whatever the times;
        // only a HEAD no longer in the repository leaves the clock.
        Start::Covered(b) => (!hidden(&mut walk, b)).then(|| b.at.timestamp()),
    };
    let mut commits = Vec::new();
    for oid in walk.flatten() {
        let Ok(commit) = repo.find_commit(oid) else {
            continue;
        };
        let seconds = commit.time().seconds();
        if since_second.is_some_and(|since| seconds < since) {
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
            time: DateTime::from_timestamp(seconds, 0).unwrap_or_default(),
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
        from: if since.is_some() {
            Measured::Moment
        } else {
            Measured::Ever
        },
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
    fn from_a_baseline_only_what_changed_after_it_is_work() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
        commit_all(&repo, "add a");
        std::fs::write(dir.path().join("left.rs"), "left over\n").unwrap();
        let ws = workspace(dir.path());
        let start = baseline(&ws);
        assert_eq!(start.dirty.len(), 1);
        assert!(start.head.is_some());
        assert!(
            since_baseline(&ws, &start).is_empty(),
            "found uncommitted, untouched"
        );
        commit_all(&repo, "commit what was left");
        assert!(
            since_baseline(&ws, &start).is_empty(),
            "committing what the start found is not new work"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::write(dir.path().join("a.rs"), "fn a() { b() }\n").unwrap();
        let got = since_baseline(&ws, &start);
        assert_eq!(got.changed_files.len(), 1, "{got:?}");
        commit_all(&repo, "call b");
        let got = since_baseline(&ws, &start);
        let summaries: Vec<_> = got.commits.iter().map(|c| c.summary.as_str()).collect();
        assert_eq!(summaries, ["call b"]);
    }

    /// Issue 40: a commit in the same second as the last handover counted
    /// as after it, whichever came first. From what the handover covered,
    /// the commit graph says: what its `HEAD` reaches is before it, the rest
    /// after, whatever their times.
    #[test]
    fn from_what_a_handover_covered_the_graph_says_what_came_after() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let ws = workspace(dir.path());
        std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
        commit_all(&repo, "before the handover");
        std::fs::write(dir.path().join("wip.rs"), "// described in the note\n").unwrap();
        let covered = covered(&ws).expect("a git repository");
        assert!(covered.head.is_some() && covered.dirty.contains_key("wip.rs"));
        // Dated a second before the commit, a clock would count it; the
        // graph says the handover's HEAD reaches it.
        let mut c = covered.clone();
        c.at -= chrono::Duration::seconds(1);
        assert!(
            since_covered(&ws, &c).is_empty(),
            "covered: {:?}",
            since_covered(&ws, &c)
        );
        assert_eq!(since_covered(&ws, &covered).from, Measured::Covered);
        // The described file committed as it was: not new work.
        commit_all(&repo, "commit what the note described");
        assert!(since_covered(&ws, &covered).commits.is_empty());
        // A commit after it, stamped a minute before the handover: after it.
        std::fs::write(dir.path().join("a.rs"), "fn a() { b() }\n").unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("a.rs")).unwrap();
        index.write().unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let early = git2::Time::new(covered.at.timestamp() - 60, 0);
        let sig = git2::Signature::new("t", "t@example.com", &early).unwrap();
        let parent = repo.head().unwrap().peel_to_commit().unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "call b", &tree, &[&parent])
            .unwrap();
        let got = since_covered(&ws, &covered);
        let summaries: Vec<_> = got.commits.iter().map(|c| c.summary.as_str()).collect();
        assert_eq!(summaries, ["call b"], "{got:?}");
        // A file changed after the handover saw it is new work.
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::write(dir.path().join("new.rs"), "fn new() {}\n").unwrap();
        let files: Vec<_> = since_covered(&ws, &covered)
            .changed_files
            .into_iter()
            .map(|f| f.path)
            .collect();
        assert_eq!(files, ["new.rs"]);
        // A HEAD the repository no longer has leaves the handover's second.
        let mut lost = covered.clone();
        lost.head = Some("0123456789abcdef0123456789abcdef01234567".into());
        lost.at = Utc::now() + chrono::Duration::hours(1);
        assert!(since_covered(&ws, &lost).commits.is_empty());
        // Outside git a handover covers nothing to measure from.
        let plain = tempfile::tempdir().unwrap();
        assert_eq!(super::covered(&workspace(plain.path())), None);
    }

    /// The CLI's list and libgit2's agree (the CLI is asked first).
    #[test]
    fn git_status_and_libgit2_list_the_same_changes() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        for f in ["a.rs", "b.rs", "c.rs"] {
            std::fs::write(dir.path().join(f), "x\n").unwrap();
        }
        std::fs::write(dir.path().join(".gitignore"), "*.log\n").unwrap();
        commit_all(&repo, "three");
        std::fs::write(dir.path().join("a.rs"), "y\n").unwrap();
        std::fs::remove_file(dir.path().join("b.rs")).unwrap();
        std::fs::create_dir_all(dir.path().join("new/deep")).unwrap();
        std::fs::write(dir.path().join("new/deep/n.rs"), "n\n").unwrap();
        std::fs::write(dir.path().join("debug.log"), "ignored\n").unwrap();
        std::fs::write(dir.path().join("sp ace.rs"), "s\n").unwrap();
        let ws = workspace(dir.path());
        let tree = WorkTree::open(&repo, &Excluded::of(&ws)).unwrap();
        let mut cli = git_status(&tree.workdir).expect("git runs here");
        let mut lib = tree.statuses();
        cli.sort();
        lib.sort();
        assert_eq!(cli, lib);
        assert_eq!(
            cli,
            [
                ("a.rs".to_string(), "modified"),
                ("b.rs".to_string(), "deleted"),
                ("new/deep/n.rs".to_string(), "new"),
                ("sp ace.rs".to_string(), "new"),
            ]
        );
        assert_eq!(
            parse_porcelain(b"R  new.rs\0old.rs\0?? u.rs\0"),
            [
                ("new.rs".to_string(), "renamed"),
                ("u.rs".to_string(), "new")
            ]
        );
    }

    #[test]
    fn head_is_read_from_gits_files_as_git2_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        assert_eq!(head_from_files(dir.path()), None, "no commit yet");
        std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
        commit_all(&repo, "add a");
        let head = repo.head().unwrap();
        let id = head.target().unwrap().to_string();
        let name = head.name().unwrap().to_string();
        assert_eq!(head_from_files(dir.path()).as_deref(), Some(id.as_str()));
        // Packed.
        std::fs::remove_file(repo.path().join(&name)).unwrap();
        std::fs::write(
            repo.path().join("packed-refs"),
            format!("# pack-refs with: peeled fully-peeled sorted\n{id} {name}\n"),
        )
        .unwrap();
        assert_eq!(head_from_files(dir.path()).as_deref(), Some(id.as_str()));
        // Detached.
        std::fs::write(repo.path().join("HEAD"), format!("{id}\n")).unwrap();
        assert_eq!(head_from_files(dir.path()).as_deref(), Some(id.as_str()));
    }

    #[test]
    fn the_commits_after_a_handover_name_the_paths_they_changed() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let ws = workspace(dir.path());
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/parse.rs"), "fn p() {}\n").unwrap();
        commit_all(&repo, "the parser");
        let covered = covered(&ws).unwrap().head.unwrap();
        let named = ["src/parse.rs".to_string(), "src/lint.rs".to_string()];
        let asked = std::cell::Cell::new(false);
        let paths = || {
            asked.set(true);
            named.to_vec()
        };
        assert!(
            commits_after(&ws, &covered, 30, paths).is_empty(),
            "HEAD is the covered one"
        );
        assert!(
            !asked.get(),
            "nothing looked up while HEAD is the covered one"
        );
        std::fs::write(dir.path().join("README.md"), "# p\n").unwrap();
        commit_all(&repo, "readme");
        std::fs::write(dir.path().join("src/parse.rs"), "fn p() { }\n").unwrap();
        commit_all(&repo, "fix the parser");
        let got: Vec<(String, Vec<String>)> = commits_after(&ws, &covered, 30, || named.to_vec())
            .into_iter()
            .map(|(c, paths)| (c.summary, paths))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "fix the parser".to_string(),
                    vec!["src/parse.rs".to_string()]
                ),
                ("readme".to_string(), vec![]),
            ]
        );
        assert_eq!(commits_after(&ws, &covered, 1, || named.to_vec()).len(), 1);
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
