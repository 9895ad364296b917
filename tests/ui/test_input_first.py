"""The user's input goes first (ui/input_first.py, ui/screens/main_screen.py).

While a key is on its way to the screen the window's channels hold the core
back, the event pump and the log's reveal stand aside, and the screen's
frames hold only the focused widget; once the key's frame is out, all of it
goes on where it stopped. Latency itself is measured in bench/keys.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual import timer as textual_timer
from textual.app import App
from textual.drivers._writer_thread import WriterThread
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.core.model.channel import EventChannel
from acp_tui.core.model.events import Event
from acp_tui.ui.event_pump import pump_events
from acp_tui.ui.input_first import InputFirst
from acp_tui.ui.screens import main_screen
from acp_tui.ui.screens.main_screen import FrameTimer, MainScreen
from acp_tui.ui.terminal_driver import LossTolerantOutput, WrittenSignal
from tests.fake_agents import agent_spec
from tests.processes import PtyTui, tui_command
from tests.ui.helpers import make_app, ready, until
from tests.waiting import until as until_true

PERIOD = 1 / 60


async def test_input_holds_the_channels_until_all_that_arrived_was_shown() -> None:
    gate = InputFirst(hold=60)
    channel = EventChannel()
    gate.add(channel)
    assert not gate.pending and channel.has_room()
    gate.arrived()  # two keys in one read of the terminal
    gate.arrived()
    assert gate.pending and not channel.has_room()
    settled = asyncio.ensure_future(gate.settled())
    gate.echoed(1)  # the first key's frame: the second is still on its way
    await asyncio.sleep(0.01)
    assert gate.pending and not channel.has_room() and not settled.done()
    gate.echoed(2)
    assert not gate.pending and channel.has_room()
    await asyncio.wait_for(settled, 1)


async def test_a_hold_nobody_ends_runs_out() -> None:
    """A key whose frame never comes (the app is busy elsewhere) holds the
    stream for HOLD_SECONDS at most."""
    gate = InputFirst(hold=0.05)
    channel = EventChannel()
    gate.add(channel)
    gate.arrived()
    await asyncio.wait_for(gate.settled(), 1)
    await asyncio.wait_for(channel.wait_for_room(), 1)
    assert not gate.pending


async def test_the_pump_stands_aside_while_input_is_on_its_way() -> None:
    gate = InputFirst(hold=60)
    channel = EventChannel()
    handled: list[int] = []
    pump = asyncio.ensure_future(
        pump_events(channel, lambda event: handled.append(event.data["n"]), input_first=gate)
    )
    channel.offer(Event("usage-updated", {"n": 0}))
    await until_true(lambda: handled == [0], 5, poll=0.005)
    gate.arrived()
    for n in range(1, 4):
        channel.offer(Event("usage-updated", {"n": n}))
    await asyncio.sleep(0.05)
    assert handled == [0]  # held back, not lost
    gate.echoed(1)
    await until_true(lambda: handled == [0, 1, 2, 3], 5, poll=0.005)
    channel.close()
    await asyncio.wait_for(pump, 5)


class FakeClock:
    """Time that moves only when the test moves it (sleepers wait for it)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def get_time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        wake = self.now + seconds
        while self.now < wake:
            await asyncio.sleep(0.0005)

    async def run_until(self, condition: Callable[[], bool]) -> None:
        """Move time on a hundredth of a period at a time until ``condition()``."""
        for _ in range(1000):
            if condition():
                return
            self.now += PERIOD / 100
            await asyncio.sleep(0.001)
        raise AssertionError("never ticked")


async def _second_tick_after_an_idle(
    timer_class: type[textual_timer.Timer], clock: FakeClock
) -> float:
    """A screen's update timer: it ticks, sits paused a while (nothing to
    draw), is resumed and ticks; then something is dirty again a fifth of a
    period later. How long after the previous tick does that tick come?"""
    ticks: list[float] = []
    app: App[None] = App()
    async with app.run_test():
        timer: textual_timer.Timer

        def tick() -> None:
            ticks.append(clock.now)
            timer.pause()  # as a screen's update does

        kwargs = {"urgent": lambda: False} if timer_class is FrameTimer else {}
        timer = timer_class(app, PERIOD, callback=tick, pause=True, **kwargs)
        timer._start()
        timer.resume()
        await clock.run_until(lambda: len(ticks) == 1)
        clock.now += 10 * PERIOD  # idle
        timer.resume()
        await clock.run_until(lambda: len(ticks) == 2)
        clock.now += PERIOD / 5
        timer.resume()
        await clock.run_until(lambda: len(ticks) == 3)
        timer.stop()
    return ticks[2] - ticks[1]


