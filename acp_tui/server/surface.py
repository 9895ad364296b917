"""One surface on the background host's socket: acp-host-jsonl-v1 plus attach.

A :class:`SurfaceServer` is the headless server (server.py) for one socket
connection, with three differences:

* it gets the events of the sessions it attached to (``session.attach``,
  and those it created, loaded or forked), from a
  :class:`~acp_tui.core.SurfaceChannel` that never holds the agent back;
* its end is a *detach*: nothing is cancelled or reaped, a request still
  running (a ``session.prompt``) runs on and its answer goes nowhere, and a
  permission waits for whoever attaches next;
* ``shutdown`` ends this surface only (``host.stop`` ends the host).

A connection that closes its writing side (a program that sent its last
request) is still answered: the surface ends once those answers are out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from acp_tui.core import HostError, SurfaceChannel
from acp_tui.server.server import HeadlessServer

if TYPE_CHECKING:
    from acp_tui.core import Host, RetainedEvents
    from acp_tui.server.methods import Method, Methods
    from acp_tui.server.stdio import LineSink


#: Seconds between two looks at whether a half-closed peer has gone whole.
PEER_POLL = 0.5


class BackgroundHost(Protocol):
    """What a surface needs of the background host (server/background.py)."""

    host: Host
    methods: Methods
    retained: RetainedEvents
    surface_limits: tuple[int, int]

    def keep(self, task: asyncio.Task[None]) -> None: ...

    def stop(self) -> None: ...

    def info(self) -> dict[str, Any]: ...

    def session_list(self) -> list[dict[str, Any]]: ...


class SurfaceServer(HeadlessServer):
    def __init__(
        self,
        background: BackgroundHost,
        reader: asyncio.StreamReader,
        sink: LineSink,
        *,
        peer_pid: int | None = None,
        peer_gone: Callable[[], bool] = lambda: False,
    ) -> None:
        self.background = background
        self.peer_pid = peer_pid
        #: Whether the other end closed the connection whole (not just its writing side).
        self.peer_gone = peer_gone
        self.surface_channel = SurfaceChannel(*background.surface_limits)
        background.host.hub.adopt(self.surface_channel)
        super().__init__(background.host, background.methods, reader, sink, self.surface_channel)
        follows = ("session.create", "session.load", "session.fork")
        self._own: dict[str, Method] = {
            "session.attach": self.session_attach,
            "session.detach": self.session_detach,
            "host.sessions": self.host_sessions,
            "host.info": self.host_info,
            "host.stop": self.host_stop,
            **{name: self._following(self.methods.table[name]) for name in follows},
        }

    def handler(self, method: str) -> Method | None:
        return self._own.get(method) or super().handler(method)

    @property
    def sessions(self) -> set[str]:
        """The sessions this surface follows."""
        return self.surface_channel.sessions

    # -- attach ------------------------------------------------------------------

    def attach(self, session_id: str, after: int | None, *, whole: bool = False) -> dict[str, Any]:
        """Follow ``session_id``: the events after ``after`` (a replay from the
        retained log), or a snapshot when there is no cursor or it is too old.
        Synchronous, so no event falls between what is sent and what follows.
        ``whole``: replay whatever its size (a session this surface just made:
        it was promised every event from the first)."""
        session = self.host.session(session_id)
        channel = self.surface_channel
        if session_id in channel.sessions:
            channel.unfollow(session_id)
        if after is not None:
            if after > session.cursor:
                raise HostError(
                    "invalid_params", f"afterCursor {after} is past the session's {session.cursor}"
                )
            events = self.background.retained.after(session_id, after)
            if events is not None and (whole or not channel.too_much(events)):
                channel.replay(events)
                channel.follow(session_id, session.cursor)
                return {"cursor": session.cursor, "replayed": len(events)}
        result: dict[str, Any] = {
            "cursor": session.cursor,
            "snapshot": self.host.snapshot(session_id),
        }
        if after is not None:
            result["cursorTooOld"] = True
        channel.follow(session_id, session.cursor)
        return result

    async def session_attach(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = params.get("sessionId")
        if not isinstance(session_id, str) or not session_id:
            raise HostError("invalid_params", "sessionId must be a non-empty string")
        after = params.get("afterCursor")
        if after is not None and (type(after) is not int or after < 0):
            raise HostError("invalid_params", "afterCursor must be a non-negative integer")
        return self.attach(session_id, after)

    async def session_detach(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = params.get("sessionId")
        if not isinstance(session_id, str) or not session_id:
            raise HostError("invalid_params", "sessionId must be a non-empty string")
        self.surface_channel.unfollow(session_id)
        return {}

    def _following(self, method: Method) -> Method:
        """``method`` (it makes a session), then follow that session from its
        first event: what it committed while being made is replayed."""

        async def follow(params: dict[str, Any]) -> dict[str, Any]:
            result = await method(params)
            session_id = result.get("sessionId")
            if isinstance(session_id, str) and session_id not in self.sessions:
                self.attach(session_id, 0, whole=True)
            return result

        return follow

    # -- the host ----------------------------------------------------------------

    async def host_sessions(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"sessions": self.background.session_list()}

    async def host_info(self, params: dict[str, Any]) -> dict[str, Any]:
        return self.background.info()

    async def host_stop(self, params: dict[str, Any]) -> dict[str, Any]:
        self.background.stop()
        return {}

    # -- the end -----------------------------------------------------------------

    async def _shutdown(self, rpc_id: int) -> None:
        await self._respond(rpc_id, {})
        self.stop()

    def _release_channel(self) -> None:
        self.surface_channel.close()
        self.host.hub.remove(self.surface_channel)

    async def _finish(self) -> None:
        """Detach: answer what is still asked while the other end reads (it
        only closed its writing side), then leave every request running."""
        stopping = asyncio.ensure_future(self._stopping.wait())
        while not self._sink_broken and not stopping.done() and not self.peer_gone():
            running = [task for task in self._requests if not task.done()]
            if not running:
                break
            await asyncio.wait(
                [*running, stopping], timeout=PEER_POLL, return_when=asyncio.FIRST_COMPLETED
            )
        stopping.cancel()
        for task in self._requests:
            if not task.done():
                self.background.keep(task)  # a turn runs on, its answer goes nowhere
