//! The domain: what the memory is and how each part of it behaves, with no
//! notion of a run. The three layers of memory ([`memory`]), agents' inbox
//! queues ([`inbox`]), the handoff linter ([`handoff`]), permanent
//! knowledge ([`knowledge`]), multi-step task state ([`task`]), the
//! publish backends ([`backend`]) and how full an agent's context is
//! ([`capacity`]). They use the base and the workspace
//! layers only.

pub mod backend;
pub mod capacity;
pub mod handoff;
pub mod inbox;
pub mod knowledge;
pub mod memory;
pub mod task;
