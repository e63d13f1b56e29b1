//! The library's error type: every variant names the file or thing at fault
//! and says what to do about it, so the CLI and the dashboard can show it as is.

use std::path::PathBuf;

/// What comes between an error's message and its fix: `"\n  fix: "`.
pub const FIX_MARK: &str = "\n  fix: ";

/// The name of the standard input in errors (a [`Error::TooLarge`] says
/// "more than" for it: a stream's size is not known).
pub const STDIN: &str = "stdin";

/// How a [`Error::TooLarge`] words its size: a file's is known; a stream
/// (stdin) is refused as soon as it passes the limit, so only that is.
fn too_large_size(path: &std::path::Path, size: u64, limit: u64) -> String {
    if path == std::path::Path::new(STDIN) {
        format!("holds more than {limit} bytes")
    } else {
        format!("is {size} bytes")
    }
}

/// A failed step's error with the way on: its own fix (a git error's)
/// followed by the resume, or else the general fix; one "fix:" line.
fn with_resume(message: &str) -> String {
    if message.contains(FIX_MARK) {
        format!("{message}, then `agent-handover resume`")
    } else {
        format!("{message}{FIX_MARK}fix the cause, then `agent-handover resume`")
    }
}

/// Result alias used across the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the engine, the memory store or the config.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An I/O operation on a named file failed.
    #[error("{op} {}: {source}{}", path.display(), fix.as_ref().map(|f| format!("\n  fix: {f}")).unwrap_or_default())]
    Io {
        /// What we were doing ("read", "write", "rename", ...).
        op: &'static str,
        /// The file or directory involved.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
        /// What to do, for the errors a user can fix (see [`Error::io`]).
        fix: Option<String>,
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
    #[error("{} {}, over the {limit}-byte limit\n  fix: {fix}", path.display(), too_large_size(path, *size, *limit))]
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
    /// A symlink where agent-handover writes a file of its own; it never
    /// writes through a link nor replaces one.
    #[error(
        "{} is a symlink; agent-handover will not write through or replace a link\n  fix: {fix}",
        path.display()
    )]
    Symlink {
        /// The link.
        path: PathBuf,
        /// What to do: replace it with a regular file, or remove it.
        fix: String,
    },
    /// A link on the way to a file of agent-handover's own (a memory,
    /// state or config file, or an agent's folder `install` writes into)
    /// leads out of the tree it belongs to: it is neither read nor written
    /// through ([`crate::base::fsx::check_links_within`]).
    #[error(
        "{} is a symlink leading out of {}; agent-handover neither reads nor writes through it\n  fix: {fix}",
        path.display(),
        root.display()
    )]
    LinkOutside {
        /// The link.
        path: PathBuf,
        /// The tree it leaves (the project, or the memory folder).
        root: PathBuf,
        /// What to do.
        fix: String,
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
    #[error("step '{step}' failed: {}", with_resume(message))]
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
    /// `retry` or `abandon` with no handover in progress.
    #[error("nothing to {verb}: no handover is in progress (last status: {last_status})")]
    NothingInProgress {
        /// What was asked ("retry", "abandon").
        verb: &'static str,
        /// The status of the last handover.
        last_status: &'static str,
    },
    /// `retry` of a step that is already done.
    #[error("step '{step}' is already done; done steps never run again")]
    StepAlreadyDone {
        /// The step.
        step: String,
    },
    /// A handover started by agent-handover 0.5.x has no staged plan to resume from.
    #[error(
        "{} was written by agent-handover 0.5.x and has no staged plan\n  fix: finish it with `agent-handover run --config <your handover.toml>` (done steps stay done)",
        path.display()
    )]
    LegacyCheckpoint {
        /// The checkpoint.
        path: PathBuf,
    },
    /// A step of the run has a kind this agent-handover does not know: a
    /// newer version staged it. The checkpoint itself is fine.
    #[error(
        "step '{step}' has kind {kind:?}, written by a newer agent-handover than this one\n  fix: finish the handover with the newer agent-handover (upgrade this one), or give it up with `agent-handover abandon --reason \"...\"`; {} was left untouched",
        path.display()
    )]
    NewerStepKind {
        /// The step.
        step: String,
        /// Its kind, as written.
        kind: String,
        /// The checkpoint.
        path: PathBuf,
    },
    /// Every layer-1 note name of a tag and day is taken.
    #[error("{} already holds 10,000 notes tagged {tag:?} for {date}\n  fix: compact or move some", dir.display())]
    NoteNamesExhausted {
        /// The month folder.
        dir: PathBuf,
        /// The tag.
        tag: String,
        /// The day.
        date: chrono::NaiveDate,
    },
    /// A new handover could not run yet (an older one is stuck, PAUSE is on,
    /// or another process holds the lock); it is staged and queued, its text
    /// safe on disk. Its kind and exit code are those of the cause.
    #[error(
        "{source}\n  your new handover is safe: run {run_id} is staged ({}) and queued behind it{}",
        inputs.display(),
        next.as_ref().map(|n| format!("; next: {n}")).unwrap_or_default()
    )]
    Queued {
        /// The queued run.
        run_id: String,
        /// Its staged inputs (the note text).
        inputs: PathBuf,
        /// Why it could not run now.
        source: Box<Error>,
        /// What to do next, as the run state says it once the lock is
        /// free (filled in by `ops::handover::hand_over`).
        next: Option<String>,
    },
    /// Bringing the remote's memory in failed (not for want of a network:
    /// that is offline, not an error).
    #[error("sync failed: {detail}")]
    SyncFailed {
        /// What git said, with the fix.
        detail: String,
    },
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
    /// A call that lacks an argument it needs (an MCP tool's arguments are
    /// checked here, as clap checks the command line's).
    #[error("{what}\n  fix: {fix}")]
    Usage {
        /// What is missing or wrong.
        what: String,
        /// What to pass.
        fix: String,
    },
    /// A note or message with nothing in it: refused, nothing written.
    #[error("the {what} is empty; nothing was written\n  fix: {fix}")]
    EmptyText {
        /// What was empty ("session note", "message").
        what: &'static str,
        /// How to give it text (or to insist).
        fix: &'static str,
    },
    /// A secret where none may pass: in a run's note or current state, an
    /// inbox message, or a file a publish would send. Nothing was written,
    /// sent or committed.
    /// An error a library module owns (an unknown task, fact, message or
    /// version, a handoff refused at the gate): its own type and words,
    /// carried here and mapped by its kind.
    #[error("{0}")]
    Module(Box<dyn ModuleError>),
    #[error(transparent)]
    SecretFound(#[from] SecretFound),
}

