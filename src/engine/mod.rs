//! Runs: plans staged on disk, the checkpoint, the executor (run / resume /
//! retry / abandon / compact), the run lock, the PAUSE brake and the run
//! history. The modules form layers, each using only those below it (see
//! ARCHITECTURE.md):
//!
//! 1. [`identity`] (host, owner, run ids, clock), [`process`] (child
//!    processes), [`probe`] (metric probes), [`step`] (the step trait);
//! 2. [`steps`] (one module per step kind), [`lock`], [`pause`],
//!    [`retention`];
//! 3. [`checkpoint`] (the on-disk state, holding a plan of steps);
//! 4. [`plan`] (the planner: config -> run request, compaction requests),
//!    [`queue`] (handovers staged behind a stuck one);
//! 5. [`executor`] (the engine), then [`maintenance`] (`compact` on it);
//! 6. read models: [`history`], [`run_state`] and [`snapshot`] (the one
//!    answer about a run), [`metrics`].

pub mod checkpoint;
pub mod executor;
pub mod identity;
pub mod inputs;
pub mod lock;
pub mod maintenance;
pub mod pause;
pub mod plan;
pub mod probe;
pub mod process;
pub mod queue;
pub mod report;
pub mod retention;
pub mod step;
pub mod steps;
pub mod sync;
pub mod truth;

pub use checkpoint::{Checkpoint, RunStatus, StepRecord, StepState};
pub use executor::Engine;
pub use plan::{QualityGate, RunOverrides, RunRequest, plan_from_config};
pub use report::{RunOrigin, RunReport};
pub use step::{Inputs, Step, StepContext};
pub use steps::{StepAction, StepSpec};
pub use truth::lint_context;
