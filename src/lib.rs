//! # agent_handover
//!
//! A crash-safe session-handover engine for AI coding agents: checkpointed,
//! resumable handovers that write a three-layer Markdown memory, a PAUSE
//! brake, and one executor at a time. The `agent-handover` CLI and the
//! dashboard are thin faces over this library.
//!
//! ```no_run
//! use agent_handover::{Engine, Workspace, WorkspaceOptions, RunOverrides, plan_from_config};
//!
//! let ws = Workspace::resolve(WorkspaceOptions::default())?;
//! let request = plan_from_config(&ws, &RunOverrides { note: Some("did X".into()), ..Default::default() },
//!                                chrono::Local::now().date_naive())?;
//! let report = Engine::new(ws).start(request)?;
//! println!("executed: {:?}", report.executed);
//! # Ok::<(), agent_handover::Error>(())
//! ```

// The layers, bottom up: each module uses only those listed above it
// (ARCHITECTURE.md, "The house"; `tests/it/architecture.rs` checks the imports).
pub mod agent;
pub mod base;
pub mod domain;
pub mod engine;
pub mod ops;
pub mod read;
pub mod workspace;

pub use base::error::{Error, ErrorKind, Result};
pub use base::outcome::{AfterCrash, StepError};
pub use domain::memory::MemoryStore;
pub use engine::{
    Checkpoint, Engine, Inputs, RunOverrides, RunReport, RunRequest, RunStatus, Step, StepAction,
    StepContext, StepRecord, StepSpec, StepState, plan_from_config,
};
pub use workspace::{Workspace, WorkspaceOptions};
