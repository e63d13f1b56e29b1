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

pub mod activity;
pub mod adapters;
pub mod backend;
pub mod brief;
pub mod config;
pub mod doctor;
pub mod draft;
pub mod engine;
pub mod error;
pub mod failpoint;
pub mod fsx;
pub mod handoff;
pub mod hooks;
pub mod inbox;
pub mod knowledge;
pub mod memory;
pub mod outcome;
pub mod patterns;
pub mod registry;
pub mod secrets;
pub mod sync;
pub mod task;
pub mod workspace;

pub use engine::{
    Checkpoint, Engine, Inputs, RunOverrides, RunReport, RunRequest, RunStatus, Step, StepAction,
    StepContext, StepRecord, StepSpec, StepState, plan_from_config,
};
pub use error::{Error, ErrorKind, Result};
pub use memory::MemoryStore;
pub use outcome::{AfterCrash, StepError};
pub use workspace::{Workspace, WorkspaceOptions};
