//! `publish`: send the memory through a backend (git, null).

use serde::{Deserialize, Serialize};

use super::super::pause::ensure_not_paused;
use super::super::step::{AfterCrash, Step, StepContext, StepError, WrittenDir};
use crate::backend::BackendSpec;

/// Publish the memory through a backend; PAUSE is checked again right
/// before anything leaves the machine.
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
        self.backend
            .backend()
            .publish(&self.message, &gate)
            .map(Some)
    }
}
