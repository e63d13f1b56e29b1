//! The agent loop: what an agent meets. Installing agent-handover into an
//! agent's files, one table entry per agent ([`adapters`]), what its hooks
//! answer ([`hooks`]), how full a session's context is by the agent's own
//! transcript ([`capacity`]), the sessions a supervisor sees ([`sessions`]),
//! and the MCP server (`mcp`, feature `mcp`).

pub mod adapters;
pub mod capacity;
pub mod hooks;
pub mod sessions;
