//! `metrics`: run the `[[metric]]` probes and keep their numbers with the run.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::super::probe::{self, MetricProbe};
use super::super::process;
use super::super::step::{AfterCrash, LimitError, Step, StepContext, StepError, WrittenDir};

/// Run the metric probes; only a `required` probe's failure fails the step,
/// and the numbers are kept either way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricsStep {
    /// The commands and their patterns.
    pub probes: Vec<MetricProbe>,
    /// Working directory.
    pub cwd: PathBuf,
}

impl Step for MetricsStep {
    fn after_crash(&self) -> AfterCrash {
        AfterCrash::Rerun // measuring again only replaces the numbers
    }

    fn writes(&self) -> Vec<WrittenDir> {
        Vec::new()
    }

    fn check_limits(&self) -> Result<(), LimitError> {
        self.probes.iter().try_for_each(|p| {
            process::check_timeout(p.timeout_secs).map_err(|source| LimitError::MetricTimeout {
                metric: p.name.clone(),
                source,
            })
        })
    }

    fn run(&self, ctx: &mut StepContext<'_>) -> Result<Option<String>, StepError> {
        let (outcome, sample) = match probe::run_probes(&self.probes, &self.cwd, &ctx.env()) {
            Ok(sample) => (Ok(Some(sample.describe())), sample),
            Err((message, sample)) => (Err(StepError::failed(message)), sample),
        };
        ctx.record_metrics(sample);
        outcome
    }
}
