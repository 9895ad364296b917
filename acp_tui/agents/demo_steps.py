"""The demo agent's steps: plans and the read, edit and run tool calls of a turn.

Each step announces a ``tool_call``, moves it along with ``tool_call_update`` and
narrates it with the words of ``demo_script``:

* ``read`` asks the client with ``fs/read_text_file`` (or reads inside the cwd itself);
* ``edit`` proposes a diff to the notes file, asks ``session/request_permission`` in
  ``ask`` mode, then writes with ``fs/write_text_file`` (or writes the file itself);
* ``run`` uses a client terminal (``terminal/create``, ``wait_for_exit``, ``output``,
  ``release``), or runs the command itself when the client has no ``terminal``.

A client error fails the tool call and the turn carries on; a cancelled permission
request raises ``TurnCancelled``. ``plan`` updates tick entries off, alone (the
``plan`` route) or alongside the steps. The agent, its session and its turn come in
as parameters, typed by the small protocols below, so this module never imports
``acp_tui.agents.demo``; the fallbacks live in ``demo_workspace``.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any, Protocol

from acp.interfaces import Client
from acp.schema import (
    AgentPlanUpdate,
    AllowedOutcome,
    ClientCapabilities,
    ContentToolCallContent,
    FileEditToolCallContent,
    PermissionOption,
    PlanEntry,
    PlanEntryPriority,
    PlanEntryStatus,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallStatus,
    ToolCallUpdate,
    ToolKind,
)

from acp_tui.agents import demo_script as script
from acp_tui.agents.demo_script import NOTES_FILE, Route
from acp_tui.agents.demo_workspace import (
    CLEANUP_TIMEOUT,
    DEFAULT_COMMAND,
    OUTPUT_BYTE_LIMIT,
    display_path,
    read_locally,
    read_target,
    run_locally,
)

log = logging.getLogger("acp_tui.agents.demo")  # one logger for the whole demo agent

PERMISSION_OPTIONS = (
    PermissionOption(option_id="allow_once", name="Allow", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
)
PREVIEW_LINES = 10
TAIL_CHARS = 2000
_PRIORITIES: tuple[PlanEntryPriority, ...] = ("high", "medium", "low")

ToolContent = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent


class TurnCancelled(Exception):
    """The permission request came back ``cancelled``: end the turn as cancelled."""


class StepAgent(Protocol):
    """The agent, as the steps use it: the client, what it can do, and a voice."""

    @property
    def client(self) -> Client: ...

    @property
    def caps(self) -> ClientCapabilities: ...

    async def pause(self) -> None: ...

    async def send(
        self, session_id: str, update: ToolCallStart | ToolCallProgress | AgentPlanUpdate
    ) -> None: ...

    async def say(self, session_id: str, text: str) -> None: ...


class StepSession(Protocol):
    """The session, as the steps use it."""

    @property
    def id(self) -> str: ...

    @property
    def cwd(self) -> Path: ...

    @property
    def mode(self) -> str: ...

    always_allow_edits: bool

    @property
    def asks_before_edits(self) -> bool: ...


class StepTurn(Protocol):
    """The running turn, as the steps use it: what to clean up, which requests were used."""

    @property
    def cancel_requested(self) -> bool: ...

    @property
    def open_tools(self) -> list[str]: ...

    @property
    def terminals(self) -> list[str]: ...

    @property
    def methods(self) -> list[str]: ...

    def used(self, method: str) -> None: ...


# -- plans and the sequence of steps -------------------------------------------------------


async def plan_only(agent: StepAgent, session: StepSession, context: str) -> None:
    """The ``plan`` route: a plan whose entries are ticked off one by one."""
    names = [content for content, _ in script.PLAN_ONLY]
    statuses: list[PlanEntryStatus] = ["pending"] * len(names)
    await agent.say(session.id, script.plan_intro(context))
    await send_plan(agent, session, names, statuses)
    for index, (content, detail) in enumerate(script.PLAN_ONLY):
        statuses[index] = "in_progress"
        await send_plan(agent, session, names, statuses)
        await agent.say(session.id, script.plan_item(content, detail))
        statuses[index] = "completed"
        await send_plan(agent, session, names, statuses)
    await agent.say(session.id, script.plan_outro())


async def tool_steps(
    agent: StepAgent, session: StepSession, turn: StepTurn, route: Route, text: str, context: str
) -> None:
    """The ``tour`` and ``steps`` routes: the route's tool calls, with a plan if it asks."""
    target = read_target(session.cwd, route.read_path, text)
    command = route.command or DEFAULT_COMMAND
    tour = route.kind == "tour"
    intro = script.tour_intro(context) if tour else script.steps_intro(route, context)
    await agent.say(session.id, intro)
    read_name = display_path(target, session.cwd)
    names = [script.plan_entry_for(step, read_name, command) for step in route.steps]
    statuses: list[PlanEntryStatus] = ["pending"] * len(names)
    if route.with_plan:
        await send_plan(agent, session, names, statuses)
    for index, step in enumerate(route.steps):
        if route.with_plan:
            statuses[index] = "in_progress"
            await send_plan(agent, session, names, statuses)
        if step == "read":
            await step_read(agent, session, turn, target)
        elif step == "edit":
            await step_edit(agent, session, turn, text)
        else:
            await step_run(agent, session, turn, command)
        if route.with_plan:
            statuses[index] = "completed"
            await send_plan(agent, session, names, statuses)
    if tour:
        await agent.say(session.id, script.tour_outro(turn.methods))
    else:
        await agent.say(session.id, script.steps_outro(route.steps, turn.methods))


