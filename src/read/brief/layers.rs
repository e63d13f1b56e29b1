//! The brief's layers beyond the current state: the active task, the
//! identity, the memory index, and history on request.

use std::path::PathBuf;

use serde::Serialize;

use super::{Excerpt, relative};
use crate::base::secrets;
use crate::domain::handoff::document::HandoffDocument;
use crate::domain::knowledge::Knowledge;
use crate::domain::memory::MemoryStore;
use crate::domain::memory::identity::Identity;
use crate::domain::memory::note_name::NoteName;
use crate::domain::task::TaskStore;
use crate::workspace::Workspace;

/// Longest next step shown for another workstream, in characters.
const WORKSTREAM_STEP_CHARS: usize = 160;

/// Another workstream of the repository (the memory on its ref: each
/// branch its own current state), so two agents do not take the same work.
#[derive(Debug, Clone, Serialize)]
pub struct Workstream {
    /// Its branch.
    pub name: String,
    /// When its current state was last written.
    pub updated: Option<chrono::DateTime<chrono::Utc>>,
    /// The first item of its `## Next step`, secrets redacted, cut short.
    pub next_step: Option<String>,
}

/// Every workstream but this one, newest first.
pub fn other_workstreams(ws: &Workspace) -> Vec<Workstream> {
    let Some(own) = ws.memory.stream.as_deref() else {
        return Vec::new();
    };
    let mut others: Vec<Workstream> = ws
        .memory
        .workstreams()
        .into_iter()
        .filter(|name| name != own)
        .map(|name| {
            let layout = ws.memory.clone().in_stream(Some(name.clone()));
            let file = layout.current_state();
            let updated = std::fs::metadata(&file)
                .and_then(|m| m.modified())
                .ok()
                .map(chrono::DateTime::<chrono::Utc>::from);
            let text = MemoryStore::new(layout, ws.state_history_dir())
                .read_current_state()
                .ok()
                .flatten();
            let next_step = text.as_deref().and_then(|t| {
                let doc = HandoffDocument::parse(t);
                let item = doc.next_step()?;
                let line = item.text.lines().next().unwrap_or_default().trim();
                let redacted = secrets::redact(line);
                Some(match redacted.char_indices().nth(WORKSTREAM_STEP_CHARS) {
                    Some((cut, _)) => format!("{}…", &redacted[..cut]),
                    None => redacted.into_owned(),
                })
            });
            Workstream {
                name,
                updated,
                next_step,
            }
        })
        .collect();
    others.sort_by_key(|w| std::cmp::Reverse(w.updated));
    others
}

/// Section 4: the active task, from its file.
#[derive(Debug, Clone, Serialize)]
pub struct ActiveTask {
    /// The task's name.
    pub name: String,
    /// Its file, relative to the project root.
    pub path: PathBuf,
    /// Steps done.
    pub done: usize,
    /// Steps in its plan.
    pub steps: usize,
    /// The step to work on (number and text), if any is left.
    pub next_step: Option<(usize, String)>,
    /// What stands in the way.
    pub blockers: Vec<String>,
    /// Approaches that failed: not to retry.
    pub failed_approaches: Vec<String>,
    /// Whether the failed approaches were left out to fit the budget.
    pub failed_omitted: bool,
    /// Why the task files could not be read, if they could not.
    pub error: Option<String>,
}

impl ActiveTask {
    /// The next-step line the brief adds for it.
    pub fn next_step_line(&self) -> Option<String> {
        let (n, step) = self.next_step.as_ref()?;
        Some(format!(
            "Continue task `{}` at step {n}, {step}; record progress with `agent-handover task step {} {n} --done --output ...` (or `task block {} {n} --reason ...`).",
            self.name, self.name, self.name
        ))
    }
}

/// Section 8: the newest session notes, shown only when asked for.
#[derive(Debug, Clone, Serialize)]
pub struct History {
    /// The notes, newest first.
    pub notes: Vec<Excerpt>,
    /// Why layer 1 could not be read, if it could not.
    pub error: Option<String>,
}

/// The active task, `None` when there is none; an unreadable task file is
/// reported in the section.
pub fn active_task(ws: &Workspace) -> Option<ActiveTask> {
    let store = TaskStore::new(ws.tasks_dir());
    match store.active() {
        Ok(None) => None,
        Ok(Some(t)) => {
            let (done, steps) = t.progress();
            let redact = |s: &str| secrets::redact(s).into_owned();
            Some(ActiveTask {
                path: relative(ws, &store.file(&t.task)).to_path_buf(),
                done,
                steps,
                next_step: t.next_step().map(|s| {
                    let n = t.plan.iter().position(|p| p.step == s.step).unwrap_or(0) + 1;
                    (n, redact(&s.step))
                }),
                blockers: t.blockers().iter().map(|b| redact(b)).collect(),
                failed_approaches: t.failed_approaches.iter().map(|f| redact(f)).collect(),
                failed_omitted: false,
                error: None,
                name: t.task,
            })
        }
        Err(e) => Some(ActiveTask {
            name: String::new(),
            path: relative(ws, &ws.tasks_dir()).to_path_buf(),
            done: 0,
            steps: 0,
            next_step: None,
            blockers: Vec::new(),
            failed_approaches: Vec::new(),
            failed_omitted: false,
            error: Some(e.to_string()),
        }),
    }
}

/// The identity layer, `None` when there is no file.
pub fn identity(ws: &Workspace) -> Option<Excerpt> {
    let id = Identity::new(&ws.memory, ws.identity_history_dir());
    Some(Excerpt::of(ws, id.path(), id.read())).filter(Excerpt::is_present)
}

/// The memory index, `None` when nothing was learned yet.
pub fn index(ws: &Workspace) -> Option<Excerpt> {
    let k = Knowledge::new(ws.memory.clone());
    Some(Excerpt::of(ws, &ws.memory.memory_index(), k.read_index())).filter(Excerpt::is_present)
}

/// The newest `n` layer-1 notes.
pub fn history(ws: &Workspace, n: usize) -> History {
    let mut notes: Vec<(NoteName, PathBuf)> = Vec::new();
    let months = match std::fs::read_dir(ws.memory.layer1_dir()) {
        Ok(months) => months,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return History {
                notes: Vec::new(),
                error: None,
            };
        }
        Err(e) => {
            return History {
                notes: Vec::new(),
                error: Some(format!("{}: {e}", ws.memory.layer1_dir().display())),
            };
        }
    };
    for month in months.filter_map(|m| m.ok()) {
        let Ok(files) = std::fs::read_dir(month.path()) else {
            continue;
        };
        for file in files.filter_map(|f| f.ok()) {
            if let Some(name) = file.file_name().to_str().and_then(NoteName::parse) {
                notes.push((name, file.path()));
            }
        }
    }
    notes.sort_by_key(|n| std::cmp::Reverse((n.0.date, n.0.n)));
    let read = |path: &PathBuf| {
        crate::base::fsx::read_text_within(
            &ws.memory.root,
            path,
            crate::domain::memory::MAX_MEMORY_FILE_BYTES,
            "memory files are briefings, not dumps: move the file aside and write a shorter one",
        )
    };
    History {
        notes: notes
            .iter()
            .take(n)
            .map(|(_, path)| Excerpt::of(ws, path, read(path)))
            .collect(),
        error: None,
    }
}
