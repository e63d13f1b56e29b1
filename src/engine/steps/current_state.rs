//! `current_state`: replace layer-2 current-state.md with the run's state text.

use std::path::PathBuf;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::super::step::{AfterCrash, Inputs, Step, StepContext, StepError, WrittenDir};
use crate::domain::memory::MemoryStore;
use crate::workspace::MemoryLayout;

/// Replace layer-2 current-state.md, keeping the old version in the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurrentStateStep {
    /// Memory root.
    pub memory_dir: PathBuf,
    /// The workstream whose current state it is (the memory on its ref;
    /// absent: the one current state, and every plan staged by 0.6.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<String>,
    /// The session's date.
    pub date: NaiveDate,
}

impl CurrentStateStep {
    fn layout(&self) -> MemoryLayout {
        MemoryLayout::at(&self.memory_dir).in_stream(self.stream.clone())
    }
}

impl Step for CurrentStateStep {
    fn after_crash(&self) -> AfterCrash {
        AfterCrash::Rerun // writing the same text again changes nothing
    }

    fn writes(&self) -> Vec<WrittenDir> {
        let file = self.layout().current_state();
        vec![WrittenDir {
            dir: file.parent().map(Into::into).unwrap_or(file),
            root: self.memory_dir.clone(),
        }]
    }

    fn check_inputs(&self, inputs: &Inputs) -> Result<(), &'static str> {
        inputs
            .current_state
            .as_ref()
            .map(drop)
            .ok_or("a current state")
    }

    fn run(&self, ctx: &mut StepContext<'_>) -> Result<Option<String>, StepError> {
        let text = ctx.inputs.current_state.as_deref().unwrap_or_default();
        let store = MemoryStore::new(self.layout(), ctx.workspace.state_history_dir());
        let path = store.write_current_state(self.date, text, ctx.run_id)?;
        Ok(Some(path.display().to_string()))
    }
}
