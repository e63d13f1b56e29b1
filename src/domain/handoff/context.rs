//! What the linter knows beyond the text: the project root (for path
//! checks), earlier handoffs, the inbox and the commit log. Gathered once
//! from a workspace by [`LintContext::for_workspace`], so [`super::lint`]
//! stays a pure function of (text, context); `LintContext::default()` knows
//! nothing and skips the rules that need it.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Local, NaiveDate, Utc};
use serde::Serialize;

use crate::base::fsx;
use crate::domain::handoff::adjustment::Adjustment;
use crate::domain::handoff::measured::Measured;
use crate::domain::handoff::truth::{NotRun, Truth};
use crate::domain::inbox::Inbox;
use crate::domain::memory::MAX_MEMORY_FILE_BYTES;
use crate::domain::memory::history::StateHistory;
use crate::domain::memory::note_name::NoteName;
use crate::domain::task::{StepStatus, TaskStore};
use crate::workspace::Workspace;

/// Default token budget of a handoff: a briefing, not a transcript.
pub const DEFAULT_MAX_TOKENS: usize = 1_500;
/// Below this many tokens a handoff is too thin to act on.
pub const DEFAULT_MIN_TOKENS: usize = 500;
/// How many of the newest commits are read (enough to call a handoff stale).
pub const MAX_COMMITS_READ: usize = 200;
/// How many inbox files are looked at, newest kept.
pub const MAX_INBOX_FILES: usize = 200;

/// An earlier handoff to compare with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PreviousHandoff {
    /// Where it came from (a file path).
    pub source: String,
    /// Its text.
    pub text: String,
}

/// A message in the inbox, as [`crate::domain::inbox::Inbox`] lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InboxMessage {
    /// Its queue: an agent's name, or `shared`.
    pub queue: String,
    /// Its id.
    pub id: String,
    /// Who sent it (`unknown` for hand-dropped files without a header).
    pub from: String,
    /// When it was sent.
    pub created: DateTime<Utc>,
}

/// The active task ([`crate::domain::task`]), as the cross-session rules use it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskContext {
    /// Its name.
    pub name: String,
    /// The steps it marks done.
    pub done_steps: Vec<String>,
    /// Its failed approaches.
    pub failed_approaches: Vec<String>,
}

/// Everything the cross-session rules need.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LintContext {
    /// The project root; referenced paths are checked against it.
    pub root: Option<PathBuf>,
    /// Earlier handoffs, newest first; the first whose text differs from
    /// the linted one is "the previous handoff".
    pub previous: Vec<PreviousHandoff>,
    /// Inbox files (empty: no inbox, the rule is skipped).
    pub inbox: Vec<InboxMessage>,
    /// Times of the newest commits (at most [`MAX_COMMITS_READ`]), newest
    /// first; `None` when the project is not a git repository.
    pub commits: Option<Vec<DateTime<Utc>>>,
    /// Token budget.
    pub max_tokens: usize,
    /// Below this, a handoff is flagged as too thin.
    pub min_tokens: usize,
    /// The active task, if any: a next step it marks done, or one of its
    /// failed approaches, is flagged.
    pub task: Option<TaskContext>,
    /// What the project shows (the truth rules), or why it was not read.
    pub truth: Truth,
    /// The numbers the run that handed the text over measured (its
    /// `[[metric]]` results); `None`: the draft's measured line in the
    /// text, if any, is the measure.
    pub measured: Option<Measured>,
    /// This project's adjustment of the shipped weights, if it has one.
    pub adjustment: ProjectAdjustment,
}

/// A project's adjustment of the shipped weights ([`super::adjustment`]),
/// as found beside it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ProjectAdjustment {
    /// The project has none: the shipped weights score.
    #[default]
    None,
    /// Fitted over the shipped weights of this build: applied.
    Applied {
        /// Its file.
        file: PathBuf,
        /// The adjustment.
        adjustment: Adjustment,
    },
    /// There, but not applied; the reason says why and what to do.
    NotApplied {
        /// Its file.
        file: PathBuf,
        /// Why, with the fix.
        why: String,
    },
}

impl ProjectAdjustment {
    /// What the file at `file` holds for this build (best effort: a file
    /// that cannot be read or parsed is not applied, and says why).
    pub fn load(root: &Path, file: &Path) -> ProjectAdjustment {
        let shown = file.display().to_string();
        let text = match fsx::read_text_within(
            root,
            file,
            MAX_ADJUSTMENT_BYTES,
            "delete it, or fit again with `agent-handover lint --outcomes --fit`",
        ) {
            Ok(None) => return ProjectAdjustment::None,
            Ok(Some(text)) => text,
            Err(e) => {
                return ProjectAdjustment::NotApplied {
                    file: file.into(),
                    why: e.to_string(),
                };
            }
        };
        match Adjustment::parse(&text, &shown) {
            Ok(adjustment) if adjustment.is_current() => ProjectAdjustment::Applied {
                file: file.into(),
                adjustment,
            },
            Ok(_) => ProjectAdjustment::NotApplied {
                file: file.into(),
                why: format!(
                    "{shown} was fitted over another version's shipped weights\n  fix: fit again with `agent-handover lint --outcomes --fit` (or delete it)"
                ),
            },
            Err(e) => ProjectAdjustment::NotApplied {
                file: file.into(),
                why: e.to_string(),
            },
        }
    }
}

