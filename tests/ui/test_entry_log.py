"""The entry log on its own: a thread of core entries, no agent."""

from __future__ import annotations

from textual.app import App, ComposeResult

from acp_tui.core.model.thread import Thread
from acp_tui.ui.log_source import LogSource
from acp_tui.ui.widgets.entry_log import EntryLog


class LogApp(App[None]):
    def __init__(self, thread: Thread) -> None:
        super().__init__()
        self.source = LogSource()
        self.source.add(thread.entries)

    def compose(self) -> ComposeResult:
        yield EntryLog(self.source)


async def test_a_new_streaming_entry_flushes_the_one_before() -> None:
    thread = Thread()
    thread.add_text("message", "first reply " * 200, None)
    thread.append_user([{"type": "text", "text": "next"}])
    app = LogApp(thread)
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(EntryLog)
        log.sync()
        log.stream(0)
        await pilot.pause(0.05)
        assert 0 in log.reveals and not log.reveals[0].done
        thread.add_text("message", "second", None)
        log.sync()
        log.stream(2)
        assert 0 not in log.reveals, "the first entry was shown whole at once"
        assert 2 in log.reveals


async def test_scrolling_away_flushes_and_the_end_resumes() -> None:
    thread = Thread()
    for n in range(60):
        thread.append_user([{"type": "text", "text": f"prompt {n}"}])
    app = LogApp(thread)
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(EntryLog)
        log.sync()
        await pilot.pause()
        assert log.following and log.scroll_y == log.max_scroll_y
        log.focus()
        await pilot.press("pageup")
        assert not log.following
        await pilot.press("end")
        await pilot.pause()
        assert log.following and log.scroll_y == log.max_scroll_y


async def test_one_line_scroll_does_not_stop_following() -> None:
    thread = Thread()
    for n in range(60):
        thread.append_user([{"type": "text", "text": f"prompt {n}"}])
    app = LogApp(thread)
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(EntryLog)
        log.sync()
        await pilot.pause()
        log.focus()
        await pilot.press("up")  # within the threshold
        assert log.following
        await pilot.press("up", "up")  # past it
        assert not log.following
