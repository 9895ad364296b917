"""The reveal follows the events the TUI has handled, not the core's live state."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.app import App, ComposeResult

from acp_tui.core.model.thread import Thread
from acp_tui.ui.log_source import LogSource
from acp_tui.ui.reveal import FINISH_FRAMES, RevealState
from acp_tui.ui.widgets.entry_log import EntryLog
from tests.fake_agents import agent_spec
from tests.ui.helpers import idle, make_app, ready, screen_text, submit


async def test_the_last_burst_of_a_turn_is_revealed_like_the_rest(tmp_path: Path) -> None:
    """One chunk of 3,000 characters, and the turn ends at once: by the time
    the TUI handles the chunk the core's turn is over. It is revealed over
    several frames all the same, never popped in."""
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        log = app.log_view
        submit(app, "burst 3000 0")
        shown: list[int] = []

        def sample() -> bool:
            for state in log.reveals.values():
                shown.append(state.revealed[0])
            return bool(shown) and idle(app)

        deadline = asyncio.get_running_loop().time() + 20
        while not sample():
            assert asyncio.get_running_loop().time() < deadline, "the turn never ended"
            await pilot.pause(0.002)
        assert app.session is not None and app.session.status == "idle"
        partial = sorted({count for count in shown if 0 < count < 3000})
        assert len(partial) >= 3, f"revealed in {partial}: popped in rather than revealed"
        assert shown == sorted(shown)
        assert "lorem ipsum" in screen_text(app)


class LogApp(App[None]):
    def __init__(self, thread: Thread) -> None:
        super().__init__()
        self.source = LogSource()
        self.source.add(thread.entries)

    def compose(self) -> ComposeResult:
        yield EntryLog(self.source)


async def test_text_the_log_was_not_told_of_is_not_shown() -> None:
    """The core's entry is further on than the events handled: the log shows
    what the events told, and the rest once its delta is handled."""
    thread = Thread()
    thread.add_text("message", "told ", None)
    app = LogApp(thread)
    async with app.run_test(size=(80, 10)) as pilot:
        log = app.query_one(EntryLog)
        log.text_arrived(0, ["told "], reveal=False)
        thread.add_text("message", "queued", None)  # committed, its event not handled yet
        log.entry_changed(0)
        await pilot.pause()
        text = "\n".join(log.render_line(y).text for y in range(log.size.height))
        assert "told" in text and "queued" not in text
        log.text_added(0, 0, "queued", reveal=False)
        await pilot.pause()
        text = "\n".join(log.render_line(y).text for y in range(log.size.height))
        assert "told queued" in text


def test_once_the_turn_ended_the_rest_is_revealed_within_a_few_frames() -> None:
    state = RevealState()
    state.extend(0, "x" * 2000)
    state.step()
    first = state.revealed[0]
    state.finish()
    counts = []
    while state.step():
        counts.append(state.revealed[0])
    assert first < counts[0] < counts[-1] == 2000, "revealed step by step, not at once"
    assert len(counts) <= FINISH_FRAMES
    # Without the end of the turn, the same backlog takes many more frames.
    slow = RevealState()
    slow.extend(0, "x" * 2000)
    frames = 0
    while slow.step():
        frames += 1
    assert frames > 4 * FINISH_FRAMES
