//! `library`: a step implemented by a Rust closure that a library user
//! registered with the engine ([`crate::Engine::with_library_step`]).

use serde::{Deserialize, Serialize};

use super::super::step::{AfterCrash, Step, StepContext, StepError, WrittenDir};
use crate::base::error::{Error, Result};

/// A step whose code is a closure; a process resuming the run must register it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryStep {
    /// Whether re-running it after a crash is harmless.
    pub idempotent: bool,
}

impl Step for LibraryStep {
    fn after_crash(&self) -> AfterCrash {
        AfterCrash::from_idempotent(self.idempotent)
    }

    fn writes(&self) -> Vec<WrittenDir> {
        Vec::new()
    }

    fn preflight(&self, ctx: &StepContext<'_>) -> Result<()> {
        match ctx.library {
            Some(_) => Ok(()),
            None => Err(Error::NeedsHuman {
                step: ctx.step.into(),
                why: "is a library step whose code this process does not have".into(),
                fix: "resume the run from the program that defines the step".into(),
            }),
        }
    }

    fn run(&self, ctx: &mut StepContext<'_>) -> std::result::Result<Option<String>, StepError> {
        let step = ctx
            .library
            .take()
            .ok_or_else(|| StepError::failed("no code registered for this library step"))?;
        step(ctx)
    }
}
