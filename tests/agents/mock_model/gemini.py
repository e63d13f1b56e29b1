"""Gemini API (Gemini CLI): POST /v1beta/models/{model}:generateContent and
:streamGenerateContent?alt=sse, plus :countTokens.

Format: https://ai.google.dev/api/generate-content and
https://ai.google.dev/api/rest/v1beta/Content (GenerateContentRequest:
`contents` of role user/model with parts `text`, `functionCall {name, args,
id?}`, `functionResponse {name, response, id?}`; `systemInstruction`;
`tools[].functionDeclarations`; GenerateContentResponse: `candidates[0]
.content.parts`, `finishReason`, `usageMetadata {promptTokenCount,
candidatesTokenCount, totalTokenCount}`; streamed as SSE `data:` lines of
whole GenerateContentResponse chunks) and https://ai.google.dev/api/tokens
(countTokens -> `totalTokens`). Gemini CLI reaches it through
GOOGLE_GEMINI_BASE_URL (docs/reference/configuration.md, "Environment
variables", in the @google/gemini-cli package; plain http is allowed for
127.0.0.1). Its shell tool is `run_shell_command {command, description?,
is_background?}` (SHELL_TOOL_NAME in the package's bundle).

The Gemini API's `functionCall` need not carry an `id` (and this mock sends
none); a `functionResponse` is matched to its call by id when both have one,
else to the oldest unanswered call of the same name. A shell result comes
back as the tool's `llmContent` (`Output: ...`, then `Exit Code:`, `Process
Group PGID:` ... lines, wrapped in `<untrusted_context>`): the model reads
only what follows `Output: `.

Gemini CLI blocks a shell command with a backtick or `$(` anywhere outside
single quotes ("Command injection detected", detectBashSubstitution in the
bundle), heredoc bodies included, and drafts hold backticks. So when the
brain writes a file with a heredoc and then runs a command, this model
writes it with Gemini CLI's own file tool instead: one turn with two calls,
`write_file {file_path, content}` and then `run_shell_command {command}`.
The CLI runs them in that order (its scheduler never runs an edit tool,
write_file among them, in parallel with another call). The log keeps the
brain's reply (the heredoc command) as it decided it.

Gemini CLI also asks the model side questions with a JSON answer
(`generationConfig.responseMimeType` application/json and a
`responseJsonSchema`/`responseSchema`: the next-speaker check, the model
router, whose complexity score must be 1-100). Those are answered with
the smallest object the schema allows: each enum its first value unless
`JSON_CHOICES` says otherwise, each number its `minimum` (at least 1).
"""

import itertools
import json
import re

import brain
import usage
from wire import json_response, sse_response

#: The shell tool Gemini CLI offers, and its argument.
SHELL_TOOLS = {"run_shell_command": "command"}
IDS = itertools.count(1)
#: Enum properties of the CLI's JSON side questions whose answer matters:
#: after a turn the user speaks next (the mock has nothing more to say).
JSON_CHOICES = {"next_speaker": "user"}


def _text(parts):
    return "\n".join(p["text"] for p in parts if isinstance(p.get("text"), str) and not p.get("thought"))


#: The sections of Gemini CLI's shell result after `Output:` (the same
#: pattern the CLI parses them back with).
SHELL_SECTION = re.compile(r"^(Error|Exit Code|Signal|Background PIDs|Process Group PGID): ", re.M)
UNTRUSTED = re.compile(r"<untrusted_context[^>]*>\n?([\s\S]*?)\n?</untrusted_context>")
#: How brain.heredoc_write writes a file and then runs a command.
HEREDOC = re.compile(r"\Acat > (?P<path>\S+) <<'MOCK_EOF'\n(?P<text>.*)MOCK_EOF\n(?P<then>.*)\Z", re.S)


def _response_text(response, shell=False):
    """A functionResponse's `response` as text: Gemini CLI puts the tool's
    output under `output` (or `error`); a shell result is cut to its
    command's output."""
    text = None
    if isinstance(response, dict):
        for key in ("output", "content", "error"):
            if isinstance(response.get(key), str):
                text = response[key]
                break
    elif isinstance(response, str):
        text = response
    if text is None:
        return json.dumps(response)
    wrapped = UNTRUSTED.fullmatch(text.strip())
    if wrapped:
        text = wrapped.group(1)
    if shell and text.startswith("Output: "):
        text = text[len("Output: "):]
        end = SHELL_SECTION.search(text)
        if end:
            text = text[:end.start()].rstrip("\n")
    return text


