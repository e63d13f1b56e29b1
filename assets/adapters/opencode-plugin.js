// agent-handover for OpenCode: the session brief at session start, one
// request to hand over when the agent goes idle after work without one (in
// a one-shot `opencode run`, before it exits), and a draft before the
// context is compacted.
//
// Installed by `agent-handover install opencode`; taken out again by
// `agent-handover install --remove opencode`.
// Format: OpenCode's plugin API (https://opencode.ai/docs/plugins: plugins in
// .opencode/plugins/, the `event` hook with session.created / session.idle /
// session.compacted, `experimental.session.compacting`, and
// client.session.prompt with noReply to add context; https://opencode.ai/docs/sdk;
// the `Hooks` type of @opencode-ai/plugin for `experimental.chat.messages.transform`
// and `dispose`).
import { spawnSync } from "node:child_process";

const AGENT = "opencode";
const MISSING = {missing};

// `opencode run MESSAGE` (https://opencode.ai/docs/cli#run) is one-shot: it
// stops reading events at its session's first idle and disposes the
// instance (packages/opencode/src/cli/cmd/run.ts), so a request made in the
// `event` hook on that idle, which OpenCode does not await
// (src/plugin/index.ts), never reaches the model. Disposing the instance
// awaits each plugin's `dispose` hook (the instance's finalizer in
// src/plugin/index.ts; OpenCode 1.18.33), and a prompt made there runs the
// session to its end before the process exits. So in a one-shot run the
// sessions that went idle are asked there, in `dispose`. `run --interactive`
// stays open, and `run --attach` runs this plugin in the server it attaches
// to: both are asked at idle.
const ONE_SHOT = isOneShotRun(process.argv.slice(2));

// process.argv is [runtime, entry script, ...OpenCode's command line].
function isOneShotRun(args) {
  // OpenCode's options that take a value, which may come before the command.
  const valued = ["--log-level", "--port", "--hostname", "--mdns-domain", "--cors",
    "-m", "--model", "-s", "--session", "--prompt", "--agent"];
  for (let i = 0; i < args.length; i++) {
    if (valued.includes(args[i])) i++;
    else if (!args[i].startsWith("-")) {
      return args[i] === "run" && !args.includes("-i") && !args.includes("--interactive");
    }
  }
  return false;
}

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

function textOf(message) {
  return (message.parts || []).map((p) => (p.type === "text" ? p.text : "")).join("");
}

export const AgentHandover = async ({ client, directory }) => {
  // Sessions whose next idle follows our own request to hand over.
  const continued = new Set();
  // In a one-shot run: the sessions that went idle, asked at `dispose`.
  const idled = new Set();
  // Each session's context as of its last model reply, for the hooks
  // ({used_tokens, window_tokens, model}: `agent-handover sessions` shows it).
  const context = new Map();
  // Each session's model's context window, from the request's model.
  const windows = new Map();
  // The brief each session started with, by session id.
  const started = new Map();
  const brief = async (id, source) => {
    const text = hook("session-start", directory, { session_id: id, cwd: directory, source });
    if (text.trim()) {
      if (source === "startup") started.set(id, text);
      await client.session.prompt({
        path: { id },
        body: { noReply: true, parts: [{ type: "text", text }] },
      });
    }
  };
  // A finished model reply's token use: all of it (input, cache read and
  // cache written) was in the context of its request.
  const noteContext = (info) => {
    const t = info.role === "assistant" && info.time && info.time.completed && info.tokens;
    if (!t) return;
    const used = (t.input || 0) + ((t.cache && t.cache.read) || 0) + ((t.cache && t.cache.write) || 0);
    if (used > 0) {
      context.set(info.sessionID, {
        used_tokens: used,
        window_tokens: windows.get(info.sessionID) || null,
        model: info.modelID || null,
      });
    }
  };
  // The stop hook at session `id`'s idle; when it asks to hand over, the
  // request is sent to the session (and awaited: the session's turn).
  const stop = async (id) => {
    const out = hook("stop", directory, {
      session_id: id,
      cwd: directory,
      stop_hook_active: continued.has(id),
      context: context.get(id),
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
  };
  return {
    event: async ({ event }) => {
      const id = sessionOf(event);
      if (!id) return;
      if (event.type === "message.updated") {
        noteContext(event.properties.info);
      } else if (event.type === "session.created") {
        await brief(id, "startup");
      } else if (event.type === "session.compacted") {
        await brief(id, "compact");
      } else if (event.type === "session.idle" && ONE_SHOT) {
        idled.add(id);
      } else if (event.type === "session.idle") {
        await stop(id);
      }
    },
    dispose: async () => {
      for (const id of idled) await stop(id);
      idled.clear();
    },
    // The brief goes in when the session is created, which is when its first
    // message is sent (`opencode run MESSAGE` does both at once): it can land
    // after that message. Before each model request the model's copy of the
    // messages is put in order, the brief first, as the context it is; the
    // session itself keeps them as they came.
    "experimental.chat.messages.transform": async (_input, output) => {
      const messages = output.messages;
      const first = messages.findIndex((m) => m.info.role === "user");
      const isBrief = (m) => {
        const text = started.get(m.info.sessionID);
        return m.info.role === "user" && text !== undefined && textOf(m).trim() === text.trim();
      };
      const at = messages.findIndex((m, i) => i > first && isBrief(m));
      if (first >= 0 && at > first) messages.splice(first, 0, ...messages.splice(at, 1));
    },
    "chat.params": async (input) => {
      const window = input.model && input.model.limit && input.model.limit.context;
      if (window) windows.set(input.sessionID, window);
    },
    "experimental.session.compacting": async (input) => {
      hook("pre-compact", directory, { session_id: input.sessionID, cwd: directory });
    },
  };
};
