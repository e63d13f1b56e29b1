//! `doctor`: every stale or odd state of a workspace that can be detected,
//! each with what to do: an unreadable checkpoint, an interrupted or queued
//! handover, a damaged queue entry, PAUSE, git locks left by a killed
//! publish, records of step process groups that are gone, recent state
//! drift. `--fix` removes only what is safe to remove: git locks older than
//! [`crate::domain::backend::git_locks::SAFE_AGE`] with no git process running in the repository,
//! and group records whose processes have all ended.

use std::path::PathBuf;

use serde::Serialize;

use crate::domain::backend::BackendSpec;
use crate::domain::memory::conflict::{self, Conflict};
use crate::domain::memory::history::{self, VersionedFile};
use crate::engine::lock::RunLock;
use crate::engine::pause::active_pause;
use crate::engine::process::live_group_members;
use crate::engine::queue::RunQueue;
use crate::read::{Condition, NextAction, run_state};
use crate::workspace::Workspace;

/// One thing found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Its kind (`git_lock`, `interrupted`, `queued`, `paused`, ...).
    pub kind: &'static str,
    /// What was found.
    pub what: String,
    /// What to do about it.
    pub fix: String,
    /// The file `--fix` would remove, when it is safe to remove.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removable: Option<PathBuf>,
    /// Whether something is stuck until someone acts (`false`: worth
    /// knowing, nothing wrong: a running handover, PAUSE, state drift).
    pub needs_action: bool,
}

/// Look at everything in `ws` (see the module docs).
pub fn examine(ws: &Workspace) -> Vec<Finding> {
    let mut found = Vec::new();
    let holder = RunLock::holder(&ws.lock_file());
    let state = run_state(ws);
    let next = state.next_action();
    let kind = match &state.condition {
        Condition::Unreadable { .. } => Some("checkpoint"),
        Condition::Running { .. } => Some("running"),
        Condition::Interrupted { .. } => Some("interrupted"),
        Condition::Lingering { .. } => Some("lingering_step"),
        Condition::NeedsDecision { .. } => Some("needs_decision"),
        Condition::Failed { .. } => Some("failed"),
        Condition::Newer { .. } => Some("newer_step_kind"),
        Condition::Legacy { .. } => Some("interrupted_0_5"),
        Condition::Queued { .. } => Some("queued"),
        Condition::None | Condition::Completed { .. } | Condition::Abandoned { .. }
            if !state.queued.is_empty() =>
        {
            Some("queued")
        }
        Condition::None | Condition::Completed { .. } | Condition::Abandoned { .. } => None,
    };
    if let Some(kind) = kind {
        found.push(Finding {
            kind,
            what: state.describe(),
            fix: match &next {
                NextAction::Repair { .. } => {
                    "follow the fix above; nothing else runs until it is settled".into()
                }
                next => next.sentence(),
            },
            removable: None,
            needs_action: !matches!(next, NextAction::Wait { .. }),
        });
    }
    if let Err(e) = RunQueue::of(ws).list() {
        found.push(Finding {
            kind: "queue",
            what: e.to_string(),
            fix: "see above".into(),
            removable: None,
            needs_action: true,
        });
    }
    if let Some(p) = active_pause(&ws.pause_files()) {
        found.push(Finding {
            kind: "paused",
            what: format!(
                "PAUSE is on: {}{}",
                p.file.display(),
                p.reason.map(|r| format!(" ({r})")).unwrap_or_default()
            ),
            fix: "`agent-handover unpause` once a human agrees".into(),
            removable: None,
            needs_action: false,
        });
    }
    found.extend(backend_leftovers(ws));
    found.extend(memory_findings(ws));
    found.extend(dead_group_records(ws, holder.is_some()));
    found.extend(drift_findings(ws));
    found
}

/// Lines that open or close an unresolved merge conflict (`<<<<<<< `,
/// `>>>>>>> `), by line number: a memory file holding them was merged by
/// hand and not settled, and would be fed to an agent as it is (the one
/// detector: [`crate::domain::memory::conflict`]).
pub use crate::domain::memory::conflict::marker_lines as conflict_marker_lines;

