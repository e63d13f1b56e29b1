//! `learn`: extract the session note's findings into the memory index.

use std::path::PathBuf;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::super::step::{AfterCrash, Inputs, Step, StepContext, StepError, WrittenDir};
use crate::domain::knowledge::{IndexCap, Knowledge};
use crate::workspace::MemoryLayout;

/// Learn the tagged findings and knowledge sections of the run's session
/// note into `MEMORY.md` and `knowledge/` ([`Knowledge::learn`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LearnStep {
    /// Memory root.
    pub memory_dir: PathBuf,
    /// The session's date (the facts' date, even when resumed later).
    pub date: NaiveDate,
    /// The cap the index is kept under (`[knowledge]`; the default when a
    /// staged plan has none).
    #[serde(default)]
    pub cap: IndexCap,
}

impl Step for LearnStep {
    fn after_crash(&self) -> AfterCrash {
        AfterCrash::Rerun // facts already written are found again, each added once
    }

    fn writes(&self) -> Vec<WrittenDir> {
        let layout = MemoryLayout::at(&self.memory_dir);
        [layout.root.clone(), layout.knowledge_dir()]
            .into_iter()
            .map(|dir| WrittenDir {
                dir,
                root: self.memory_dir.clone(),
            })
            .collect()
    }

    fn check_inputs(&self, inputs: &Inputs) -> Result<(), &'static str> {
        inputs
            .session_note
            .as_ref()
            .map(drop)
            .ok_or("a session note")
    }

    fn run(&self, ctx: &mut StepContext<'_>) -> Result<Option<String>, StepError> {
        let note = ctx.inputs.session_note.as_deref().unwrap_or_default();
        let report = Knowledge::new(MemoryLayout::at(&self.memory_dir))
            .with_cap(self.cap)
            .with_lock(ctx.workspace.knowledge_lock())
            .learn(note, &format!("run {}", ctx.run_id), self.date)?;
        Ok(Some(report.summary()))
    }
}
