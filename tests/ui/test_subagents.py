"""A subagent's tool calls in the log: folded into the row of the "Task" that
started them (one summary line), unfolded with the entry's expand key, their
permission asked in the dialog as any other. Without parent ids, nothing changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult

from acp_tui.core import ToolCallEntry
from acp_tui.core.model.thread import Thread
from acp_tui.ui.app import AcpApp
from acp_tui.ui.log_source import LogSource
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets.entry_log import EntryLog
from tests.fake_agents import agent_spec
from tests.ui.helpers import idle, make_app, ready, screen_text, submit, until

CHILD_TITLES = ("Read tests/conftest.py", "Run pytest -q", "Edit notes.md")


def index_of(app: AcpApp, tool_call_id: str) -> int:
    log = app.log_view
    return next(
        index
        for index, entry in log.source.entries_from(0)
        if isinstance(entry, ToolCallEntry) and entry.tool_call_id == tool_call_id
    )


def shown(log: EntryLog) -> str:
    """Every row of the log, whether scrolled into view or not."""
    return "\n".join(strip.text for index in range(len(log.source)) for strip in log.strips(index))


async def test_the_subagent_is_one_folded_row_and_its_permission_is_asked(
    tmp_path: Path,
) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        submit(app, "subagent")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        screen = app.screen
        assert isinstance(screen, PermissionScreen)
        # The dialog is the child's, found by its request id as any other.
        assert screen.prompt.title == "Edit notes.md"
        assert app.permissions.showing is not None
        log = app.log_view
        text = shown(log)
        assert "Task: Explore the tests" in text
        assert "▸ 3 tool calls, 1 running, 1 waiting for you, 1 failed" in text
        assert not any(title in text for title in CHILD_TITLES)
        task = index_of(app, "task-1")
        for child in ("sub-read", "sub-run", "sub-edit"):
            assert log.nesting.row(index_of(app, child)) == task
            assert log.strips(index_of(app, child)) == ()
        await until(pilot, lambda: app.screen.armed)  # type: ignore[attr-defined]
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(app.screen, PermissionScreen))
        await until(pilot, lambda: idle(app))
        assert app.session is not None
        edit = app.session.thread.tool_call("sub-edit")
        assert edit is not None and edit[1].status == "completed"
        await until(pilot, lambda: "▸ 3 tool calls, 1 failed" in shown(log))
        assert '"optionId": "allow"' in screen_text(app)


async def test_the_expand_key_unfolds_the_subagent_and_the_cursor_skips_its_calls(
    tmp_path: Path,
) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        submit(app, "subagent")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await until(pilot, lambda: app.screen.armed)  # type: ignore[attr-defined]
        await pilot.press("n")
        await until(pilot, lambda: idle(app))
        log = app.log_view
        task = index_of(app, "task-1")
        # From the reply below, one step up is the Task: its calls have no rows.
        await pilot.press("ctrl+l", "k")
        assert log.cursor == len(log.source) - 1
        await pilot.press("k")
        assert log.cursor == task
        assert "▸ 3 tool calls, 1 failed, 1 rejected" in shown(log)
        await pilot.press("enter")
        await until(pilot, lambda: "▾ 3 tool calls" in shown(log))
        rows = shown(log).splitlines()
        first = next(n for n, row in enumerate(rows) if "Read tests/conftest.py" in row)
        # Each call under the guide, in order, with its status and its content folded.
        assert "│" in rows[first] and "done" in rows[first]
        run = next(n for n, row in enumerate(rows) if "Run pytest -q" in row)
        assert "failed" in rows[run] and "1 failed, 41 passed" in rows[run + 1]
        edit = next(n for n, row in enumerate(rows) if "Edit notes.md" in row)
        assert first < run < edit and "rejected" in rows[edit]
        assert "notes.md" in rows[edit + 1]  # its location, then its diff
        assert "notes.md" in rows[edit + 2] and "+2" in rows[edit + 2]
        assert "The tests run real agents over real pipes." in shown(log)
        assert "Task: Explore the tests" in screen_text(app)
        await pilot.press("j")
        assert log.cursor == len(log.source) - 1, "the cursor went past the calls"
        await pilot.press("k", "enter")
        await until(pilot, lambda: "▸ 3 tool calls" in shown(log))
        assert "Read tests/conftest.py" not in shown(log)


class LogApp(App[None]):
    def __init__(self, thread: Thread) -> None:
        super().__init__()
        self.source = LogSource()
        self.source.add(thread.entries)

    def compose(self) -> ComposeResult:
        yield EntryLog(self.source)


def under(parent: str) -> dict[str, Any]:
    return {"_meta": {"claudeCode": {"parentToolUseId": parent}}}


async def test_a_call_whose_parent_is_not_above_it_is_a_row_of_its_own() -> None:
    thread = Thread()
    thread.upsert_tool_call({"toolCallId": "early", "title": "Early child", **under("task")})
    thread.upsert_tool_call({"toolCallId": "lost", "title": "Lost child", **under("nowhere")})
    thread.upsert_tool_call({"toolCallId": "task", "title": "Task: late", "status": "in_progress"})
    thread.upsert_tool_call({"toolCallId": "plain", "title": "Plain call"})
    app = LogApp(thread)
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(EntryLog)
        log.sync()
        await pilot.pause()
        text = shown(log)
        assert "Early child" in text and "Lost child" in text and "Plain call" in text
        assert "tool call" not in text  # no summary anywhere
        assert not any(log.nesting.hidden(i) for i in range(len(log.source)))
        # A call under the Task arriving now is nested (its parent is above it).
        thread.upsert_tool_call({"toolCallId": "kid", "title": "Kid", **under("task")})
        log.sync()
        await pilot.pause()
        assert log.nesting.row(4) == 2
        assert "▸ 1 tool call, 1 running" in shown(log)
        assert "Kid" not in shown(log)
        # The nested call changes: its parent's row follows.
        thread.update_tool_call({"toolCallId": "kid", "status": "failed"})
        log.entry_changed(4)
        await pilot.pause()
        assert "▸ 1 tool call, 1 failed" in shown(log)


async def test_without_parents_nothing_changes() -> None:
    thread = Thread()
    for n in range(3):
        thread.upsert_tool_call({"toolCallId": f"t{n}", "title": f"Call {n}"})
    app = LogApp(thread)
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(EntryLog)
        log.sync()
        await pilot.pause()
        assert [len(log.strips(i)) for i in range(3)] == [2, 2, 2]
        log.focus()
        await pilot.press("k", "k")
        assert log.cursor == 1
