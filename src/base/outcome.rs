//! Typed step outcomes, shared by the engine's steps and the publish
//! backends: how a step stopped ([`StepError`]) and how an attempt that was
//! interrupted by a crash is settled ([`AfterCrash`]).
//!
//! They live below both the engine and the backends so that a backend can
//! say "paused" or "needs a human" without knowing the engine, and the
//! engine can act on it without parsing a message.

use std::path::PathBuf;

use serde::Serialize;

use crate::base::error::{Error, SecretFound};

/// Why a step stopped without finishing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    /// A PAUSE file appeared while the step ran (e.g. right before a push):
    /// nothing is lost and the step runs again on resume.
    #[error("automation paused: {} exists{}", file.display(), reason.as_ref().map(|r| format!(" ({r})")).unwrap_or_default())]
    Paused {
        /// The PAUSE file that is present.
        file: PathBuf,
        /// The reason written in it, if any.
        reason: Option<String>,
    },
    /// The step failed; resuming runs it again.
    #[error("{message}")]
    Failed {
        /// What went wrong, with enough detail to act on.
        message: String,
    },
    /// The step cannot decide alone: a human must look first.
    #[error("{why}")]
    NeedsHuman {
        /// Why the step will not decide alone.
        why: String,
        /// The commands that settle it.
        fix: String,
    },
    /// The step refused to send a secret on (a publish found one in a file
    /// it was about to commit); nothing was sent. Resuming runs it again.
    #[error(transparent)]
    SecretFound(SecretFound),
}

impl StepError {
    /// A failure with `message`.
    pub fn failed(message: impl Into<String>) -> Self {
        StepError::Failed {
            message: message.into(),
        }
    }

    /// The same error with `context: ` in front of its message (a paused
    /// step stays paused and a refused secret stays one; the context goes
    /// into a failure's message).
    pub fn context(self, context: impl std::fmt::Display) -> Self {
        match self {
            StepError::Failed { message } => StepError::Failed {
                message: format!("{context}: {message}"),
            },
            StepError::NeedsHuman { why, fix } => StepError::NeedsHuman {
                why: format!("{context}: {why}"),
                fix,
            },
            kept @ (StepError::Paused { .. } | StepError::SecretFound(_)) => kept,
        }
    }
}

impl From<String> for StepError {
    fn from(message: String) -> Self {
        StepError::Failed { message }
    }
}

impl From<&str> for StepError {
    fn from(message: &str) -> Self {
        StepError::failed(message)
    }
}

impl From<Error> for StepError {
    /// A PAUSE error stays a pause, a human decision stays one, a refused
    /// secret stays one; anything else is a failure.
    fn from(error: Error) -> Self {
        match error {
            Error::Paused { file, reason } => StepError::Paused { file, reason },
            Error::NeedsHuman { why, fix, .. } => StepError::NeedsHuman { why, fix },
            Error::SecretFound(found) => StepError::SecretFound(found),
            other => StepError::failed(other.to_string()),
        }
    }
}

/// What a human does about step `step`, interrupted while it ran and not
/// safe to run twice: the one wording of that advice (the executor's
/// refusal, the run state's next action, `status -v`).
pub fn decide_fix(step: &str) -> String {
    format!(
        "check its effects, then `agent-handover retry {step}` if running it again is safe, else `agent-handover abandon --reason \"...\"`"
    )
}

/// How an attempt of a step that a crash interrupted is settled: the one
/// rule behind `resume`, `status -v`, `brief` and the dashboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AfterCrash {
    /// Running it again is harmless (it is idempotent): resume re-runs it.
    Rerun,
    /// It first checks what the interrupted attempt already did (git: is the
    /// commit there? pushed?), so resume re-runs it safely.
    Reconcile,
    /// It may already have taken effect and cannot tell: a human checks, then
    /// `retry` or `abandon`.
    AskHuman,
}

impl AfterCrash {
    /// The rule of a step that declares only whether it is idempotent:
    /// re-run it, or leave it to a human.
    pub fn from_idempotent(idempotent: bool) -> Self {
        if idempotent {
            AfterCrash::Rerun
        } else {
            AfterCrash::AskHuman
        }
    }

    /// Whether `resume` may run an interrupted attempt again without a human.
    pub fn resumes_safely(self) -> bool {
        !matches!(self, AfterCrash::AskHuman)
    }

    /// The rule in a few words, for `status -v`, `brief` and the dashboard.
    pub fn describe(self) -> &'static str {
        match self {
            AfterCrash::Rerun => "re-run on resume",
            AfterCrash::Reconcile => "reconciled on resume",
            AfterCrash::AskHuman => "needs a human after a crash",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pause_error_stays_a_pause() {
        let e = StepError::from(Error::Paused {
            file: "/p/PAUSE".into(),
            reason: Some("lunch".into()),
        });
        assert!(matches!(e, StepError::Paused { .. }), "{e:?}");
        assert!(matches!(
            e.context("committed abc"),
            StepError::Paused { .. }
        ));
        let e = StepError::from(Error::config(None, "bad")).context("publish");
        assert_eq!(e, StepError::failed("publish: config: bad"));
    }

    #[test]
    fn only_ask_human_stops_a_resume() {
        assert!(AfterCrash::Rerun.resumes_safely());
        assert!(AfterCrash::Reconcile.resumes_safely());
        assert!(!AfterCrash::AskHuman.resumes_safely());
    }
}
