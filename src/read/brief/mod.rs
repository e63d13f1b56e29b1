//! The session-start brief: what an agent reads first, in priority order.
//!
//! The boot order of a persistent agent: crash recovery, then messages, then
//! working state, then identity and permanent knowledge, and history only on
//! request. Sections without content (no task, no identity, no index, no
//! metrics) are left out and the numbers close up.
//!
//! 1. **Recovery**: was the last handover interrupted, is one running, is
//!    automation paused, was a run abandoned, is the checkpoint unreadable?
//! 2. **Messages**: how many unread messages this agent has, and the newest few.
//! 3. **Current state**: `memory/layer2/current-state.md` (with the memory
//!    on its ref: this branch's `layer2/<branch>/current-state.md`, then
//!    the other workstreams' next steps, one line each).
//! 4. **Active task**: the task file updated last and not done
//!    ([`crate::domain::task`]): progress, the next pending step, blockers, failed
//!    approaches not to retry.
//! 5. **Metrics**: the numbers the latest handover measured (`[[metric]]`),
//!    with their change since the one before.
//! 6. **Identity**: `memory/identity.md`, policies and goals ([`crate::domain::memory::identity`]).
//! 7. **Memory index**: `memory/MEMORY.md` ([`crate::domain::knowledge`]).
//! 8. **History**: the newest session notes, only when asked for ([`BriefOptions::history`]).
//! 9. **Next step**: what to do first, derived from the above: after
//!    recovery, THE next step the current state gives (its words, its
//!    file and line, and a commit since the last handover that looks like
//!    it did it already), or the merge conflict to resolve first.
//!
//! It reads only what it shows: the checkpoint, the PAUSE files, the names in
//! the agent's two queues plus the newest few messages, the current state,
//! the task files, the identity and index files, and the run records (for the metrics). A token budget (estimated at [`CHARS_PER_TOKEN`] characters per
//! token of Markdown) trims the least important parts first and records what
//! it left out ([`budget`]); the identity is cut last. Problems reading any
//! part are shown in its section rather than failing the brief. Secrets in
//! what it shows are redacted
//! ([`crate::base::secrets`]): a brief is pasted into an agent's context.

mod budget;
mod layers;
mod measured;
mod next_step;
mod recovery;
mod render;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::base::error::Result;
use crate::base::secrets;
use crate::domain::inbox::{Inbox, MessageSummary, check_agent};
use crate::domain::memory::MemoryStore;
use crate::domain::memory::conflict::{self, Conflict};
use crate::workspace::Workspace;
pub use layers::{ActiveTask, History, Workstream, other_workstreams};
pub use measured::Metrics;
pub use next_step::{HandedOverStep, LaterCommit};
pub use recovery::{Recovery, RecoveryState};

/// Default token budget of a brief.
pub const DEFAULT_MAX_TOKENS: usize = 1500;
/// Characters per token assumed when estimating a brief's size.
pub const CHARS_PER_TOKEN: usize = 4;
/// Unread messages shown (newest first) before the budget trims them.
pub const NEWEST_MESSAGES: usize = 5;

/// The brief of one agent at session start.
#[derive(Debug, Clone, Serialize)]
pub struct Brief {
    /// The agent it is for.
    pub agent: String,
    /// When it was made.
    pub generated_at: DateTime<Utc>,
    /// The token budget.
    pub max_tokens: usize,
    /// Estimated tokens of its Markdown (over the budget only when the
    /// recovery and next-step sections alone exceed it).
    pub estimated_tokens: usize,
    /// 1: crash recovery.
    pub recovery: Recovery,
    /// 2: unread messages.
    pub mail: Mail,
    /// 3: the current state (of this worktree's workstream, when the
    /// memory is on its ref).
    pub current_state: CurrentState,
    /// The next step the current state gives (what the last handover
    /// left), named first after recovery in [`Brief::next_steps`].
    pub handed_over_step: Option<HandedOverStep>,
    /// After it: what the repository's other workstreams are doing, newest
    /// first (empty unless the memory is on its ref).
    pub workstreams: Vec<Workstream>,
    /// Other workstreams left out to fit the budget.
    pub workstreams_omitted: usize,
    /// 4: the active task; `None` when no task is in progress.
    pub task: Option<ActiveTask>,
    /// 5: the latest measured numbers; `None` when nothing was ever measured.
    pub metrics: Option<Metrics>,
    /// 6: the identity layer; `None` when there is no identity file.
    pub identity: Option<Excerpt>,
    /// 7: the memory index; `None` when nothing was learned yet.
    pub index: Option<Excerpt>,
    /// 8: the newest session notes, when asked for.
    pub history: Option<History>,
    /// Last: what to do, most urgent first.
    pub next_steps: Vec<String>,
    /// What was left out, each with the command that shows it.
    pub omitted: Vec<String>,
}

