"""``!`` shell mode: the user's own command, in the session's folder.

A prompt that starts with ``!`` runs the rest in the user's shell, on a real
pty, with the same machinery, limits and fence as an agent's
``terminal/create`` (sessions/tools.py). No agent turn starts. The command
shows in the log as a tool call of acp-tui's own (``toolCallId``
``acp-tui-shell-N``, kind ``execute``, its output live), and once it has
ended, the command and its output go to the agent with the user's next
prompt, as context (the way Claude Code's bash mode does): a text block
before the prompt, unless the user drops it first.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acp_tui.core.errors import HostError
from acp_tui.core.model.content_text import clean

if TYPE_CHECKING:
    from acp_tui.core.sessions.session import Session

ID_PREFIX = "acp-tui-shell-"
#: Characters of a command's output handed to the agent (its tail is kept).
CONTEXT_LIMIT = 20_000
GIVEN = "Goes to the agent with your next prompt, as context (d in the log drops it)."
DROPPED = "Dropped: the agent will not see this."
_numbers = itertools.count(1)


@dataclass
class UserShells:
    """One session's ``!`` commands: the running ones, and the context not yet sent."""

    running: dict[str, str] = field(default_factory=dict)  # tool call id -> terminal id
    notes: dict[str, str] = field(default_factory=dict)  # tool call id -> its context


async def run(session: Session, shells: UserShells, command: str) -> dict[str, Any]:
    """Run ``command``; returns ``{toolCallId, exitStatus}`` once it has ended."""
    session.require_open()
    command = command.strip()
    if not command:
        raise HostError("invalid_params", "no command after '!'")
    call_id = f"{ID_PREFIX}{next(_numbers)}"
    from acp import RequestError  # (the SDK: loaded after the first frame, with the agent)

    try:
        created = await session.tools.create_terminal(
            {"sessionId": session.agent_session_id, "command": command, "cwd": str(session.cwd)}
        )
    except RequestError as exc:  # the terminals' limits (as for an agent's terminal/create)
        raise HostError("invalid_params", str(exc)) from None
    terminal_id = str(created["terminalId"])
    shells.running[call_id] = terminal_id
    event, _, _ = session.thread.upsert_tool_call(
        {
            "toolCallId": call_id,
            "title": f"! {command}",
            "kind": "execute",
            "status": "in_progress",
            "content": [{"type": "terminal", "terminalId": terminal_id}],
            "rawInput": {"command": command, "by": "user"},
        }
    )
    session.commit(event)
    params = {"sessionId": session.agent_session_id, "terminalId": terminal_id}
    try:
        status = await session.tools.wait_for_terminal_exit(params)
        output = session.tools.terminals.output(terminal_id).output
    finally:
        shells.running.pop(call_id, None)
        await session.tools.release_terminal(params)
    code = status.get("exitCode")
    ended = f"exit {code}" if code is not None else f"signal {status.get('signal')}"
    tail = clean(output[-CONTEXT_LIMIT:])  # (no escape codes for the agent)
    cut = "(the start of the output is left out)\n" if len(output) > CONTEXT_LIMIT else ""
    shells.notes[call_id] = (
        f"[acp-tui: the user ran a shell command in {session.cwd}: `{command}` ({ended}). "
        f"Its output:]\n{cut}```\n{tail.rstrip()}\n```\n\n"
    )
    session.agent_notes.append(shells.notes[call_id])
    _finish(session, call_id, "completed" if code == 0 else "failed", GIVEN)
    return {"toolCallId": call_id, "exitStatus": status}


async def stop(session: Session, shells: UserShells) -> bool:
    """Stop the session's running ``!`` commands; whether one ran."""
    for terminal_id in list(shells.running.values()):
        await session.tools.kill_terminal(
            {"sessionId": session.agent_session_id, "terminalId": terminal_id}
        )
    return bool(shells.running)


def drop(session: Session, shells: UserShells, tool_call_id: str) -> bool:
    """Keep a ``!`` command's output from the agent (until the next prompt took it)."""
    note = shells.notes.pop(tool_call_id, None)
    if note is None or note not in session.agent_notes:
        return False
    session.agent_notes.remove(note)
    _finish(session, tool_call_id, None, DROPPED)
    return True


def _finish(session: Session, call_id: str, status: str | None, line: str) -> None:
    found = session.thread.tool_call(call_id)
    if found is None:
        return
    _, entry = found
    content = [c for c in entry.content if c.get("type") == "terminal"]
    content.append({"type": "content", "content": {"type": "text", "text": line}})
    fields: dict[str, Any] = {"toolCallId": call_id, "content": content}
    if status is not None:
        fields["status"] = status
    session.commit(session.thread.update_tool_call(fields)[0])
