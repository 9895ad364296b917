"""One agent process and its ACP connection: initialized once, many prompts.

:class:`AgentConnection` spawns the agent (process.py), runs our JSON-RPC
peer over its stdio (jsonrpc.py), sends ``initialize`` exactly once with
truthful client capabilities, and routes the agent's requests to the
session they name (its questions, ``elicitation/create``, go to
sessions/elicitations.py; a request we do not implement is answered
``method_not_found`` at once). When the agent goes away — it exits, closes stdout, or
the connection is closed — every in-flight request fails with
``agent_exited`` (its data carries the stderr tail) and every session
reports ``error`` then ``closed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import RequestPermissionRequest
from pydantic import ValidationError

from acp_tui import __version__
from acp_tui.core.errors import HostError
from acp_tui.core.model.channel import EventHub
from acp_tui.core.model.coalesce import Coalescer, stderr_summary
from acp_tui.core.model.events import Event
from acp_tui.core.model.validation import describe
from acp_tui.core.sessions.agent_spec import AgentSpec as AgentSpec  # (re-exported)
from acp_tui.core.sessions.elicitations import CLIENT_ELICITATION, ElicitationBook
from acp_tui.core.sessions.registry import SessionRegistry
from acp_tui.core.storage.agent_log import AgentLog
from acp_tui.core.transport import acp_protocol as acp
from acp_tui.core.transport.framing import READ_AHEAD
from acp_tui.core.transport.jsonrpc import JsonRpcPeer, PeerClosed, RpcId, UnreadableAnswer
from acp_tui.core.transport.outbox import OutboxFull
from acp_tui.core.transport.process import AgentProcess
from acp_tui.core.transport.timeouts import Timeouts

if TYPE_CHECKING:
    from acp_tui.core.sessions.session import Session

log = logging.getLogger(__name__)

#: Frames from an agent larger than this are dropped (with an error event).
MAX_AGENT_FRAME = 64 * 1024 * 1024
#: What may wait for an agent's stdin (the outbox's bound).
MAX_AGENT_BACKLOG = 64 * 1024 * 1024
#: How long to wait for stdout's end after the agent process itself exited.
EXIT_DRAIN_SECONDS = 0.5
#: Updates kept for a session id not registered yet (an agent may announce its
#: commands before we have read its session/new answer), and for how many ids.
EARLY_UPDATES = 256
EARLY_SESSIONS = 8
#: ``session/list`` pages read at most (a misbehaving agent could page forever).
MAX_LIST_PAGES = 20
#: agent-stderr events carry at most this much text each.
STDERR_EVENT_CHARS = 4096

CLIENT_CAPABILITIES: dict[str, Any] = {
    "fs": {"readTextFile": True, "writeTextFile": True},
    "terminal": True,
    "elicitation": CLIENT_ELICITATION,
}
CLIENT_INFO: dict[str, Any] = {"name": "acp-tui", "title": "acp-tui", "version": __version__}


def client_capabilities(*, terminal_auth: bool = False) -> dict[str, Any]:
    """What ``initialize`` advertises; ``terminal_auth``: the front end can hand
    the terminal to the agent's own sign-in (``auth.terminal``: the TUI can,
    the headless host cannot)."""
    if not terminal_auth:
        return CLIENT_CAPABILITIES
    return {**CLIENT_CAPABILITIES, "auth": {"terminal": True}}


class AgentConnection:
    def __init__(
        self,
        connection_id: str,
        spec: AgentSpec,
        cwd: Path,
        *,
        hub: EventHub,
        sessions: SessionRegistry,
        elicitations: ElicitationBook | None = None,
        base_env: Mapping[str, str] | None = None,
        on_gone: Callable[[AgentConnection], None] | None = None,
        timeouts: Timeouts | None = None,
        logs: Path | None = None,
    ) -> None:
        self.connection_id = connection_id
        self.timeouts = timeouts or Timeouts()
        self.spec = spec
        self.cwd = cwd
        self.agent_name = spec.display_name
        #: Its sessions are reopened after a cancel (learned: cancel_recovery.py).
        self.reopen_after_cancel = False
        #: The agent's stderr and protocol trace (agent_log.py), when kept.
        self.log: AgentLog | None = None
        self._logs = logs
        self.trace_frames = False
        self.client_capabilities = CLIENT_CAPABILITIES  # (client_capabilities())
        self.init_result: dict[str, Any] = {}
        #: The host's registry: this connection's sessions are found there.
        self._sessions = sessions
        self.process: AgentProcess | None = None
        self.closed = False
        self.initialize_count = 0
        self._hub = hub
        self._elicitations = (
            elicitations if elicitations is not None else ElicitationBook(hub.publish)
        )
        self._base_env = dict(os.environ if base_env is None else base_env)
        self._on_gone = on_gone
        self._peer: JsonRpcPeer | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._gone = asyncio.Event()
        self._close_message = "the agent exited"
        #: The agent's permission requests by JSON-RPC id (for $/cancel_request).
        self._permission_rpc: dict[RpcId, tuple[Session, str]] = {}
        self._early_updates: dict[str, list[Any]] = {}
        # Floods of errors and stderr are coalesced ("… and N more like this").
        self._errors = Coalescer(hub.publish)
        self._stderr_events = Coalescer(hub.publish, stderr_summary)

    # -- lifecycle -------------------------------------------------------------

    async def start(self) -> None:
        env = {**self._base_env, **dict(self.spec.env)}
        try:
            self.process = await AgentProcess.spawn(
                self.spec.command,
                self.spec.args,
                env=env,
                cwd=self.cwd,
                on_stderr=self._stderr,
                stdout_limit=READ_AHEAD,
            )
        except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
            self.closed = True
            reason = "not found" if isinstance(exc, FileNotFoundError) else "not executable"
            raise HostError(
                "invalid_params",
                f"cannot start agent {self.agent_name!r}: command {reason}",
            ) from None
        except OSError as exc:
            self.closed = True
            raise HostError(
                "agent_error", f"cannot start agent {self.agent_name!r}: {exc.strerror or exc}"
            ) from None
        if self._logs is not None:
            self.log = AgentLog.create(self._logs, self.history_key, self.process.pid)
        self._peer = JsonRpcPeer(
            self.process.stdout,
            self.process.stdin,
            on_request=self._on_request,
            on_notification=self._on_notification,
            on_cancel_request=self._on_cancel_request,
            on_protocol_error=self._protocol_error,
            has_room=self._hub.has_room,
            wait_ready=self._hub.wait_for_room,
            max_frame=MAX_AGENT_FRAME,
            write_limit=MAX_AGENT_BACKLOG,
            stuck_after=self.timeouts.stuck_input,
            on_stuck=self._stuck,
        )
        # The end of one of our requests closes the questions tied to it.
        self._peer.on_request_done = partial(self._elicitations.request_ended, self.connection_id)
        self.set_trace(self.trace_frames)
        self._spawn(self._run())
        try:
            result = await self.call(
                acp.INITIALIZE,
                {
                    "protocolVersion": PROTOCOL_VERSION,
                    "clientCapabilities": self.client_capabilities,
                    "clientInfo": CLIENT_INFO,
                },
                timeout=self.timeouts.initialize,
            )
        except BaseException:
            await self.close("the agent failed to initialize")
            raise
        self.initialize_count += 1
        self.init_result = result if isinstance(result, dict) else {}
        info = self.init_result.get("agentInfo")
        if isinstance(info, dict):
            # Its own name from now on, not the command's ("node").
            named = info.get("title") or info.get("name")
            if isinstance(named, str) and named.strip():
                self.agent_name = named.strip()

    @property
    def history_key(self) -> str:
        """Whose transcripts these are in the local history: the preset's name,
        else the agent's own (agentInfo), else the command's (so two different
        ``node`` agents never share a history)."""
        if self.spec.name:
            return self.spec.name
        info = self.init_result.get("agentInfo")
        named = info.get("name") if isinstance(info, dict) else None
        if isinstance(named, str) and named.strip():
            return named.strip()
        return self.spec.display_name

    @property
    def log_path(self) -> Path | None:
        return self.log.path if self.log is not None else None

    def stderr_tail(self) -> str:
        return self.process.stderr_tail() if self.process is not None else ""

    def note(self, text: str) -> None:
        """Put ``text`` in the agent's log (when one is kept)."""
        if self.log is not None:
            self.log.note(text)

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self) -> None:
        assert self._peer is not None and self.process is not None
        reader = asyncio.ensure_future(self._peer.run())
        exited = asyncio.ensure_future(self.process.wait())
        await asyncio.wait({reader, exited}, return_when=asyncio.FIRST_COMPLETED)
        if not reader.done():
            # The agent exited but something (a grandchild) holds stdout open.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(reader), EXIT_DRAIN_SECONDS)
        reader.cancel()
        if not self.closed:
            await self._gone_for_good()
        exited.cancel()

    async def _gone_for_good(self, message: str | None = None) -> None:
        """One path for every ending: fail requests, close sessions, reap."""
        if self.closed:
            return
        self.closed = True
        process = self.process
        assert process is not None
        died = message is None
        if message is None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(process.wait()), EXIT_DRAIN_SECONDS)
            await process.stderr_done(0.2)
            code = process.returncode
            if code is None:
                # Only its output ended: the process itself is stopped below.
                message = "the agent closed its output (stdout) while still running"
            else:
                message = f"the agent exited (exit code {code})"
        self._close_message = message
        self._errors.flush()
        self._stderr_events.flush()
        tail = process.stderr_tail()
        self._elicitations.close_connection(self.connection_id)
        if self._peer is not None:
            self._peer.close(PeerClosed(message))
        sessions = self._sessions.of_connection(self.connection_id)
        for session in sessions:
            if died:
                session.agent_gone(message, tail)
            else:
                session.close()
        await process.terminate()
        if self.log is not None:
            self.log.note(f"{message}; the process is gone (exit code {process.returncode})")
            self.log.close()
        for session in sessions:
            await session.wait_closed()
        self._gone.set()
        if self._on_gone is not None:
            self._on_gone(self)

    async def close(self, message: str = "the connection was closed") -> None:
        """Close and reap; returns once the agent's process group is gone."""
        if self.closed:
            await self._gone.wait()
            return
        await self._gone_for_good(message)

    def kill_now(self) -> None:
        if self.process is not None:
            self.process.kill_now()

    # -- calling the agent -----------------------------------------------------

    def _exited_error(self) -> HostError:
        tail = self.process.stderr_tail() if self.process is not None else ""
        data: dict[str, Any] = {"stderr": tail[-4096:]}
        if self.process is not None and self.process.returncode is not None:
            data["exitCode"] = self.process.returncode
        if self.log is not None:
            data["log"] = str(self.log.path)
        return HostError("agent_exited", self._close_message, data)

    async def list_sessions(self, cwd: Path | None) -> list[dict[str, Any]]:
        """The agent's own ``session/list`` (every page, newest first), each
        marked ``source: agent``."""
        sessions: list[dict[str, Any]] = []
        params: dict[str, Any] = {} if cwd is None else {"cwd": str(cwd)}
        for _ in range(MAX_LIST_PAGES):
            result = await self.call(acp.SESSION_LIST, params)
            if not isinstance(result, dict):
                break
            for info in result.get("sessions") or []:
                if isinstance(info, dict) and isinstance(info.get("sessionId"), str):
                    sessions.append({**info, "source": "agent"})
            cursor = result.get("nextCursor")
            if not isinstance(cursor, str):
                break
            params = {**params, "cursor": cursor}
        sessions.sort(key=lambda s: str(s.get("updatedAt") or ""), reverse=True)
        return sessions

    async def call(
        self, method: str, params: dict[str, Any], *, timeout: float | None = None
    ) -> Any:
        """The agent's answer; ``timeout`` seconds at most when given."""
        if self._peer is None or self.closed:
            raise self._exited_error()
        try:
            # asyncio.timeout, not wait_for: in Python 3.11 wait_for returns the
            # answer and drops a cancel that comes with it (the caller then
            # carries on as if never cancelled: a closed tab's start went on
            # into session/new).
            async with asyncio.timeout(timeout):
                return await self._peer.request(method, params)
        except TimeoutError:
            raise self._timeout_error(method, timeout or 0) from None
        except PeerClosed:
            raise self._exited_error() from None
        except UnreadableAnswer as exc:
            raise HostError(
                "protocol_error", f"the agent's answer to {method} could not be read: {exc}"
            ) from None
        except OutboxFull as full:
            raise self._backlog_error(full) from None
        except RequestError as exc:
            message = f"the agent answered {method} with an error: {exc}"
            if self.log is not None:
                self.log.note(f"{message} (data: {exc.data!r})")
            raise HostError(
                "agent_error", message, {"code": exc.code, "message": str(exc), "data": exc.data}
            ) from None

    @property
    def capabilities(self) -> dict[str, Any]:
        """The agent's ``agentCapabilities`` from initialize."""
        caps = self.init_result.get("agentCapabilities")
        return caps if isinstance(caps, dict) else {}

    @property
    def auth_methods(self) -> list[dict[str, Any]]:
        """The agent's ``authMethods`` from initialize (well-formed ones only)."""
        methods = self.init_result.get("authMethods")
        if not isinstance(methods, list):
            return []
        return [m for m in methods if isinstance(m, dict) and isinstance(m.get("id"), str)]

    async def authenticate(self, method_id: str) -> None:
        """Sign in with one of the agent's ``authMethods`` (``authenticate``)."""
        known = [m["id"] for m in self.auth_methods]
        if method_id not in known:
            offered = ", ".join(known) if known else "none"
            raise HostError(
                "invalid_params",
                f"unknown auth method {method_id!r}; the agent offers: {offered}",
            )
        await self.call(acp.AUTHENTICATE, {"methodId": method_id})

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        if self._peer is None or self.closed:
            raise self._exited_error()
        try:
            await self._peer.notify(method, params)
        except PeerClosed:
            raise self._exited_error() from None
        except OutboxFull as full:
            raise self._backlog_error(full) from None

    def _timeout_error(self, method: str, seconds: float) -> HostError:
        tail = self.process.stderr_tail() if self.process is not None else ""
        return HostError(
            "timeout",
            f"{self.agent_name} did not answer {method} within {seconds:g} s",
            {"stderr": tail[-4096:], "method": method, "seconds": seconds},
        )

    def _backlog_error(self, full: OutboxFull) -> HostError:
        return HostError(
            "limit_exceeded",
            f"{self.agent_name} is not reading its input: {_size(full.waiting)} are waiting"
            " for it (cancel, or close the connection)",
        )

    def _stuck(self, waiting: int, seconds: float) -> None:
        self._hub.publish(
            Event(
                "error",
                {
                    "code": "agent_not_reading",
                    "message": f"{self.agent_name} has not read its input for {seconds:g} s"
                    f" ({_size(waiting)} waiting); what is sent to it waits until it does",
                    "connectionId": self.connection_id,
                },
            )
        )

    # -- the agent calling us ----------------------------------------------------

    def _routed(self, agent_session_id: str) -> Session | None:
        return self._sessions.routed(self.connection_id, agent_session_id)

    def _session_for(self, params: Any) -> Session:
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        session = self._routed(session_id) if isinstance(session_id, str) else None
        if session is None or session.closed:
            raise acp.invalid_params(f"unknown session {session_id!r}")
        return session

    def session_added(self, session: Session) -> None:
        """``session`` is in the registry: hand it the updates that arrived
        for it before the session/new answer was processed."""
        for update in self._early_updates.pop(session.agent_session_id, ()):
            session.apply_update(update)

    def _on_notification(self, method: str, params: Any) -> None:
        if method == acp.ELICITATION_COMPLETE:
            problem = self._elicitations.complete_from(self.connection_id, params)
            if problem is not None:
                self._protocol_error(problem)
            return
        if method != acp.SESSION_UPDATE:
            log.info("ignoring agent notification %s", method)
            return
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        if not isinstance(session_id, str):
            self._protocol_error("session/update without a sessionId")
            return
        session = self._routed(session_id)
        if session is not None:
            session.apply_update(params.get("update"))
            return
        early = self._early_updates.setdefault(session_id, [])
        if len(self._early_updates) > EARLY_SESSIONS or len(early) >= EARLY_UPDATES:
            self._protocol_error(f"session/update for an unknown session {session_id!r}")
            return
        early.append(params.get("update"))

    def _on_request(self, method: str, params: Any, rpc_id: RpcId) -> Awaitable[Any]:
        """Synchronous first step of every agent request (see jsonrpc.py)."""
        if method == acp.ELICITATION_CREATE:  # kept in the host's ElicitationBook until answered
            calls = self._peer.outgoing_calls() if self._peer is not None else {}
            pending = self._elicitations.ask(
                self.connection_id, rpc_id, params, self._routed, calls, agent=self.agent_name
            )
            return pending.answer()
        if method not in acp.SESSION_REQUESTS:
            raise acp.method_not_found(method)  # whatever else it holds
        session = self._session_for(params)
        tools = session.tools
        handlers: dict[str, Callable[[Any], Awaitable[Any]]] = {
            acp.FS_READ_TEXT_FILE: tools.read_text_file,
            acp.FS_WRITE_TEXT_FILE: tools.write_text_file,
            acp.TERMINAL_CREATE: tools.create_terminal,
            acp.TERMINAL_OUTPUT: tools.terminal_output,
            acp.TERMINAL_WAIT_FOR_EXIT: tools.wait_for_terminal_exit,
            acp.TERMINAL_KILL: tools.kill_terminal,
            acp.TERMINAL_RELEASE: tools.release_terminal,
        }
        if method == acp.REQUEST_PERMISSION:
            return self._request_permission(session, params, rpc_id)
        handler = handlers.get(method)
        if handler is None:
            raise acp.method_not_found(method)
        return handler(params)

    def _request_permission(self, session: Session, params: Any, rpc_id: RpcId) -> Awaitable[Any]:
        try:
            request = RequestPermissionRequest.model_validate(params)
        except ValidationError as exc:
            raise acp.invalid_params(f"invalid permission request ({describe(exc)})") from None
        tool_call = request.tool_call.model_dump(mode="json", by_alias=True, exclude_none=True)
        options = [
            o.model_dump(mode="json", by_alias=True, exclude_none=True) for o in request.options
        ]
        request_id, outcome = session.request_permission(tool_call, options)
        self._permission_rpc[rpc_id] = (session, request_id)

        async def answer() -> Any:
            try:
                return await outcome
            finally:
                self._permission_rpc.pop(rpc_id, None)

        return answer()

    def _on_cancel_request(self, rpc_id: RpcId) -> bool:
        if self._elicitations.withdraw(self.connection_id, rpc_id):
            return True
        found = self._permission_rpc.get(rpc_id)
        if found is None or found[0].thread.waiting(found[1]) is None:
            return False
        found[0].cancel_request(found[1])
        return True

    # -- events without a session --------------------------------------------------

    def _stderr(self, text: str) -> None:
        if self.log is not None:
            self.log.stderr(text)
        for start in range(0, len(text), STDERR_EVENT_CHARS):
            self._stderr_events.offer(
                "stderr",
                Event(
                    "agent-stderr",
                    {
                        "connectionId": self.connection_id,
                        "text": text[start : start + STDERR_EVENT_CHARS],
                    },
                ),
            )

    def _protocol_error(self, text: str) -> None:
        self._errors.offer(
            "protocol_error",
            Event(
                "error",
                {
                    "code": "protocol_error",
                    "message": f"agent {self.agent_name}: {text}",
                    "connectionId": self.connection_id,
                },
            ),
        )

    def set_trace(self, enabled: bool) -> None:
        self.trace_frames = enabled
        if self._peer is not None:
            self._peer.observer = self._observe if enabled or self.log is not None else None

    def _observe(self, direction: str, message: dict[str, Any]) -> None:
        if self.log is not None:
            self.log.frame(direction, message)
            if direction == "in" and "method" not in message:
                self.log.flush()  # an answer: the end of a prompt, or of a setup step
        if self.trace_frames:
            self._trace(direction, message)

    def _trace(self, direction: str, message: dict[str, Any]) -> None:
        data: dict[str, Any] = {
            "connectionId": self.connection_id,
            "direction": direction,
            "payload": message,
        }
        if isinstance(message.get("method"), str):
            data["method"] = message["method"]
        if "id" in message:
            data["rpcId"] = message["id"]
        self._hub.publish(Event("protocol-frame", data))


def _size(count: int) -> str:
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MiB"
    if count >= 1024:
        return f"{count / 1024:.0f} KiB"
    return f"{count} bytes"


_connection_ids = itertools.count(1)


def next_connection_id() -> str:
    return f"conn-{next(_connection_ids)}"
