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


async def test_a_reply_that_grew_while_the_user_looked_up_is_shown_whole() -> None:
    """Scrolled up mid-stream, then back to the end: the reply shows all it
    has, not what it had when the user scrolled away."""
    thread = Thread()
    for n in range(30):
        thread.append_user([{"type": "text", "text": f"prompt {n}"}])
    thread.add_text("message", "".join(f"line {n}.\n\n" for n in range(40)), None)
    app = LogApp(thread)
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(EntryLog)
        log.sync()
        log.stream(30)
        await pilot.pause(0.05)
        log.focus()
        await pilot.press("pageup")
        assert not log.following
        for n in range(40, 80):  # the stream goes on meanwhile
            thread.add_text("message", f"line {n}.\n\n", None)
            log.stream(30)
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause(0.3)
        shown = [log.render_line(y).text.strip() for y in range(log.size.height)]
        assert log.following, (log.scroll_y, log.max_scroll_y)
        assert "line 79." in "\n".join(shown), shown


async def test_text_that_comes_after_the_turn_is_shown() -> None:
    """A reply revealed to its end, then more of it after its turn ended (an
    agent that talks on): the log shows that too."""
    thread = Thread()
    thread.add_text("message", "first words", None)
    app = LogApp(thread)
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(EntryLog)
        log.sync()
        log.stream(0)
        await pilot.pause()
        while log.revealing:
            await pilot.pause(0.02)
        thread.add_text("message", " and late words", None)
        log.stream(0, reveal=False)  # (as the dispatch does when no turn runs)
        await pilot.pause()
        shown = "\n".join(log.render_line(y).text for y in range(log.size.height))
        assert "first words and late words" in shown, shown
