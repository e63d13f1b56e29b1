//! `command`: run a program (no shell) of the project's `[[command]]` list.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::super::process;
use super::super::step::{AfterCrash, LimitError, Step, StepContext, StepError, WrittenDir};

/// Run a program with arguments in its own process group, killed after a timeout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandStep {
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Working directory.
    pub cwd: PathBuf,
    /// Whether re-running it after a crash is harmless.
    pub idempotent: bool,
    /// Kill it after this long.
    pub timeout_secs: u64,
}

impl Step for CommandStep {
    fn after_crash(&self) -> AfterCrash {
        AfterCrash::from_idempotent(self.idempotent)
    }

    fn writes(&self) -> Vec<WrittenDir> {
        Vec::new() // what the program writes is its own business
    }

    fn check_limits(&self) -> Result<(), LimitError> {
        Ok(process::check_timeout(self.timeout_secs)?)
    }

    fn run(&self, ctx: &mut StepContext<'_>) -> Result<Option<String>, StepError> {
        let timeout = Duration::from_secs(self.timeout_secs);
        // Written as it comes, so a handover killed mid-step leaves what the
        // command printed; removed once the step's own record holds its tail.
        let live = process::LiveOutput::of_step(ctx.workspace, ctx.run_id, ctx.step);
        let live = live
            .stdout
            .parent()
            .is_some_and(|d| std::fs::create_dir_all(d).is_ok())
            .then_some(live);
        let watch = process::Watch {
            on_spawn: &|pgid| ctx.record_process_group(pgid),
            live: live.as_ref(),
        };
        let result = process::run(&self.argv, &self.cwd, timeout, &ctx.env(), &watch);
        if let Some(live) = &live {
            live.remove();
        }
        result.map(Some).map_err(StepError::from)
    }
}