async def send_plan(
    agent: StepAgent,
    session: StepSession,
    names: Sequence[str],
    statuses: Sequence[PlanEntryStatus],
) -> None:
    entries = [
        PlanEntry(content=name, priority=_PRIORITIES[min(index, 2)], status=status)
        for index, (name, status) in enumerate(zip(names, statuses, strict=True))
    ]
    await agent.pause()
    await agent.send(session.id, AgentPlanUpdate(session_update="plan", entries=entries))


# -- the three tool calls ------------------------------------------------------------------


async def step_read(agent: StepAgent, session: StepSession, turn: StepTurn, target: Path) -> None:
    name = display_path(target, session.cwd)
    via_client = bool(agent.caps.fs and agent.caps.fs.read_text_file)
    await agent.say(session.id, script.read_before(name, via_client))
    tool_call_id = await open_tool(agent, session, turn, "read", f"Read {name}", target)
    await agent.pause()
    await update_tool(agent, session, turn, tool_call_id, "in_progress")
    try:
        if via_client:
            turn.used("fs/read_text_file")
            response = await agent.client.read_text_file(session_id=session.id, path=str(target))
            content = response.content
        else:
            content = await asyncio.to_thread(read_locally, target, session.cwd)
    except Exception as exc:
        await tool_failed(agent, session, turn, tool_call_id, exc, by_client=via_client)
        return
    lines = content.splitlines()
    body = script.fence("\n".join(lines[:PREVIEW_LINES]), script.language_of(target.name))
    if len(lines) > PREVIEW_LINES:
        body += f"\n\n… and {len(lines) - PREVIEW_LINES} more lines"
    raw = {"path": str(target), "lines": len(lines)}
    await update_tool(agent, session, turn, tool_call_id, "completed", text=body, raw_output=raw)
    await agent.say(session.id, script.read_after(name, len(lines)))


