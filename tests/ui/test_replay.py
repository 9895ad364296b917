"""The TUI is a pure consumer of the event stream.

A real run (the app, the host core, the scripted agent) is recorded: the
agent it opened, a snapshot of its session and every event as a JSON line.
A second app is then given only that recording (no host, no agent): built
from the snapshot and the events after it, its screen equals the live one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.core.host import Host
from acp_tui.ui.app import AcpApp
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets import status_bar
from tests.fake_agents import agent_spec
from tests.ui.helpers import painted, ready, send, turn, until
from tests.ui.replay_link import RecordingHost, ReplayLink

UPDATES = [
    {"sessionUpdate": "tool_call_update", "toolCallId": "p1", "status": "completed"},
    {"sessionUpdate": "session_info_update", "title": "Replayed"},
    {"sessionUpdate": "current_mode_update", "currentModeId": "code"},
    {
        "sessionUpdate": "plan",
        "entries": [{"content": "compare the screens", "priority": "high", "status": "pending"}],
    },
]


@pytest.fixture(autouse=True)
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(status_bar, "now", lambda: 1000.0)


async def settled(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, AcpApp)
    await until(pilot, lambda: not app.log_view.revealing and app.log_view.measured)
    await pilot.pause(0.3)


async def live_run(
    tmp_path: Path, size: tuple[int, int]
) -> tuple[RecordingHost, list[str], dict[str, Any], tuple[str, str]]:
    """Run a conversation; returns the link, the events it recorded (JSON
    lines), a snapshot taken after the first turn, and the screen at the end
    (as text and as SVG)."""
    host = Host(cancel_grace=2.0)
    link = RecordingHost(host)
    app = AcpApp(agent_spec(), cwd=tmp_path, host=host, link=link)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await turn(pilot, "showcase")
        assert app.view is not None
        middle = link.snapshot(app.view.session_id)
        await send(pilot, "permission p1")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await until(pilot, lambda: app.screen.armed)  # type: ignore[attr-defined]
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(app.screen, PermissionScreen))
        await until(pilot, lambda: app.view is not None and app.view.status == "idle")
        await turn(pilot, "echo the last words of the run")
        await turn(pilot, "updates " + json.dumps(UPDATES))
        await settled(pilot)
        screen = painted(app), app.export_screenshot()
        lines = link.lines()
        assert app.view.snapshot() == link.snapshot(app.view.session_id)
    return link, lines, middle, screen


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
@pytest.mark.parametrize("start", ["first", "middle"])
async def test_a_recorded_run_replayed_with_no_host_shows_the_same_screen(
    tmp_path: Path, size: tuple[int, int], start: str
) -> None:
    link, lines, middle, live = await live_run(tmp_path, size)
    assert link.agent is not None
    # The snapshot the live app started from has no entries; the one taken
    # after the first turn holds that turn, and its events are offered again.
    session_id = str(middle["sessionId"])
    first = {**middle, "cursor": 0, "entries": [], "plan": [], "status": "idle"}
    first.pop("title", None)
    assert all(json.loads(line)["type"] for line in lines)
    replay = ReplayLink(link.agent, first if start == "first" else middle, lines)
    assert replay.last_cursor > int(middle["cursor"]) > 0

    app = AcpApp(agent_spec(), cwd=tmp_path, link=replay)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.view is not None and app.view.cursor == replay.last_cursor)
        app.prompt.cursor_blink = False
        await until(pilot, lambda: not isinstance(app.screen, PermissionScreen))
        await settled(pilot)
        assert app.host is None and app.session is None  # nothing behind it
        assert app.view is not None and app.view.session_id == session_id
        text, svg = live
        assert painted(app) == text
        assert app.export_screenshot() == svg  # the same look, colours included
        assert "the last words of the run" in text and "Replayed" in text