/// The error type of one library module (`domain::task::TaskError`,
/// `domain::handoff::HandoffError`, …): what the module alone knows how to
/// say, with the kind that gives its exit code and JSON `kind`. `?` turns
/// one into an [`Error`]; [`Error::module`] gets it back.
pub trait ModuleError: std::error::Error + Send + Sync + 'static {
    /// Its JSON `kind` and exit code.
    fn kind(&self) -> ErrorKind;
    /// The file or folder at fault, if one is.
    fn path(&self) -> Option<&std::path::Path> {
        None
    }
}

impl<E: ModuleError> From<E> for Error {
    fn from(error: E) -> Self {
        Error::Module(Box::new(error))
    }
}

/// A secret found at a door (see [`crate::base::secrets::check`]): what
/// holds it, its kind and line, and that line with every secret redacted.
/// It never holds the secret itself.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{what} holds a secret ({kind}) on line {line}{}: {excerpt}\n  fix: {fix}",
    match more { 0 => String::new(), n => format!(" (and {n} more)") }
)]
pub struct SecretFound {
    /// What holds it ("the session note", a file's path).
    pub what: String,
    /// What it looks like ("AWS access key ID", "password", ...).
    pub kind: &'static str,
    /// The 1-based line of the first secret.
    pub line: usize,
    /// That line, trimmed and cut, with every secret in it redacted.
    pub excerpt: String,
    /// How many more secrets the text holds.
    pub more: usize,
    /// What was (not) done, and what to do.
    pub fix: String,
}

