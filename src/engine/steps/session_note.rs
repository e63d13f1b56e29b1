//! `session_note`: write the run's session note as a layer-1 note.

use std::path::PathBuf;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::super::step::{AfterCrash, Inputs, Step, StepContext, StepError, WrittenDir};
use crate::domain::memory::MemoryStore;
use crate::workspace::MemoryLayout;

/// Write the run's session note as a layer-1 note (never overwriting one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionNoteStep {
    /// Memory root.
    pub memory_dir: PathBuf,
    /// Note tag.
    pub tag: String,
    /// The session's date (the note's date, even when resumed later).
    pub date: NaiveDate,
}

impl Step for SessionNoteStep {
    fn after_crash(&self) -> AfterCrash {
        AfterCrash::Rerun // a note with exactly this text is found again, not written twice
    }

    fn writes(&self) -> Vec<WrittenDir> {
        vec![WrittenDir {
            dir: MemoryLayout::at(&self.memory_dir).layer1_month_dir(self.date),
            root: self.memory_dir.clone(),
        }]
    }

    fn check_inputs(&self, inputs: &Inputs) -> Result<(), &'static str> {
        inputs
            .session_note
            .as_ref()
            .map(drop)
            .ok_or("a session note")
    }

    fn run(&self, ctx: &mut StepContext<'_>) -> Result<Option<String>, StepError> {
        let text = ctx.inputs.session_note.as_deref().unwrap_or_default();
        let store = MemoryStore::new(
            MemoryLayout::at(&self.memory_dir),
            ctx.workspace.state_history_dir(),
        );
        let path = store.write_session_note(&self.tag, self.date, text)?;
        Ok(Some(path.display().to_string()))
    }
}
