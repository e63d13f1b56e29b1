"""The mock model's one mind, shared by every wire format.

It reads a conversation (already normalised by the format's module into
`Msg`s) and decides the next turn the way a literal-minded model would:

- asked to hand over (the Stop hook's words: "Complete the draft at P ...
  Run: CMD run --note-file P"), it reads the draft, then writes it back with
  every TODO line replaced by its own sentence and runs exactly the command
  it was given;
- told `MOCK-WORK` by the user, it changes a file in the project;
- told `MOCK-SHELL: <command>`, it runs that command;
- otherwise, and after any tool result it has nothing more to do for, it
  answers in plain text.

Every sentence it writes into a note carries `MOCK-NOTE`, so a test can
tell that the handover holds the model's words.
"""

import re
from dataclasses import dataclass, field

#: The words the hooks ask with (src/agent/hooks/mod.rs: `stop`, "Complete
#: the draft at P: … Run: CMD", and `progress` when the context runs low,
#: "complete the draft at P (…) and run: CMD").
ASK = re.compile(
    r"complete the draft at (?P<path>\S+?)(?::| \().*?run: (?P<cmd>[^\n]*?run --note-file \S+)",
    re.S | re.I,
)
WORK = "MOCK-WORK"
SHELL = re.compile(r"MOCK-SHELL: (?P<cmd>[^\n]+)")
#: The sentence that replaces a TODO line, numbered in order.
NOTE_LINE = "MOCK-NOTE {n}: the mock model's own words for this line, with 3/3 checks passing."


@dataclass
class Call:
    """A tool call the model made: its id, tool name and shell command."""

    id: str
    name: str
    command: str


@dataclass
class Msg:
    """One turn: role is system, user, assistant or tool."""

    role: str
    text: str = ""
    calls: list = field(default_factory=list)
    #: For a tool result: the id of the call it answers.
    call_id: str = ""


@dataclass
class Reply:
    """The model's turn: plain text, or one shell command to run."""

    text: str = ""
    command: str = ""

    def to_log(self):
        return {"text": self.text} if not self.command else {"command": self.command}


def complete_draft(draft: str) -> str:
    """The draft with each TODO line replaced by the model's sentence and
    the drafting comments kept as they are."""
    out, n = [], 0
    for line in draft.splitlines():
        if "TODO" in line and not line.lstrip().startswith("<!--"):
            n += 1
            prefix = re.match(r"\s*(?:[-*]\s+)?", line).group(0)
            line = prefix + NOTE_LINE.format(n=n)
        out.append(line)
    return "\n".join(out) + "\n"


def heredoc_write(path: str, text: str, then: str) -> str:
    """A shell command writing `text` to `path`, then running `then`."""
    return f"cat > {path} <<'MOCK_EOF'\n{text}MOCK_EOF\n{then}"


def last_call(msgs, call_id):
    for m in reversed(msgs):
        for c in m.calls:
            if c.id == call_id or not call_id:
                return c
    return None


def decide_offered(msgs, shell_tool) -> Reply:
    """The next turn for a request that offers the shell tool `shell_tool`
    (None: no shell, as in an agent's side questions, which get text)."""
    return decide(msgs) if shell_tool else Reply(text="Hello.")


def decide(msgs) -> Reply:
    """The next turn for the conversation `msgs`."""
    # Agents put their own context (hook output, reminders) in system
    # turns, sometimes after the user's: the turn to answer is the last
    # user or tool one.
    turns = [m for m in msgs if m.role in ("user", "tool", "assistant")]
    if not turns or turns[-1].role == "assistant":
        return Reply(text="Hello.")
    last = turns[-1]
    # A request to hand over that came since the model last spoke (as a
    # tool result's companion, in a system turn, or as the user's words):
    # read the draft it names first.
    fresh = new_ask(msgs)
    if fresh:
        return Reply(command=f"cat {fresh[0]}")
    if last.role == "tool":
        call = last_call(msgs, last.call_id)
        asked = find_ask(msgs)
        if call and asked and call.command == f"cat {asked[0]}":
            completed = complete_draft(strip_tool_noise(last.text))
            return Reply(command=heredoc_write(asked[0], completed, asked[1]))
        return Reply(text="Done.")
    text = last.text
    asked = ASK.search(text)
    if asked:
        return Reply(command=f"cat {asked.group('path')}")
    shell = SHELL.search(text)
    if shell:
        return Reply(command=shell.group("cmd").strip())
    if WORK in text:
        return Reply(command="printf 'work\\n' >> work.txt")
    return Reply(text="Hello.")


def find_ask(msgs):
    """(draft path, command) of the newest hand-over request, if any."""
    for m in reversed(msgs):
        if m.role != "assistant":
            found = ASK.search(m.text)
            if found:
                return found.group("path"), found.group("cmd").strip()
    return None


def new_ask(msgs):
    """The newest hand-over request made after the model's last turn, if
    that turn did not already start following it."""
    for m in reversed(msgs):
        if m.role == "assistant":
            return None
        found = ASK.search(m.text)
        if found:
            return found.group("path"), found.group("cmd").strip()
    return None


def strip_tool_noise(text: str) -> str:
    """A tool result as the draft file's text: some agents wrap the output
    (exit codes, line numbers); the draft starts at its first heading."""
    start = text.find("# Handoff")
    text = text[start:] if start >= 0 else text
    # Copilot CLI ends a bash result with `<shellId: N completed with exit
    # code N>` on its own line.
    return re.sub(r"\n<shellId: [^>\n]*>\s*$", "\n", text)
