"""Bounded, coalescing event channels from the core to its front ends.

Every front end (the TUI, the headless writer, a test) gets its own
:class:`EventChannel` from :class:`EventHub`. Publishing never blocks: the
core applies an agent's update synchronously and hands the events over.
Back-pressure works one level up: before it reads the agent's next message,
the connection awaits :meth:`EventHub.wait_for_room`, so while a front end
is behind, the agent's stdout is simply not read (and the agent blocks on
its own write). A channel therefore holds at most ``capacity`` events plus
the handful one agent message can produce.

Near the limit (from ``merge_at`` queued events) a text delta that extends
the same chunk as the newest queued event is merged into it (up to
``merge_limit`` characters per event, so frames stay a sane size);
structural events are never merged, reordered or dropped. Only lossy events
(``agent-stderr``) are dropped, and only when the channel is congested.
The text queued is bounded too: past ``text_budget`` characters the
producer waits, whatever the number of events.

A consumer may also *hold* its channel for a moment (:meth:`EventChannel.hold`):
the producer then waits as if the channel were full, until the consumer
releases it or the hold runs out. The TUI does this while a key the user
typed is on its way to the screen, so that reading and parsing the agent's
flood does not stand in the key's way (ui/input_first.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable

from acp_tui.core.model.events import LOSSY_TYPES, Event, merge_text_deltas

log = logging.getLogger(__name__)

#: A subscriber the hub calls with each event as it is committed.
Listener = Callable[[Event], None]

DEFAULT_CAPACITY = 4096
#: Characters one merged text delta may carry.
MERGE_LIMIT = 64 * 1024
#: Characters of text a channel may hold before the producer must wait.
TEXT_BUDGET = 1024 * 1024


class ChannelClosed(Exception):
    """The channel was closed and every queued event has been taken."""


class _Barrier:
    __slots__ = ("future",)

    def __init__(self, future: asyncio.Future[None]) -> None:
        self.future = future


class EventChannel:
    def __init__(self, capacity: int = DEFAULT_CAPACITY, merge_at: int | None = None) -> None:
        if capacity < 2:
            raise ValueError("capacity must be at least 2")
        self.capacity = capacity
        self.merge_at = capacity // 2 if merge_at is None else merge_at
        self._queue: deque[Event | _Barrier] = deque()
        self._readable = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self._closed = False
        self.merge_limit = MERGE_LIMIT
        self.text_budget = TEXT_BUDGET
        self._text = 0
        #: Until when (time.monotonic) the consumer holds the producer back.
        self._held_until = 0.0
        self._released = asyncio.Event()
        #: How many deltas were merged and lossy events dropped (for tests/bench).
        self.merged = 0
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._queue)

    @property
    def closed(self) -> bool:
        return self._closed

    def has_room(self) -> bool:
        """Whether the producer may go on (room, and no hold)."""
        held = self._held_until  # (0.0 when no hold: no clock read per agent message)
        return self._closed or (self._has_space() and (not held or time.monotonic() >= held))

    def _has_space(self) -> bool:
        return len(self._queue) < self.capacity and self._text < self.text_budget

    def hold(self, seconds: float) -> None:
        """Hold the producer back for up to ``seconds`` from now (or until
        :meth:`release`), as if the channel were full. Safe to call from any
        thread (it writes one number): the TUI's input thread calls it as a
        key arrives, before the event loop has seen the key."""
        self._held_until = time.monotonic() + seconds

    def release(self) -> None:
        """End a hold now (from the event loop's thread)."""
        self._held_until = 0.0
        self._released.set()

    def offer(self, event: Event) -> None:
        """Queue ``event`` without blocking (merging or dropping per the rules)."""
        if self._closed:
            return
        queue = self._queue
        size = len(queue)
        if size and size >= self.merge_at:
            if event.type in LOSSY_TYPES:
                self.dropped += 1
                return
            tail = queue[-1]
            if isinstance(tail, Event) and tail.text_size + event.text_size <= self.merge_limit:
                merged = merge_text_deltas(tail, event)
                if merged is not None:
                    queue[-1] = merged
                    self.merged += 1
                    self._text += event.text_size
                    if self._text >= self.text_budget:
                        self._room.clear()
                    return
        queue.append(event)
        self._text += event.text_size
        self._readable.set()
        if not self._has_space():
            self._room.clear()

    async def wait_for_room(self) -> None:
        while not self.has_room():
            held = self._held_until - time.monotonic()
            if held > 0:
                self._released.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(held):
                        await self._released.wait()
                continue
            await self._room.wait()

    async def get(self) -> Event:
        """The next event; raises :class:`ChannelClosed` once closed and drained."""
        while True:
            while not self._queue:
                if self._closed:
                    raise ChannelClosed
                self._readable.clear()
                await self._readable.wait()
            item = self._take()
            if isinstance(item, Event):
                return item.seal()

    def get_nowait(self) -> Event | None:
        while self._queue:
            item = self._take()
            if isinstance(item, Event):
                return item.seal()
        return None

    def _take(self) -> Event | _Barrier:
        item = self._queue.popleft()
        if isinstance(item, _Barrier):
            if not item.future.done():
                item.future.set_result(None)
        else:
            self._text -= item.text_size
        if self._has_space():
            self._room.set()
        return item

    async def barrier(self) -> None:
        """Return once the consumer has taken every event queued before this call.

        A sequential consumer (take, handle, take again) has then *handled*
        all of them: the headless server writes a ``session.prompt`` response
        only after the barrier, so it follows every event of the turn.
        """
        if self._closed and not self._queue:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(_Barrier(future))
        self._readable.set()
        await future

    def close(self) -> None:
        """Stop accepting events; the consumer drains what is queued, then stops."""
        self._closed = True
        self._readable.set()
        self._room.set()
        self._released.set()

    def discard(self) -> None:
        """Close and drop everything queued (the consumer is gone)."""
        self.close()
        while self._queue:
            self._take()


class EventHub:
    """Fans committed events out to every attached channel and listener.

    A channel is a front end's queue (bounded, may merge text deltas). A
    listener is a part of the core that follows the stream as it is
    committed (the history recorder): called synchronously with every event,
    never merged or dropped; what it raises is logged, never the session's.
    """

    def __init__(self) -> None:
        self._channels: list[EventChannel] = []
        self._listeners: list[Listener] = []
        self._queue: deque[Event] = deque()
        self._publishing = False

    def attach(self, capacity: int = DEFAULT_CAPACITY, merge_at: int | None = None) -> EventChannel:
        channel = EventChannel(capacity, merge_at)
        self._channels.append(channel)
        return channel

    def adopt(self, channel: EventChannel) -> None:
        """Deliver to ``channel`` too (one made elsewhere: a surface's)."""
        self._channels.append(channel)

    def remove(self, channel: EventChannel) -> None:
        """Deliver to ``channel`` no more; what it holds stays for its consumer."""
        if channel in self._channels:
            self._channels.remove(channel)

    def detach(self, channel: EventChannel) -> None:
        channel.discard()
        if channel in self._channels:
            self._channels.remove(channel)

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def publish(self, event: Event) -> None:
        """Hand ``event`` to every listener, then to every channel. An event a
        listener publishes meanwhile (a summary of the core's, needs_you.py)
        is queued and follows the one that caused it, in order."""
        self._queue.append(event)
        if self._publishing:
            return
        self._publishing = True
        try:
            while self._queue:
                self._deliver(self._queue.popleft())
        finally:
            self._publishing = False

    def _deliver(self, event: Event) -> None:
        for listener in self._listeners:
            try:
                listener(event)
            except Exception:
                log.exception("an event listener failed on %s", event.type)
        for channel in self._channels:
            channel.offer(event)

    def has_room(self) -> bool:
        return all(channel.has_room() for channel in self._channels)

    async def wait_for_room(self) -> None:
        for channel in list(self._channels):
            await channel.wait_for_room()

    def close(self) -> None:
        for channel in self._channels:
            channel.close()
        self._channels.clear()
