"""Frames on their way into an agent's stdin: queued, bounded, never blocking.

Nothing in the host waits for an agent to read: :meth:`Outbox.put` returns at
once, and one task writes the frames to the pipe in order, waiting for the
pipe to drain between them. An agent that stops reading therefore delays
only what is addressed to it; ``session.cancel``, other sessions and the
front ends carry on.

Two limits keep such an agent visible and bounded:

* at most ``limit`` bytes wait (the queue plus the transport's buffer); past
  that :meth:`put` raises :class:`OutboxFull` (a frame on its own is always
  taken, whatever its size);
* when the waiting bytes have not moved for ``stuck_after`` seconds,
  ``on_stuck(waiting_bytes, seconds)`` is called, once per stall.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable

#: Bytes that may wait for an agent's stdin by default.
DEFAULT_LIMIT = 64 * 1024 * 1024
#: Seconds without progress before an agent is reported as not reading.
DEFAULT_STUCK_AFTER = 10.0


class OutboxFull(Exception):
    """Too much is already waiting for the agent to read."""

    def __init__(self, waiting: int) -> None:
        super().__init__(f"{waiting} bytes are waiting for the agent to read them")
        self.waiting = waiting


class Outbox:
    def __init__(
        self,
        writer: asyncio.StreamWriter,
        *,
        limit: int = DEFAULT_LIMIT,
        stuck_after: float = DEFAULT_STUCK_AFTER,
        on_stuck: Callable[[int, float], None] | None = None,
    ) -> None:
        self._writer = writer
        self._limit = limit
        self._stuck_after = stuck_after
        self._on_stuck = on_stuck
        self._frames: deque[bytes] = deque()
        self._queued = 0
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closed: BaseException | None = None
        self.stuck = False

    def waiting(self) -> int:
        """Bytes not yet taken by the agent: queued here or in the transport."""
        transport = self._writer.transport
        buffered = 0
        with contextlib.suppress(Exception):
            buffered = transport.get_write_buffer_size()
        return self._queued + buffered

    def put(self, data: bytes) -> None:
        """Queue one frame; raises the close reason or :class:`OutboxFull`."""
        if self._closed is not None:
            raise self._closed
        waiting = self.waiting()
        if waiting and waiting + len(data) > self._limit:
            raise OutboxFull(waiting)
        self._frames.append(data)
        self._queued += len(data)
        self._wake.set()
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            while not self._frames:
                self._wake.clear()
                await self._wake.wait()
            data = self._frames.popleft()
            self._queued -= len(data)
            try:
                self._writer.write(data)
                await self._drain()
            except (ConnectionError, RuntimeError, OSError) as exc:
                self._broken(exc)
                return

    async def _drain(self) -> None:
        drain = asyncio.ensure_future(self._writer.drain())
        last = self.waiting()
        stalled_for = 0.0
        try:
            while True:
                done, _ = await asyncio.wait({drain}, timeout=self._stuck_after)
                if done:
                    drain.result()
                    break
                now = self.waiting()
                if now < last:
                    last, stalled_for = now, 0.0
                    continue
                stalled_for += self._stuck_after
                if not self.stuck:
                    self.stuck = True
                    if self._on_stuck is not None:
                        self._on_stuck(now, stalled_for)
        finally:
            drain.cancel()
        self.stuck = False

    def _broken(self, exc: BaseException) -> None:
        if self._closed is None:
            self._closed = exc
            self._frames.clear()
            self._queued = 0

    def close(self, reason: BaseException) -> None:
        """Drop what is queued; later :meth:`put` calls raise ``reason``."""
        if self._closed is None:
            self._closed = reason
        self._frames.clear()
        self._queued = 0
        if self._task is not None:
            self._task.cancel()