async def step_edit(agent: StepAgent, session: StepSession, turn: StepTurn, prompt: str) -> None:
    path = session.cwd / NOTES_FILE
    via_client = bool(agent.caps.fs and agent.caps.fs.write_text_file)
    await agent.say(session.id, script.edit_before(session.mode, session.always_allow_edits))
    old = await current_text(agent, session, turn, path)
    new = script.notes_text(old, prompt, session.mode)
    diff = FileEditToolCallContent(type="diff", path=str(path), old_text=old, new_text=new)
    title = f"Write {NOTES_FILE}"
    tool_call_id = await open_tool(agent, session, turn, "edit", title, path, [diff])
    if session.asks_before_edits:
        turn.used("session/request_permission")
        request = ToolCallUpdate(
            tool_call_id=tool_call_id,
            title=title,
            kind="edit",
            status="pending",
            content=[diff],
            locations=[ToolCallLocation(path=str(path))],
        )
        try:
            response = await agent.client.request_permission(
                session_id=session.id, tool_call=request, options=list(PERMISSION_OPTIONS)
            )
        except Exception as exc:
            await tool_failed(agent, session, turn, tool_call_id, exc, by_client=True)
            return
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            text = "Permission request cancelled."
            await update_tool(agent, session, turn, tool_call_id, "failed", text=text)
            raise TurnCancelled
        if outcome.option_id not in ("allow_once", "allow_always"):
            text = "Edit rejected by the user"
            await update_tool(agent, session, turn, tool_call_id, "failed", text=text)
            await agent.say(session.id, script.edit_after("rejected", via_client))
            return
        if outcome.option_id == "allow_always":
            session.always_allow_edits = True
    await update_tool(agent, session, turn, tool_call_id, "in_progress")
    try:
        if via_client:
            turn.used("fs/write_text_file")
            await agent.client.write_text_file(session_id=session.id, path=str(path), content=new)
        else:
            await asyncio.to_thread(path.write_text, new, encoding="utf-8")
    except Exception as exc:
        await tool_failed(agent, session, turn, tool_call_id, exc, by_client=via_client)
        return
    raw = {"path": str(path), "chars": len(new)}
    await update_tool(agent, session, turn, tool_call_id, "completed", raw_output=raw)
    await agent.say(
        session.id, script.edit_after("created" if old is None else "written", via_client)
    )


async def current_text(
    agent: StepAgent, session: StepSession, turn: StepTurn, path: Path
) -> str | None:
    """The file's current text (through the client when it can read); None if new."""
    if not path.is_file():
        return None
    if agent.caps.fs and agent.caps.fs.read_text_file:
        turn.used("fs/read_text_file")
        try:
            response = await agent.client.read_text_file(session_id=session.id, path=str(path))
            return response.content
        except Exception as exc:
            log.info("the client could not read %s (%s); reading it myself", path, exc)
    try:
        return await asyncio.to_thread(path.read_text, encoding="utf-8", errors="replace")
    except OSError:
        return None


async def step_run(agent: StepAgent, session: StepSession, turn: StepTurn, command: str) -> None:
    via_terminal = bool(agent.caps.terminal)
    await agent.say(session.id, script.run_before(command, via_terminal))
    tool_call_id = await open_tool(
        agent,
        session,
        turn,
        "execute",
        f"Run `{command}`",
        raw_input={"command": command, "cwd": str(session.cwd)},
    )
    try:
        if via_terminal:
            result = await run_in_terminal(agent, session, turn, tool_call_id, command)
        else:
            await update_tool(agent, session, turn, tool_call_id, "in_progress")
            result = await run_locally(command, session.cwd)
    except Exception as exc:
        await tool_failed(agent, session, turn, tool_call_id, exc, by_client=via_terminal)
        return
    exit_code, output, truncated = result
    raw: dict[str, Any] = {"exitCode": exit_code, "output": output[-TAIL_CHARS:]}
    if truncated:
        raw["truncated"] = True
    text = None if via_terminal else script.fence(output or "(no output)", "text")
    status: ToolCallStatus = "completed" if exit_code == 0 else "failed"
    await update_tool(agent, session, turn, tool_call_id, status, text=text, raw_output=raw)
    await agent.say(session.id, script.run_after(command, exit_code, len(output.splitlines())))


