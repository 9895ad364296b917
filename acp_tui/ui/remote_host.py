"""The link to the background host (``acp-tui host``) over its Unix socket.

A :class:`~acp_tui.ui.host_link.HostLink` like the in-process one: every
command is a request of acp-host-jsonl-v1, every event of the sessions this
window attached to comes in on the socket and goes into the app's channel.
The link keeps a *mirror* of each attached session (a
:class:`~acp_tui.core.SessionView` fed the same events, in the same order,
before they enter the channel), so a snapshot is answered at once and is
exactly as old as what the channel has taken: the view the screen builds
from it misses nothing and repeats nothing.

When the channel is full the link stops reading the socket; the host then
lets this surface fall behind (it never slows the agent) and, past its
limit, says ``resync``: the link attaches again after the last cursor it
holds and the host replays the rest. Ending the link *detaches*: the
sessions go on in the host. Files (mentions, the fence for the permission
dialog, stored transcripts) are read here: the host runs on this machine,
as this user.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.core import (
    Event,
    EventChannel,
    HistoryStore,
    HostError,
    NoticeEntry,
    PathFence,
    PromptCapabilities,
    SessionView,
    build_prompt,
    decode_frame,
    encode_frame,
    event_from_wire,
    host_socket,
    outside_paths,
)
from acp_tui.ui.host_link import AgentInfo, NoticeLevel, Revival, StoredTranscript

if TYPE_CHECKING:
    from acp_tui.core import AgentSpec, ToolCallEntry

log = logging.getLogger(__name__)

#: Characters of an agent's stderr kept to tell why it failed.
_STDERR_TAIL = 4096
_READ_LIMIT = 64 * 1024 * 1024

OnAnswer = Callable[[dict[str, Any]], None]


class _Mirror:
    def __init__(self, snapshot: Mapping[str, Any]) -> None:
        self.view = SessionView.from_snapshot(snapshot)
        self.extras = {k: v for k, v in snapshot.items() if k == "elicitations"}


class RemoteHost:
    """A :class:`~acp_tui.ui.host_link.HostLink` to the user's background host."""

    #: Ending this link leaves the sessions running (the app offers to detach).
    detachable = True

    def __init__(
        self,
        *,
        roots: list[Path] | None = None,
        add_dirs: list[Path] | None = None,
        mcp_servers: list[dict[str, Any]] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.roots = list(roots or [])
        self.add_dirs = list(add_dirs or [])
        self.mcp_servers = mcp_servers
        self._env = env
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._reading: asyncio.Task[None] | None = None
        self._connecting = asyncio.Lock()
        self._channel: EventChannel | None = None
        self._mirrors: dict[str, _Mirror] = {}
        self._answers: dict[int, tuple[asyncio.Future[dict[str, Any]], OnAnswer | None]] = {}
        self._next_id = 1
        self._agents: dict[str, AgentInfo] = {}
        #: Each session's connection (its agent's prompt capabilities).
        self._connection_of: dict[str, str] = {}
        self._stderr: dict[str, str] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._history_root: Path | None = None
        self._closing = False
        #: Why the host went away while attached (None: it did not).
        self.lost: str | None = None

    # -- the socket ---------------------------------------------------------------

    @property
    def history_root(self) -> Path | None:
        return self._history_root

    @property
    def sessions(self) -> list[str]:
        """The sessions this window follows."""
        return list(self._mirrors)

    async def connect(self) -> None:
        """Reach the host (starting it when none runs); idempotent."""
        async with self._connecting:
            if self._writer is not None and not self._writer.is_closing():
                return
            try:
                self._reader, self._writer = await host_socket.connect_or_start(
                    self._env, _READ_LIMIT
                )
            except (host_socket.HostUnreachable, OSError) as exc:
                raise HostError("host_unreachable", str(exc)) from None
            self.lost = None
            self._reading = asyncio.ensure_future(self._read(self._reader))
        info = await self._call("host.info", {})
        root = info.get("historyRoot")
        self._history_root = Path(root) if isinstance(root, str) else None

    async def _call(
        self, method: str, params: dict[str, Any], on_answer: OnAnswer | None = None
    ) -> dict[str, Any]:
        """Send a request and wait for its result (HostError for its error).
        ``on_answer`` runs in the reader as the answer is read, before any
        frame after it."""
        if self._writer is None or self._writer.is_closing():
            await self.connect()
        writer = self._writer
        assert writer is not None
        rpc_id, self._next_id = self._next_id, self._next_id + 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._answers[rpc_id] = (future, on_answer)
        message = {"version": 1, "id": rpc_id, "method": method, "params": params}
        try:
            writer.write(encode_frame(message))
            await writer.drain()
        except (ConnectionError, OSError) as exc:
            self._answers.pop(rpc_id, None)
            raise HostError("host_unreachable", f"the background host is gone ({exc})") from None
        frame = await future
        error = frame.get("error")
        if isinstance(error, dict):
            code: Any = str(error.get("code", "internal"))  # one of the protocol's
            raise HostError(code, str(error.get("message", "")))
        result = frame.get("result")
        return result if isinstance(result, dict) else {}

    def _fire(self, method: str, params: dict[str, Any]) -> None:
        """A request whose answer nobody waits for (a decision: the first one
        wins, and the events say which did)."""

        async def send() -> None:
            try:
                await self._call(method, params)
            except HostError as exc:
                log.info("%s: %s", method, exc.message)

        task = asyncio.ensure_future(send())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while line := await reader.readline():
                try:
                    frame = decode_frame(line)
                except Exception:
                    log.warning("the host sent a line that is not a frame")
                    continue
                if not isinstance(frame, dict):
                    continue
                if "id" in frame:
                    self._answer(frame)
                elif isinstance(frame.get("event"), dict):
                    await self._event(frame["event"])
        except (ConnectionError, OSError, ValueError) as exc:
            log.info("the host's socket failed: %s", exc)
        finally:
            self._gone()

    def _answer(self, frame: dict[str, Any]) -> None:
        waiting = self._answers.pop(frame["id"], None) if isinstance(frame["id"], int) else None
        if waiting is None:
            return
        future, on_answer = waiting
        if on_answer is not None and isinstance(frame.get("result"), dict):
            on_answer(frame["result"])
        if not future.done():
            future.set_result(frame)

    async def _event(self, wire: dict[str, Any]) -> None:
        kind = wire.get("type")
        session_id = wire.get("sessionId")
        if kind == "resync" and isinstance(session_id, str):
            after = wire.get("afterCursor")
            self._background(self._follow(session_id, after if isinstance(after, int) else None))
            return
        if kind == "agent-stderr":
            connection = str(wire.get("connectionId", ""))
            text = self._stderr.get(connection, "") + str(wire.get("text", ""))
            self._stderr[connection] = text[-_STDERR_TAIL:]
        mirror = self._mirrors.get(session_id) if isinstance(session_id, str) else None
        if mirror is not None:
            mirror.view.apply_wire(wire)
        channel = self._channel
        if channel is None or channel.closed:
            return
        event = event_from_wire(wire)
        channel.offer(event)
        # A full channel: the socket is not read (the host lets us fall behind).
        await channel.wait_for_room()

    def _gone(self) -> None:
        """The socket ended: by our hand (detach), or the host went away."""
        for future, _ in self._answers.values():
            if not future.done():
                future.set_result(
                    {
                        "error": {
                            "code": "host_unreachable",
                            "message": "the background host is gone",
                        }
                    }
                )
        self._answers.clear()
        if self._closing:
            return
        self.lost = "the background host went away"
        channel = self._channel
        if channel is not None and not channel.closed:
            # The link says it in each session, as the host would of a dead agent:
            # a notice, then the session closed (the screen keeps what it showed).
            text = (
                "The background host went away, and this session with it. What it showed"
                " stays here; /resume brings it back from the history (in a new host),"
                " or send a message to start a new session."
            )
            for session_id, mirror in self._mirrors.items():
                view = mirror.view
                notice = NoticeEntry(level="error", text=text).to_wire()
                appended = {"index": len(view.entries), "entry": notice}
                channel.offer(Event("entry-appended", appended, session_id, view.cursor + 1))
                closed = {"status": "closed"}
                channel.offer(Event("status-changed", closed, session_id, view.cursor + 2))
        self._mirrors.clear()
        self._writer = None

    def _background(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _follow(self, session_id: str, after: int | None = None) -> None:
        """Attach to ``session_id``: the mirror starts from the answer's snapshot
        (or carries on after ``after`` when the host still holds what follows)."""

        def answered(result: dict[str, Any]) -> None:
            snapshot = result.get("snapshot")
            if isinstance(snapshot, dict):
                self._mirrors[session_id] = _Mirror(snapshot)

        params: dict[str, Any] = {"sessionId": session_id}
        if after is not None:
            params["afterCursor"] = after
        result = await self._call("session.attach", params, answered)
        if after is not None and "snapshot" in result:
            self.add_notice(
                session_id,
                "warning",
                "This window fell too far behind: some output of this session is not shown"
                " above (the host holds all of it; attach again to see it whole).",
            )

    # -- HostLink: the channel ----------------------------------------------------

    def attach(self, capacity: int, text_budget: int) -> EventChannel:
        channel = EventChannel(capacity)
        channel.text_budget = text_budget
        self._channel = channel
        return channel

    def detach(self, channel: EventChannel) -> None:
        channel.discard()
        if self._channel is channel:
            self._channel = None

    # -- connections --------------------------------------------------------------

    async def open(self, spec: AgentSpec, cwd: Path) -> AgentInfo:
        agent = {
            "command": spec.command,
            "args": list(spec.args),
            "env": dict(spec.env),
            "name": spec.name,
        }
        result = await self._call("connection.open", {"agent": agent, "cwd": str(cwd)})
        return self._agent(result)

    def _agent(self, result: dict[str, Any]) -> AgentInfo:
        info = result.get("agentInfo")
        capabilities = result.get("agentCapabilities")
        agent = AgentInfo(
            connection_id=str(result["connectionId"]),
            name=str(result.get("agentName") or "agent"),
            info=dict(info) if isinstance(info, dict) else {},
            capabilities=dict(capabilities) if isinstance(capabilities, dict) else {},
            auth_methods=list(result.get("authMethods") or []),
            prompt_capabilities=PromptCapabilities.from_init_result(
                {"agentCapabilities": capabilities or {}}
            ),
        )
        self._agents[agent.connection_id] = agent
        return agent

    async def adopt(self, session_id: str) -> AgentInfo:
        """Attach to a session the host already holds; its agent's connection."""
        listed = await self._call("host.sessions", {})
        found = next(
            (s for s in listed.get("sessions", []) if s.get("sessionId") == session_id), None
        )
        if found is None:
            raise HostError("not_found", f"the background host holds no session {session_id}")
        agent = self._agent(
            await self._call("connection.info", {"connectionId": found["connectionId"]})
        )
        self._connection_of[session_id] = agent.connection_id
        await self._follow(session_id)
        return agent

    def stderr_tail(self, connection_id: str) -> str:
        return self._stderr.get(connection_id, "")

    async def authenticate(self, connection_id: str, method_id: str) -> None:
        await self._call(
            "connection.authenticate", {"connectionId": connection_id, "methodId": method_id}
        )

    async def logout(self, connection_id: str) -> None:
        await self._call("connection.logout", {"connectionId": connection_id})

    # -- sessions -------------------------------------------------------------------

    def _session_params(self, cwd: Path) -> dict[str, Any]:
        params: dict[str, Any] = {
            "cwd": str(cwd),
            "allowRoots": [str(root) for root in self.roots],
            "additionalDirectories": [str(root) for root in self.add_dirs],
        }
        if self.mcp_servers is not None:
            params["mcpServers"] = self.mcp_servers
        return params

    async def create_session(self, connection_id: str, cwd: Path) -> str:
        params = {"connectionId": connection_id, **self._session_params(cwd)}
        session_id = str((await self._call("session.create", params))["sessionId"])
        self._connection_of[session_id] = connection_id
        await self._follow(session_id)
        return session_id

    async def list_sessions(self, connection_id: str, cwd: Path) -> list[dict[str, Any]]:
        result = await self._call("session.list", {"connectionId": connection_id, "cwd": str(cwd)})
        return list(result.get("sessions") or [])

    async def load_session(self, connection_id: str, session_id: str, cwd: Path) -> str:
        params = {"connectionId": connection_id, "sessionId": session_id}
        loaded = await self._call("session.load", {**params, **self._session_params(cwd)})
        new_id = str(loaded["sessionId"])
        self._connection_of[new_id] = connection_id
        await self._follow(new_id)
        return new_id

    async def revive(self, connection_id: str, dead_session_id: str) -> tuple[str, Revival] | None:
        params = {"connectionId": connection_id, "sessionId": dead_session_id}
        revived = (await self._call("session.revive", params)).get("revived")
        if not isinstance(revived, dict):
            return None
        session_id = str(revived["sessionId"])
        self._connection_of[session_id] = connection_id
        await self._follow(session_id)
        return session_id, "resumed" if revived.get("how") == "resumed" else "loaded"

    async def restore_settings(self, session_id: str, settings: Mapping[str, Any]) -> None:
        params = {"sessionId": session_id, "settings": dict(settings)}
        await self._call("session.restoreSettings", params)

    async def close_session(self, session_id: str) -> None:
        await self._call("session.close", {"sessionId": session_id, "reapAgent": True})
        self._mirrors.pop(session_id, None)

    async def fork_session(self, session_id: str) -> str:
        forked = str((await self._call("session.fork", {"sessionId": session_id}))["sessionId"])
        if session_id in self._connection_of:  # (a fork runs on its parent's connection)
            self._connection_of[forked] = self._connection_of[session_id]
        await self._follow(forked)
        return forked

    async def delete_session(self, connection_id: str, session_id: str) -> None:
        await self._call("session.delete", {"connectionId": connection_id, "sessionId": session_id})

    def snapshot(self, session_id: str) -> dict[str, Any]:
        mirror = self._mirrors.get(session_id)
        if mirror is None:
            raise HostError("not_found", f"this window does not follow session {session_id}")
        return {**mirror.view.snapshot(), **mirror.extras}

    def transcript(self, key: str) -> StoredTranscript:
        if self._history_root is None:
            raise KeyError(key)
        return HistoryStore(self._history_root).read(key)

    def add_notice(self, session_id: str, level: NoticeLevel, text: str) -> None:
        self._fire("session.notice", {"sessionId": session_id, "level": level, "text": text})

    # -- turns ------------------------------------------------------------------------

    def _fence(self, session_id: str) -> PathFence:
        mirror = self._mirrors.get(session_id)
        cwd = mirror.view.cwd if mirror is not None and mirror.view.cwd else Path.cwd()
        return PathFence([cwd, *self.roots, *self.add_dirs])

    def build_prompt(
        self, session_id: str, text: str, images: Mapping[str, Path]
    ) -> tuple[list[dict[str, Any]], list[str]]:
        # The files are this machine's and this user's: read here, as the host would.
        agent = self._agents.get(self._connection_of.get(session_id, ""))
        capabilities = (
            agent.prompt_capabilities if agent else PromptCapabilities.from_init_result(None)
        )
        built = build_prompt(text, self._fence(session_id), capabilities, images=images)
        return built.blocks, built.notes

    async def prompt(self, session_id: str, blocks: list[dict[str, Any]]) -> str:
        result = await self._call("session.prompt", {"sessionId": session_id, "prompt": blocks})
        return str(result.get("stopReason", "end_turn"))

    async def cancel(self, session_id: str) -> None:
        await self._call("session.cancel", {"sessionId": session_id})

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        await self._call("session.setMode", {"sessionId": session_id, "modeId": mode_id})

    async def set_config_option(
        self, session_id: str, config_id: str, value: Any
    ) -> list[dict[str, Any]]:
        params = {"sessionId": session_id, "configId": config_id, "value": value}
        result = await self._call("session.setConfigOption", params)
        return list(result.get("configOptions") or [])

    def decide(
        self, request_id: str, option_id: str | None = None, *, cancelled: bool = False
    ) -> None:
        params: dict[str, Any] = {"requestId": request_id}
        if cancelled:
            params["cancelled"] = True
        else:
            params["optionId"] = option_id
        self._fire("permission.decide", params)

    def respond_elicitation(self, request_id: str, action: str, content: Any = None) -> None:
        params: dict[str, Any] = {"requestId": request_id, "action": action}
        if content is not None:
            params["content"] = content
        self._fire("elicitation.respond", params)

    def outside_paths(self, session_id: str, entry: ToolCallEntry) -> list[str]:
        return outside_paths(entry, self._fence(session_id))

    # -- checkpoints --------------------------------------------------------------------

    async def list_checkpoints(self, session_id: str) -> list[dict[str, Any]]:
        result = await self._call("checkpoint.list", {"sessionId": session_id})
        return list(result.get("checkpoints") or [])

    async def checkpoint_files(
        self, session_id: str, old_id: str, new_id: str | None, paths: list[str] | None = None
    ) -> list[dict[str, Any]]:
        params: dict[str, Any] = {"sessionId": session_id, "checkpointId": old_id}
        if new_id is not None:
            params["toCheckpointId"] = new_id
        if paths is not None:
            params["paths"] = paths
        return list((await self._call("checkpoint.files", params)).get("files") or [])

    async def plan_restore(
        self, session_id: str, checkpoint_id: str, paths: list[str] | None = None
    ) -> list[dict[str, Any]]:
        params: dict[str, Any] = {
            "sessionId": session_id,
            "checkpointId": checkpoint_id,
            "dryRun": True,
        }
        if paths is not None:
            params["paths"] = paths
        return list((await self._call("checkpoint.restore", params)).get("files") or [])

    async def restore_checkpoint(
        self,
        session_id: str,
        checkpoint_id: str,
        paths: list[str] | None = None,
        *,
        tell_agent: bool = False,
    ) -> dict[str, Any]:
        params: dict[str, Any] = {
            "sessionId": session_id,
            "checkpointId": checkpoint_id,
            "tellAgent": tell_agent,
        }
        if paths is not None:
            params["paths"] = paths
        return await self._call("checkpoint.restore", params)

    # -- ``!`` commands -------------------------------------------------------------------

    async def run_shell(self, session_id: str, command: str) -> dict[str, Any]:
        return await self._call("shell.run", {"sessionId": session_id, "command": command})

    async def stop_shell(self, session_id: str) -> bool:
        return bool((await self._call("shell.stop", {"sessionId": session_id})).get("stopped"))

    def drop_shell_context(self, session_id: str, tool_call_id: str) -> bool:
        self._fire("shell.dropContext", {"sessionId": session_id, "toolCallId": tool_call_id})
        return True

    # -- the end ----------------------------------------------------------------------------

    async def end_sessions(self) -> None:
        """End every session this window follows (and their agents)."""
        for session_id in list(self._mirrors):
            with contextlib.suppress(HostError):
                await self.close_session(session_id)

    async def shutdown(self) -> None:
        """Detach: the sessions go on in the host."""
        self._closing = True
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.close()
        if self._reading is not None:
            self._reading.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reading
        for task in list(self._tasks):
            task.cancel()

    def kill_all_now(self) -> None:
        """Nothing to kill: the agents are the host's."""

    def agents_gone(self) -> bool:
        return True
