"""What every wire format module shares: the response and SSE framing."""

import json
from dataclasses import dataclass, field


@dataclass
class Response:
    """An HTTP response; `decided` is the brain's reply it carries, logged."""

    status: int
    content_type: str
    body: bytes
    headers: dict = field(default_factory=dict)
    decided: object = None


def sse(events, named=True) -> bytes:
    """Server-sent events from (event name, data dict) pairs; with
    named=False only the data lines (OpenAI Chat, Gemini)."""
    out = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data)
        if named and name:
            out.append(f"event: {name}\ndata: {payload}\n\n")
        else:
            out.append(f"data: {payload}\n\n")
    return "".join(out).encode()


def json_response(data, status=200, decided=None) -> Response:
    return Response(status, "application/json", json.dumps(data).encode(), decided=decided)


def sse_response(events, named=True, decided=None) -> Response:
    return Response(200, "text/event-stream", sse(events, named), {"Cache-Control": "no-cache"}, decided)


def text_of(content) -> str:
    """The text in a message content: a string, or a list of parts with
    `text` (or nested `content`)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text_of(p) for p in content)
    if isinstance(content, dict):
        if "text" in content and isinstance(content["text"], str):
            return content["text"]
        return text_of(content.get("content") or content.get("output"))
    return str(content)
