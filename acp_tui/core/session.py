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

from acp_tui.core import cancel_recovery, failures, fs, session_settings
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
from acp_tui.core.timeouts import CANCEL_GRACE_SECONDS
from acp_tui.core.updates import account_tool_call, admit_tool_call, apply_update

log = logging.getLogger(__name__)

Status = Literal["idle", "running", "error", "closed"]

#: Events that change the entry list (the history recorder marks them).
_ENTRY_EVENTS = frozenset({"entry-appended", "entry-updated", "entries-removed"})


class AgentLink(Protocol):
    """What a session needs from its agent connection."""

    agent_name: str
    #: Learned from the agent: its session must be reopened after a cancel
    #: (claude-agent-acp#551, see cancel_recovery.py).
    reopen_after_cancel: bool

    @property
    def capabilities(self) -> dict[str, Any]: ...

    @property
    def log_path(self) -> Path | None: ...

    def stderr_tail(self) -> str: ...

    def note(self, text: str) -> None:
        """Put ``text`` in the agent's log (when one is kept)."""

    async def call(self, method: str, params: dict[str, Any]) -> Any: ...

    async def notify(self, method: str, params: dict[str, Any]) -> None: ...


@dataclass(eq=False)
class Turn:
    first_index: int
    cancel_requested: bool = False
    abandoned: asyncio.Event = field(default_factory=asyncio.Event)
    grace: asyncio.TimerHandle | None = None
    #: session/prompt has been sent (it waits while the agent settles).
    sent: bool = False
    #: The agent sent text or a tool call in this turn.
    content_seen: bool = False
    #: The prompt request, when the turn ended without its answer (abandoned).
    outstanding: asyncio.Future[Any] | None = None


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
        mcp_servers: list[dict[str, Any]] | None = None,
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
        self.mcp_servers = list(mcp_servers or [])
        self._hub = hub
        self._cancel_grace = cancel_grace
        self._closing_tasks: set[asyncio.Task[None]] = set()
        #: After a cancel: what the next prompt waits for before it is sent
        #: (the cancelled prompt's answer; reopening the agent's session).
        self._settling: asyncio.Future[Any] | None = None
        #: The last turn was cancelled: its next prompt may get a stale answer.
        self._after_cancel = False
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

    def describe_failure(self, error: HostError) -> str:
        """An error entry's text: the error, its cause, the agent's stderr, its log."""
        return failures.describe(
            error.message, error=error, stderr=self.link.stderr_tail(), log=self.link.log_path
        )

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
        if self.turn is not None and not self.turn.content_seen and _is_content(update):
            self.turn.content_seen = True
        apply_update(self, update)

    def set_current_mode(self, mode_id: str, *, note: bool = True) -> None:
        before = (self.modes or {}).get("currentModeId")
        if self.modes is not None:
            self.modes = {**self.modes, "currentModeId": mode_id}
        self.commit(Event("mode-changed", {"currentModeId": mode_id}))
        if note and before is not None and before != mode_id:
            self.commit(
                self.thread.append_notice("info", session_settings.mode_note(self.modes, mode_id))
            )

    def adopt_config_options(self, options: list[dict[str, Any]], *, note: bool = True) -> None:
        """New config option values (the agent's or the user's): committed,
        with a one-line note in the log for each value that changed."""
        before, self.config_options = self.config_options, options
        self.commit(Event("config-updated", {"configOptions": options}))
        for text in session_settings.config_notes(before, options) if note else ():
            self.commit(self.thread.append_notice("info", text))

    def set_usage(self, usage: dict[str, Any]) -> None:
        self.usage = usage
        self.commit(Event("usage-updated", usage))

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

    @property
    def closed(self) -> bool:
        return self.status == "closed"

    @property
    def settling(self) -> bool:
        """After a cancel, until the agent has settled: a prompt waits (and its
        user entry comes once it is sent)."""
        return self._settling is not None and not self._settling.done()

    def _require_open(self) -> None:
        if self.status == "closed":
            raise HostError("agent_exited", f"session {self.session_id} is closed")

    async def prompt(self, blocks: list[dict[str, Any]]) -> str:
        """Run one turn; returns the stop reason once the turn has ended."""
        self._require_open()
        if self.turn is not None:
            raise HostError("invalid_params", "a turn is already running in this session")
        settling = self.settling
        if not settling:
            self.commit(self.thread.append_user(blocks))
        turn = Turn(first_index=len(self.thread) - (0 if settling else 1))
        self.turn = turn
        self.set_status("running")
        try:
            if settling:
                # After a cancel: the prompt goes in once the agent has settled,
                # so that anything late of the cancelled turn stays above it.
                await self._settled(turn)
                turn.first_index = len(self.thread)
                self.commit(self.thread.append_user(blocks))
            after_cancel = self._after_cancel
            result = await self._request(turn, blocks)
            if turn.sent:
                self._after_cancel = False
            if (
                after_cancel
                and not turn.cancel_requested
                and cancel_recovery.is_stale_end_turn(result, turn.content_seen)
            ):
                result = await self._recover_stale_turn(turn, blocks)
        except asyncio.CancelledError:
            self._end_turn(turn)
            raise
        except HostError as exc:
            self._end_turn(turn)
            if exc.code != "agent_exited" and self.status != "closed":
                self.commit(self.thread.append_notice("error", self.describe_failure(exc)))
                self.set_status("error", message=exc.message)
            raise
        if result is _ABANDONED:
            self.commit(
                self.thread.append_notice(
                    "warning",
                    f"The agent did not end the turn within {self._cancel_grace:g} s of the "
                    "cancel; it was cancelled here. Late updates may still arrive.",
                )
            )
            return self._finish(turn, "cancelled", note=False)
        stop_reason = "end_turn"
        if isinstance(result, dict) and isinstance(result.get("stopReason"), str):
            stop_reason = result["stopReason"]
        return self._finish(turn, stop_reason)

    async def _settled(self, turn: Turn) -> None:
        """Wait until the agent has settled after a cancel (or this turn is
        cancelled while it waits)."""
        settling = self._settling
        if settling is None or settling.done():
            return
        abandoned: asyncio.Future[Any] = asyncio.ensure_future(turn.abandoned.wait())
        try:
            await asyncio.wait({settling, abandoned}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            abandoned.cancel()

    async def _request(self, turn: Turn, blocks: list[dict[str, Any]]) -> Any:
        """``session/prompt``: its answer, or :data:`_ABANDONED` when the agent
        did not answer within the cancel grace (the request stays outstanding)."""
        if turn.cancel_requested:
            return {"stopReason": "cancelled"}  # cancelled before it was sent
        turn.sent = True
        request = asyncio.ensure_future(
            self.link.call("session/prompt", {"sessionId": self.agent_session_id, "prompt": blocks})
        )
        abandoned = asyncio.ensure_future(turn.abandoned.wait())
        try:
            await asyncio.wait({request, abandoned}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            request.cancel()
            raise
        finally:
            abandoned.cancel()
        if not request.done():
            request.add_done_callback(_ignore_result)
            turn.outstanding = request
            return _ABANDONED
        return request.result()

    async def _recover_stale_turn(self, turn: Turn, blocks: list[dict[str, Any]]) -> Any:
        """The agent answered right after a cancel with a stale, empty
        ``end_turn`` (claude-agent-acp#551): reopen its session when it can,
        and send the prompt once more."""
        link = self.link
        link.reopen_after_cancel = True
        reopen = cancel_recovery.can_reopen(link.capabilities)
        link.note(
            "a stale end_turn right after a cancel (claude-agent-acp#551): "
            + ("reopening the session, " if reopen else "")
            + "sending the prompt once more"
        )
        if reopen:
            await cancel_recovery.reopen(self)
        return await self._request(turn, blocks)

    def _after_cancelled(self, turn: Turn) -> None:
        """A cancelled turn ended: settle the agent before the next prompt."""
        self._after_cancel = True
        self._settling = asyncio.ensure_future(self._settle(turn.outstanding))

    async def _settle(self, outstanding: asyncio.Future[Any] | None) -> None:
        if outstanding is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(outstanding), cancel_recovery.SETTLE_SECONDS)
        link = self.link
        if (
            not link.reopen_after_cancel
            or not cancel_recovery.can_reopen(link.capabilities)
            or self.status == "closed"
        ):
            return
        try:
            await cancel_recovery.reopen(self)
        except HostError as exc:
            if not self.closed:
                self.commit(
                    self.thread.append_notice(
                        "warning",
                        f"Could not reopen the agent's session after the cancel: {exc.message}",
                    )
                )
            return
        self._after_cancel = False  # a fresh agent session: nothing stale in it

    def _end_turn(self, turn: Turn) -> None:
        if turn.grace is not None:
            turn.grace.cancel()
        if self.turn is turn:
            self.turn = None
        self.permissions.cancel_all(self)

    def _finish(self, turn: Turn, stop_reason: str, *, note: bool = True) -> str:
        self._end_turn(turn)
        if stop_reason == "cancelled" and note and not self.closed:
            self.commit(self.thread.append_notice("info", "Cancelled."))
        if turn.sent and (stop_reason == "cancelled" or turn.cancel_requested):
            self._after_cancelled(turn)
        elif stop_reason == "end_turn" and turn.sent and not turn.content_seen and not self.closed:
            # Never a silent empty turn.
            self.commit(
                self.thread.append_notice("info", "The agent ended the turn without a reply.")
            )
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
        if not turn.sent:
            turn.abandoned.set()  # nothing to tell the agent: it never got the prompt
            return
        turn.grace = asyncio.get_running_loop().call_later(self._cancel_grace, turn.abandoned.set)
        with contextlib.suppress(HostError):
            await self.link.notify("session/cancel", {"sessionId": self.agent_session_id})

    def _mark_unfinished(self, start: int, status: Literal["canceled", "failed"]) -> None:
        for index in range(start, len(self.thread)):
            entry = self.thread.entries[index]
            if isinstance(entry, ToolCallEntry) and entry.status in ("pending", "in_progress"):
                self.commit(self.thread.set_tool_status(index, status))

    # -- modes and config --------------------------------------------------

    async def set_mode(self, mode_id: str, *, note: bool = True) -> None:
        self._require_open()
        await self.link.call(
            "session/set_mode", {"sessionId": self.agent_session_id, "modeId": mode_id}
        )
        self.set_current_mode(mode_id, note=note)

    async def set_config_option(
        self, config_id: str, value: Any, *, note: bool = True
    ) -> list[dict[str, Any]]:
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
        self.adopt_config_options(
            options if isinstance(options, list) else self.config_options, note=note
        )
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
        text = failures.describe(message, stderr=stderr_tail, log=self.link.log_path)
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


#: What _request returns for a prompt whose answer did not come within the grace.
_ABANDONED = object()
_CONTENT_UPDATES = frozenset({"agent_message_chunk", "agent_thought_chunk"})
_TOOL_UPDATES = frozenset({"tool_call", "tool_call_update"})


def _is_content(update: Any) -> bool:
    """Whether an update is part of a reply: text, a thought or a tool call."""
    if not isinstance(update, dict):
        return False
    kind = update.get("sessionUpdate")
    if kind in _TOOL_UPDATES:
        return True
    if kind not in _CONTENT_UPDATES:
        return False
    content = update.get("content")
    return not (isinstance(content, dict) and content.get("text") == "")


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