async def test_a_resumed_frame_timer_ticks_one_period_after_its_last_tick(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = FakeClock()
    monkeypatch.setattr(main_screen, "_time", clock)
    assert await _second_tick_after_an_idle(FrameTimer, clock) == pytest.approx(PERIOD, rel=0.05)


async def test_textuals_own_timer_waits_up_to_two_periods_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Why FrameTimer exists (Textual 8.2.8): the same resume waits more than
    a period. If a Textual release fixes this, FrameTimer can go."""
    clock = FakeClock()
    monkeypatch.setattr(textual_timer._time, "get_time", clock.get_time)
    monkeypatch.setattr(textual_timer, "sleep", clock.sleep)
    assert await _second_tick_after_an_idle(textual_timer.Timer, clock) > 1.5 * PERIOD


async def test_a_frame_for_input_comes_at_once() -> None:
    """A frame begun before the input came waits out its period; hurried
    (the screen does it when the input's widget is dirty), it comes now."""
    ticks: list[float] = []
    app: App[None] = App()
    async with app.run_test():
        timer: FrameTimer

        def tick() -> None:
            ticks.append(time.monotonic())
            timer.pause()

        timer = FrameTimer(app, 3600, callback=tick, pause=True, urgent=lambda: False)
        timer._start()
        timer.resume()
        await until_true(lambda: len(ticks) == 1, 5, poll=0.001)
        timer.resume()
        await asyncio.sleep(0.05)
        assert len(ticks) == 1  # the next tick is an hour away…
        timer.hurry()  # …but input is on its way
        await until_true(lambda: len(ticks) == 2, 5, poll=0.001)
        timer.stop()


def _count_renders(widget: Widget, name: str, renders: list[str]) -> None:
    render_lines = widget.render_lines

    def counted(crop: object) -> list[Strip]:
        renders.append(name)
        return render_lines(crop)  # type: ignore[arg-type]

    widget.render_lines = counted  # type: ignore[method-assign]


async def test_the_frame_of_a_key_holds_the_prompt_and_the_log_follows(tmp_path: Path) -> None:
    """While a key is on its way, a repaint of the log (a stream grew it)
    waits: the key's frame paints the prompt only, the log right after."""
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        renders: list[str] = []
        _count_renders(app.log_view, "log", renders)
        _count_renders(app.prompt, "prompt", renders)
        app.input_first.arrived()  # (the driver's input thread does this)
        app.log_view.refresh()
        await pilot.pause()
        assert "log" not in renders  # deferred: input is on its way
        await pilot.press("x")
        await until(pilot, lambda: "log" in renders)
        assert renders.index("prompt") < renders.index("log")
        assert app.prompt.text == "x"
        assert not app.input_first.pending


def test_keys_typed_under_a_flood_all_land_and_so_does_the_flood(tmp_path: Path) -> None:
    """The real program on a real pty: keys typed while a long reply streams
    reach the prompt in order, and the reply still arrives whole."""
    tui = PtyTui(tui_command("--cwd", str(tmp_path)), cwd=tmp_path, dimensions=(40, 120))
    try:
        tui.wait_ready(60)
        tui.type(b"flood 30000\r")
        assert tui.wait_for(lambda: b"1000" in tui.output, 60), bytes(tui.output[-2000:])
        typed = "typed-under-the-flood"
        for char in typed:
            tui.type(char.encode())
            time.sleep(0.01)
        assert tui.wait_for(lambda: typed.encode() in tui.output, 30), bytes(tui.output[-3000:])
        assert tui.wait_for(lambda: b"29999" in tui.output, 120), bytes(tui.output[-3000:])
    finally:
        tui.type(b"\x11")
        tui.wait_for(lambda: not tui.proc.isalive(), 15)
        tui.proc.close(force=True)


async def test_what_waited_for_a_frame_that_never_came_is_repainted(tmp_path: Path) -> None:
    """A key arrived, but its frame never comes (nothing handled it): the
    log's repaint waits out the hold, then comes."""
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        renders: list[str] = []
        _count_renders(app.log_view, "log", renders)
        app.input_first.arrived()  # (and no key follows)
        app.log_view.refresh()
        await pilot.pause()
        assert renders == []
        await until(pilot, lambda: "log" in renders, 5)
        assert not app.input_first.pending


async def test_the_driver_says_when_what_it_wrote_has_reached_the_terminal() -> None:
    """The writer thread writes a frame a moment after the app hands it over
    (it needs the GIL, and the terminal may be slow): a key's hold ends only
    once its frame is written. Here the "terminal" is a pipe nobody reads
    until the test does."""
    read_end, write_end = os.pipe()
    pipe = os.fdopen(write_end, "w")
    output = LossTolerantOutput(pipe, lambda: None)
    signal = WrittenSignal(output, asyncio.get_running_loop())
    writer = WriterThread(output)  # type: ignore[arg-type]
    writer.start()
    called: list[str] = []
    try:
        frame = "x" * (1024 * 1024)  # more than the pipe holds: the write waits for a reader
        signal.submitted()
        writer.write(frame)
        signal.when_written(lambda: called.append("written"))
        await asyncio.sleep(0.1)
        assert called == []  # still in the pipe's way
        read = 0
        while read < len(frame):
            read += len(await asyncio.to_thread(os.read, read_end, 1 << 16))
        await until_true(lambda: called == ["written"], 5, poll=0.005)
        signal.when_written(lambda: called.append("at once"))  # nothing outstanding
        assert called == ["written", "at once"]
    finally:
        os.close(read_end)  # (a write still waiting fails: the output counts as lost)
        writer.stop()
        with contextlib.suppress(OSError):
            pipe.close()
