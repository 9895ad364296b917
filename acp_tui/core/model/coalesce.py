"""Repeated events, bounded: ``error`` and ``agent-stderr`` under a flood.

An agent that sends 20,000 malformed updates must not turn into 20,000
``error`` events (20,000 toasts in the TUI). Per key (an error code, the
stderr of one connection), the first :data:`BURST` events of every
:data:`WINDOW` seconds pass; the rest are counted, and when the window ends
one summary event says how many there were (``"… and 19,990 more like
this"``, with ``repeated``: the count), built from the last of them.
Nothing is silently lost: the counts add up to what was offered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from acp_tui.core.model.events import Event

BURST = 10
WINDOW = 1.0

Summarize = Callable[[int, Event], Event]


def error_summary(count: int, last: Event) -> Event:
    """The summary of ``count`` suppressed ``error`` events."""
    data = dict(last.data)
    data["message"] = f"… and {count:,} more like this (the last: {last.data.get('message', '')})"
    data["repeated"] = count
    return Event("error", data)


def stderr_summary(count: int, last: Event) -> Event:
    """The summary of ``count`` suppressed ``agent-stderr`` events (with the last text)."""
    data = dict(last.data)
    data["text"] = f"… and {count:,} more like this; the last:\n{last.data.get('text', '')}"
    data["repeated"] = count
    return Event("agent-stderr", data)


@dataclass
class _Window:
    start: float
    passed: int = 0
    suppressed: int = 0
    last: Event | None = None
    timer: asyncio.TimerHandle | None = None


class Coalescer:
    def __init__(
        self,
        publish: Callable[[Event], None],
        summarize: Summarize = error_summary,
        *,
        burst: int = BURST,
        window: float = WINDOW,
    ) -> None:
        self._publish = publish
        self._summarize = summarize
        self.burst = burst
        self.window = window
        self._windows: dict[str, _Window] = {}

    def offer(self, key: str, event: Event) -> None:
        """Publish ``event`` now, or count it into the summary of ``key``'s window."""
        loop = _running_loop()
        now = loop.time() if loop is not None else 0.0
        current = self._windows.get(key)
        if current is None or (loop is not None and now - current.start >= self.window):
            if current is not None:
                self._flush(key, current)
            current = self._windows[key] = _Window(now)
        if current.passed < self.burst:
            current.passed += 1
            self._publish(event)
            return
        current.suppressed += 1
        current.last = event
        if current.timer is None and loop is not None:
            delay = max(self.window - (now - current.start), 0.0)
            current.timer = loop.call_later(delay, self._expire, key, current)

    def _expire(self, key: str, window: _Window) -> None:
        window.timer = None
        self._flush(key, window)
        if self._windows.get(key) is window:
            del self._windows[key]

    def _flush(self, key: str, window: _Window) -> None:
        if window.timer is not None:
            window.timer.cancel()
            window.timer = None
        if window.suppressed and window.last is not None:
            count, window.suppressed = window.suppressed, 0
            self._publish(self._summarize(count, window.last))

    def flush(self) -> None:
        """Publish every pending summary now (the source is going away)."""
        for key, window in list(self._windows.items()):
            self._flush(key, window)
        self._windows.clear()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
