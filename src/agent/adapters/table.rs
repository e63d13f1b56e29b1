//! The agents `install` knows: one entry each. An entry says where the
//! agent reads its instructions, how its hooks are configured and speak,
//! and where it registers MCP servers, each with the documentation it
//! follows. Adding an agent is adding an entry here (plus an asset in
//! `assets/adapters/` when it needs a file of its own).

use super::trust::{self, Trust};
use super::{Adapter, HookSetup, Instructions, McpSetup, Timeout};
use crate::agent::hooks::{
    AskEnvelope, CallKeys, Continued, HookEvent, HookProtocol, InputKeys, StartEnvelope,
    TranscriptFormat,
};

use HookEvent::{PreCompact, Progress, SessionEnd, SessionStart, Stop};

/// Claude Code's hook and memory documentation caps hook output at
/// 10,000 characters; the other agents document no smaller cap for the
/// start context, so the same is used where none is documented.
const TEN_THOUSAND: usize = 10_000;

/// Every agent, in the order help texts list them.
pub const ADAPTERS: &[Adapter] = &[
    // Claude Code.
    // - Memory: CLAUDE.md; it does not read AGENTS.md, and recommends a CLAUDE.md
    //   importing it with `@AGENTS.md` (https://code.claude.com/docs/en/memory).
    // - Hooks: .claude/settings.json, event -> [{matcher, hooks: [{type, command, timeout (s)}]}];
    //   SessionStart (source startup|resume|clear|compact; plain stdout or
    //   hookSpecificOutput.additionalContext, capped at 10,000 characters), Stop
    //   ({"decision":"block","reason"}, stop_hook_active), PreCompact, SessionEnd;
    //   $CLAUDE_PROJECT_DIR (https://code.claude.com/docs/en/hooks).
    // - MCP: .mcp.json, {"mcpServers": {name: {type: "stdio", command, args}}}
    //   (https://code.claude.com/docs/en/mcp).
    Adapter {
        name: "claude",
        title: "Claude Code",
        unit: "session",
        instructions: Instructions::ClaudeMd,
        hooks: Some(HookSetup::NestedJson {
            path: ".claude/settings.json",
            events: &[
                (
                    SessionStart,
                    "SessionStart",
                    Some("startup|resume|clear|compact"),
                ),
                (Stop, "Stop", None),
                (PreCompact, "PreCompact", Some("manual|auto")),
                (SessionEnd, "SessionEnd", None),
                (Progress, "PostToolUse", None),
                (Progress, "UserPromptSubmit", None),
            ],
            timeout: Timeout::Seconds,
            end_cap_secs: None,
        }),
        protocol: HookProtocol {
            start: StartEnvelope::HookSpecificOutput,
            start_cap_chars: TEN_THOUSAND,
            ask: Some(AskEnvelope::DecisionBlock),
            project_dir_env: Some("CLAUDE_PROJECT_DIR"),
            compactions_seen: true,
            input: InputKeys {
                transcript: Some(("transcript_path", TranscriptFormat::ClaudeJsonl)),
                // Its transcript is written every 100 ms, so a hook after
                // a quick tool call may come first; `tool_use_id` in every
                // PostToolUse input, `agent_id` only inside a subagent
                // (https://code.claude.com/docs/en/hooks#posttooluse-input,
                // "Common input fields").
                call: Some(CallKeys {
                    id: "tool_use_id",
                    subagent: "agent_id",
                }),
                ..InputKeys::CLAUDE
            },
        },
        mcp: Some(McpSetup::McpServers {
            path: ".mcp.json",
            flavour: "stdio",
        }),
        trust: Some(Trust {
            steps: "Claude Code runs this project's hooks, and starts its MCP servers, only in a folder you trust: start `claude` here once and accept the trust dialog, then approve the agent-handover MCP server (`claude mcp list` says \"Pending approval\" until you do).",
            read: Some(trust::claude),
        }),
    },
    // OpenAI Codex CLI.
    // - Instructions: AGENTS.md, root to cwd (https://developers.openai.com/codex/guides/agents-md).
    // - Hooks: .codex/hooks.json, the same nesting as Claude Code, timeout in seconds;
    //   SessionStart (startup|resume|clear|compact; hookSpecificOutput.additionalContext;
    //   over ~2,500 tokens it is spilled to a file), Stop (JSON only:
    //   {"decision":"block","reason"} becomes the next prompt; stop_hook_active),
    //   PreCompact, SessionEnd (openai/codex#33895; capped at 3 s: a longer timeout is
    //   clamped and reported as an error item in `codex exec --json`); no project-dir
    //   variable, hooks run in the session cwd (https://developers.openai.com/codex/hooks).
    //   New hooks run once trusted in `/hooks`.
    // - MCP: [mcp_servers.<name>] in .codex/config.toml (https://developers.openai.com/codex/mcp).
    Adapter {
        name: "codex",
        title: "OpenAI Codex CLI",
        unit: "session",
        instructions: Instructions::Block { path: "AGENTS.md" },
        hooks: Some(HookSetup::NestedJson {
            path: ".codex/hooks.json",
            events: &[
                (
                    SessionStart,
                    "SessionStart",
                    Some("startup|resume|clear|compact"),
                ),
                (Stop, "Stop", None),
                (PreCompact, "PreCompact", None),
                (SessionEnd, "SessionEnd", None),
                (Progress, "PostToolUse", None),
                (Progress, "UserPromptSubmit", None),
            ],
            timeout: Timeout::Seconds,
            end_cap_secs: Some(3),
        }),
        protocol: HookProtocol {
            start: StartEnvelope::HookSpecificOutput,
            // 2,500 tokens at ~4 characters a token, less a margin.
            start_cap_chars: 9_000,
            ask: Some(AskEnvelope::DecisionBlock),
            project_dir_env: None,
            compactions_seen: true,
            input: InputKeys {
                transcript: Some(("transcript_path", TranscriptFormat::CodexRollout)),
                ..InputKeys::CLAUDE
            },
        },
        mcp: Some(McpSetup::CodexToml {
            path: ".codex/config.toml",
        }),
        trust: Some(Trust {
            steps: "Codex ignores .codex/ (hooks, MCP) until the project is trusted: start `codex` here and trust it, then open `/hooks` and approve the agent-handover hooks (again whenever they change).",
            read: Some(trust::codex),
        }),
    },
    // OpenCode.
    // - Instructions: AGENTS.md (https://opencode.ai/docs/rules).
    // - Hooks: a plugin in .opencode/plugins/ subscribed to session.created,
    //   session.idle, session.compacted and experimental.session.compacting; context
    //   goes in with client.session.prompt({noReply: true}), a request to go on with a
    //   plain prompt (https://opencode.ai/docs/plugins, https://opencode.ai/docs/sdk).
    //   The brief can land after the first message (it is sent on session.created, as
    //   that message is): experimental.chat.messages.transform (the `Hooks` type of
    //   @opencode-ai/plugin) puts it first for the model. `opencode run MESSAGE` is
    //   one-shot: it stops at its session's first idle and disposes the instance, so a
    //   request made in the `event` hook on that idle never reaches the model
    //   (src/cli/cmd/run.ts; the `event` hook is not awaited, src/plugin/index.ts).
    //   Disposing awaits the plugins' `dispose` hooks, and a prompt made there runs to
    //   its end: the plugin asks the sessions that went idle there (OpenCode 1.18.33).
    //   Context: the plugin passes the session's last token use (an assistant
    //   message's `tokens`: input + cache read + cache write, and the model's
    //   `limit.context` from `chat.params`) to the stop hook at each idle.
    //   This is the V1 plugin API; OpenCode 2.x runs V1 plugins no more.
    // - MCP: opencode.json, {"mcp": {name: {type: "local", command: [..], enabled}}}
    //   (https://opencode.ai/docs/mcp-servers).
    Adapter {
        name: "opencode",
        title: "OpenCode",
        unit: "session",
        instructions: Instructions::Block { path: "AGENTS.md" },
        hooks: Some(HookSetup::Plugin {
            path: ".opencode/plugins/agent-handover.js",
        }),
        protocol: HookProtocol {
            start: StartEnvelope::Plain,
            start_cap_chars: TEN_THOUSAND,
            ask: Some(AskEnvelope::DecisionBlock),
            project_dir_env: None,
            compactions_seen: true,
            input: InputKeys {
                // OpenCode keeps each message's token use in its database;
                // the plugin passes the last one at each idle, from the
                // assistant message's `tokens` and the model's
                // `limit.context` (the `Hooks` type of @opencode-ai/plugin:
                // `event` message.updated, `chat.params`).
                context: Some("context"),
                ..InputKeys::CLAUDE
            },
        },
        mcp: Some(McpSetup::OpencodeJson {
            path: "opencode.json",
        }),
        trust: None,
    },
    // Cline.
    // - Rules: every .md file in .clinerules/, read into the system prompt
    //   (docs/customization/cline-rules.mdx in cline/cline; https://docs.cline.bot/customization/cline-rules).
    // - Hooks: an executable per event in .clinerules/hooks/ named after it (TaskStart,
    //   TaskResume, TaskComplete, PreCompact); JSON in on stdin (taskId, workspaceRoots),
    //   {"cancel": false, "contextModification": "..."} out (50 KB cap); TaskComplete
    //   cannot make the agent go on; 30 s timeout
    //   (docs/customization/hooks.mdx in cline/cline, at 901d1b5c97;
    //   https://docs.cline.bot/customization/hooks).
    // - Cline CLI 3 (npm `cline` 3.0.65, @cline/core 0.0.86) runs TaskStart,
    //   TaskResume and TaskComplete in the background and drops their output
    //   (sdk/packages/core/src/hooks/hook-file-hooks.ts: runAgentStart and runTurnEnd
    //   go through runAsyncHookCommands; the `blockingRunStartHooks` option that would
    //   honour contextModification is off unless the host sets it, and the CLI does
    //   not), and never runs PreCompact (HOOK_CONFIG_FILE_EVENT_MAP in hook-file-config.ts).
    //   It composes each run's system prompt from the rules before those hooks fire
    //   (runtime/orchestration/session-runtime-orchestrator.ts). So every hook also
    //   leaves the brief in a rules file, which the next task reads; install writes
    //   the first one, and the rules file still carries the brief command.
    // - MCP: no project-level file (global cline_mcp_settings.json only).
    Adapter {
        name: "cline",
        title: "Cline",
        unit: "task",
        instructions: Instructions::ClineRules,
        hooks: Some(HookSetup::Scripts {
            dir: ".clinerules/hooks",
            brief: ".clinerules/01-agent-handover-brief.md",
            events: &[
                (SessionStart, "TaskStart"),
                (SessionStart, "TaskResume"),
                (PreCompact, "PreCompact"),
                (SessionEnd, "TaskComplete"),
            ],
        }),
        protocol: HookProtocol {
            start: StartEnvelope::ContextModification,
            start_cap_chars: TEN_THOUSAND,
            ask: None,
            project_dir_env: None,
            compactions_seen: true,
            input: InputKeys {
                session_id: &["taskId"],
                cwd: None,
                roots: Some("workspaceRoots"),
                source: None,
                continued: Continued::Unmarked,
                transcript: None,
                call: None,
                context: None,
            },
        },
        mcp: None,
        trust: None,
    },
    // Gemini CLI.
    // - Memory: GEMINI.md (docs/cli/gemini-md.md in google-gemini/gemini-cli).
    // - Hooks: .gemini/settings.json, the Claude Code nesting with timeout in
    //   milliseconds; SessionStart (startup|resume|clear; only JSON
    //   hookSpecificOutput.additionalContext reaches the model), AfterAgent
    //   ({"decision":"deny","reason"} is sent as a new prompt; stop_hook_active),
    //   PreCompress (advisory), SessionEnd (not waited for); $GEMINI_PROJECT_DIR
    //   (docs/hooks/reference.md and docs/hooks/index.md, at 5411f113).
    // - MCP: "mcpServers" in .gemini/settings.json (docs/reference/configuration.md).
    Adapter {
        name: "gemini",
        title: "Gemini CLI",
        unit: "session",
        instructions: Instructions::Block { path: "GEMINI.md" },
        hooks: Some(HookSetup::NestedJson {
            path: ".gemini/settings.json",
            events: &[
                (SessionStart, "SessionStart", None),
                (Stop, "AfterAgent", None),
                (PreCompact, "PreCompress", None),
                (SessionEnd, "SessionEnd", None),
                (Progress, "AfterTool", None),
                (Progress, "BeforeAgent", None),
            ],
            timeout: Timeout::Milliseconds,
            end_cap_secs: None,
        }),
        protocol: HookProtocol {
            start: StartEnvelope::HookSpecificOutput,
            start_cap_chars: TEN_THOUSAND,
            ask: Some(AskEnvelope::DecisionDeny),
            project_dir_env: Some("GEMINI_PROJECT_DIR"),
            // PreCompress fires before every model request in 0.61, not only
            // before a compaction (tests/it/real_agents/gemini.rs).
            compactions_seen: false,
            input: InputKeys {
                transcript: Some(("transcript_path", TranscriptFormat::GeminiChat)),
                ..InputKeys::CLAUDE
            },
        },
        mcp: Some(McpSetup::McpServers {
            path: ".gemini/settings.json",
            flavour: "plain",
        }),
        trust: Some(Trust {
            steps: "Gemini CLI reads .gemini/settings.json (hooks, MCP) only in a trusted folder, and headless it refuses to start in any other (exit 55): start `gemini` here and trust the folder (or use `/permissions`).",
            read: Some(trust::gemini),
        }),
    },
    // Cursor.
    // - Rules: .cursor/rules/*.mdc with front matter (description, globs, alwaysApply)
    //   (https://cursor.com/docs/context/rules).
    // - Hooks: .cursor/hooks.json, {"version": 1, "hooks": {event: [{command, timeout (s)}]}};
    //   sessionStart ({"additional_context"}; fire-and-forget, so the rule carries the
    //   brief command too), stop ({"followup_message"} is submitted as the next user
    //   message; loop_count), preCompact (observational), sessionEnd; stdin carries
    //   conversation_id (session_id on sessionStart/sessionEnd) and workspace_roots; hooks
    //   run from the project root, $CURSOR_PROJECT_DIR (https://cursor.com/docs/hooks).
    // - MCP: .cursor/mcp.json, {"mcpServers": {...}} (https://cursor.com/docs/mcp).
    Adapter {
        name: "cursor",
        title: "Cursor",
        unit: "session",
        instructions: Instructions::CursorRule {
            path: ".cursor/rules/agent-handover.mdc",
        },
        hooks: Some(HookSetup::FlatJson {
            path: ".cursor/hooks.json",
            events: &[
                (SessionStart, "sessionStart"),
                (Stop, "stop"),
                (PreCompact, "preCompact"),
                (SessionEnd, "sessionEnd"),
            ],
            command_key: "command",
        }),
        protocol: HookProtocol {
            start: StartEnvelope::AdditionalContextSnake,
            start_cap_chars: TEN_THOUSAND,
            ask: Some(AskEnvelope::FollowupMessage),
            project_dir_env: Some("CURSOR_PROJECT_DIR"),
            compactions_seen: true,
            input: InputKeys {
                session_id: &["session_id", "conversation_id"],
                cwd: None,
                roots: Some("workspace_roots"),
                source: None,
                continued: Continued::Count("loop_count"),
                transcript: None,
                call: None,
                context: None,
            },
        },
        mcp: Some(McpSetup::McpServers {
            path: ".cursor/mcp.json",
            flavour: "plain",
        }),
        trust: Some(Trust {
            steps: "Cursor runs project hooks only in a trusted workspace: open this folder in Cursor and trust it when asked.",
            read: None,
        }),
    },
    // GitHub Copilot (CLI and cloud agent).
    // - Instructions: .github/copilot-instructions.md
    //   (docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-custom-instructions).
    // - Hooks: .github/hooks/*.json, {"version": 1, "hooks": {event: [{type, bash, timeoutSec}]}};
    //   sessionStart ({"additionalContext"} since CLI 1.0.11), agentStop
    //   ({"decision":"block","reason"}; stop_hook_active), preCompact and sessionEnd
    //   (notification only); stdin carries sessionId, cwd, source
    //   (docs.github.com/en/copilot/reference/hooks-reference).
    // - MCP: .github/mcp.json, {"mcpServers": {name: {type: "local", command, args, tools}}}
    //   (docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers).
    Adapter {
        name: "copilot",
        title: "GitHub Copilot",
        unit: "session",
        instructions: Instructions::Block {
            path: ".github/copilot-instructions.md",
        },
        hooks: Some(HookSetup::FlatJson {
            path: ".github/hooks/agent-handover.json",
            events: &[
                (SessionStart, "sessionStart"),
                (Stop, "agentStop"),
                (PreCompact, "preCompact"),
                (SessionEnd, "sessionEnd"),
            ],
            command_key: "bash",
        }),
        protocol: HookProtocol {
            start: StartEnvelope::AdditionalContext,
            start_cap_chars: TEN_THOUSAND,
            ask: Some(AskEnvelope::DecisionBlock),
            project_dir_env: None,
            compactions_seen: true,
            input: InputKeys {
                session_id: &["sessionId"],
                cwd: Some("cwd"),
                roots: None,
                source: Some("source"),
                continued: Continued::Flag("stop_hook_active"),
                transcript: None,
                call: None,
                context: None,
            },
        },
        mcp: Some(McpSetup::McpServers {
            path: ".github/mcp.json",
            flavour: "copilot",
        }),
        trust: Some(Trust {
            steps: "Copilot CLI silently ignores .github/hooks/ and .github/mcp.json in a folder it does not trust: start `copilot` here and trust the folder for this and future sessions.",
            read: Some(trust::copilot),
        }),
    },
    // Aider.
    // - Conventions: a file loaded read-only with `read:` in .aider.conf.yml, by
    //   convention CONVENTIONS.md (aider/website/docs/usage/conventions.md,
    //   docs/config/aider_conf.md in Aider-AI/aider).
    // - No hooks and no MCP: the brief and the handover are run as the conventions say.
    Adapter {
        name: "aider",
        title: "Aider",
        unit: "session",
        instructions: Instructions::AiderConventions {
            path: "CONVENTIONS.md",
            config: ".aider.conf.yml",
        },
        hooks: None,
        protocol: HookProtocol {
            start: StartEnvelope::Plain,
            start_cap_chars: TEN_THOUSAND,
            ask: None,
            project_dir_env: None,
            compactions_seen: true,
            input: InputKeys::CLAUDE,
        },
        mcp: None,
        trust: None,
    },
];
