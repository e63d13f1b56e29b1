//! What a session starts with: `check`'s verdict, and the MCP `brief`
//! tool's verdict and brief in one answer.

use crate::base::error::Result;
use crate::engine::Checkpoint;
use crate::engine::queue::RunQueue;
use crate::read::brief::{self, Brief};
use crate::read::{Condition, RunState, run_state};
use crate::workspace::Workspace;

/// The run state as `check` judges it. A checkpoint or queue entry that
/// cannot be read is the error that names the file and the fix (exit 3),
/// not a bare "unreadable".
pub fn check(ws: &Workspace) -> Result<RunState> {
    let state = run_state(ws);
    if let Condition::Unreadable { .. } = state.condition {
        Checkpoint::load(&ws.checkpoint)?;
        RunQueue::of(ws).list()?;
    }
    Ok(state)
}

/// A session's start: the verdict and the brief.
#[derive(Debug)]
pub struct SessionStart {
    /// `check`'s exit code.
    pub code: u8,
    /// The run state in words, and what to do next.
    pub verdict: String,
    /// The brief, within its budget.
    pub brief: Brief,
}

impl SessionStart {
    /// `check: 1 (interrupted)`, a blank line, then the brief in Markdown.
    pub fn text(&self) -> String {
        format!(
            "check: {} ({})\n\n{}",
            self.code,
            self.verdict,
            self.brief.to_markdown()
        )
    }
}

/// The verdict and the brief of `agent` within `max_tokens`.
pub fn start(ws: &Workspace, agent: &str, max_tokens: usize) -> Result<SessionStart> {
    let state = check(ws)?;
    Ok(SessionStart {
        code: state.check_code(),
        verdict: state.verdict(),
        brief: brief::brief(ws, agent, max_tokens)?,
    })
}