/// What kind of error it is: its stable name (the JSON `kind`) and the
/// process exit code, derived together in [`Error::kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorKind {
    /// Stable snake_case name, printed as `"kind"` by `--json`.
    pub name: &'static str,
    /// The exit code of the `agent-handover` binary (see [`exit_code`]).
    pub exit_code: u8,
}

/// The exit codes of the `agent-handover` binary, one table for every command.
pub mod exit_code {
    /// Success; for `check`: no handover in progress.
    pub const OK: u8 = 0;
    /// `check`: a handover was interrupted and needs resuming; other commands: it failed.
    pub const FAILED: u8 = 1;
    /// `check`: the last handover completed.
    pub const COMPLETED: u8 = 2;
    /// A state file (checkpoint, run record) is corrupt, too large or from a newer version.
    pub const UNREADABLE: u8 = 3;
    /// A PAUSE file stops automation.
    pub const PAUSED: u8 = 4;
    /// Another process is executing the handover.
    pub const BUSY: u8 = 5;
    /// A step needs a human decision (`retry`, `abandon`, an upgrade), or a
    /// pending handover must be resumed or abandoned first.
    pub const NEEDS_HUMAN: u8 = 6;
    /// A handoff scored below the minimum (`lint --min-score`; `run --min-score` refused it).
    pub const BELOW_MIN_SCORE: u8 = 7;
    /// A secret was found where none may pass (a run's note or current
    /// state, an inbox message, a file publish would commit); nothing was
    /// written, sent or committed. `--allow-secret` lets it through.
    pub const SECRET_FOUND: u8 = 8;
    /// Bad command-line usage.
    pub const USAGE: u8 = 64;
    /// An I/O error.
    pub const IO: u8 = 74;
    /// The config is invalid (or a name in it is unsafe).
    pub const CONFIG: u8 = 78;

    /// The table shown at the end of `--help`.
    pub const HELP_TABLE: &str = "\
Exit codes:
  0   ok (check: no handover in progress)
  1   check: an interrupted handover needs resuming; others: the command failed
  2   check: the last handover completed
  3   a state file is corrupt, too large or from a newer version (left untouched)
  4   paused: a PAUSE file exists
  5   busy: another process is executing the handover
  6   a human decision is needed (retry STEP, resume, abandon, or upgrade)
  7   the handoff scores below --min-score (lint; run refused it, nothing written)
  8   a secret in a note, message or published file was refused (nothing written)
  64  usage error    74  I/O error    78  config error";
}

impl Error {
    /// The module error of type `E` this is, if it is one.
    pub fn module<E: ModuleError>(&self) -> Option<&E> {
        match self {
            Error::Module(e) => (e.as_ref() as &dyn std::error::Error).downcast_ref(),
            _ => None,
        }
    }

