"""The background host: the host core for every surface of one user, on a Unix socket.

``acp-tui host`` runs it (in the foreground when started by hand; a
detachable TUI or ``--headless --connect`` starts it on demand, detached).
One per user: it holds ``host.lock`` (flock) next to its socket for as long
as it lives, so a second host finds the first and leaves it be. The socket
is 0600 in a 0700 directory (core/transport/host_socket.py), and each peer's
uid is checked (SO_PEERCRED): another user's connection gets one ``error``
event (``forbidden``) and is closed.

Each connection is a :class:`~acp_tui.server.surface.SurfaceServer`. When the
host has held no open session and no surface for ``idle_timeout`` seconds,
it ends by itself; ``host.stop`` (``acp-tui host --stop``) ends it at once.
Either way every agent is reaped; a SIGKILL of the host reaps them too (each
agent's supervisor, core/transport/supervisor.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import select
import socket
import struct
import time
from functools import partial
from pathlib import Path
from typing import IO, Any

from acp_tui import ACP_HOST_VERSION
from acp_tui.core import (
    SURFACE_CAPACITY,
    SURFACE_TEXT_BUDGET,
    Host,
    RetainedEvents,
    encode_frame,
    host_socket,
)
from acp_tui.server.methods import Methods
from acp_tui.server.stdio import LineSink
from acp_tui.server.surface import SurfaceServer

log = logging.getLogger(__name__)

#: Seconds without a session or a surface before the host ends itself.
IDLE_TIMEOUT = 600.0
_READ_LIMIT = 1 << 20


class AlreadyRunning(Exception):
    def __init__(self, pid: int | None, path: Path) -> None:
        super().__init__(f"an acp-tui host is already running (pid {pid}) at {path}")
        self.pid = pid
        self.path = path


class _SocketSink:
    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()

    def close(self) -> None:
        self._writer.close()


def peer_credentials(sock: socket.socket) -> tuple[int, int, int]:
    """(pid, uid, gid) of the process at the other end of ``sock``."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", raw)
    return pid, uid, gid


def hung_up(fd: int) -> bool:
    """Whether the peer of socket ``fd`` closed it whole (POLLHUP); one that
    only closed its writing side still reads our answers."""
    poller = select.poll()
    poller.register(fd, select.POLLHUP)
    return any(events & select.POLLHUP for _, events in poller.poll(0))


