//! Read models: what the faces show, computed from what the engine and the
//! domain left on disk, never written by them. The one answer about a run
//! ([`run_state`], inside its [`snapshot`]), past runs ([`history`]),
//! measured sessions ([`metrics`]), the linter's weights held against judged
//! handoffs ([`rule_outcomes`]), the session-start [`brief`], the
//! pre-filled handoff ([`draft`]), the work since the last handover
//! ([`work`]) and every stale or odd state ([`doctor`]).

pub mod brief;
pub mod doctor;
pub mod draft;
pub mod history;
pub mod metrics;
pub mod rule_outcomes;
pub mod run_state;
pub mod snapshot;
pub mod work;

pub use run_state::{Condition, NextAction, RunState, StateKind};
pub use snapshot::{MemoryPlace, RunSnapshot, StepView, run_state};
