"""Anthropic Messages API (Claude Code): POST /v1/messages, streamed.

Format: https://docs.anthropic.com/en/api/messages and
https://docs.anthropic.com/en/api/messages-streaming (message_start,
content_block_start/delta/stop, message_delta with stop_reason, message_stop).
Claude Code reaches it through ANTHROPIC_BASE_URL
(https://code.claude.com/docs/en/settings, environment variables).
"""

import itertools
import json

import brain
import usage
from wire import json_response, sse_response, text_of

#: The shell tool Claude Code offers, and its argument.
SHELL_TOOLS = {"Bash": "command"}
IDS = itertools.count(1)


def conversation(body):
    msgs = []
    if body.get("system"):
        msgs.append(brain.Msg("system", text_of(body["system"])))
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, str):
            msgs.append(brain.Msg(m["role"], content))
            continue
        texts = [p.get("text", "") for p in content if p.get("type") == "text"]
        if m["role"] == "assistant":
            calls = [
                brain.Call(p["id"], p["name"], str((p.get("input") or {}).get("command", "")))
                for p in content
                if p.get("type") == "tool_use"
            ]
            msgs.append(brain.Msg("assistant", "\n".join(texts), calls))
            continue
        if texts:
            msgs.append(brain.Msg("user", "\n".join(texts)))
        for p in content:
            if p.get("type") == "tool_result":
                msgs.append(brain.Msg("tool", text_of(p.get("content")), call_id=p.get("tool_use_id", "")))
    return msgs


def shell_tool(body):
    for tool in body.get("tools") or []:
        if tool.get("name") in SHELL_TOOLS:
            return tool["name"]
    return None


def messages(path, body, headers):
    body = body or {}
    tool = shell_tool(body)
    reply = brain.decide_offered(conversation(body), tool)
    model = body.get("model", "mock")
    used = usage.tokens()
    msg_id = f"msg_mock_{next(IDS)}"
    start = {
        "type": "message_start",
        "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": used, "output_tokens": 1,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        },
    }
    if reply.command:
        block = {"type": "tool_use", "id": f"toolu_mock_{next(IDS)}", "name": tool, "input": {}}
        delta = {"type": "input_json_delta",
                 "partial_json": json.dumps({SHELL_TOOLS[tool]: reply.command,
                                             "description": "run what was asked"})}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": reply.text}
        stop = "end_turn"
    if not body.get("stream"):
        content = dict(block)
        if reply.command:
            content["input"] = json.loads(delta["partial_json"])
        else:
            content["text"] = reply.text
        message = dict(start["message"], content=[content], stop_reason=stop)
        return json_response(message, decided=reply)
    events = [
        ("message_start", start),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 10}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return sse_response(events, decided=reply)


def count_tokens(path, body, headers):
    return json_response({"input_tokens": usage.tokens()})


ROUTES = [
    ("POST", lambda p: p.split("?")[0] == "/v1/messages", messages),
    ("POST", lambda p: p.split("?")[0] == "/v1/messages/count_tokens", count_tokens),
]
