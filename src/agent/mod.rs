//! The agent loop: what an agent meets. Installing agent-handover into an
//! agent's files, one table entry per agent ([`adapters`]), what its hooks
//! answer ([`hooks`]), and the MCP server (`mcp`, feature `mcp`).

pub mod adapters;
pub mod hooks;
#[cfg(feature = "mcp")]
pub mod mcp;
