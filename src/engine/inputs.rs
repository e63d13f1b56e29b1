//! A run's staged inputs (its texts, what it covered, the verdict it
//! carries): `runs/<run id>.inputs.json`, written durably before anything
//! of the run is tried, read back by the executor, the history and the
//! linter's context.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

use super::step::Inputs;
use crate::base::error::Result;
use crate::base::fsx;
use crate::workspace::Workspace;

/// A run's staged inputs file (`runs/<run id>.inputs.json`).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StagedInputs {
    pub(crate) run_id: String,
    pub(crate) created_at: DateTime<Utc>,
    pub(crate) inputs: Inputs,
}

/// The staged inputs of run `run_id`, if its file is there and readable
/// (best effort: for read models, which say less rather than fail).
pub(crate) fn staged_inputs(ws: &Workspace, run_id: &str) -> Option<Inputs> {
    let text = fsx::read_text_within(
        &ws.root,
        &ws.run_inputs_file(run_id),
        4 * crate::domain::memory::MAX_MEMORY_FILE_BYTES,
        "move it aside",
    )
    .ok()??;
    serde_json::from_str::<StagedInputs>(&text)
        .ok()
        .map(|s| s.inputs)
}

/// Write a run's inputs durably (atomic, fsynced) to its staged inputs file.
pub(crate) fn write_inputs(ws: &Workspace, run_id: &str, inputs: &Inputs) -> Result<PathBuf> {
    let staged = StagedInputs {
        run_id: run_id.into(),
        created_at: Utc::now(),
        inputs: inputs.clone(),
    };
    let json = serde_json::to_vec_pretty(&staged).expect("inputs serialize");
    let path = ws.run_inputs_file(run_id);
    fsx::write_atomic(&path, &json)?;
    Ok(path)
}