/// Section 2: the agent's unread messages.
#[derive(Debug, Clone, Serialize)]
pub struct Mail {
    /// Unread messages in the agent's inbox and `shared`.
    pub unread: usize,
    /// The newest of them, newest first.
    pub shown: Vec<MessageSummary>,
    /// Whether previews were dropped to fit the budget.
    pub previews_omitted: bool,
    /// Why the inbox could not be read, if it could not.
    pub error: Option<String>,
}

/// Section 3: `current-state.md`, possibly cut to fit.
pub type CurrentState = Excerpt;

/// A memory file shown in the brief, possibly cut to fit.
#[derive(Debug, Clone, Serialize)]
pub struct Excerpt {
    /// The file, relative to the project root when it is inside it.
    pub path: PathBuf,
    /// The text shown (without the memory header line, secrets redacted);
    /// `None` if there is none.
    pub text: Option<String>,
    /// Lines in the file's text.
    pub total_lines: usize,
    /// Lines shown (the last one may be cut).
    pub shown_lines: usize,
    /// Whether the text was cut (or left out) to fit the budget.
    pub truncated: bool,
    /// Why the file could not be read, if it could not.
    pub error: Option<String>,
    /// Why its text is not shown: it holds an unresolved merge conflict
    /// (where, and what resolves it). An agent would take both sides as
    /// the truth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict: Option<String>,
}

/// What a brief shows beyond the default boot order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BriefOptions {
    /// How many of the newest session notes (layer 1) to show; 0: none.
    pub history: usize,
}

/// Build the brief of `agent` in `ws`, within about `max_tokens` tokens.
pub fn brief(ws: &Workspace, agent: &str, max_tokens: usize) -> Result<Brief> {
    brief_with(ws, agent, max_tokens, BriefOptions::default())
}

/// [`brief`], with `options`.
pub fn brief_with(
    ws: &Workspace,
    agent: &str,
    max_tokens: usize,
    options: BriefOptions,
) -> Result<Brief> {
    check_agent(agent)?;
    let (recovery, mut next_steps) = recovery::gather(ws);
    let store = MemoryStore::new(ws.memory.clone(), ws.state_history_dir());
    let state_path = ws.memory.current_state();
    let read = store.read_current_state();
    let state_text = read.as_ref().ok().and_then(|t| t.clone());
    let current_state = Excerpt::of(ws, &state_path, read);
    // THE next step, first after recovery (or, in a conflicted state, the
    // conflict to resolve before anything).
    let conflict = state_text.as_deref().and_then(Conflict::find);
    let handed_over_step = match conflict {
        Some(conflict) => {
            let path = relative(ws, &state_path);
            next_steps.push(format!(
                "**Resolve first:** the unresolved merge conflict in `{}` ({}): {}.",
                path.display(),
                conflict.span(),
                conflict::fix(path)
            ));
            None
        }
        None => state_text
            .as_deref()
            .and_then(|raw| next_step::gather(ws, &state_path, raw)),
    };
    if let Some(step) = &handed_over_step {
        next_steps.push(step.sentence());
    }
    let mail = gather_mail(ws, agent);
    if mail.unread > 0 {
        next_steps.push(format!(
            "Read your {} unread message{}: `agent-handover inbox read <id>`, then mark them read: `agent-handover inbox ack --agent {agent}`.",
            mail.unread,
            if mail.unread == 1 { "" } else { "s" }
        ));
    }
    if let Some(pending) = crate::read::MemoryPlace::of(ws).push_pending {
        next_steps.push(format!(
            "Nothing to redo: {pending}; `agent-handover sync` sends it when the remote answers."
        ));
    }
    let task = layers::active_task(ws);
    if let Some(step) = task.as_ref().and_then(ActiveTask::next_step_line) {
        next_steps.push(step);
    }
    next_steps.push(finish_step(ws, agent, handed_over_step.is_some()));
    let mut brief = Brief {
        agent: agent.to_string(),
        generated_at: Utc::now(),
        max_tokens,
        estimated_tokens: 0,
        recovery,
        mail,
        current_state,
        handed_over_step,
        workstreams: layers::other_workstreams(ws),
        workstreams_omitted: 0,
        task,
        metrics: measured::gather(ws),
        identity: layers::identity(ws),
        index: layers::index(ws),
        history: (options.history > 0).then(|| layers::history(ws, options.history)),
        next_steps,
        omitted: Vec::new(),
    };
    budget::fit(&mut brief);
    Ok(brief)
}

