"""OpenAI Chat Completions: POST .../chat/completions, streamed or not.

Format: https://platform.openai.com/docs/api-reference/chat (messages
with tool_calls and role "tool" results; streaming chunks of
`chat.completion.chunk` with delta.content / delta.tool_calls, ended by
`data: [DONE]`). Agents reach it through an OpenAI-compatible provider's
base URL (each agent's scenario says which setting).
"""

import itertools
import json
import time

import brain
import usage
from wire import json_response, sse_response, text_of

#: Shell tools the agents offer under this format, and the argument that
#: holds the command.
SHELL_TOOLS = {"bash": "command", "shell": "command", "execute_command": "command",
               "run_shell_command": "command",
               # Cline 3: an array of commands (tool schema sent by cline 3.0.65).
               "run_commands": "commands"}
#: Tools an agent must call to end its turn (Cline 3 in yolo mode nudges a
#: plain text reply with "[SYSTEM] This run is not complete until you call
#: ... submit_and_exit"), and the arguments that carry the text reply.
COMPLETION_TOOLS = {
    "submit_and_exit": lambda text: {"summary": f"{text} (the mock model's answer)", "verified": True},
}
#: How Cline 3 starts the reminders it sends as user turns ("[SYSTEM] This
#: run is not complete until you call ... submit_and_exit", even in the
#: first request, after the user's prompt).
AGENT_NOTE = "[SYSTEM] "
IDS = itertools.count(1)


def conversation(body):
    msgs = []
    for m in body.get("messages", []):
        role = m.get("role")
        if role in ("system", "developer"):
            msgs.append(brain.Msg("system", text_of(m.get("content"))))
        elif role == "assistant":
            calls = []
            for c in m.get("tool_calls") or []:
                try:
                    args = json.loads(c["function"].get("arguments") or "{}")
                except ValueError:
                    args = {}
                name = c["function"]["name"]
                calls.append(brain.Call(c.get("id", ""), name, command_of(name, args)))
            msgs.append(brain.Msg("assistant", text_of(m.get("content")), calls))
        elif role == "tool":
            msgs.append(brain.Msg("tool", text_of(m.get("content")), call_id=m.get("tool_call_id", "")))
        elif text_of(m.get("content")).startswith(AGENT_NOTE):
            # The agent's own reminder in a user turn, not the user's words.
            msgs.append(brain.Msg("system", text_of(m.get("content"))))
        else:
            msgs.append(brain.Msg("user", text_of(m.get("content"))))
    return msgs


def command_of(name, args):
    """The shell command of a call's arguments (an array of one: Cline 3)."""
    value = args.get(SHELL_TOOLS.get(name, "command"), "")
    if isinstance(value, list):
        value = "\n".join(str(v) for v in value)
    return str(value)


def tool_schema(body, name):
    for tool in body.get("tools") or []:
        if (tool.get("function") or {}).get("name") == name:
            return (tool["function"].get("parameters") or {})
    return {}


def shell_arguments(body, tool, command):
    """The call's arguments as the tool's schema has them: the command (in
    an array when the schema says so), and a description unless the schema
    forbids unknown properties without listing one."""
    schema = tool_schema(body, tool)
    props = schema.get("properties") or {}
    key = SHELL_TOOLS[tool]
    args = {key: [command] if (props.get(key) or {}).get("type") == "array" else command}
    if "description" in props or schema.get("additionalProperties", True) is not False:
        args["description"] = "run what was asked"
    return args


def completion_tool(body):
    for tool in body.get("tools") or []:
        name = (tool.get("function") or {}).get("name")
        if name in COMPLETION_TOOLS:
            return name
    return None


def shell_tool(body):
    for tool in body.get("tools") or []:
        name = (tool.get("function") or {}).get("name")
        if name in SHELL_TOOLS:
            return name
    return None


def completions(path, body, headers):
    body = body or {}
    tool = shell_tool(body)
    reply = brain.decide_offered(conversation(body), tool)
    n = next(IDS)
    base = {"id": f"chatcmpl-mock-{n}", "created": int(time.time()), "model": body.get("model", "mock")}
    used = usage.tokens()
    usage_obj = {"prompt_tokens": used, "completion_tokens": 10, "total_tokens": used + 10}
    call = None
    done = completion_tool(body)
    if reply.command:
        call = {"id": f"call_mock_{n}", "type": "function",
                "function": {"name": tool, "arguments": json.dumps(shell_arguments(body, tool, reply.command))}}
    elif done:
        call = {"id": f"call_mock_{n}", "type": "function",
                "function": {"name": done, "arguments": json.dumps(COMPLETION_TOOLS[done](reply.text))}}
    finish = "tool_calls" if call else "stop"
    if not body.get("stream"):
        message = {"role": "assistant", "content": None if call else reply.text}
        if call:
            message["tool_calls"] = [call]
        return json_response(dict(base, object="chat.completion",
                                  choices=[{"index": 0, "message": message, "finish_reason": finish}],
                                  usage=usage_obj), decided=reply)
    chunk = dict(base, object="chat.completion.chunk")
    delta = {"role": "assistant"}
    if call:
        delta["tool_calls"] = [dict(call, index=0)]
    else:
        delta["content"] = reply.text
    events = [
        (None, dict(chunk, choices=[{"index": 0, "delta": delta, "finish_reason": None}])),
        (None, dict(chunk, choices=[{"index": 0, "delta": {}, "finish_reason": finish}])),
        (None, dict(chunk, choices=[], usage=usage_obj)),
        (None, "[DONE]"),
    ]
    return sse_response(events, named=False, decided=reply)


def models(path, body, headers):
    return json_response({"object": "list", "data": [{"id": "mock", "object": "model", "owned_by": "mock"}]})


ROUTES = [
    ("POST", lambda p: p.split("?")[0].endswith("/chat/completions"), completions),
    ("GET", lambda p: p.split("?")[0].endswith("/models"), models),
]
