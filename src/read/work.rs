//! Work since the last handover: the one answer the hooks (whether to ask
//! again, what a draft lists), `draft`, `sessions` and the fleet give.
//!
//! A handover records what it covered ([`crate::engine::step::Inputs::covered`],
//! staged with its texts: the `HEAD` it saw and the work tree its note
//! described); the work since
//! it is the commits `HEAD` has that the handover's `HEAD` has not, and the
//! files changed after it saw them: the commit graph and the files'
//! fingerprints, never the clock, so a commit made in the handover's own
//! second is before or after it as the graph says. A handover recorded
//! without it (by an older agent-handover, or outside git, where there is
//! no `HEAD`) is measured from its moment, as before: commits from its
//! second on, files modified after it.

use crate::read::history::{LastHandover, last_handover};
use crate::workspace::Workspace;
use crate::workspace::activity::{self, Activity};

/// The work in `ws` since `last` (everything when there was no handover).
pub fn since(ws: &Workspace, last: Option<&LastHandover>) -> Activity {
    let Some(last) = last else {
        return activity::since(ws, None);
    };
    let mut work = match &last.covered(ws) {
        Some(covered) => activity::since_covered(ws, covered),
        None => activity::since(ws, Some(last.finished_at)),
    };
    // Said as "since the last handover (its time)".
    work.since = Some(last.finished_at);
    work
}

/// The last handover of `ws` and the work since it (see [`since`]); an
/// unreadable run record counts as no handover, as every caller would
/// rather list too much than nothing.
pub fn since_last_handover(ws: &Workspace) -> (Option<LastHandover>, Activity) {
    let last = last_handover(ws).ok().flatten();
    let work = since(ws, last.as_ref());
    (last, work)
}
