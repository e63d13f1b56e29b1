//! Exit codes, one table for every command (documented in `--help` and README).

use agent_handover::Error;

/// Success; for `check`: no handover in progress.
pub const OK: u8 = 0;
/// `check`: a handover was interrupted and needs resuming; other commands: it failed.
pub const FAILED: u8 = 1;
/// A state file (checkpoint, run record) is corrupt, too large or from a newer version.
pub const UNREADABLE: u8 = 3;
/// A PAUSE file stops automation.
pub const PAUSED: u8 = 4;
/// Another process is executing the handover.
pub const BUSY: u8 = 5;
/// A step needs a human decision (`retry` or `abandon`), or a pending
/// handover must be resumed or abandoned first.
pub const NEEDS_HUMAN: u8 = 6;
/// A handoff scored below the minimum (`lint --min-score`; `run --min-score` refused it).
pub const BELOW_MIN_SCORE: u8 = 7;
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
  6   a human decision is needed (retry STEP, resume, or abandon)
  7   the handoff scores below --min-score (lint; run refused it, nothing written)
  64  usage error    74  I/O error    78  config error";

/// The exit code for an error.
pub fn code_for(error: &Error) -> u8 {
    match error {
        Error::Corrupt { .. } | Error::FutureVersion { .. } | Error::TooLarge { .. } => UNREADABLE,
        Error::Paused { .. } => PAUSED,
        Error::Busy { .. } => BUSY,
        Error::NeedsHuman { .. } | Error::HandoverInProgress { .. } => NEEDS_HUMAN,
        Error::BelowMinScore { .. } => BELOW_MIN_SCORE,
        Error::Io { .. } => IO,
        Error::Config { .. }
        | Error::UnsafeName { .. }
        | Error::OutsideRoot { .. }
        | Error::Symlink { .. } => CONFIG,
        Error::UnknownStep { .. } | Error::UnknownVersion { .. } | Error::UnknownMessage { .. } => {
            USAGE
        }
        Error::StepFailed { .. } | Error::NoSuchRun(_) => FAILED,
    }
}
