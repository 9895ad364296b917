"""The TUI (Pilot) against the real Claude adapters, offline."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from acp_tui.core.connection import AgentSpec
from acp_tui.core.host import Host
from acp_tui.core.model.entries import AssistantEntry, ToolCallEntry
from acp_tui.core.storage.history_store import HistoryStore
from acp_tui.core.transport.process import group_members
from acp_tui.ui.app import AcpApp
from acp_tui.ui.resume import PICK
from acp_tui.ui.screens.choice import ChoiceScreen
from acp_tui.ui.screens.permission import PermissionScreen
from tests import waiting
from tests.e2e.harness import WAIT, InstalledAdapter, MockApi
from tests.ui.helpers import make_app, ready, screen_text, send, turn, until

pytestmark = pytest.mark.e2e


def claude_app(adapter: InstalledAdapter, mock_api: MockApi, home: Path, cwd: Path) -> AcpApp:
    command = mock_api.agent_command(adapter, home)
    return make_app(AgentSpec.of(command[0], command[1:], name="claude"), cwd)


def agent_group(app: AcpApp) -> int:
    assert app.connection is not None and app.connection.process is not None
    pgid = app.connection.process.pgid
    assert group_members(pgid), "the agent runs"
    return pgid


async def reaped(pgid: int) -> bool:
    """Whether the agent's process group is gone (given a moment)."""
    try:
        await waiting.until(lambda: not group_members(pgid), WAIT, poll=0.05)
    except AssertionError:
        return False
    return True


def replies(app: AcpApp) -> list[str]:
    assert app.session is not None
    return [
        "".join(c.text for c in e.chunks if c.type == "message")
        for e in app.session.thread.entries
        if isinstance(e, AssistantEntry)
    ]


async def test_tui_multi_turn_chat(
    adapter: InstalledAdapter, mock_api: MockApi, home: Path, workdir: Path
) -> None:
    app = claude_app(adapter, mock_api, home, workdir)
    words = f"tui turn one {uuid.uuid4().hex[:8]}"
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        session, connection = app.session, app.connection
        pgid = agent_group(app)
        await turn(pilot, f"e2e:say {words}")
        assert words in screen_text(app)
        await turn(pilot, "e2e:recall")
        assert app.session is session and app.connection is connection
        assert replies(app) == [words, f"Earlier I said: {words}"]
        shown = screen_text(app)
        assert f"Earlier I said: {words}" in shown
        assert "e2e:recall" in shown
        assert session is not None and session.last_stop_reason == "end_turn"
    assert await reaped(pgid), "leaving the app stops the agent's whole process group"
    recall = [r for r in mock_api.messages(workdir) if r["reply"] == "recall"]
    assert len(recall) == 1 and words in json.dumps(recall[0]["body"]["messages"])


async def test_tui_write_approved_from_the_keyboard(
    adapter: InstalledAdapter, mock_api: MockApi, home: Path, workdir: Path
) -> None:
    app = claude_app(adapter, mock_api, home, workdir)
    content = f"# Note\n\nwritten through the TUI {uuid.uuid4().hex}\n"
    target = workdir / "note.md"
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        pgid = agent_group(app)
        await send(pilot, f"e2e:write note.md {json.dumps(content)}")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen), timeout=WAIT)
        screen = app.screen
        assert isinstance(screen, PermissionScreen)
        await until(pilot, lambda: screen.armed, timeout=WAIT)
        assert not target.exists()
        await pilot.press("y")  # Allow (allow_once)
        await until(
            pilot,
            lambda: app.session is not None and app.session.status == "idle",
            timeout=WAIT,
        )
        assert not isinstance(app.screen, PermissionScreen)
        assert target.read_text() == content
        assert app.session is not None
        (entry,) = [e for e in app.session.thread.entries if isinstance(e, ToolCallEntry)]
        assert entry.status == "completed"
        assert app.session.last_stop_reason == "end_turn"
    assert await reaped(pgid)


async def test_tui_resume_picks_a_session_and_the_agent_replays_it(
    adapter: InstalledAdapter, mock_api: MockApi, home: Path, workdir: Path, tmp_path: Path
) -> None:
    """`acp-tui claude --resume`: the list comes from the agent's session/list,
    the chosen session is loaded and replayed into the log, and goes on."""
    command = mock_api.agent_command(adapter, home)
    spec = AgentSpec.of(command[0], command[1:], name="claude")
    store = HistoryStore(tmp_path / "history")
    words = f"resumable {uuid.uuid4().hex[:8]}"
    first = AcpApp(spec, cwd=workdir, host=Host(history=store))
    async with first.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await turn(pilot, f"e2e:say {words}")
    app = AcpApp(spec, cwd=workdir, host=Host(history=store), resume=PICK)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), timeout=WAIT)
        await pilot.press("1")  # the newest: the one just made
        await ready(pilot)
        await until(pilot, lambda: words in screen_text(app), timeout=WAIT)
        await turn(pilot, "e2e:recall")
        assert f"Earlier I said: {words}" in screen_text(app)
