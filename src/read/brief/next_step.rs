//! THE next step the brief names first after recovery: the one the current
//! state (what the last handover wrote) gives under its next-step heading,
//! in its words (secrets redacted), with where they came from, and whether a
//! commit made after the last handover looks like it did it already (one
//! that changed a file the step names, or whose message says what it says:
//! the rule that judges a next step acted on,
//! [`crate::domain::handoff::usefulness::commit_meets_step`]). The commits
//! are read from the commit graph alone (no status, no diff: only the
//! files the step names are looked up in each), and not at all while
//! `HEAD` is what the handover covered; the step itself is the one the
//! handover found when it ran (the state is parsed again only when it was
//! edited or merged since): the brief is made at every session start.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::base::secrets;
use crate::domain::handoff::document::HandoffDocument;
use crate::domain::handoff::usefulness::{StepMatch, commit_meets_step, named_paths};
use crate::read::history::last_handover;
use crate::workspace::Workspace;
use crate::workspace::activity::commits_after;

/// Most characters of the step's words shown (the rest is in the file).
pub const MAX_STEP_CHARS: usize = 300;
/// Most later commits looked at.
const MAX_LATER_COMMITS: usize = 30;

/// The next step the last handover left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HandedOverStep {
    /// Its words, secrets redacted, on one line; cut at [`MAX_STEP_CHARS`].
    pub text: String,
    /// Whether they were cut.
    pub cut: bool,
    /// The file it is written in, relative to the project root when inside it.
    pub path: PathBuf,
    /// Its line in that file.
    pub line: usize,
    /// A commit after the last handover that looks like it did the step.
    pub later_commit: Option<LaterCommit>,
}

/// A commit made after the last handover that shares something with the step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LaterCommit {
    /// Its abbreviated id (7 hex digits).
    pub id: String,
    /// The first line of its message, secrets redacted.
    pub summary: String,
    /// What it shares with the step.
    pub matched: StepMatch,
}

impl HandedOverStep {
    /// The step's line in the brief.
    pub fn sentence(&self) -> String {
        let more = if self.cut {
            " (the rest in the file)"
        } else {
            ""
        };
        let mut line = format!(
            "**The last handover's next step** (`{}`, line {}): {}{more}",
            self.path.display(),
            self.line,
            self.text
        );
        if let Some(c) = &self.later_commit {
            let what = match &c.matched {
                StepMatch::File(path) => format!("touched `{path}`, named in this step"),
                StepMatch::Words => "says much of what this step says".to_string(),
            };
            line.push_str(&format!(
                " A later commit (`{}` \"{}\") {what}: check whether it is done.",
                c.id, c.summary
            ));
        }
        line
    }
}

/// The next step of the current state `raw` (the file's text, read from
/// `path`), if it has one, with the first commit since the last handover
/// that looks like it. The last handover's record names the step of the
/// text it wrote; the state is parsed only when it is another text (edited
/// or merged since).
pub fn gather(ws: &Workspace, path: &Path, raw: &str) -> Option<HandedOverStep> {
    let last = last_handover(ws).ok().flatten();
    let body = super::without_memory_header(raw);
    let header_lines = usize::from(body.len() < raw.len());
    let recorded = last
        .as_ref()
        .and_then(|h| h.next_step.as_ref())
        .filter(|s| s.is_of(body));
    let (words, line) = match recorded {
        Some(step) => (step.text.clone()?, step.line + header_lines),
        None => {
            let doc = HandoffDocument::parse(raw);
            let item = doc.next_step()?;
            let words = item.text.split_whitespace().collect::<Vec<_>>().join(" ");
            (words, item.line)
        }
    };
    let words = secrets::redact(&words).into_owned();
    if words.is_empty() {
        return None;
    }
    let cut = words.chars().count() > MAX_STEP_CHARS;
    let text = if cut {
        let kept: String = words.chars().take(MAX_STEP_CHARS - 1).collect();
        format!("{}…", kept.trim_end())
    } else {
        words.clone()
    };
    let later_commit = last.and_then(|h| h.covered_head).and_then(|head| {
        commits_after(ws, &head, MAX_LATER_COMMITS, || named_paths(&words))
            .into_iter()
            .find_map(|(commit, paths)| {
                let summary = secrets::redact(&commit.summary).into_owned();
                let matched = commit_meets_step(&words, &summary, &paths)?;
                Some(LaterCommit {
                    id: commit.id.chars().take(7).collect(),
                    summary,
                    matched,
                })
            })
    });
    Some(HandedOverStep {
        text,
        cut,
        path: path.strip_prefix(&ws.root).unwrap_or(path).to_path_buf(),
        line,
        later_commit,
    })
}
