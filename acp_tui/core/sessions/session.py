"""One ACP session: its thread, its state and its turns.

The session holds the facts (thread, state) and runs the turns; it does not
write entries itself. Every change is made by the thread (entries) or the
model's functions (state), which return events; the session commits them
through :meth:`Session.commit`, which numbers each with the session's
cursor (1, 2, 3, …) and hands it to the event hub. A front end that
attaches late reads :meth:`Session.snapshot` (state as of cursor N) and then
the events above N. Whoever else wants to know (the history recorder)
subscribes to the hub: the session calls nobody.

Status: ``idle`` → ``running`` (a turn) → ``idle`` with the stop reason,
or ``error`` when the turn failed (the next prompt is accepted again), or
``error`` then ``closed`` when the agent went away (for good). "Running" is
derived from the turn: it is ``running`` exactly while :attr:`Session.turn`
is set, and the ``status-changed`` event is committed at the moment the turn
starts or ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, Protocol

from acp_tui.core.capabilities import fs
from acp_tui.core.errors import ErrorCode, HostError
from acp_tui.core.model import session_state
from acp_tui.core.model.budget import TextBudget
from acp_tui.core.model.channel import EventHub
from acp_tui.core.model.coalesce import Coalescer
from acp_tui.core.model.entries import Entry, NoticeLevel, UserEntry
from acp_tui.core.model.events import Event
from acp_tui.core.model.session_state import SessionState
from acp_tui.core.model.thread import Thread
from acp_tui.core.model.updates import Target, apply_update, is_reply_content, permission_entry
from acp_tui.core.sessions import cancel_recovery, failures
from acp_tui.core.sessions.permissions import PermissionWaiters, answer, new_request_id
from acp_tui.core.sessions.prompt_turn import ABANDONED, Turn, send_prompt
from acp_tui.core.sessions.tools import SessionTools
from acp_tui.core.sessions.turn_checkpoints import TurnCheckpoints
from acp_tui.core.transport import acp_protocol as acp
from acp_tui.core.transport.timeouts import CANCEL_GRACE_SECONDS

log = logging.getLogger(__name__)

Status = Literal["idle", "running", "error", "closed"]


class AgentLink(Protocol):
    """What a session needs from its agent connection."""

    agent_name: str
    connection_id: str
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


class Session:
    def __init__(
        self,
        *,
        session_id: str,
        agent_session_id: str,
        link: AgentLink,
        hub: EventHub,
        cwd: Path,
        extra_roots: list[Path],
        base_env: Mapping[str, str] | None = None,
        cancel_grace: float = CANCEL_GRACE_SECONDS,
        budget: TextBudget | None = None,
        mcp_servers: list[dict[str, Any]] | None = None,
        checkpoints: TurnCheckpoints | None = None,
    ) -> None:
        self.session_id = session_id
        self.agent_session_id = agent_session_id
        self.link = link
        self.cwd = cwd
        self.thread = Thread()
        self.state = SessionState()
        self.tools = SessionTools(
            fs.PathFence([cwd, *extra_roots]), base_env, on_output=self._terminal_output
        )
        self.cursor = 0
        #: The running turn (None: no turn is running).
        self.turn: Turn | None = None
        #: The status between turns.
        self._rest: Literal["idle", "error"] = "idle"
        self._closed = False
        self.closed_by_client = False  # (session.close, not the agent going away)
        self.last_stop_reason: str | None = None
        self.mcp_servers = list(mcp_servers or [])
        self.added_dirs: list[Path] = []  # told as additionalDirectories (sessions/added_dirs.py)
        self._hub = hub
        self._cancel_grace = cancel_grace
        self._closing_tasks: set[asyncio.Task[None]] = set()
        #: After a cancel: what the next prompt waits for before it is sent
        #: (the cancelled prompt's answer; reopening the agent's session).
        self._settling: asyncio.Future[Any] | None = None
        #: The last turn was cancelled: its next prompt may get a stale answer.
        self._after_cancel = False
        #: A flood of errors (malformed updates) is coalesced.
        self._errors = Coalescer(self.commit)
        #: The text its entries may hold; what does not fit goes to files.
        self.budget = budget if budget is not None else TextBudget()
        self._target = Target(self.thread, self.state, self.budget, self.tools.shown_output)
        self._waiters = PermissionWaiters()
        #: The folders recorded around each turn (None: not); told of host writes.
        self.checkpoints = checkpoints
        self.tools.on_activity = checkpoints.agent_active if checkpoints else None
        #: Lines the next prompt tells the agent first (after a rewind).
        self.agent_notes: list[str] = []

    # -- what it holds ---------------------------------------------------------

    @property
    def status(self) -> Status:
        if self._closed:
            return "closed"
        return "running" if self.turn is not None else self._rest

    @property
    def plan(self) -> list[dict[str, Any]]:
        return self.state.plan

    @property
    def commands(self) -> list[dict[str, Any]]:
        return self.state.commands

    @property
    def modes(self) -> dict[str, Any] | None:
        return self.state.modes

    @property
    def config_options(self) -> list[dict[str, Any]]:
        return self.state.config_options

    @property
    def title(self) -> str | None:
        return self.state.title

    @property
    def usage(self) -> dict[str, Any] | None:
        return self.state.usage

    # -- committing ------------------------------------------------------

    def commit(self, event: Event) -> None:
        self.cursor += 1
        event.session_id = self.session_id
        event.cursor = self.cursor
        self._hub.publish(event)
        self._waiters.settle(event)

    def _commit_all(self, events: list[Event]) -> None:
        for event in events:
            if event.type == "error":
                self._errors.offer(str(event.data["code"]), event)
            else:
                self.commit(event)

    def describe_failure(self, error: HostError) -> str:
        """An error entry's text: the error, its cause, the agent's stderr, its log."""
        return failures.describe(
            error.message, error=error, stderr=self.link.stderr_tail(), log=self.link.log_path
        )

    def report_error(self, code: str, message: str) -> None:
        self._errors.offer(code, Event("error", {"code": code, "message": message}))

    def add_notice(self, level: NoticeLevel, text: str) -> None:
        """A line of the host's own in the log."""
        self.commit(self.thread.append_notice(level, text))

    def carry_over(self, entries: Iterable[Entry]) -> None:
        """Copies of another thread's entries (a session resumed in a new agent)."""
        for entry in entries:
            self.commit(self.thread.append_copy(entry))

    def _enter(
        self, status: Status, *, stop_reason: str | None = None, message: str | None = None
    ) -> None:
        """Commit ``status-changed``: the one place a status is announced,
        always right where the status itself changed."""
        assert self.status == status, (self.status, status)
        self._errors.flush()  # a turn's summary of errors comes before its end
        data: dict[str, Any] = {"status": status}
        if stop_reason is not None:
            data["stopReason"] = stop_reason
        if message is not None:
            data["message"] = message
        self.commit(Event("status-changed", data))

    def _rest_at(self, status: Literal["idle", "error"], **details: str | None) -> None:
        self._rest = status
        if not self._closed:
            self._enter(status, **details)

    # -- the agent's updates and requests ---------------------------------

    def apply_update(self, update: Any) -> None:
        """An agent's ``session/update`` (synchronous, in arrival order)."""
        if self._closed:
            return
        if self.turn is not None and not self.turn.content_seen and is_reply_content(update):
            self.turn.content_seen = True
        self._commit_all(apply_update(self._target, update))

    def request_permission(
        self, tool_call: dict[str, Any], options: list[dict[str, Any]]
    ) -> tuple[str, Awaitable[dict[str, Any]]]:
        """The agent asks to run ``tool_call``: the request id, and the answer
        to give it once the request is resolved."""
        tool_call_id, events = permission_entry(self._target, tool_call)
        self._commit_all(events)
        request_id = new_request_id()
        future = self._waiters.open(request_id)
        self._commit_all(self.thread.request_permission(tool_call_id, request_id, options))
        return request_id, answer(future)

    def owns_request(self, request_id: str) -> bool:
        """Whether permission request ``request_id`` is (or was) this session's."""
        return self.thread.waiting(request_id) is not None or self.thread.was_resolved(request_id)

    def decide(self, request_id: str, option_id: str) -> None:
        self._commit_all(self.thread.decide_permission(request_id, option_id))

    def cancel_request(self, request_id: str) -> None:
        self._commit_all(self.thread.cancel_permission(request_id))

    def _cancel_requests(self) -> None:
        self._commit_all(self.thread.cancel_permissions())

    def _terminal_output(self, terminal_id: str, output: dict[str, Any]) -> None:
        self._commit_all(self.thread.show_terminal(terminal_id, output))

    # -- modes, config, usage ------------------------------------------------

    def set_current_mode(self, mode_id: str, *, note: bool = True) -> None:
        self._commit_all(session_state.change_mode(self.thread, self.state, mode_id, note=note))

    def adopt_config_options(self, options: list[dict[str, Any]], *, note: bool = True) -> None:
        """New config option values (the agent's or the user's): committed,
        with a one-line note in the log for each value that changed."""
        self._commit_all(
            session_state.adopt_config_options(self.thread, self.state, options, note=note)
        )

    def set_usage(self, usage: dict[str, Any]) -> None:
        self.commit(session_state.set_usage(self.state, usage))

    def adopt_setup(self, result: Mapping[str, Any]) -> None:
        """Modes and config options from the agent's session/new answer."""
        self.state.adopt_setup(result)

    # -- turns -----------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def settling(self) -> bool:
        """After a cancel, until the agent has settled: a prompt waits (and its
        user entry comes once it is sent)."""
        return self._settling is not None and not self._settling.done()

    def require_open(self) -> None:
        if self._closed:
            code: ErrorCode = "session_closed" if self.closed_by_client else "agent_exited"
            raise HostError(code, f"session {self.session_id} is closed")

    async def prompt(self, blocks: list[dict[str, Any]]) -> str:
        """Run one turn; returns the stop reason once the turn has ended."""
        self.require_open()
        if self.turn is not None:
            raise HostError("invalid_params", "a turn is already running in this session")
        settling = self.settling
        text = UserEntry(blocks).text
        if self.agent_notes:  # shown in the user's entry too: what the agent was told
            blocks = [*({"type": "text", "text": n} for n in self.agent_notes), *blocks]
            self.agent_notes = []
        if not settling:
            self.commit(self.thread.append_user(blocks))
        turn = Turn(first_index=len(self.thread) - (0 if settling else 1), text=text)
        turn.number = sum(isinstance(e, UserEntry) for e in self.thread.entries) + settling
        self.turn = turn
        self._enter("running")
        try:
            await self._checkpoint(turn, before=True)
            if settling:
                # After a cancel: the prompt goes in once the agent has settled,
                # so that anything late of the cancelled turn stays above it.
                await self._settled(turn)
                turn.first_index = len(self.thread)
                self.commit(self.thread.append_user(blocks))
            after_cancel = self._after_cancel
            result = await send_prompt(self.link, self.agent_session_id, turn, blocks)
            if turn.sent:
                self._after_cancel = False
            if (
                after_cancel
                and not turn.cancel_requested
                and cancel_recovery.is_stale_end_turn(result, turn.content_seen)
            ):
                result = await self._recover_stale_turn(turn, blocks)
        except asyncio.CancelledError:  # the front end gave up on the turn
            self._release(turn)
            if self.turn is turn:
                self.last_stop_reason = "cancelled"
            self._end(turn, "idle", stop_reason="cancelled")
            self._in_background(self._checkpoint(turn, before=False))
            raise
        except HostError as exc:
            self._release(turn)
            if exc.code != "agent_exited" and not self._closed and self.turn is turn:
                self.add_notice("error", self.describe_failure(exc))
            await self._checkpoint(turn, before=False)
            self._end(turn, "error", message=exc.message)
            raise
        await self._checkpoint(turn, before=False)
        if result is ABANDONED and not self._closed:  # (closed: said by the close)
            self.add_notice(
                "warning",
                f"The agent did not end the turn within {self._cancel_grace:g} s of the "
                "cancel; it was cancelled here. Late updates may still arrive.",
            )
        if result is ABANDONED:
            return self._finish(turn, "cancelled", note=False)
        stop_reason = "end_turn"
        if isinstance(result, dict) and isinstance(result.get("stopReason"), str):
            stop_reason = result["stopReason"]
        return self._finish(turn, stop_reason)

    async def _checkpoint(self, turn: Turn, *, before: bool) -> None:
        """The checkpoint before or after ``turn``; after it, its changes entry."""
        if self.checkpoints is None or (self._closed and before):
            return
        entry, notes = (
            (None, await self.checkpoints.before_turn(turn.number, turn.text))
            if before
            else await self.checkpoints.after_turn(turn.number, turn.text)
        )
        if self._closed:
            return
        if entry is not None:
            self.commit(self.thread.append_record(entry))
        for level, text in notes:
            self.add_notice(level, text)

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
        return await send_prompt(self.link, self.agent_session_id, turn, blocks)

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
            or self._closed
        ):
            return
        try:
            await cancel_recovery.reopen(self)
        except HostError as exc:
            if not self._closed:
                self.add_notice(
                    "warning",
                    f"Could not reopen the agent's session after the cancel: {exc.message}",
                )
            return
        self._after_cancel = False  # a fresh agent session: nothing stale in it

    def _release(self, turn: Turn) -> None:
        """A turn's loose ends: its cancel grace, the permissions waiting in it."""
        if turn.grace is not None:
            turn.grace.cancel()
        self._cancel_requests()

    def _end(self, turn: Turn, status: Literal["idle", "error"], **details: str | None) -> None:
        """``turn`` is over: the status changes with it, at once."""
        if self.turn is not turn:
            return  # ended already (the session closed)
        self.turn = None
        self._rest_at(status, **details)

    def _finish(self, turn: Turn, stop_reason: str, *, note: bool = True) -> str:
        self._release(turn)
        if stop_reason == "cancelled" and note and not self._closed:
            self.add_notice("info", "Cancelled.")
        if turn.sent and (stop_reason == "cancelled" or turn.cancel_requested):
            self._after_cancelled(turn)
        elif stop_reason == "end_turn" and turn.sent and not turn.content_seen and not self._closed:
            self.add_notice("info", "The agent ended the turn without a reply.")  # never silent
        self.last_stop_reason = stop_reason
        self._end(turn, "idle", stop_reason=stop_reason)
        return stop_reason

    async def cancel(self) -> None:
        """Cancel the running turn (a no-op when idle)."""
        turn = self.turn
        if turn is None or turn.cancel_requested:
            return
        turn.cancel_requested = True
        self._cancel_requests()
        self._commit_all(self.thread.mark_unfinished(turn.first_index, "canceled"))
        if not turn.sent:
            turn.abandoned.set()  # nothing to tell the agent: it never got the prompt
            return
        turn.grace = asyncio.get_running_loop().call_later(self._cancel_grace, turn.abandoned.set)
        with contextlib.suppress(HostError):
            await self.link.notify(acp.SESSION_CANCEL, {"sessionId": self.agent_session_id})

    # -- modes and config --------------------------------------------------

    async def set_mode(self, mode_id: str, *, note: bool = True) -> None:
        self.require_open()
        await self.link.call(
            acp.SESSION_SET_MODE, {"sessionId": self.agent_session_id, "modeId": mode_id}
        )
        self.set_current_mode(mode_id, note=note)

    async def set_config_option(
        self, config_id: str, value: Any, *, note: bool = True
    ) -> list[dict[str, Any]]:
        self.require_open()
        params: dict[str, Any] = {
            "sessionId": self.agent_session_id,
            "configId": config_id,
            "value": value,
        }
        if isinstance(value, bool):
            params["type"] = "boolean"
        result = await self.link.call(acp.SESSION_SET_CONFIG_OPTION, params)
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
            "plan": self.state.plan,
            "availableCommands": self.state.commands,
            "configOptions": self.state.config_options,
        }
        if self.state.title is not None:
            state["title"] = self.state.title
        if self.state.modes is not None:
            state["modes"] = self.state.modes
        if self.state.usage is not None:
            state["usage"] = self.state.usage
        return state

    # -- ending ------------------------------------------------------------

    def agent_gone(self, message: str, stderr_tail: str) -> None:
        """The agent exited or the connection was closed: error, then closed."""
        if self._closed:
            return
        self._cancel_requests()
        turn = self.turn
        if turn is not None:
            self._commit_all(self.thread.mark_unfinished(turn.first_index, "failed"))
        self.add_notice(
            "error", failures.describe(message, stderr=stderr_tail, log=self.link.log_path)
        )
        if turn is not None:
            self._release(turn)
            self._end(turn, "error", message=message)
        else:
            self._rest_at("error", message=message)
        self.close()

    def close(self) -> None:
        """Closed for good: permissions cancelled, terminals stopped, a turn cancelled."""
        if self._closed:
            return
        self._cancel_requests()
        if self.turn is not None:
            self._release(self.turn)
            self.turn.abandoned.set()
            self.turn = None
        self._closed = True
        self._enter("closed")
        self._in_background(self.tools.close())
        if self.checkpoints is not None:
            self._in_background(self.checkpoints.close())

    def _in_background(self, job: Awaitable[None]) -> None:
        """Work that goes on after its caller (awaited by :meth:`wait_closed`)."""
        task = asyncio.ensure_future(job)
        self._closing_tasks.add(task)
        task.add_done_callback(self._closing_tasks.discard)

    async def wait_closed(self) -> None:
        if self._closing_tasks:
            await asyncio.gather(*self._closing_tasks, return_exceptions=True)
