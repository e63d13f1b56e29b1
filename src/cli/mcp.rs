//! `mcp`: the MCP server (`crate::mcp`) on stdin/stdout, for this workspace.

use agent_handover::Result;

use super::{Target, exit};

/// `mcp`: serve until the client closes stdin. The agent a call names none
/// for is `$AGENT_HANDOVER_AGENT`, else `[handover].tag`.
///
/// A workspace that cannot be resolved (a broken handover.toml) is served
/// anyway, every tool answering with the error and its fix (said on stderr
/// too): exiting before `initialize` left the agent with no tools and no
/// reason.
pub fn mcp(target: &Target) -> Result<u8> {
    let ws = target.workspace();
    if let Err(e) = &ws {
        eprintln!(
            "agent-handover mcp: {e}\n  every tool call answers with this; fix it, then restart the MCP server (or the agent)"
        );
    }
    let agent = std::env::var("AGENT_HANDOVER_AGENT")
        .ok()
        .filter(|a| !a.is_empty())
        .or_else(|| ws.as_ref().ok().map(|ws| ws.tag.clone()))
        .unwrap_or_else(|| "agent".into());
    crate::mcp::serve(ws, agent)?;
    Ok(exit::OK)
}
