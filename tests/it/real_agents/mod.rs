//! The real agent programs, installed from their registries at pinned
//! versions (tests/agents/versions.txt) and pointed at a mock model on
//! 127.0.0.1 that follows the hooks' words literally: one module per agent.
//! Each proves, in the agent as users run it: the brief reaches the model;
//! the agent is asked to hand over exactly once when its session worked and
//! never when it did not; following the words writes a handover whose text
//! is the model's; no draft is left pointing at nothing; the agent keeps
//! working when agent-handover is not on PATH; its MCP listing connects.

mod harness;

mod aider;
mod claude;
mod claude_plugin;
mod cline;
mod codex;
mod copilot;
mod gemini;
mod gemini_extension;
mod opencode;
