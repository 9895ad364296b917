"""The TUI's consumer of the core's event channel.

Events are handled in slices of time, not of count: each slice handles
what is queued for up to ``budget`` seconds, then gives the loop back, so
a key the user types waits a slice at most, whatever the agent floods.
When a slice ends with events still queued (a flood), the next one starts
a ``frame`` after it: what arrives in between is handled together (and
merged by the channel), so the log renders once a frame rather than once
per burst, and the rest of the frame is the loop's: input, the screen, and
the core reading the agent. Otherwise the next event is handled as it comes.

While the user's input is on its way to the screen (``input_first``), no
slice starts and a running one stops: the loop is the input's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from acp_tui.core import ChannelClosed, Event, EventChannel
from acp_tui.ui.input_first import InputFirst

#: Seconds of event handling before the loop gets a turn.
SLICE_SECONDS = 0.004
#: Seconds between the starts of two slices while events keep coming.
FRAME_SECONDS = 1 / 60


async def pump_events(
    channel: EventChannel,
    handle: Callable[[Event], None],
    *,
    budget: float = SLICE_SECONDS,
    frame: float = FRAME_SECONDS,
    input_first: InputFirst | None = None,
) -> None:
    """Hand every event of ``channel`` to ``handle`` until the channel closes."""
    clock = time.perf_counter
    gate = input_first or InputFirst()
    while True:
        try:
            event = await channel.get()
        except ChannelClosed:
            return
        if gate.pending:
            await gate.settled()
        started = clock()
        deadline = started + budget
        handle(event)
        drained = False
        while clock() < deadline and not gate.pending:
            more = channel.get_nowait()
            if more is None:
                drained = True
                break
            handle(more)
        if drained:
            # Nothing waits: the next event is handled as soon as it comes.
            await asyncio.sleep(0)
        else:
            # A flood: the rest of the frame is the loop's; events gather meanwhile.
            await asyncio.sleep(max(frame - (clock() - started), 0))
