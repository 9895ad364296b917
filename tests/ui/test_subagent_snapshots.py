"""The look of a subagent's tool calls in the log, pinned as an SVG snapshot in
snapshots/test_subagent_snapshots/: the Task's row unfolded at 80x24."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets import status_bar
from tests.fake_agents import agent_spec
from tests.ui.helpers import idle, make_app, ready, steady, submit, until

WORKSPACE = Path("/tmp/acp-tui-snapshots/subagents/workspace")


@pytest.fixture(autouse=True)
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(status_bar, "now", lambda: 1000.0)


@pytest.fixture
def workspace() -> Path:
    shutil.rmtree(WORKSPACE.parent, ignore_errors=True)
    WORKSPACE.mkdir(parents=True)
    (WORKSPACE / "notes.md").write_text("# Notes\n")
    return WORKSPACE


def test_subagent_unfolded(snap_compare: Any, workspace: Path) -> None:
    """After a turn whose Task ran a subagent (the edit allowed), the Task
    selected and unfolded: "∴ Task: Explore the tests ✓ done", "▾ 3 tool
    calls, 1 failed", then behind a guide "│" the subagent's calls in order,
    each with its badge and its content folded as usual (Read ✓ done "42
    lines", Run pytest -q ✗ failed with its output line, Edit notes.md ✓ done
    with its +2 diff), then the Task's own result."""
    app = make_app(agent_spec(), workspace)

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        submit(app, "subagent")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await until(pilot, lambda: app.screen.armed)  # type: ignore[attr-defined]
        await pilot.press("y")
        await until(pilot, lambda: idle(app))
        await pilot.press("ctrl+l", "k", "k", "enter", "home")  # its top in view
        await until(pilot, lambda: app.log_view.measured)
        await pilot.pause(0.3)
        await steady(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
