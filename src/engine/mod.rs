//! Runs: plans staged on disk, the checkpoint, the executor (run / resume /
//! retry / abandon), the run lock, the PAUSE brake and the run history.

pub mod checkpoint;
pub mod command;
pub mod executor;
pub mod history;
pub mod lock;
pub mod maintenance;
pub mod metrics;
pub mod pause;
pub mod plan;
pub mod retention;
pub mod snapshot;

pub use checkpoint::{Checkpoint, RunStatus, StepRecord, StepState};
pub use executor::{Engine, RunReport, StepContext};
pub use plan::{Inputs, RunOverrides, RunRequest, StepAction, StepSpec, plan_from_config};
pub use snapshot::{RunSnapshot, StepView};
