"""OpenAI Responses API (Codex CLI): POST .../responses, streamed or not.

Format: https://platform.openai.com/docs/api-reference/responses/create
(`input` items: `message` with role developer/user/assistant and
input_text/output_text parts, `function_call` {call_id, name, arguments},
`function_call_output` {call_id, output}) and
https://platform.openai.com/docs/api-reference/responses-streaming
(response.created, response.output_item.added, response.content_part.added,
response.output_text.delta/done, response.function_call_arguments.delta/done,
response.output_item.done, response.completed carrying `usage`; no [DONE]).
Codex reaches it through a custom provider with `wire_api = "responses"`
(https://developers.openai.com/codex/config-advanced, "Custom model
providers"; it appends /responses to base_url) and reads the stream as
openai/codex codex-rs/codex-api/src/sse/responses.rs does: items from
response.output_item.done, the turn ends at response.completed.

The shell tools Codex offers: 0.169.0 sends `exec_command` (unified exec,
`{"cmd": "..."}`, output returned as a function_call_output whose text
wraps the command's output); older releases sent `shell_command`
(`{"command": "..."}`) or `shell` (`{"command": ["bash", "-lc", "..."]}`).
"""

import itertools
import json
import time

import brain
import usage
from wire import json_response, sse_response, text_of

#: Shell tools and how a command goes into their arguments, preferred first.
SHELL_TOOLS = {
    "exec_command": lambda cmd: {"cmd": cmd},
    "shell_command": lambda cmd: {"command": cmd},
    "shell": lambda cmd: {"command": ["bash", "-lc", cmd]},
}
IDS = itertools.count(1)


def command_of(name, arguments):
    """The shell command in a function_call's JSON arguments."""
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return ""
    if not isinstance(args, dict):
        return ""
    cmd = args.get("cmd", args.get("command", ""))
    if isinstance(cmd, list):
        # `shell`: an argv, the script last after `-lc`.
        return str(cmd[-1]) if cmd else ""
    return str(cmd)


def conversation(body):
    msgs = []
    if body.get("instructions"):
        msgs.append(brain.Msg("system", text_of(body["instructions"])))
    items = body.get("input") or []
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    for item in items:
        kind = item.get("type", "message")
        if kind == "message":
            role = item.get("role", "user")
            role = "system" if role in ("system", "developer") else role
            msgs.append(brain.Msg(role, text_of(item.get("content"))))
        elif kind in ("function_call", "custom_tool_call"):
            call = brain.Call(item.get("call_id", ""), item.get("name", ""),
                              command_of(item.get("name"), item.get("arguments") or item.get("input")))
            # Calls follow their turn's text as separate items: one
            # assistant turn holds the text and the calls.
            if msgs and msgs[-1].role == "assistant" and not msgs[-1].calls:
                msgs[-1].calls.append(call)
            else:
                msgs.append(brain.Msg("assistant", "", [call]))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            msgs.append(brain.Msg("tool", text_of(item.get("output")), call_id=item.get("call_id", "")))
    return msgs


def shell_tool(body):
    names = {t.get("name") for t in body.get("tools") or [] if t.get("type") == "function"}
    return next((n for n in SHELL_TOOLS if n in names), None)


def responses(path, body, headers):
    body = body or {}
    tool = shell_tool(body)
    reply = brain.decide_offered(conversation(body), tool)
    n = next(IDS)
    resp_id = f"resp_mock_{n}"
    used = usage.tokens()
    usage_obj = {
        "input_tokens": used, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": used + 10,
    }
    base = {"id": resp_id, "object": "response", "created_at": int(time.time()),
            "model": body.get("model", "mock"), "output": [], "usage": None}
    if reply.command:
        arguments = json.dumps(SHELL_TOOLS[tool](reply.command))
        item_id = f"fc_mock_{n}"
        done = {"type": "function_call", "id": item_id, "call_id": f"call_mock_{n}",
                "name": tool, "arguments": arguments, "status": "completed"}
        added = dict(done, arguments="", status="in_progress")
        middle = [
            ("response.function_call_arguments.delta",
             {"type": "response.function_call_arguments.delta", "item_id": item_id,
              "output_index": 0, "delta": arguments}),
            ("response.function_call_arguments.done",
             {"type": "response.function_call_arguments.done", "item_id": item_id,
              "output_index": 0, "arguments": arguments}),
        ]
    else:
        item_id = f"msg_mock_{n}"
        part = {"type": "output_text", "text": reply.text, "annotations": []}
        done = {"type": "message", "id": item_id, "role": "assistant", "status": "completed",
                "content": [part]}
        added = dict(done, content=[], status="in_progress")
        where = {"item_id": item_id, "output_index": 0, "content_index": 0}
        middle = [
            ("response.content_part.added",
             dict(where, type="response.content_part.added", part=dict(part, text=""))),
            ("response.output_text.delta",
             dict(where, type="response.output_text.delta", delta=reply.text)),
            ("response.output_text.done",
             dict(where, type="response.output_text.done", text=reply.text)),
            ("response.content_part.done",
             dict(where, type="response.content_part.done", part=part)),
        ]
    completed = dict(base, status="completed", output=[done], usage=usage_obj)
    if not body.get("stream"):
        return json_response(completed, decided=reply)
    events = [
        ("response.created", {"type": "response.created",
                              "response": dict(base, status="in_progress")}),
        ("response.in_progress", {"type": "response.in_progress",
                                  "response": dict(base, status="in_progress")}),
        ("response.output_item.added", {"type": "response.output_item.added",
                                        "output_index": 0, "item": added}),
        *middle,
        ("response.output_item.done", {"type": "response.output_item.done",
                                       "output_index": 0, "item": done}),
        ("response.completed", {"type": "response.completed", "response": completed}),
    ]
    for seq, (_, data) in enumerate(events):
        data["sequence_number"] = seq
    return sse_response(events, decided=reply)


ROUTES = [
    ("POST", lambda p: p.split("?")[0].endswith("/responses"), responses),
]
