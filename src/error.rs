//! The library's error type: every variant names the file or thing at fault
//! and says what to do about it, so the CLI and the dashboard can show it as is.

use std::path::PathBuf;

/// Result alias used across the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the engine, the memory store or the config.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An I/O operation on a named file failed.
    #[error("{op} {}: {source}", path.display())]
    Io {
        /// What we were doing ("read", "write", "rename", ...).
        op: &'static str,
        /// The file or directory involved.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A state file exists but cannot be understood; it is left untouched.
    #[error("{} is unreadable: {detail}\n  fix: {fix}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
        /// What the user should do.
        fix: String,
    },
    /// A state file was written by a newer agent-handover.
    #[error(
        "{} has schema version {found}, newer than this agent-handover understands ({supported})\n  fix: upgrade agent-handover; the file was left untouched",
        path.display()
    )]
    FutureVersion {
        /// The file.
        path: PathBuf,
        /// The version found in the file.
        found: u64,
        /// The newest version we read.
        supported: u32,
    },
    /// A file is larger than we are willing to read.
    #[error("{} is {size} bytes, over the {limit}-byte limit\n  fix: {fix}", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
        /// What to do.
        fix: &'static str,
    },
    /// A name (tag, step, agent) that could escape its directory or is otherwise unsafe.
    #[error("invalid {what} {name:?}: {why}")]
    UnsafeName {
        /// Which kind of name ("tag", "step name", ...).
        what: &'static str,
        /// The offending name.
        name: String,
        /// Why it was refused.
        why: &'static str,
    },
    /// A path resolves outside the tree it must stay in (e.g. through a symlink).
    #[error(
        "{} resolves outside {}\n  fix: remove the symlink or point the config at a directory inside it",
        path.display(),
        root.display()
    )]
    OutsideRoot {
        /// The path.
        path: PathBuf,
        /// The root it must stay in.
        root: PathBuf,
    },
    /// A file we replace atomically is a symlink; we never replace links.
    #[error(
        "{} is a symlink; agent-handover replaces files atomically and will not follow or replace a link\n  fix: replace the link with a regular file",
        path.display()
    )]
    Symlink {
        /// The link.
        path: PathBuf,
    },
    /// The handover config is invalid.
    #[error("{}: {detail}", path.as_ref().map_or_else(|| "config".to_string(), |p| p.display().to_string()))]
    Config {
        /// The config file, if one was read.
        path: Option<PathBuf>,
        /// What is wrong and how to fix it.
        detail: String,
    },
    /// A PAUSE file is present: nothing runs.
    #[error("automation paused: {} exists{}\n  fix: remove it (agent-handover unpause) to continue; the handover stays resumable",
        file.display(), reason.as_ref().map(|r| format!(" ({r})")).unwrap_or_default())]
    Paused {
        /// The PAUSE file that is present.
        file: PathBuf,
        /// The reason written in it, if any.
        reason: Option<String>,
    },
    /// Another process holds the run lock.
    #[error(
        "the handover is being executed by {holder}\n  fix: wait for it to finish (agent-handover status shows progress)"
    )]
    Busy {
        /// Who holds the lock, e.g. "pid 42 on host since 2026-11-21T10:00:00Z".
        holder: String,
    },
    /// A step returned an error; the run stays resumable.
    #[error("step '{step}' failed: {message}\n  fix: fix the cause, then `agent-handover resume`")]
    StepFailed {
        /// The step.
        step: String,
        /// Its error.
        message: String,
    },
    /// A step needs a human decision before the run can go on.
    #[error("step '{step}' {why}\n  fix: {fix}")]
    NeedsHuman {
        /// The step.
        step: String,
        /// Why the engine will not decide alone.
        why: String,
        /// The commands that settle it.
        fix: String,
    },
    /// The requested operation needs a run in a state it is not in.
    #[error("{0}")]
    NoSuchRun(String),
    /// A handover is in progress, and this operation does not run over it.
    #[error(
        "handover {run_id} is in progress (pending: {pending})\n  fix: finish it with `agent-handover resume`, or give it up with `agent-handover abandon --reason \"...\"`; then {then}"
    )]
    HandoverInProgress {
        /// The run in progress.
        run_id: String,
        /// Its steps not done yet.
        pending: String,
        /// What to do once it is settled.
        then: String,
    },
    /// A handoff scored below the required minimum; nothing was written.
    #[error(
        "the handoff scores {score}/100, below the minimum of {min}; nothing was written:\n{findings}\n  fix: address these (`agent-handover lint FILE` lists every finding) and run again, or lower --min-score / [handover].min_score"
    )]
    BelowMinScore {
        /// Its score.
        score: u8,
        /// The minimum asked for.
        min: u8,
        /// Its most severe findings (redacted), one per line.
        findings: String,
    },
    /// A version selector (`state diff FROM TO`) that names no version of
    /// current-state.md, or several different ones.
    #[error(
        "version {selector:?} {why}; versions:{known}\n  fix: name one by index (0 = newest), `current`, or a longer prefix of its id, commit or run id (agent-handover state list)"
    )]
    UnknownVersion {
        /// The selector given.
        selector: String,
        /// What is wrong with it.
        why: String,
        /// The versions it could mean (or all of them), one per line.
        known: String,
    },
    /// A step name that the plan does not have.
    #[error("no step named {name:?} in run {run_id}; steps: {known}")]
    UnknownStep {
        /// The name asked for.
        name: String,
        /// The run.
        run_id: String,
        /// The steps it has.
        known: String,
    },
    /// A message id (`inbox read`, `inbox ack`, `--reply-to`) that names no
    /// message, or messages in several queues.
    #[error(
        "message {id:?} {why}\n  fix: `agent-handover inbox list` shows the ids; write `<queue>/<id>` (e.g. `shared/<id>`) when several queues hold one"
    )]
    UnknownMessage {
        /// The id given.
        id: String,
        /// What is wrong with it.
        why: String,
    },
}

impl Error {
    /// Wrap an `io::Error` with the operation and path it happened on.
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            op,
            path: path.into(),
            source,
        }
    }

    /// A config error with a message that says how to fix it.
    pub fn config(path: Option<&std::path::Path>, detail: impl Into<String>) -> Self {
        Error::Config {
            path: path.map(Into::into),
            detail: detail.into(),
        }
    }
}