async def run_in_terminal(
    agent: StepAgent, session: StepSession, turn: StepTurn, tool_call_id: str, command: str
) -> tuple[int | None, str, bool]:
    client = agent.client
    turn.used("terminal/create")
    created = await client.create_terminal(
        session_id=session.id,
        command=command,
        cwd=str(session.cwd),
        output_byte_limit=OUTPUT_BYTE_LIMIT,
    )
    ids = {"session_id": session.id, "terminal_id": created.terminal_id}
    turn.terminals.append(created.terminal_id)
    terminal = TerminalToolCallContent(type="terminal", terminal_id=created.terminal_id)
    await update_tool(agent, session, turn, tool_call_id, "in_progress", content=[terminal])
    try:
        turn.used("terminal/wait_for_exit")
        exit_status = await client.wait_for_terminal_exit(**ids)
        turn.used("terminal/output")
        output = await client.terminal_output(**ids)
    finally:
        if not turn.cancel_requested:  # after a cancel, the agent kills and releases it
            turn.used("terminal/release")
            turn.terminals.remove(created.terminal_id)
            await quietly(client.release_terminal(**ids))
    exit_code = exit_status.exit_code
    if exit_code is None and output.exit_status is not None:
        exit_code = output.exit_status.exit_code
    return exit_code, output.output, output.truncated


# -- tool call updates ---------------------------------------------------------------------


async def open_tool(
    agent: StepAgent,
    session: StepSession,
    turn: StepTurn,
    kind: ToolKind,
    title: str,
    path: Path | None = None,
    content: Sequence[ToolContent] | None = None,
    raw_input: dict[str, Any] | None = None,
) -> str:
    """Announce a pending tool call; returns its id."""
    tool_call_id = f"{kind}-{uuid.uuid4().hex[:12]}"
    turn.open_tools.append(tool_call_id)
    start = ToolCallStart(
        session_update="tool_call",
        tool_call_id=tool_call_id,
        title=title,
        kind=kind,
        status="pending",
        content=list(content) if content else None,
        locations=[ToolCallLocation(path=str(path))] if path else None,
        raw_input=raw_input or ({"path": str(path)} if path else None),
    )
    await agent.send(session.id, start)
    return tool_call_id


async def update_tool(
    agent: StepAgent,
    session: StepSession,
    turn: StepTurn,
    tool_call_id: str,
    status: ToolCallStatus,
    *,
    text: str | None = None,
    content: Sequence[ToolContent] | None = None,
    raw_output: dict[str, Any] | None = None,
) -> None:
    """A ``tool_call_update``; ``text`` replaces the content with one text block."""
    if status in ("completed", "failed") and tool_call_id in turn.open_tools:
        turn.open_tools.remove(tool_call_id)
    if text is not None:
        block = TextContentBlock(type="text", text=text)
        content = [ContentToolCallContent(type="content", content=block)]
    update = ToolCallProgress(
        session_update="tool_call_update",
        tool_call_id=tool_call_id,
        status=status,
        content=list(content) if content is not None else None,
        raw_output=raw_output,
    )
    await agent.send(session.id, update)


async def tool_failed(
    agent: StepAgent,
    session: StepSession,
    turn: StepTurn,
    tool_call_id: str,
    exc: Exception,
    *,
    by_client: bool,
) -> None:
    """A client (or local) error: fail the tool call, say so, and carry on."""
    error = script.error_text(exc)
    log.info("tool call %s failed: %s", tool_call_id, error)
    text = f"{'The client refused' if by_client else 'Failed'}: {error}"
    await update_tool(
        agent, session, turn, tool_call_id, "failed", text=text, raw_output={"error": error}
    )
    await agent.say(session.id, script.refused(error, by_client=by_client))


async def quietly(call: Awaitable[Any]) -> None:
    """Await a best-effort call: bounded in time, errors logged, never raised."""
    try:
        await asyncio.wait_for(call, CLEANUP_TIMEOUT)
    except Exception as exc:
        log.info("best-effort call failed: %s", script.error_text(exc))
