//! How each agent wants a hook's answer wrapped (sources in the adapter
//! table, `adapters/table.rs`).

use serde_json::json;

/// How the session-start context is handed to the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartEnvelope {
    /// Plain text on stdout (OpenCode's plugin passes it on as it is).
    Plain,
    /// `{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": ...}}`
    /// (Claude Code, Codex CLI, Gemini CLI).
    HookSpecificOutput,
    /// `{"additionalContext": ...}` at the top level (GitHub Copilot CLI).
    AdditionalContext,
    /// `{"additional_context": ...}` (Cursor).
    AdditionalContextSnake,
    /// `{"cancel": false, "contextModification": ...}` (Cline).
    ContextModification,
}

impl StartEnvelope {
    /// `context` wrapped for the agent at session start, with a final newline.
    pub fn wrap(self, context: &str) -> String {
        self.wrap_event("SessionStart", context)
    }

    /// `context` wrapped for the agent as the answer to its event `event`
    /// (its own name, which some envelopes repeat), with a final newline.
    pub fn wrap_event(self, event: &str, context: &str) -> String {
        let value = match self {
            StartEnvelope::Plain => return context.to_string(),
            StartEnvelope::HookSpecificOutput => json!({
                "hookSpecificOutput": {"hookEventName": event, "additionalContext": context}
            }),
            StartEnvelope::AdditionalContext => json!({ "additionalContext": context }),
            StartEnvelope::AdditionalContextSnake => json!({ "additional_context": context }),
            StartEnvelope::ContextModification => {
                json!({ "cancel": false, "contextModification": context })
            }
        };
        value.to_string() + "\n"
    }
}

/// How a stop hook asks the agent to go on instead of stopping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskEnvelope {
    /// `{"decision": "block", "reason": ...}` (Claude Code, Codex CLI, GitHub Copilot; OpenCode's plugin).
    DecisionBlock,
    /// `{"decision": "deny", "reason": ...}` (Gemini CLI's AfterAgent).
    DecisionDeny,
    /// `{"followup_message": ...}` (Cursor).
    FollowupMessage,
}

impl AskEnvelope {
    /// `request` wrapped for the agent, with a final newline.
    pub fn wrap(self, request: &str) -> String {
        let value = match self {
            AskEnvelope::DecisionBlock => json!({ "decision": "block", "reason": request }),
            AskEnvelope::DecisionDeny => json!({ "decision": "deny", "reason": request }),
            AskEnvelope::FollowupMessage => json!({ "followup_message": request }),
        };
        value.to_string() + "\n"
    }
}

/// What a JSON-speaking hook prints when it has nothing to say: an empty
/// object, which every agent reads as "carry on" (Codex CLI's stop hook
/// wants JSON whenever it exits 0).
pub const NOTHING: &str = "{}\n";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn every_envelope_is_one_json_object_except_plain() {
        for env in [
            StartEnvelope::HookSpecificOutput,
            StartEnvelope::AdditionalContext,
            StartEnvelope::AdditionalContextSnake,
            StartEnvelope::ContextModification,
        ] {
            let out = env.wrap("a \"quoted\"\nbrief");
            let v: Value = serde_json::from_str(&out).unwrap();
            assert!(out.contains("a \\\"quoted\\\"\\nbrief"), "{out}");
            assert!(v.is_object());
        }
        assert_eq!(StartEnvelope::Plain.wrap("x\n"), "x\n");
        let ask: Value = serde_json::from_str(&AskEnvelope::DecisionBlock.wrap("go")).unwrap();
        assert_eq!(ask["decision"], "block");
        assert_eq!(ask["reason"], "go");
    }
}