/// An adjustment file is a few rules' numbers: more than this is no adjustment.
const MAX_ADJUSTMENT_BYTES: u64 = 64 * 1024;

impl Default for LintContext {
    fn default() -> Self {
        LintContext {
            root: None,
            previous: Vec::new(),
            inbox: Vec::new(),
            commits: None,
            max_tokens: DEFAULT_MAX_TOKENS,
            min_tokens: DEFAULT_MIN_TOKENS,
            task: None,
            truth: Truth::default(),
            measured: None,
            adjustment: ProjectAdjustment::None,
        }
    }
}

impl LintContext {
    /// Gather what a workspace knows: its root, the two newest versions of
    /// current-state.md from the history (or the file itself when there is
    /// no history) and the newest layer-1 note before today, the inbox
    /// files, and the commit times of the repository holding the root.
    /// Best effort: whatever cannot be read is left out.
    pub fn for_workspace(ws: &Workspace) -> LintContext {
        let today = Local::now().date_naive();
        LintContext {
            root: Some(ws.root.clone()),
            previous: previous_handoffs(ws, today),
            inbox: inbox_messages(ws),
            commits: commit_times(&ws.root),
            task: active_task(ws),
            adjustment: ProjectAdjustment::load(ws.state_dir(), &ws.quality_adjustment_file()),
            truth: Truth::NotRun {
                why: NotRun::NotGathered,
            },
            ..LintContext::default()
        }
    }
}

/// The active task's done steps and failed approaches (none when the task
/// files cannot be read: `task` and `brief` report that).
fn active_task(ws: &Workspace) -> Option<TaskContext> {
    let task = TaskStore::new(ws.tasks_dir()).active().ok().flatten()?;
    Some(TaskContext {
        done_steps: task
            .plan
            .iter()
            .filter(|s| s.status == StepStatus::Done)
            .map(|s| s.step.clone())
            .collect(),
        failed_approaches: task.failed_approaches,
        name: task.task,
    })
}

fn read(ws: &Workspace, path: &Path) -> Option<String> {
    fsx::read_text_within(
        &ws.memory.root,
        path,
        MAX_MEMORY_FILE_BYTES,
        "move it aside",
    )
    .ok()
    .flatten()
}

fn previous_handoffs(ws: &Workspace, today: NaiveDate) -> Vec<PreviousHandoff> {
    let history = StateHistory::new(ws.state_history_dir());
    let mut found: Vec<PreviousHandoff> = history
        .list()
        .unwrap_or_default()
        .iter()
        .take(2)
        .filter_map(|v| {
            Some(PreviousHandoff {
                source: v.path.display().to_string(),
                text: history.read(v).ok()?,
            })
        })
        .collect();
    let current = ws.memory.current_state();
    if found.is_empty()
        && let Some(text) = read(ws, &current)
    {
        found.push(PreviousHandoff {
            source: current.display().to_string(),
            text,
        });
    }
    if let Some(note) = newest_note_before(&ws.memory.layer1_dir(), today)
        && let Some(text) = read(ws, &note)
    {
        found.push(PreviousHandoff {
            source: note.display().to_string(),
            text,
        });
    }
    found
}

/// The newest session note, `layer1/YYYY-MM/<tag>-<date>[-n].md`, if any.
pub fn newest_note(layer1: &Path) -> Option<PathBuf> {
    newest_note_before(layer1, NaiveDate::MAX)
}

/// The newest `layer1/YYYY-MM/<tag>-<date>[-n].md` dated before `today`.
fn newest_note_before(layer1: &Path, today: NaiveDate) -> Option<PathBuf> {
    let mut best: Option<((NaiveDate, u32), PathBuf)> = None;
    for month in std::fs::read_dir(layer1).ok()?.flatten() {
        let Ok(files) = std::fs::read_dir(month.path()) else {
            continue;
        };
        for file in files.flatten() {
            let name = file.file_name();
            let Some(key) = name
                .to_str()
                .and_then(NoteName::parse)
                .map(|n| (n.date, n.n))
            else {
                continue;
            };
            if key.0 < today && best.as_ref().is_none_or(|(b, _)| key > *b) {
                best = Some((key, file.path()));
            }
        }
    }
    best.map(|(_, path)| path)
}

