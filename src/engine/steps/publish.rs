//! `publish`: send the memory through a backend (git, null).

use serde::{Deserialize, Serialize};

use super::super::pause::ensure_not_paused;
use super::super::step::{AfterCrash, Step, StepContext, StepError, WrittenDir};
use crate::base::secrets;
use crate::domain::backend::BackendSpec;

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
            match secrets::decode(bytes) {
                secrets::Decoded::Text(text) => {
                    secrets::check(what, &text, REFUSED_PUBLISH_FIX).map_err(StepError::SecretFound)
                }
                secrets::Decoded::Compressed(format) => Err(StepError::failed(format!(
                    "{what} is a {format}-compressed file: what it holds cannot be checked for secrets, so nothing was committed or pushed\n  fix: keep it out of the published paths ([backend].paths), or, if it holds no secret, `agent-handover run --allow-secret` with the same note publishes it"
                ))),
            }
        };
        self.backend
            .backend()
            .publish(&self.message, &gate, &admit)
            .map(Some)
    }
}

/// What a publish refused for a secret says to do.
const REFUSED_PUBLISH_FIX: &str = "nothing was committed or pushed; take the secret out of the file (rotate it if it was real), then `agent-handover resume`; or, if it is not a secret, `agent-handover run --allow-secret` with the same note publishes it";
