//! The agent loop: what an agent meets. Installing agent-handover into an
//! agent's files, one table entry per agent ([`adapters`]), and what its
//! hooks answer ([`hooks`]).

pub mod adapters;
pub mod hooks;
