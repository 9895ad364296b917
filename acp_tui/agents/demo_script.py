"""The demo agent's script: the words it says, and how a prompt picks them.

It holds the prompt routing (slash commands, keywords, ``run: <command>``), the
slash-command list, the streamed markdown texts (thoughts, help, plan, tour and the
read/edit/run narration, the notes file's content) and the small text helpers
(chunking, fences, error lines). Everything here is pure and deterministic: the same
prompt, mode and workspace give the same words (no timestamps, no randomness, no I/O).
``acp_tui.agents.demo`` and ``acp_tui.agents.demo_steps`` send these words over ACP.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from acp import RequestError
from acp.schema import (
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
)

Step = Literal["read", "edit", "run"]
RouteKind = Literal["tour", "plan", "steps", "help"]

NOTES_FILE = "demo-notes.md"

#: Slash commands advertised with ``available_commands_update``:
#: (name, description, input hint or None).
COMMANDS: tuple[tuple[str, str, str | None], ...] = (
    ("tour", "Everything at once: a plan, a file read, an edit and a shell command", None),
    ("read", "Read a file through the client (fs/read_text_file)", "a file path (optional)"),
    ("edit", f"Propose an edit to {NOTES_FILE}, asking permission first in Ask mode", None),
    ("run", "Run a shell command in a client terminal", "a shell command (optional)"),
    ("plan", "Show a plan whose entries move from pending to completed", None),
    ("help", "What this demo agent can show you", None),
)

_GREETING = re.compile(
    r"^\s*(hi|hello|hey|hiya|howdy|hallo|greetings|good (morning|afternoon|evening))"
    r"(\s+(there|demo|agent))?[\s!.,?]*$",
    re.IGNORECASE,
)
_KEYWORDS: tuple[tuple[Step, re.Pattern[str]], ...] = (
    ("read", re.compile(r"\bread\b", re.IGNORECASE)),
    ("edit", re.compile(r"\b(edit|write)\b", re.IGNORECASE)),
    ("run", re.compile(r"\b(run|shell|terminal)\b", re.IGNORECASE)),
)
_RUN_COLON = re.compile(r"\brun:\s*(.+)", re.IGNORECASE)
_RUN_TICKS = re.compile(r"\brun\s+`([^`\n]+)`", re.IGNORECASE)


@dataclass(frozen=True)
class Route:
    """What a prompt asks the demo to do."""

    kind: RouteKind
    steps: tuple[Step, ...] = ()
    with_plan: bool = False
    read_path: str | None = None
    command: str | None = None
    unknown_command: str | None = None


def is_greeting(text: str) -> bool:
    return bool(_GREETING.match(text))


def route(text: str, *, first_turn: bool) -> Route:
    """Route a prompt: slash commands first, then keywords (case-insensitive)."""
    stripped = text.strip()
    if stripped.startswith("/"):
        name, _, rest = stripped[1:].partition(" ")
        name, arg = name.lower(), rest.strip() or None
        if name == "tour":
            return Route("tour", ("read", "edit", "run"), with_plan=True)
        if name == "read":
            return Route("steps", ("read",), read_path=arg)
        if name == "edit":
            return Route("steps", ("edit",))
        if name == "run":
            return Route("steps", ("run",), command=arg)
        if name == "plan":
            return Route("plan")
        return Route("help", unknown_command=None if name == "help" else "/" + name)
    if re.search(r"\btour\b", stripped, re.IGNORECASE) or (first_turn and is_greeting(stripped)):
        return Route("tour", ("read", "edit", "run"), with_plan=True)
    steps = tuple(step for step, pattern in _KEYWORDS if pattern.search(stripped))
    wants_plan = bool(re.search(r"\bplan\b", stripped, re.IGNORECASE))
    if steps:
        return Route("steps", steps, with_plan=wants_plan, command=run_command(stripped))
    return Route("plan") if wants_plan else Route("help")


def run_command(text: str) -> str | None:
    """The command of ``run: <cmd>`` or ``run `<cmd>```, if the prompt has one."""
    match = _RUN_TICKS.search(text) or _RUN_COLON.search(text)
    if match is None:
        return None
    command = match.group(1).strip().strip("`").strip()
    return command or None


PromptBlock = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)


def prompt_text(blocks: Sequence[PromptBlock]) -> tuple[str, list[str]]:
    """The prompt's text blocks joined, and the names of its resources (links or embedded)."""
    texts: list[str] = []
    names: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            names.append(block.name or uri_name(block.uri))
        elif isinstance(block, EmbeddedResourceContentBlock):
            names.append(uri_name(block.resource.uri))
    return "\n".join(texts), names


