//! The linter's context with the project's truth: what
//! [`LintContext::for_workspace`] gathers, and the commits the handoff's
//! session made and those made after it, read by the commit graph from the
//! `HEAD`s the newest handovers covered (their run records, which the
//! engine keeps). Every face and the quality gate lint with it, so a score
//! is one answer wherever it is shown.

use crate::domain::handoff::LintContext;
use crate::domain::handoff::truth;
use crate::workspace::{Workspace, activity};

use super::checkpoint::{RunStatus, runs_newest_first};

/// The context to lint `text` with in `ws`, the truth checks included.
pub fn lint_context(ws: &Workspace, text: &str) -> LintContext {
    let mut ctx = LintContext::for_workspace(ws);
    ctx.truth = truth::gather(
        &ws.root,
        &covered_heads(ws),
        text,
        &activity::not_work_paths(ws),
    );
    ctx
}

/// The `HEAD`s the two newest completed handovers covered, newest first
/// (fewer when fewer recorded one; unreadable records are skipped).
fn covered_heads(ws: &Workspace) -> Vec<String> {
    let Ok(runs) = runs_newest_first(ws) else {
        return Vec::new();
    };
    runs.flatten()
        .filter(|r| r.status == RunStatus::Completed)
        .filter_map(|r| r.covered_head)
        .take(2)
        .collect()
}
