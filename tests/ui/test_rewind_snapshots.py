"""The look of checkpoints in the TUI (issue 17), pinned as SVG snapshots in
snapshots/test_rewind_snapshots/: the changes entry with its diffs, and the
question before a restore, at 80x24."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.core import ChangesEntry
from acp_tui.ui.screens.restore_confirm import RestoreScreen
from acp_tui.ui.widgets import status_bar
from tests.ui.helpers import idle, ready, until
from tests.ui.test_rewind_ui import TURN, kinds, make_app
from tests.ui.test_snapshots import steady

WORKSPACE = Path("/tmp/acp-tui-snapshots/rewind/project")


@pytest.fixture(autouse=True)
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(status_bar, "now", lambda: 1000.0)


@pytest.fixture
def project() -> Path:
    shutil.rmtree(WORKSPACE.parent, ignore_errors=True)
    WORKSPACE.mkdir(parents=True)
    (WORKSPACE / "a.txt").write_text("one\n")
    (WORKSPACE / "b.txt").write_text("to delete\n")
    subprocess.run(["git", "init", "-q", str(WORKSPACE)], check=True)
    return WORKSPACE


def after_the_turn(*keys: str, dialog: bool = False) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = await ready(pilot)
        app.prompt.insert(TURN)
        await pilot.press("enter")
        await until(pilot, lambda: idle(app) and bool(kinds(app, ChangesEntry)))
        await pilot.press("ctrl+l", "k", *keys)
        if dialog:
            await until(pilot, lambda: isinstance(app.screen, RestoreScreen))
        else:
            await until(pilot, lambda: bool(app.log_view.details))
        await until(pilot, lambda: app.log_view.measured)
        await pilot.pause(0.3)
        await steady(pilot)

    return run_before


def test_changes_entry_expanded(snap_compare: Any, project: Path) -> None:
    """After the turn, the selected changes entry "± Turn 1 changed 3 files
    +2 −1" expanded: a.txt's diff (+two), b.txt's removed line, c.txt as a new
    file, then the keys line (Enter diffs · e edit · f restore a file · r
    rewind this turn)."""
    app = make_app(project)
    assert snap_compare(app, terminal_size=(80, 24), run_before=after_the_turn("enter"))


def test_restore_question(snap_compare: Any, project: Path) -> None:
    """r on the changes entry: "Rewind the files to before turn 1", the three
    files with what the restore does to each (put back, brought back (deleted
    since), removed (created since)), the note that the conversation stays,
    and the two choices: restore and tell the agent, or the files only."""
    app = make_app(project)
    assert snap_compare(app, terminal_size=(80, 24), run_before=after_the_turn("r", dialog=True))