class BackgroundHost:
    def __init__(
        self,
        host: Host,
        *,
        directory: Path | None = None,
        idle_timeout: float = IDLE_TIMEOUT,
        surface_capacity: int = SURFACE_CAPACITY,
        surface_text_budget: int = SURFACE_TEXT_BUDGET,
    ) -> None:
        self.host = host
        #: How far behind a surface may fall before it must resync.
        self.surface_limits = (surface_capacity, surface_text_budget)
        self.methods = Methods(host)
        self.directory = directory if directory is not None else host_socket.private_dir()
        self.socket_path = self.directory / host_socket.SOCKET_NAME
        self.idle_timeout = idle_timeout
        self.retained = RetainedEvents()
        host.hub.subscribe(self.retained.on_event)
        self.surfaces: set[SurfaceServer] = set()
        self.started = time.time()
        self._lock: IO[str] | None = None
        self._stopped = asyncio.Event()
        self._idle_since: float | None = time.monotonic()
        #: Requests of surfaces that left, still running (a turn goes on).
        self._kept: set[asyncio.Task[None]] = set()
        self._connections: set[asyncio.Task[None]] = set()

    # -- one per user ------------------------------------------------------------

    def lock(self) -> None:
        """Hold the host lock, or raise :class:`AlreadyRunning`."""
        handle = open(self.directory / host_socket.LOCK_NAME, "a+")  # noqa: SIM115 (held for life)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            text = handle.read().strip()
            handle.close()
            raise AlreadyRunning(int(text) if text.isdigit() else None, self.socket_path) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._lock = handle

    # -- serving -----------------------------------------------------------------

    async def run(self) -> None:
        """Serve until stopped or idle for too long (the lock must be held)."""
        assert self._lock is not None, "lock() first"
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()  # a dead host's (we hold the lock)
        old_umask = os.umask(0o177)
        try:
            server = await asyncio.start_unix_server(
                self._serve_connection, str(self.socket_path), limit=_READ_LIMIT
            )
        finally:
            os.umask(old_umask)
        os.chmod(self.socket_path, 0o600)
        log.info("listening at %s", self.socket_path)
        idle = asyncio.ensure_future(self._watch_idle())
        try:
            await self._stopped.wait()
        finally:
            idle.cancel()
            server.close()
            with contextlib.suppress(FileNotFoundError):
                self.socket_path.unlink()
            for surface in list(self.surfaces):
                surface.stop()
            await self.host.shutdown()
            if self._connections:
                await asyncio.wait(self._connections, timeout=5)
            for task in self._kept:
                task.cancel()
            self.host.kill_all_now()
            if self._lock is not None:
                self._lock.close()

    def stop(self) -> None:
        self._stopped.set()

    def keep(self, task: asyncio.Task[None]) -> None:
        self._kept.add(task)
        task.add_done_callback(self._kept.discard)

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        sink: LineSink = _SocketSink(writer)
        try:
            sock = writer.get_extra_info("socket")
            pid, uid, _ = peer_credentials(sock)
            if uid != os.getuid():
                log.warning("refused a connection of uid %s (pid %s)", uid, pid)
                error = {
                    "type": "error",
                    "code": "forbidden",
                    "message": "this host is another user's",
                }
                await sink.write(encode_frame({"version": 1, "event": error}))
                return
            surface = SurfaceServer(
                self, reader, sink, peer_pid=pid, peer_gone=partial(hung_up, sock.fileno())
            )
            self.surfaces.add(surface)
            self._idle_since = None
            try:
                await surface.serve()
            finally:
                self.surfaces.discard(surface)
        except (ConnectionError, OSError) as exc:
            log.info("a surface left: %s", exc)
        finally:
            with contextlib.suppress(Exception):
                writer.close()
            self._connections.discard(task)

    async def _watch_idle(self) -> None:
        while True:
            await asyncio.sleep(min(1.0, max(self.idle_timeout / 4, 0.05)))
            if self.surfaces or self._open_sessions():
                self._idle_since = None
                continue
            now = time.monotonic()
            if self._idle_since is None:
                self._idle_since = now
            elif now - self._idle_since >= self.idle_timeout:
                log.info("idle for %.0f s: ending", self.idle_timeout)
                self.stop()
                return

    def _open_sessions(self) -> bool:
        return any(not session.closed for session in self.host.sessions)

    # -- what it holds -------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        history = self.host.history
        return {
            "hostVersion": ACP_HOST_VERSION,
            "pid": os.getpid(),
            "socket": str(self.socket_path),
            "startedAt": self.started,
            "idleTimeout": self.idle_timeout,
            "historyRoot": str(history.root) if history is not None else None,
            "surfaces": len(self.surfaces),
        }

    def session_list(self) -> list[dict[str, Any]]:
        """Every live session: what ``host.sessions`` answers."""
        waiting = {s["sessionId"] for s in self.host.needs_you.summary()["sessions"]}
        out = []
        for session in self.host.sessions:
            if session.closed:
                continue
            sid = session.session_id
            status = session.status
            state = "needs-you" if sid in waiting else status
            item: dict[str, Any] = {
                "sessionId": sid,
                "connectionId": session.link.connection_id,
                "agent": session.link.agent_name,
                "cwd": str(session.cwd),
                "state": state,
                "surfaces": sum(1 for s in self.surfaces if sid in s.sessions),
                "cursor": session.cursor,
                "lastActivity": self.retained.last_activity(sid) or self.started,
            }
            if session.state.title is not None:
                item["title"] = session.state.title
            out.append(item)
        out.sort(key=lambda item: item["lastActivity"], reverse=True)
        return out
