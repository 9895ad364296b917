"""The TUI's event consumer: every event in order, and the loop gets turns during a flood."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from acp_tui.core.model.channel import EventChannel
from acp_tui.core.model.events import Event
from acp_tui.ui.event_pump import pump_events


async def test_a_flood_is_handled_in_order_in_slices_that_let_the_loop_run() -> None:
    channel = EventChannel(capacity=100_000)
    for n in range(2000):
        channel.offer(Event("usage-updated", {"n": n}))
    channel.close()
    handled: list[int] = []
    seen_by_others: list[int] = []

    def handle(event: Event) -> None:
        handled.append(event.data["n"])
        end = time.perf_counter() + 0.0001  # some work per event
        while time.perf_counter() < end:
            pass

    async def other_task() -> None:  # stands for the keyboard and the screen
        while len(handled) < 2000:
            seen_by_others.append(len(handled))
            await asyncio.sleep(0)

    await asyncio.gather(pump_events(channel, handle, budget=0.002), other_task())
    assert handled == list(range(2000))
    partial = [count for count in seen_by_others if 0 < count < 2000]
    assert len(set(partial)) >= 3, "the pump gave the loop a turn between its slices"


async def test_an_event_that_comes_alone_is_handled_without_waiting_a_frame() -> None:
    channel = EventChannel()
    handled: list[Event] = []
    pump = asyncio.create_task(pump_events(channel, handled.append, frame=3600))
    # Each alone: handled at once, although a frame here is an hour.
    channel.offer(Event("usage-updated", {"n": 1}))
    await _until(lambda: len(handled) == 1)
    channel.offer(Event("usage-updated", {"n": 2}))
    await _until(lambda: len(handled) == 2)
    assert [event.data["n"] for event in handled] == [1, 2]
    channel.close()
    await pump


async def _until(condition: Callable[[], bool]) -> None:
    deadline = asyncio.get_running_loop().time() + 10  # a hang guard
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "never handled"
        await asyncio.sleep(0.01)
