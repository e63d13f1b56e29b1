//! `mcp`: the library's MCP server on stdin/stdout, for this workspace.

use agent_handover::Result;

use super::{Target, exit};

/// `mcp`: serve until the client closes stdin. The agent a call names none
/// for is `$AGENT_HANDOVER_AGENT`, else `[handover].tag`.
pub fn mcp(target: &Target) -> Result<u8> {
    let ws = target.workspace()?;
    let agent = std::env::var("AGENT_HANDOVER_AGENT")
        .ok()
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| ws.tag.clone());
    agent_handover::agent::mcp::serve(ws, agent)?;
    Ok(exit::OK)
}
