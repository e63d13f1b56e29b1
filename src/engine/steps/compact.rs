//! `compact`: fold older months of layer-1 notes into their layer-3 archives.

use std::path::PathBuf;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::super::step::{AfterCrash, Step, StepContext, StepError, WrittenDir};
use crate::base::error::Result;
use crate::domain::memory::compact;
use crate::domain::memory::month::YearMonth;
use crate::workspace::MemoryLayout;

/// Fold layer-1 months into layer 3: every month before `before`, or only `month`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactStep {
    /// Memory root.
    pub memory_dir: PathBuf,
    /// Fold every month before this one...
    pub before: YearMonth,
    /// ...or only this one (the `compact` command stages a step per month).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub month: Option<YearMonth>,
    /// The date written in the archives' headers.
    pub date: NaiveDate,
}

impl Step for CompactStep {
    fn after_crash(&self) -> AfterCrash {
        AfterCrash::Rerun // reruns append only what an archive is missing
    }

    fn writes(&self) -> Vec<WrittenDir> {
        vec![WrittenDir {
            dir: MemoryLayout::at(&self.memory_dir).layer3_dir(),
            root: self.memory_dir.clone(),
        }]
    }

    fn is_maintenance(&self) -> bool {
        true
    }

    fn run(&self, _ctx: &mut StepContext<'_>) -> std::result::Result<Option<String>, StepError> {
        Ok(Some(self.fold()?))
    }
}

impl CompactStep {
    /// Fold the chosen months; a one-line account.
    fn fold(&self) -> Result<String> {
        let layout = MemoryLayout::at(&self.memory_dir);
        let months = match self.month {
            Some(month) => vec![month],
            None => compact::layer1_months(&layout)?
                .into_iter()
                .filter(|m| *m < self.before)
                .collect(),
        };
        let (mut appended, mut removed, mut skipped) = (0, 0, 0);
        for month in &months {
            let report = compact::compact_month(&layout, *month, self.date)?;
            appended += report.appended();
            removed += report.removed;
            skipped += report.skipped.len();
        }
        let mut summary = format!(
            "{} month{}: {appended} note{} archived, {removed} removed from layer 1",
            months.len(),
            plural(months.len()),
            plural(appended),
        );
        if skipped > 0 {
            summary.push_str(&format!(
                "; {skipped} file{} left in layer 1 (see `agent-handover compact --dry-run`)",
                plural(skipped)
            ));
        }
        Ok(summary)
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