/// What is odd about where the memory is: conflict markers left in the
/// current state or the identity, and a memory kept on the code branch
/// (0.5.1's layout) in a repository, which `migrate` moves to its ref.
fn memory_findings(ws: &Workspace) -> Vec<Finding> {
    let mut found = Vec::new();
    for file in [ws.memory.current_state(), ws.memory.identity()] {
        let Ok(Some(text)) = crate::base::fsx::read_text_within(
            ws.tree_of(&file),
            &file,
            crate::domain::memory::MAX_MEMORY_FILE_BYTES,
            "a memory file is small",
        ) else {
            continue;
        };
        if let Some(conflict) = Conflict::find(&text) {
            found.push(Finding {
                kind: "conflict_markers",
                what: format!(
                    "{}: an agent would read both sides as the truth",
                    conflict.describe(&file)
                ),
                fix: conflict::fix(&file),
                removable: None,
                needs_action: true,
            });
        }
    }
    // Worktrees of one repository each commit their own copy of a memory
    // kept on the code branch, and their branches conflict on it.
    let worktrees = crate::workspace::store::GitDirs::discover(&ws.root)
        .map(|g| g.linked_worktrees())
        .unwrap_or_default();
    let on_branch = ws.memory_in_project()
        && worktrees > 0
        && BackendSpec::of_workspace(ws, true).is_ok_and(|b| b.commits_on_code_branch());
    if on_branch {
        found.push(Finding {
            kind: "memory_on_code_branch",
            what: format!(
                "the memory ({}) is committed on the code branch (0.5.1's layout) in a repository with {worktrees} other worktree(s): each branch carries its own copy, their merges conflict on it, and every handover pushes the branch, the agent's own commits with it",
                ws.memory.root.display()
            ),
            fix: "`agent-handover migrate` moves it to the repository's own ref (refs/agent-handover/memory), shared by every worktree and off every branch".into(),
            removable: None,
            needs_action: true,
        });
    }
    found
}

/// What a killed publish or sync left in the backend of `ws` (its lock
/// files, an interrupted integration), as the backend finds them.
fn backend_leftovers(ws: &Workspace) -> Vec<Finding> {
    let Ok(spec) = BackendSpec::of_workspace(ws, false) else {
        return Vec::new();
    };
    spec.backend()
        .leftovers()
        .into_iter()
        .map(|l| Finding {
            kind: l.kind,
            what: l.what,
            fix: l.fix,
            removable: l.removable,
            needs_action: true,
        })
        .collect()
}

/// Records of step process groups whose processes have all ended (left by
/// a killed handover; harmless, but odd). None while a handover runs.
fn dead_group_records(ws: &Workspace, running: bool) -> Vec<Finding> {
    let dir = ws.state_dir().join("groups");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    if running {
        return Vec::new();
    }
    entries
        .flatten()
        .filter_map(|e| {
            let pgid: u32 = std::fs::read_to_string(e.path()).ok()?.trim().parse().ok()?;
            live_group_members(pgid).is_empty().then(|| Finding {
                kind: "dead_group_record",
                what: format!(
                    "{} records process group {pgid}, whose processes have all ended",
                    e.path().display()
                ),
                fix: "remove it (`agent-handover doctor --fix`); the next run of that step ignores it".into(),
                removable: Some(e.path()),
                needs_action: true,
            })
        })
        .collect()
}

/// Remove the files of `planned` (what [`examine`] marked removable and the
/// user was shown) that are still safe to remove now: everything is looked
/// at again first (a git may have started meanwhile). Returns what was removed.
/// Group records are only removed under the run lock (so no handover starts
/// a step meanwhile); while a handover runs, they are left.
pub fn fix(ws: &Workspace, planned: &[PathBuf]) -> Vec<PathBuf> {
    let held = RunLock::acquire(&ws.lock_file()).ok();
    // Under our own lock, `examine` sees a handover running and lists no
    // group records: they are looked at apart, as no handover runs.
    let groups = match held {
        Some(_) => dead_group_records(ws, false),
        None => Vec::new(),
    };
    examine(ws)
        .into_iter()
        .filter(|f| f.kind != "dead_group_record")
        .chain(groups)
        .filter_map(|f| f.removable)
        .filter(|path| planned.contains(path))
        .filter(|path| std::fs::remove_file(path).is_ok())
        .collect()
}

/// The newest drift of each file merged by section (current-state.md,
/// identity.md): what was superseded and the command that shows it.
fn drift_findings(ws: &Workspace) -> Vec<Finding> {
    history::latest_drifts(ws)
        .into_iter()
        .map(|d| Finding {
            kind: match d.file {
                VersionedFile::CurrentState => "state_drift",
                VersionedFile::Identity => "identity_drift",
            },
            what: format!(
                "{} drift at {}: {} of {} superseded by a merge",
                d.file.command(),
                d.at.format("%Y-%m-%d %H:%M UTC"),
                d.section_names(),
                d.from
            ),
            fix: format!(
                "`{}` shows what was superseded; fix {} if the newer text lost something",
                d.diff_command(),
                d.file.file_name()
            ),
            removable: None,
            needs_action: false,
        })
        .collect()
}