/// The newest [`MAX_INBOX_FILES`] messages of every queue.
fn inbox_messages(ws: &Workspace) -> Vec<InboxMessage> {
    Inbox::new(ws)
        .page(None, false, MAX_INBOX_FILES)
        .map(|page| {
            page.messages
                .into_iter()
                .map(|m| InboxMessage {
                    queue: m.queue,
                    id: m.id,
                    from: m.from,
                    created: m.created,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Commit times reachable from HEAD, newest first, for the repository
/// holding `root`; `None` when there is none (or it has no commits).
fn commit_times(root: &Path) -> Option<Vec<DateTime<Utc>>> {
    let repo = git2::Repository::discover(root).ok()?;
    let mut walk = repo.revwalk().ok()?;
    // git's default order (newest first), read lazily: sorting by time
    // walks the whole history first (20 ms in a repository of 5,000).
    walk.push_head().ok()?;
    Some(
        walk.flatten()
            .take(MAX_COMMITS_READ)
            .filter_map(|oid| repo.find_commit(oid).ok())
            .filter_map(|c| DateTime::from_timestamp(c.time().seconds(), 0))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::WorkspaceOptions;

    fn workspace(dir: &Path) -> Workspace {
        Workspace::resolve(WorkspaceOptions {
            cwd: Some(dir.into()),
            home: Some(dir.join("home")),
            ..Default::default()
        })
        .unwrap()
    }

    #[test]
    fn default_knows_nothing() {
        let ctx = LintContext::default();
        assert!(ctx.root.is_none() && ctx.previous.is_empty() && ctx.inbox.is_empty());
        assert!(ctx.commits.is_none());
        assert_eq!(ctx.max_tokens, DEFAULT_MAX_TOKENS);
    }

    #[test]
    fn gathers_history_notes_inbox_and_commits() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let history = StateHistory::new(ws.state_history_dir());
        let t = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().to_utc();
        history
            .save("older state", "run-0", Some(t("2025-12-01T10:00:00Z")))
            .unwrap();
        history
            .save("old state", "run-1", Some(t("2026-01-01T10:00:00Z")))
            .unwrap();
        history
            .save("new state", "run-2", Some(t("2026-01-02T10:00:00Z")))
            .unwrap();
        let layer1 = ws.memory.layer1_dir().join("2026-01");
        std::fs::create_dir_all(&layer1).unwrap();
        std::fs::write(layer1.join("t-2026-01-01.md"), "note one").unwrap();
        std::fs::write(layer1.join("t-2026-01-01-2.md"), "note two").unwrap();
        std::fs::write(layer1.join("t-2099-01-01.md"), "future").unwrap();
        Inbox::new(&ws)
            .send(&crate::domain::inbox::NewMessage {
                from: "alice".into(),
                to: "me".into(),
                body: "hi".into(),
                ..Default::default()
            })
            .unwrap();
        std::fs::create_dir_all(ws.messages_dir().join("other")).unwrap();
        std::fs::write(ws.messages_dir().join("other/ignored.md"), "x").unwrap();

        let ctx = LintContext::for_workspace(&ws);
        let texts: Vec<_> = ctx.previous.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(texts, ["new state", "old state", "note two"]);
        let newest = newest_note(&ws.memory.layer1_dir()).unwrap();
        assert!(newest.ends_with("t-2099-01-01.md"), "{}", newest.display());
        assert_eq!(ctx.inbox.len(), 1);
        assert_eq!(ctx.inbox[0].queue, "me");
        assert_eq!(ctx.inbox[0].from, "alice");
        assert_eq!(ctx.commits, None);
        assert_eq!(ctx.root.as_deref(), Some(ws.root.as_path()));

        let repo = git2::Repository::init(dir.path()).unwrap();
        let sig =
            git2::Signature::new("t", "t@example.com", &git2::Time::new(1_700_000_000, 0)).unwrap();
        let tree = repo
            .find_tree(repo.index().unwrap().write_tree().unwrap())
            .unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "one", &tree, &[])
            .unwrap();
        let ctx = LintContext::for_workspace(&ws);
        assert_eq!(
            ctx.commits,
            Some(vec![DateTime::from_timestamp(1_700_000_000, 0).unwrap()])
        );
    }

    #[test]
    fn without_history_the_current_state_file_is_the_previous_handoff() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let state = ws.memory.current_state();
        std::fs::create_dir_all(state.parent().unwrap()).unwrap();
        std::fs::write(&state, "hand-written state").unwrap();
        let ctx = LintContext::for_workspace(&ws);
        assert_eq!(ctx.previous.len(), 1);
        assert_eq!(ctx.previous[0].text, "hand-written state");
    }
}
