"""The user's input goes first: while a key is on its way to the screen, the
window's other work waits.

A key travels through several hops of Textual's message queues (the app,
the focused widget, the screen, its update timer) before its frame is
written. Each hop waits for the event loop's next turn, and under a flood
that turn is shared with the agent's reader, the event pump and the log's
reveal, a few milliseconds each: the key waits for all of them at every hop.

So as a key (or a paste) arrives, the input thread (which sees it before
the loop does) tells :class:`InputFirst`, which holds the window's event
channels (the core stops reading the agent: ``EventChannel.hold``); the
event pump and the log's reveal stand aside, and the main screen draws the
focused widget alone, at once (screens/main_screen.py). The hold ends once
the frame that shows the key has been written to the terminal
(:meth:`InputFirstApp._when_written`), or after :data:`HOLD_SECONDS`
whatever happens. Nothing is dropped: the stream resumes where it stopped,
a key's echo later. bench/keys.py measures it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App
from textual.screen import Screen

from acp_tui.ui.screens.main_screen import MainScreen

if TYPE_CHECKING:
    from acp_tui.core import EventChannel

#: The longest a key holds the rest back (its echo normally takes a few ms).
HOLD_SECONDS = 0.1
#: How long the event loop's thread keeps the GIL from a thread that wants it.
SWITCH_SECONDS = 0.0002


class InputFirst:
    def __init__(self, hold: float = HOLD_SECONDS) -> None:
        self.hold = hold
        self._channels: list[EventChannel] = []
        #: Until when (time.monotonic) input is on its way; 0 when none is.
        self._until = 0.0
        #: Inputs that arrived (the input thread counts them).
        self.arrivals = 0
        #: Inputs the app has handled (passed on to the focused widget).
        self.handled = 0
        self._echoed = asyncio.Event()

    def add(self, channel: EventChannel) -> None:
        """Hold ``channel`` too while input is on its way."""
        self._channels.append(channel)

    def arrived(self) -> None:
        """Input arrived. Called from the input thread: it only writes numbers
        (no asyncio object is touched from there)."""
        self.arrivals += 1
        self._hold()

    def _hold(self) -> None:
        self._until = time.monotonic() + self.hold
        for channel in list(self._channels):
            channel.hold(self.hold)

    @property
    def pending(self) -> bool:
        """Whether input is on its way to the screen (asked per event under a
        flood: no clock read when nothing is held)."""
        until = self._until
        return bool(until) and time.monotonic() < until

    def echoed(self, handled: int) -> None:
        """The screen was refreshed after the app had handled ``handled``
        inputs: unless more arrived meanwhile, the rest goes on."""
        if handled < self.arrivals or not self._until:
            return  # (more to come, or nothing held)
        self._until = 0.0
        for channel in self._channels:
            channel.release()
        self._echoed.set()
        if handled < self.arrivals:  # one came meanwhile (the input thread)
            self._hold()

    async def settled(self) -> None:
        """Return once no input is on its way (echoed, or its hold ran out)."""
        while (left := self._until - time.monotonic()) > 0:
            self._echoed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await self._echoed.wait()


class InputFirstApp(App[int]):
    """An app whose input goes first (see the module doc). Its driver calls
    :meth:`input_arrived` from the input thread (ui/terminal_driver.py)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.input_first = InputFirst()
        self._main_screen: MainScreen | None = None

    def _on_mount(self) -> None:
        # The input and writer threads get the GIL soon after they ask for it
        # (Python's default is 5 ms, each time: more than a key's whole echo).
        sys.setswitchinterval(SWITCH_SECONDS)

    def input_arrived(self) -> None:
        """A key or a paste arrived (called from the input thread)."""
        self.input_first.arrived()

    def get_default_screen(self) -> Screen[Any]:
        gate = self.input_first
        self._main_screen = MainScreen(lambda: gate.pending, gate.hold, id="_default")
        return self._main_screen

    async def on_event(self, event: events.Event) -> None:
        arrived = isinstance(event, events.Key | events.Paste) and not event.is_forwarded
        await super().on_event(event)  # (which marks it forwarded)
        if arrived:
            gate = self.input_first
            gate.handled += 1
            handled = gate.handled
            target = self.focused or self.screen
            # The input went to ``target``'s queue. A callback after a refresh
            # runs after the screen's next frame, which may have been under
            # way before ``target`` handled the input; the frame after that
            # one has its change on screen.
            target.call_after_refresh(target.call_after_refresh, self._when_written, handled)

    def _when_written(self, handled: int) -> None:
        """Once the frame showing the input is on the terminal (not only handed
        to the writer thread, which needs the GIL to write it), the rest goes on."""
        when_written = getattr(self._driver, "when_written", None)
        if callable(when_written):
            when_written(lambda: self._echoed(handled))
        else:
            self._echoed(handled)

    def _echoed(self, handled: int) -> None:
        gate = self.input_first
        gate.echoed(handled)
        if not gate.pending and self._main_screen is not None:
            self._main_screen.repaint_deferred()
