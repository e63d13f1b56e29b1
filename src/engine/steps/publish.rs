//! `publish`: send the memory through a backend (git, null).

use serde::{Deserialize, Serialize};

use super::super::pause::ensure_not_paused;
use super::super::step::{AfterCrash, Step, StepContext, StepError, WrittenDir};
use crate::domain::backend::{self, BackendSpec};

/// Publish the memory through a backend; PAUSE is checked again right
/// before anything leaves the machine, and everything that would leave (the
/// message, the author, each file's name and content, UTF-16/32 decoded) is
/// refused if it holds a secret, as a compressed file is, unless the run
/// allows them (`--allow-secret`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishStep {
    /// Where to.
    pub backend: BackendSpec,
    /// Commit message (or equivalent).
    pub message: String,
}

impl Step for PublishStep {
    fn after_crash(&self) -> AfterCrash {
        self.backend.backend().after_crash()
    }

    fn writes(&self) -> Vec<WrittenDir> {
        Vec::new() // the backend's own tools keep their files consistent
    }

    fn run(&self, ctx: &mut StepContext<'_>) -> Result<Option<String>, StepError> {
        let pause_files = ctx.workspace.pause_files();
        let gate = || ensure_not_paused(&pause_files).map_err(StepError::from);
        let allow_secret = ctx.allow_secret;
        let admit = |what: &str, bytes: &[u8]| {
            if allow_secret {
                return Ok(());
            }
            backend::admit(what, bytes)
        };
        self.backend
            .with_sign(ctx.workspace.config.backend.sign)
            .backend()
            .publish(&self.message, &gate, &admit)
            .map(Some)
    }
}