def conversation(body):
    msgs = []
    system = body.get("systemInstruction") or (body.get("config") or {}).get("systemInstruction")
    if isinstance(system, str):
        msgs.append(brain.Msg("system", system))
    elif isinstance(system, dict):
        msgs.append(brain.Msg("system", _text(system.get("parts") or [])))
    pending = []  # calls not answered yet, oldest first
    for n, content in enumerate(body.get("contents") or []):
        parts = content.get("parts") or []
        if content.get("role") == "model":
            calls = []
            for k, p in enumerate(parts):
                fc = p.get("functionCall")
                if not fc:
                    continue
                args = fc.get("args") or {}
                arg = SHELL_TOOLS.get(fc.get("name"), "command")
                call = brain.Call(fc.get("id") or f"mock-call-{n}-{k}", fc.get("name", ""), str(args.get(arg, "")))
                calls.append(call)
                pending.append(call)
            msgs.append(brain.Msg("assistant", _text(parts), calls))
            continue
        text = _text(parts)
        if text:
            msgs.append(brain.Msg("user", text))
        for p in parts:
            fr = p.get("functionResponse")
            if not fr:
                continue
            match = next((c for c in pending if fr.get("id") and c.id == fr["id"]), None)
            if match is None:
                match = next((c for c in pending if c.name == fr.get("name")), None)
            if match is not None:
                pending.remove(match)
            shell = fr.get("name") in SHELL_TOOLS
            msgs.append(brain.Msg("tool", _response_text(fr.get("response"), shell),
                                  call_id=match.id if match else ""))
    return msgs


def shell_tool(body):
    for tool in body.get("tools") or []:
        for decl in tool.get("functionDeclarations") or []:
            if decl.get("name") in SHELL_TOOLS:
                return decl["name"]
    return None


def json_schema(body):
    """The schema of the JSON answer the request wants, or None."""
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") != "application/json":
        return None
    return config.get("responseJsonSchema") or config.get("responseSchema") or {}


def smallest(schema, key=""):
    """The smallest value `schema` allows."""
    kind = str(schema.get("type", "object")).lower()
    if schema.get("enum"):
        choice = JSON_CHOICES.get(key)
        return choice if choice in schema["enum"] else schema["enum"][0]
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: smallest(v, k) for k, v in props.items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        # The router's complexity score is "from 1-100" and must be >= 1.
        return max(1, int(schema.get("minimum", 1)))
    if kind == "boolean":
        return False
    return "mock"


def usage_metadata():
    used = usage.tokens()
    return {"promptTokenCount": used, "candidatesTokenCount": 10, "totalTokenCount": used + 10}


def offers(body, name):
    return any(d.get("name") == name for t in body.get("tools") or [] for d in t.get("functionDeclarations") or [])


def function_calls(body, command):
    """The model's parts running `command`: one shell call, or write_file
    and then a shell call for a heredoc write (see the module's doc)."""
    tool = shell_tool(body)
    heredoc = HEREDOC.match(command)
    if heredoc and offers(body, "write_file"):
        calls = [("write_file", {"file_path": heredoc.group("path"), "content": heredoc.group("text")})]
        if heredoc.group("then").strip():
            calls.append((tool, {SHELL_TOOLS[tool]: heredoc.group("then").strip(),
                                 "description": "run what was asked"}))
    else:
        calls = [(tool, {SHELL_TOOLS[tool]: command, "description": "run what was asked"})]
    return [{"functionCall": {"name": name, "args": args}} for name, args in calls]


def generate(path, body, headers):
    body = body or {}
    schema = json_schema(body)
    if schema is not None:
        reply = brain.Reply(text=json.dumps(smallest(schema)))
    else:
        tool = shell_tool(body)
        reply = brain.decide_offered(conversation(body), tool)
    parts = function_calls(body, reply.command) if reply.command else [{"text": reply.text}]
    model = path.split("/models/", 1)[-1].split(":", 1)[0]
    response = {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": usage_metadata(),
        "modelVersion": model,
        "responseId": f"mock-{next(IDS)}",
    }
    if ":streamGenerateContent" in path:
        return sse_response([(None, response)], named=False, decided=reply)
    return json_response(response, decided=reply)


def count_tokens(path, body, headers):
    return json_response({"totalTokens": usage.tokens()})


def _route(verb):
    return lambda p: p.split("?")[0].startswith("/v1") and "/models/" in p and p.split("?")[0].endswith(":" + verb)


ROUTES = [
    ("POST", _route("streamGenerateContent"), generate),
    ("POST", _route("generateContent"), generate),
    ("POST", _route("countTokens"), count_tokens),
]
