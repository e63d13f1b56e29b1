//! `prune`: apply the `[retention]` counts.

use serde::{Deserialize, Serialize};

use super::super::retention::{self, RetentionPolicy};
use super::super::step::{AfterCrash, Step, StepContext, StepError, WrittenDir};

/// Delete current-state versions and past runs beyond the retention counts;
/// the run doing it counts as the newest and is never deleted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PruneStep {
    /// What to keep.
    pub policy: RetentionPolicy,
}

impl Step for PruneStep {
    fn after_crash(&self) -> AfterCrash {
        AfterCrash::Rerun // files already gone are fine
    }

    fn writes(&self) -> Vec<WrittenDir> {
        Vec::new() // it only removes
    }

    fn is_maintenance(&self) -> bool {
        true
    }

    fn run(&self, ctx: &mut StepContext<'_>) -> Result<Option<String>, StepError> {
        let run = Some(ctx.run_id);
        let plan = retention::plan(ctx.workspace, &self.policy, run, run)?;
        retention::apply(&plan)?;
        Ok(Some(plan.describe("removed")))
    }
}
