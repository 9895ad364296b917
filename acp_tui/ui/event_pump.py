"""The TUI's consumer of the core's event channel.

Events are handled in slices of time, not of count: each slice handles
what is queued for up to ``budget`` seconds, then gives the loop back, so
a key the user types waits a slice at most, whatever the agent floods.
A slice starts at most once per ``frame``: what arrives in between is
handled together (and, under a flood, merged by the channel), so the log
renders once a frame rather than once per burst, and the rest of the
frame is the loop's: input, the screen, and the core reading the agent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from acp_tui.core import ChannelClosed, Event, EventChannel

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
) -> None:
    """Hand every event of ``channel`` to ``handle`` until the channel closes."""
    clock = time.perf_counter
    while True:
        try:
            event = await channel.get()
        except ChannelClosed:
            return
        started = clock()
        deadline = started + budget
        handle(event)
        while clock() < deadline:
            more = channel.get_nowait()
            if more is None:
                break
            handle(more)
        # The rest of the frame is the loop's; events gather meanwhile.
        await asyncio.sleep(max(frame - (clock() - started), 0))
