//! The domain: what the memory is and how each part of it behaves, with no
//! notion of a run. The three layers of memory ([`memory`]), agents' inbox
//! queues ([`inbox`]), the handoff linter ([`handoff`]), permanent
//! knowledge ([`knowledge`]), multi-step task state ([`task`]) and the
//! publish backends ([`backend`]). They use the base and the workspace
//! layers only.

pub mod backend;
pub mod handoff;
pub mod inbox;
pub mod knowledge;
pub mod memory;
pub mod task;