impl Brief {
    /// The brief as Markdown, for the agent to read.
    pub fn to_markdown(&self) -> String {
        render::markdown(self)
    }
}

fn gather_mail(ws: &Workspace, agent: &str) -> Mail {
    let (unread, shown, error) = match Inbox::new(ws).page(Some(agent), true, NEWEST_MESSAGES) {
        Ok(page) => (page.total, page.messages, None),
        Err(e) => (0, Vec::new(), Some(e.to_string())),
    };
    Mail {
        unread,
        shown,
        previews_omitted: false,
        error,
    }
}

impl Excerpt {
    /// The excerpt of the file at `path` that `read` gave (header line
    /// dropped, secrets redacted), or its error.
    fn of(ws: &Workspace, path: &Path, read: Result<Option<String>>) -> Self {
        let shown = relative(ws, path);
        let (text, error) = match read {
            Ok(text) => (text, None),
            Err(e) => (None, Some(e.to_string())),
        };
        // The markers' lines as the file numbers them: the header included.
        let conflict = text.as_deref().and_then(Conflict::find).map(|c| {
            format!(
                "{}: an agent would read both sides as the truth. Resolve it: {}",
                c.describe(shown),
                conflict::fix(shown)
            )
        });
        let text = text
            .filter(|_| conflict.is_none())
            .map(|t| secrets::redact(without_memory_header(&t)).into_owned());
        let lines = text.as_deref().map_or(0, |t| t.lines().count());
        Excerpt {
            path: shown.to_path_buf(),
            text,
            total_lines: lines,
            shown_lines: lines,
            truncated: false,
            error,
            conflict,
        }
    }

    /// Whether there is anything to show (a text, or an error or a
    /// conflict about it).
    fn is_present(&self) -> bool {
        self.text.is_some() || self.error.is_some() || self.conflict.is_some()
    }
}

/// The text of a memory file without its `<!-- agent-handover | ... -->` line.
fn without_memory_header(text: &str) -> &str {
    match text.split_once('\n') {
        Some((first, rest)) if first.starts_with("<!-- agent-handover |") => rest,
        _ => text,
    }
}

/// The last step: carry on (from the next step named above, when there is
/// one), and hand over at the end (from a saved draft when a hook left one
/// that no handover has used yet).
fn finish_step(ws: &Workspace, agent: &str, step_named: bool) -> String {
    if let Ok(Some(saved)) = crate::read::draft::pending(ws) {
        let path = relative(ws, &saved.path).display().to_string();
        return format!(
            "A draft handoff from {} ({}) is at {path}: it holds what the last session measured. At session end, complete it (replace every TODO) and hand over with `agent-handover run --note-file {path}`.",
            saved.saved_at.format("%Y-%m-%d %H:%M UTC"),
            saved.trigger
        );
    }
    let carry_on = if step_named {
        ""
    } else {
        "Continue from the current state. "
    };
    format!(
        "{carry_on}At session end: {}.",
        crate::read::draft::handover_loop(Some(agent), None)
    )
}

/// `path` relative to the project root when it is inside it.
fn relative<'p>(ws: &Workspace, path: &'p Path) -> &'p Path {
    path.strip_prefix(&ws.root).unwrap_or(path)
}