    /// The kind of this error: its JSON name and exit code, decided here once.
    pub fn kind(&self) -> ErrorKind {
        use exit_code::*;
        let (name, exit_code) = match self {
            Error::Queued { source, .. } => return source.kind(),
            Error::Module(e) => return e.kind(),
            Error::Io { .. } => ("io", IO),
            Error::Corrupt { .. } => ("corrupt", UNREADABLE),
            Error::FutureVersion { .. } => ("future_version", UNREADABLE),
            Error::TooLarge { .. } => ("too_large", UNREADABLE),
            Error::UnsafeName { .. } => ("unsafe_name", CONFIG),
            Error::OutsideRoot { .. } => ("outside_root", CONFIG),
            Error::Symlink { .. } | Error::LinkOutside { .. } => ("symlink", CONFIG),
            Error::Config { .. } => ("config", CONFIG),
            Error::Paused { .. } => ("paused", PAUSED),
            Error::Busy { .. } => ("busy", BUSY),
            Error::StepFailed { .. } => ("step_failed", FAILED),
            Error::NeedsHuman { .. } => ("needs_human", NEEDS_HUMAN),
            Error::NewerStepKind { .. } => ("newer_step_kind", NEEDS_HUMAN),
            Error::HandoverInProgress { .. } => ("handover_in_progress", NEEDS_HUMAN),
            Error::NothingInProgress { .. } => ("no_such_run", FAILED),
            Error::SyncFailed { .. } => ("sync_failed", FAILED),
            Error::StepAlreadyDone { .. } => ("step_already_done", FAILED),
            Error::LegacyCheckpoint { .. } => ("legacy_checkpoint", FAILED),
            Error::NoteNamesExhausted { .. } => ("note_names_exhausted", FAILED),
            Error::UnknownStep { .. } => ("unknown_step", USAGE),
            Error::EmptyText { .. } => ("empty_text", USAGE),
            Error::Usage { .. } => ("usage", USAGE),
            Error::SecretFound(_) => ("secret_found", SECRET_FOUND),
        };
        ErrorKind { name, exit_code }
    }

    /// The file (or folder) the error is about, when it names one.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            Error::Io { path, .. }
            | Error::Corrupt { path, .. }
            | Error::FutureVersion { path, .. }
            | Error::TooLarge { path, .. }
            | Error::OutsideRoot { path, .. }
            | Error::Symlink { path, .. }
            | Error::LinkOutside { path, .. }
            | Error::LegacyCheckpoint { path, .. }
            | Error::NewerStepKind { path, .. } => Some(path),
            Error::NoteNamesExhausted { dir, .. } => Some(dir),
            Error::Module(e) => e.path(),
            Error::Paused { file, .. } => Some(file),
            Error::Config { path, .. } => path.as_deref(),
            Error::Queued { source, .. } => source.path(),
            Error::UnsafeName { .. }
            | Error::Busy { .. }
            | Error::StepFailed { .. }
            | Error::NeedsHuman { .. }
            | Error::NothingInProgress { .. }
            | Error::StepAlreadyDone { .. }
            | Error::SyncFailed { .. }
            | Error::HandoverInProgress { .. }
            | Error::UnknownStep { .. }
            | Error::Usage { .. }
            | Error::EmptyText { .. }
            | Error::SecretFound(_) => None,
        }
    }

    /// The error's message in its two parts: what is wrong, and what to do
    /// about it (the text after [`FIX_MARK`], which every message that knows
    /// a fix puts last), if it says.
    pub fn what_and_fix(&self) -> (String, Option<String>) {
        let text = self.to_string();
        match text.split_once(FIX_MARK) {
            Some((what, fix)) => (what.to_string(), Some(fix.to_string())),
            None => (text, None),
        }
    }

    /// Wrap an `io::Error` with the operation and path it happened on, and
    /// the fix for the errors a user can fix: a directory where a file
    /// belongs, a full, read-only or forbidden file system.
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        let fix = io_fix(&path, &source);
        Error::Io {
            op,
            path,
            source,
            fix,
        }
    }

    /// A config error with a message that says how to fix it (a text, or
    /// a module's typed error, shown as it displays).
    pub fn config(path: Option<&std::path::Path>, detail: impl std::fmt::Display) -> Self {
        Error::Config {
            path: path.map(Into::into),
            detail: detail.to_string(),
        }
    }
}