def uri_name(uri: str) -> str:
    tail = uri.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    return tail or uri


def error_text(exc: BaseException) -> str:
    """A one-line description of a client (JSON-RPC) or local error."""
    if isinstance(exc, RequestError):
        data = exc.data
        if isinstance(data, dict):
            detail = data.get("details") or data.get("message") or data.get("reason")
            data = detail or (json.dumps(data, sort_keys=True) if data else None)
        return f"{exc} ({data})" if data else str(exc)
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    return str(exc) or type(exc).__name__


def pieces(text: str, words: int = 3) -> list[str]:
    """Split ``text`` into chunks of a few words; joined they give ``text`` back exactly."""
    tokens = re.findall(r"\S+\s*|\s+", text)
    return ["".join(tokens[i : i + words]) for i in range(0, len(tokens), words)]


def summarize(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def fence(body: str, lang: str = "text") -> str:
    """A fenced code block whose fence is longer than any backtick run in ``body``."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{body.rstrip(chr(10))}\n{ticks}"


def language_of(name: str) -> str:
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return {
        "py": "python",
        "md": "markdown",
        "toml": "toml",
        "json": "json",
        "js": "javascript",
        "ts": "typescript",
        "sh": "bash",
        "yml": "yaml",
        "yaml": "yaml",
        "rs": "rust",
    }.get(suffix, "text")


def context_line(previous: str | None, attachments: Sequence[str]) -> str:
    """Multi-turn memory and attachment names, as one short paragraph (or "")."""
    parts: list[str] = []
    if previous is not None:
        parts.append(f"Last time you asked about “{summarize(previous) or 'nothing'}”.")
    if attachments:
        names = ", ".join(f"`{name}`" for name in attachments)
        parts.append(f"You attached {names}: I can see the names, but this demo doesn't read them.")
    return " ".join(parts) + "\n\n" if parts else ""


# -- thoughts ------------------------------------------------------------------------------


def thought(r: Route) -> tuple[str, ...]:
    """Two or three short pieces of the turn's ``agent_thought_chunk``."""
    if r.kind == "tour":
        return ("Time for the full tour: ", "a plan, then read, edit and run, ", "one at a time.")
    if r.kind == "plan":
        return ("The prompt asks for a plan. ", "I'll publish three entries and tick them off.")
    if r.kind == "steps":
        what = " and ".join(r.steps)
        return (f"The prompt asks me to {what}. ", "I'll use real ACP tool calls for that.")
    return ("No demo keyword in this prompt, ", "so I'll explain what I can show.")


# -- help ----------------------------------------------------------------------------------

_CHUNK_SAMPLE = """await conn.session_update(
    session_id,
    AgentMessageChunk(
        session_update="agent_message_chunk",
        content=TextContentBlock(type="text", text="Hello!"),
    ),
)"""


def help_text(prompt: str, context: str, mode_name: str, unknown: str | None) -> str:
    said = f"You said “{summarize(prompt)}”. " if prompt.strip() else ""
    if unknown:
        said = f"I don't know the command `{unknown}`. "
    return (
        "## acp-tui demo agent\n\n"
        f"{context}{said}I'm an offline, scripted agent: no account, no network, no model. "
        "I'm here so you can see every kind of ACP update a coding agent sends. Try:\n\n"
        "- `/tour` (or say *hi* in a new session): a plan, a file read, an edit and a command.\n"
        "- `/read [path]` or the word *read*: read a file through the client.\n"
        f"- `/edit` or the words *edit* / *write*: propose a diff to `{NOTES_FILE}`.\n"
        "- `/run [command]`, the words *run* / *shell* / *terminal*, or `run: <command>`: "
        "run a shell command in a terminal.\n"
        "- `/plan` or the word *plan*: a plan whose entries get ticked off.\n"
        "- `/help`: this message.\n\n"
        "Two session modes change how edits behave: **Ask before edits** (`ask`) asks your "
        "permission before writing, **Auto-accept edits** (`auto`) just writes. Switch modes "
        f"with the client's mode control; right now the mode is **{mode_name}**.\n\n"
        "Every reply streams in small chunks. This is the Python that sends one:\n\n"
        f"{fence(_CHUNK_SAMPLE, 'python')}\n"
    )


# -- plan ----------------------------------------------------------------------------------

PLAN_ONLY: tuple[tuple[str, str], ...] = (
    ("Understand the request", "read the prompt and decide what to do"),
    ("Sketch the answer", "pick the parts of the reply"),
    ("Write the reply", "stream it to you in small chunks"),
)

_PLAN_SAMPLE = """AgentPlanUpdate(
    session_update="plan",
    entries=[
        PlanEntry(content="Understand the request", priority="high", status="completed"),
        PlanEntry(content="Sketch the answer", priority="medium", status="in_progress"),
        PlanEntry(content="Write the reply", priority="low", status="pending"),
    ],
)"""


def plan_intro(context: str) -> str:
    return (
        "## Planning, step by step\n\n"
        f"{context}A plan is a checklist the agent keeps up to date while it works. "
        "Watch its entries move from *pending* to *in progress* to *completed*:\n\n"
    )


def plan_item(content: str, detail: str) -> str:
    return f"- **{content}**: {detail}.\n"


def plan_outro() -> str:
    return (
        "\nEach change re-sends the whole list in a `plan` update:\n\n"
        f"{fence(_PLAN_SAMPLE, 'python')}\n"
    )


# -- tour and steps -----------------------------------------------------------------------


def tour_intro(context: str) -> str:
    return (
        "# Welcome to the acp-tui demo\n\n"
        f"{context}This is a scripted tour of the Agent Client Protocol. In order, you'll see:\n\n"
        "- a **plan** that tracks the steps below,\n"
        "- a **file read** through the client,\n"
        f"- an **edit** to `{NOTES_FILE}` (with a permission request in *Ask* mode),\n"
        "- a **shell command** in a terminal.\n\n"
    )


def steps_intro(r: Route, context: str) -> str:
    what = {"read": "read a file", "edit": "edit a file", "run": "run a command"}
    headings = {"read": "Reading a file", "edit": "Editing a file", "run": "Running a command"}
    heading = headings[r.steps[0]] if len(r.steps) == 1 else "Tool calls"
    todo = ", then ".join(what[step] for step in r.steps)
    return f"## {heading}\n\n{context}You asked me to {todo}.\n\n"


def plan_entry_for(step: Step, read_name: str, command: str) -> str:
    if step == "read":
        return f"Read {read_name}"
    if step == "edit":
        return f"Write {NOTES_FILE}"
    return f"Run `{command}`"


def read_before(name: str, via_client: bool) -> str:
    how = (
        "I'll ask the client for it with `fs/read_text_file`, so an editor can even hand me "
        "unsaved changes."
        if via_client
        else "Your client didn't advertise `fs.readTextFile`, so I'll read it from disk myself."
    )
    return f"### Reading `{name}`\n\n{how}\n\n"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def read_after(name: str, lines: int) -> str:
    return (
        f"`{name}` has **{plural(lines, 'line')}**; the first few are in the tool call above.\n\n"
    )


def edit_before(mode: str, always: bool) -> str:
    if always:
        how = "You chose *Always allow* earlier, so I won't ask again."
    elif mode == "auto":
        how = "The mode is *Auto-accept edits*, so I'll write it without asking."
    else:
        how = "The mode is *Ask before edits*, so I'll ask your permission first."
    return f"### Editing `{NOTES_FILE}`\n\nI'll propose a diff that adds a note. {how}\n\n"


def edit_after(outcome: Literal["written", "created", "rejected"], via_client: bool) -> str:
    if outcome == "rejected":
        return f"Edit rejected by the user, so I left `{NOTES_FILE}` untouched.\n\n"
    how = "with `fs/write_text_file`" if via_client else "myself (no `fs.writeTextFile`)"
    verb = "Created" if outcome == "created" else "Updated"
    return f"{verb} `{NOTES_FILE}` {how}.\n\n"


def run_before(command: str, via_terminal: bool) -> str:
    how = (
        "The client runs it in a terminal (`terminal/create`) and the output shows up live "
        "in the tool call."
        if via_terminal
        else "Your client didn't advertise `terminal`, so I'll run it myself and paste the output."
    )
    return f"### Running `{command}`\n\n{how}\n\n"


def run_after(command: str, exit_code: int | None, lines: int) -> str:
    if exit_code is None:
        return f"`{command}` was stopped before it exited ({plural(lines, 'line')} of output).\n\n"
    output = plural(lines, "line")
    return f"`{command}` exited with code **{exit_code}** after {output} of output.\n\n"


def refused(error: str, *, by_client: bool = True) -> str:
    what = "The client refused" if by_client else "That failed"
    return f"{what}: {error}. A failed tool call is part of the demo too.\n\n"


def notes_text(old: str | None, prompt: str, mode: str) -> str:
    """The new content of the notes file: ``old`` plus one numbered, deterministic note."""
    base = (
        "# Demo notes\n\nWritten by the acp-tui demo agent. Delete this file whenever you like.\n"
        if old is None
        else old
        if old.endswith("\n") or not old
        else old + "\n"
    )
    number = sum(1 for line in base.splitlines() if line.startswith("## Note ")) + 1
    lines = (prompt.strip() or "(an empty prompt)").splitlines()
    quoted = "\n".join(f"> {line}".rstrip() for line in lines)
    return (
        f"{base}\n## Note {number}\n\nYou asked:\n\n{quoted}\n\n"
        f"- Session mode: `{mode}`\n"
        "- No timestamp and no randomness: the same prompt always gives the same note.\n"
    )


_STEP_SAMPLES: dict[Step, str] = {
    "read": """response = await conn.read_text_file(session_id=session_id, path=path)
lines = response.content.splitlines()""",
    "edit": """await conn.write_text_file(session_id=session_id, path=path, content=new_text)""",
    "run": """terminal = await conn.create_terminal(session_id=session_id, command=command, cwd=cwd)
tid = terminal.terminal_id
status = await conn.wait_for_terminal_exit(session_id=session_id, terminal_id=tid)
output = await conn.terminal_output(session_id=session_id, terminal_id=tid)
await conn.release_terminal(session_id=session_id, terminal_id=tid)""",
}


def steps_outro(steps: Sequence[Step], methods: Sequence[str]) -> str:
    used = "".join(f"- `{method}`\n" for method in methods) or (
        "- none: the client didn't offer the capabilities, so I did the work myself\n"
    )
    return (
        "## Under the hood\n\n"
        "Besides `session/update` notifications (thought, message and tool calls), "
        "this turn used:\n\n"
        f"{used}\n"
        "On the agent side, with the Python ACP SDK:\n\n"
        f"{fence(_STEP_SAMPLES[steps[0]], 'python')}\n"
    )


def tour_outro(methods: Sequence[str]) -> str:
    used = (
        "requests to the client: " + ", ".join(f"`{method}`" for method in methods)
        if methods
        else "no requests to the client: it didn't offer the capabilities, so I did the work"
    )
    return (
        "## That was the tour\n\n"
        "Everything you saw was a standard ACP message:\n\n"
        "- `agent_thought_chunk` for my thinking, `agent_message_chunk` for this text,\n"
        "- `plan` for the checklist,\n"
        "- `tool_call` and `tool_call_update` for the read, the edit and the command,\n"
        f"- {used}.\n\n"
        f"Here is how an agent streams one chunk of text:\n\n{fence(_CHUNK_SAMPLE, 'python')}\n\n"
        "Type `/help` to see what else I react to.\n"
    )
