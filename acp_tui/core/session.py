"""One ACP session: its thread, its status and its turns.

Every change is committed through :meth:`Session.commit`, which numbers it
with the session's cursor (1, 2, 3, …) and hands it to the event hub. A
front end that attaches late reads :meth:`Session.snapshot` (state as of
cursor N) and then the events above N.

Status: ``idle`` → ``running`` (a turn) → ``idle`` with the stop reason,
or ``error`` when the turn failed (the next prompt is accepted again), or
``error`` then ``closed`` when the agent went away (for good).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from acp_tui.core import fs
from acp_tui.core.budget import TextBudget
from acp_tui.core.channel import EventHub
from acp_tui.core.coalesce import Coalescer
from acp_tui.core.entries import ToolCallEntry
from acp_tui.core.errors import HostError
from acp_tui.core.events import Event
from acp_tui.core.history_store import SessionRecorder
from acp_tui.core.permissions import PermissionBook
from acp_tui.core.session_tools import SessionTools
from acp_tui.core.thread import Thread
from acp_tui.core.updates import account_tool_call, admit_tool_call, apply_update

log = logging.getLogger(__name__)

Status = Literal["idle", "running", "error", "closed"]

#: Events that change the entry list (the history recorder marks them).
_ENTRY_EVENTS = frozenset({"entry-appended", "entry-updated", "entries-removed"})

#: How long a cancelled turn may take to end before it ends for the user anyway.
CANCEL_GRACE_SECONDS = 5.0


class AgentLink(Protocol):
    """What a session needs from its agent connection."""

    agent_name: str

    async def call(self, method: str, params: dict[str, Any]) -> Any: ...

    async def notify(self, method: str, params: dict[str, Any]) -> None: ...


@dataclass(eq=False)
class Turn:
    first_index: int
    cancel_requested: bool = False
    abandoned: asyncio.Event = field(default_factory=asyncio.Event)
    grace: asyncio.TimerHandle | None = None


class Session:
    def __init__(
        self,
        *,
        session_id: str,
        agent_session_id: str,
        link: AgentLink,
        hub: EventHub,
        permissions: PermissionBook,
        cwd: Path,
        extra_roots: list[Path],
        base_env: Mapping[str, str] | None = None,
        cancel_grace: float = CANCEL_GRACE_SECONDS,
        budget: TextBudget | None = None,
    ) -> None:
        self.session_id = session_id
        self.agent_session_id = agent_session_id
        self.link = link
        self.cwd = cwd
        self.permissions = permissions
        self.thread = Thread()
        self.tools = SessionTools(self, fs.PathFence([cwd, *extra_roots]), base_env)
        self.status: Status = "idle"
        self.cursor = 0
        self.turn: Turn | None = None
        self.plan: list[dict[str, Any]] = []
        self.commands: list[dict[str, Any]] = []
        self.modes: dict[str, Any] | None = None
        self.config_options: list[dict[str, Any]] = []
        self.title: str | None = None
        self.usage: dict[str, Any] | None = None
        self.last_stop_reason: str | None = None
        self._hub = hub
        self._cancel_grace = cancel_grace
        self._closing_tasks: set[asyncio.Task[None]] = set()
        #: Appends the transcript to the local history (None: not kept).
        self.recorder: SessionRecorder | None = None
        #: A flood of errors (malformed updates) is coalesced.
        self._errors = Coalescer(self.commit)
        #: The text its entries may hold; what does not fit goes to files.
        self.budget = budget if budget is not None else TextBudget()

    # -- committing ------------------------------------------------------

    def commit(self, event: Event) -> None:
        if self.recorder is not None and event.type in _ENTRY_EVENTS:
            index = event.data.get("index")
            self.recorder.changed(index if isinstance(index, int) else None)
        self.cursor += 1
        event.session_id = self.session_id
        event.cursor = self.cursor
        self._hub.publish(event)

    def save_history(self) -> None:
        """Append what changed to the local history (turn starts and ends)."""
        if self.recorder is not None:
            self.recorder.flush(self)

    def report_error(self, code: str, message: str) -> None:
        self._errors.offer(code, Event("error", {"code": code, "message": message}))

    def set_status(
        self, status: Status, *, stop_reason: str | None = None, message: str | None = None
    ) -> None:
        self._errors.flush()  # a turn's summary of errors comes before its end
        self.status = status
        self.save_history()
        data: dict[str, Any] = {"status": status}
        if stop_reason is not None:
            data["stopReason"] = stop_reason
        if message is not None:
            data["message"] = message
        self.commit(Event("status-changed", data))

    def apply_update(self, update: Any) -> None:
        """An agent's ``session/update`` (synchronous, in arrival order)."""
        if self.status == "closed":
            return
        apply_update(self, update)

    def set_current_mode(self, mode_id: str) -> None:
        if self.modes is not None:
            self.modes = {**self.modes, "currentModeId": mode_id}
        self.commit(Event("mode-changed", {"currentModeId": mode_id}))

    def adopt_setup(self, result: Mapping[str, Any]) -> None:
        """Modes and config options from the agent's session/new answer."""
        modes = result.get("modes")
        self.modes = dict(modes) if isinstance(modes, Mapping) else None
        options = result.get("configOptions")
        self.config_options = list(options) if isinstance(options, list) else []

    def entry_for_permission(self, tool_call: dict[str, Any]) -> ToolCallEntry:
        """The entry a permission request is about, created from the
        request's ``toolCall`` when the agent never announced it."""
        fields = {key: value for key, value in tool_call.items() if key != "status"}
        fields = admit_tool_call(self, fields)
        if "content" in fields:
            fields["content"] = self.tools.fill_terminals(fields["content"])
        found = self.thread.tool_call(str(fields["toolCallId"]))
        if found is None:
            fields.setdefault("title", "Tool call")
            event, entry, _ = self.thread.upsert_tool_call(fields)
        elif _changes(found[1], fields):
            event, entry, _ = self.thread.update_tool_call(fields)
        else:
            return found[1]
        account_tool_call(self, entry)
        self.commit(event)
        self.tools.watch_terminals(entry)
        return entry

    # -- turns -----------------------------------------------------------

    def _require_open(self) -> None:
        if self.status == "closed":
            raise HostError("agent_exited", f"session {self.session_id} is closed")

    async def prompt(self, blocks: list[dict[str, Any]]) -> str:
        """Run one turn; returns the stop reason once the turn has ended."""
        self._require_open()
        if self.turn is not None:
            raise HostError("invalid_params", "a turn is already running in this session")
        self.commit(self.thread.append_user(blocks))
        turn = Turn(first_index=len(self.thread) - 1)
        self.turn = turn
        self.set_status("running")
        request = asyncio.ensure_future(
            self.link.call("session/prompt", {"sessionId": self.agent_session_id, "prompt": blocks})
        )
        abandoned = asyncio.ensure_future(turn.abandoned.wait())
        try:
            await asyncio.wait({request, abandoned}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            request.cancel()
            self._end_turn(turn)
            raise
        finally:
            abandoned.cancel()
        if not request.done():
            request.add_done_callback(_ignore_result)
            self.commit(
                self.thread.append_notice(
                    "warning",
                    f"The agent did not end the turn within {self._cancel_grace:g} s of the "
                    "cancel; it was ended here. Late updates may still arrive.",
                )
            )
            return self._finish(turn, "cancelled")
        try:
            result = request.result()
        except HostError as exc:
            self._end_turn(turn)
            if exc.code != "agent_exited" and self.status != "closed":
                self.commit(self.thread.append_notice("error", exc.message))
                self.set_status("error", message=exc.message)
            raise
        stop_reason = "end_turn"
        if isinstance(result, dict) and isinstance(result.get("stopReason"), str):
            stop_reason = result["stopReason"]
        return self._finish(turn, stop_reason)

    def _end_turn(self, turn: Turn) -> None:
        if turn.grace is not None:
            turn.grace.cancel()
        if self.turn is turn:
            self.turn = None
        self.permissions.cancel_all(self)

    def _finish(self, turn: Turn, stop_reason: str) -> str:
        self._end_turn(turn)
        self.last_stop_reason = stop_reason
        if self.status != "closed":
            self.set_status("idle", stop_reason=stop_reason)
        return stop_reason

    async def cancel(self) -> None:
        """Cancel the running turn (a no-op when idle)."""
        turn = self.turn
        if turn is None or turn.cancel_requested:
            return
        turn.cancel_requested = True
        self.permissions.cancel_all(self)
        self._mark_unfinished(turn.first_index, "canceled")
        turn.grace = asyncio.get_running_loop().call_later(self._cancel_grace, turn.abandoned.set)
        with contextlib.suppress(HostError):
            await self.link.notify("session/cancel", {"sessionId": self.agent_session_id})

    def _mark_unfinished(self, start: int, status: Literal["canceled", "failed"]) -> None:
        for index in range(start, len(self.thread)):
            entry = self.thread.entries[index]
            if isinstance(entry, ToolCallEntry) and entry.status in ("pending", "in_progress"):
                self.commit(self.thread.set_tool_status(index, status))

    # -- modes and config --------------------------------------------------

    async def set_mode(self, mode_id: str) -> None:
        self._require_open()
        await self.link.call(
            "session/set_mode", {"sessionId": self.agent_session_id, "modeId": mode_id}
        )
        self.set_current_mode(mode_id)

    async def set_config_option(self, config_id: str, value: Any) -> list[dict[str, Any]]:
        self._require_open()
        params: dict[str, Any] = {
            "sessionId": self.agent_session_id,
            "configId": config_id,
            "value": value,
        }
        if isinstance(value, bool):
            params["type"] = "boolean"
        result = await self.link.call("session/set_config_option", params)
        options = result.get("configOptions") if isinstance(result, dict) else None
        if isinstance(options, list):
            self.config_options = options
        self.commit(Event("config-updated", {"configOptions": self.config_options}))
        return self.config_options

    # -- state -----------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        state: dict[str, Any] = {
            "sessionId": self.session_id,
            "cursor": self.cursor,
            "status": self.status,
            "entries": [entry.to_wire() for entry in self.thread.entries],
            "plan": self.plan,
            "availableCommands": self.commands,
            "configOptions": self.config_options,
        }
        if self.title is not None:
            state["title"] = self.title
        if self.modes is not None:
            state["modes"] = self.modes
        if self.usage is not None:
            state["usage"] = self.usage
        return state

    # -- ending ------------------------------------------------------------

    def agent_gone(self, message: str, stderr_tail: str) -> None:
        """The agent exited or the connection was closed: error, then closed."""
        if self.status == "closed":
            return
        self.permissions.cancel_all(self)
        if self.turn is not None:
            self._mark_unfinished(self.turn.first_index, "failed")
        text = message
        last_lines = "\n".join(stderr_tail.strip().splitlines()[-12:])
        if last_lines:
            text += "\n\nLast lines of the agent's stderr:\n" + last_lines
        self.commit(self.thread.append_notice("error", text))
        self.set_status("error", message=message)
        self.close()

    def close(self) -> None:
        """Closed for good: permissions cancelled, terminals stopped."""
        if self.status == "closed":
            return
        self.permissions.cancel_all(self)
        if self.turn is not None:
            self._end_turn(self.turn)
        self.set_status("closed")
        task = asyncio.ensure_future(self.tools.close())
        self._closing_tasks.add(task)
        task.add_done_callback(self._closing_tasks.discard)

    async def wait_closed(self) -> None:
        if self._closing_tasks:
            await asyncio.gather(*self._closing_tasks, return_exceptions=True)


def _ignore_result(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def _changes(entry: ToolCallEntry, fields: dict[str, Any]) -> bool:
    """Whether applying ``fields`` (a tool-call update) would change ``entry``."""
    current = entry.to_wire()
    renamed = {"kind": "toolKind"}
    return any(
        current.get(renamed.get(key, key)) != value
        for key, value in fields.items()
        if key != "toolCallId" and value is not None
    )