/// What to do about an I/O error on `path`: the one place these fixes are worded.
fn io_fix(path: &std::path::Path, source: &std::io::Error) -> Option<String> {
    let errno = source.raw_os_error()?;
    // The folder whose file system is at fault: the path itself if it is a
    // directory, else the folder holding it.
    let folder = if path.is_dir() {
        path
    } else {
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(path)
    };
    let again =
        "then run the command again (`agent-handover resume` finishes an interrupted handover)";
    let fix = match errno {
        libc::EISDIR => format!(
            "{0} is a directory where a file belongs; move the directory aside (mv '{0}' '{0}.moved'), {again}",
            path.display()
        ),
        libc::ENOSPC | libc::EDQUOT => format!(
            "free space on the filesystem holding {} (or raise your disk quota), {again}",
            folder.display()
        ),
        libc::EROFS => format!(
            "make the filesystem holding {} writable (it is mounted read-only), {again}",
            folder.display()
        ),
        libc::EACCES | libc::EPERM if folder == path => format!(
            "give your user read and write access to {} (`ls -ld` shows its owner and mode), {again}",
            path.display()
        ),
        libc::EACCES | libc::EPERM => format!(
            "give your user read and write access to {} and its folder {} (`ls -ld` shows their owners and modes), {again}",
            path.display(),
            folder.display()
        ),
        _ => return None,
    };
    Some(fix)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(errno: i32, path: &std::path::Path) -> String {
        Error::io("write", path, std::io::Error::from_raw_os_error(errno)).to_string()
    }

    #[test]
    fn io_errors_a_user_can_fix_say_how() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".checkpoint.json.x.tmp");
        let folder = dir.path().display().to_string();
        for (errno, says) in [
            (libc::ENOSPC, "free space on the filesystem holding"),
            (libc::EDQUOT, "raise your disk quota"),
            (libc::EROFS, "make the filesystem holding"),
            (libc::EACCES, "read and write access to"),
            (libc::EPERM, "read and write access to"),
        ] {
            let msg = shown(errno, &file);
            assert!(
                msg.starts_with(&format!("write {}: ", file.display())),
                "{msg}"
            );
            assert!(msg.contains("\n  fix: ") && msg.contains(says), "{msg}");
            assert!(
                msg.contains(&folder) && msg.contains("agent-handover resume"),
                "{msg}"
            );
        }
        let msg = shown(libc::EISDIR, dir.path());
        assert!(
            msg.contains(&format!(
                "fix: {folder} is a directory where a file belongs; move the directory aside"
            )),
            "{msg}"
        );
        // Others name the file and the OS error, and invent no fix.
        assert!(!shown(libc::EIO, &file).contains("fix:"));
        let plain = Error::io("read", &file, std::io::ErrorKind::NotFound.into());
        assert!(!plain.to_string().contains("fix:"));
        assert_eq!(plain.kind().exit_code, exit_code::IO);
    }

    #[test]
    fn a_failed_step_says_one_fix_and_then_the_resume() {
        let own = Error::StepFailed {
            step: "publish".into(),
            message: "push to origin refused\n  fix: pull, then push".into(),
        }
        .to_string();
        assert_eq!(own.matches("fix:").count(), 1, "{own}");
        assert!(
            own.ends_with("fix: pull, then push, then `agent-handover resume`"),
            "{own}"
        );
        let plain = Error::StepFailed {
            step: "tests".into(),
            message: "exit status 1".into(),
        }
        .to_string();
        assert_eq!(
            plain,
            "step 'tests' failed: exit status 1\n  fix: fix the cause, then `agent-handover resume`"
        );
    }

    #[test]
    fn an_error_says_its_file_and_its_fix_apart() {
        let corrupt = Error::Corrupt {
            path: "cp.json".into(),
            detail: "not JSON".into(),
            fix: "move it aside".into(),
        };
        assert_eq!(corrupt.path(), Some(std::path::Path::new("cp.json")));
        let (what, fix) = corrupt.what_and_fix();
        assert_eq!(what, "cp.json is unreadable: not JSON");
        assert_eq!(fix.as_deref(), Some("move it aside"));
        assert_eq!(
            format!("{what}{FIX_MARK}{}", fix.unwrap()),
            corrupt.to_string()
        );
        let plain = Error::io("read", "x", std::io::ErrorKind::NotFound.into());
        assert_eq!(plain.what_and_fix(), (plain.to_string(), None));
        assert_eq!(plain.path(), Some(std::path::Path::new("x")));
        let busy = Error::Busy {
            holder: "pid 1".into(),
        };
        assert_eq!(busy.path(), None);
    }
}
