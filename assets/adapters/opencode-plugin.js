// agent-handover for OpenCode: the session brief at session start, one
// request to hand over when the agent goes idle after work without one, and
// a draft before the context is compacted.
//
// Installed by `agent-handover install opencode`; taken out again by
// `agent-handover install --remove opencode`.
// Format: OpenCode's plugin API (https://opencode.ai/docs/plugins: plugins in
// .opencode/plugins/, the `event` hook with session.created / session.idle /
// session.compacted, `experimental.session.compacting`, and
// client.session.prompt with noReply to add context; https://opencode.ai/docs/sdk).
import { spawnSync } from "node:child_process";

const AGENT = "opencode";
const MISSING = {missing};

function hook(event, directory, payload) {
  const run = spawnSync("agent-handover", ["hook", event, "--agent", AGENT], {
    cwd: directory,
    input: JSON.stringify(payload),
    encoding: "utf8",
    timeout: 30000,
  });
  if (run.error) return event === "session-start" ? MISSING : "{}";
  return run.stdout || "";
}

function sessionOf(event) {
  const p = event.properties || {};
  return p.sessionID || (p.info && p.info.id) || null;
}

export const AgentHandover = async ({ client, directory }) => {
  // Sessions whose next idle follows our own request to hand over.
  const continued = new Set();
  const brief = async (id, source) => {
    const text = hook("session-start", directory, { session_id: id, cwd: directory, source });
    if (text.trim()) {
      await client.session.prompt({
        path: { id },
        body: { noReply: true, parts: [{ type: "text", text }] },
      });
    }
  };
  return {
    event: async ({ event }) => {
      const id = sessionOf(event);
      if (!id) return;
      if (event.type === "session.created") {
        await brief(id, "startup");
      } else if (event.type === "session.compacted") {
        await brief(id, "compact");
      } else if (event.type === "session.idle") {
        const out = hook("stop", directory, {
          session_id: id,
          cwd: directory,
          stop_hook_active: continued.has(id),
        });
        continued.delete(id);
        let reply = {};
        try {
          reply = JSON.parse(out);
        } catch {
          return;
        }
        if (reply.decision === "block" && reply.reason) {
          continued.add(id);
          await client.session.prompt({
            path: { id },
            body: { parts: [{ type: "text", text: reply.reason }] },
          });
        }
      }
    },
    "experimental.session.compacting": async (input) => {
      hook("pre-compact", directory, { session_id: input.sessionID, cwd: directory });
    },
  };
};
