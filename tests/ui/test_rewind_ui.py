"""Issue 17 in the TUI: the changes entry after a turn, its diffs, /changes,
/rewind and Esc Esc, the restore's confirmation, undo, one file, $EDITOR.

The real app on the real host core with checkpoints on, the scripted agent
(a real subprocess) changing real files in a real git project.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.core import ChangesEntry, CheckpointSettings, Host, RewindEntry
from acp_tui.ui.app import AcpApp
from acp_tui.ui.screens.choice import ChoiceScreen
from acp_tui.ui.screens.restore_confirm import RestoreScreen
from tests import waiting
from tests.fake_agents import SCRIPTED_AGENT, agent_spec
from tests.ui.helpers import PtyApp, idle, painted, ready, send, until


def steps(*items: dict[str, Any]) -> str:
    return "steps " + json.dumps(list(items))


TURN = steps(
    {"write": "a.txt", "text": "one\ntwo\n"},
    {"write": "c.txt", "text": "created\n"},
    {"delete": "b.txt"},
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    (root / "b.txt").write_text("to delete\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def make_app(project: Path, notices: list[str] | None = None) -> AcpApp:
    settings = CheckpointSettings(state_dir=project.parent / "state")
    host = Host(cancel_grace=2.0, checkpoints=settings)
    return AcpApp(agent_spec(), cwd=project, host=host, notices=notices)


def files_of(root: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in root.iterdir() if p.is_file()}


def kinds(app: AcpApp, kind: type) -> list[Any]:
    view = app.conversation.current
    return [e for e in view.entries if isinstance(e, kind)] if view else []


async def a_turn(pilot: Pilot[int], app: AcpApp, text: str) -> None:
    turns = len(kinds(app, ChangesEntry))
    await send(pilot, text)
    await until(pilot, lambda: len(kinds(app, ChangesEntry)) > turns and idle(app))
    await pilot.pause()


async def dialog(pilot: Pilot[int], app: AcpApp, kind: type) -> Any:
    await until(pilot, lambda: isinstance(app.screen, kind))
    await pilot.pause()
    return app.screen


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_changes_entry_diffs_rewind_and_undo_from_the_keyboard(
    project: Path, size: tuple[int, int]
) -> None:
    app = make_app(project)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await a_turn(pilot, app, TURN)
        after = files_of(project)
        shown = painted(app)
        assert "± Turn 1 changed 3 files  +2 −1" in shown
        rows = [row.rstrip() for row in shown.splitlines()]
        assert rows[rows.index(" ± Turn 1 changed 3 files  +2 −1") + 1 :][:3] == [
            "   M a.txt  +1",
            "   D b.txt  −1",
            "   A c.txt  +1",
        ]

        # The log's cursor on the changes entry (the last one); Enter shows the diffs.
        await pilot.press("ctrl+l", "k")
        assert "r rewind this turn" in painted(app)
        await pilot.press("enter")
        await until(pilot, lambda: "+two" in painted(app))
        assert "-to delete" in painted(app)

        # r: the dry run, then the user's choice; nothing is written before it.
        await pilot.press("r")
        screen = await dialog(pilot, app, RestoreScreen)
        assert files_of(project) == after
        text = painted(app)
        assert "Rewind the files to before turn 1" in text
        assert "removed (created since)" in text and "brought back (deleted since)" in text
        await pilot.press("1")  # restore, and tell the agent
        await until(pilot, lambda: bool(kinds(app, RewindEntry)))
        assert not screen.is_attached
        assert files_of(project) == {"a.txt": "one\n", "b.txt": "to delete\n"}
        rewind = kinds(app, RewindEntry)[0]
        assert rewind.agent_told and rewind.turn == 1
        await until(pilot, lambda: "Files restored to before turn 1" in painted(app))

        # Esc Esc on the empty prompt: the picker, the undo first.
        app.prompt.focus()
        await pilot.press("escape", "escape")
        picker = await dialog(pilot, app, ChoiceScreen)
        assert not isinstance(picker, RestoreScreen)
        assert picker.choices[0].label.startswith("Undo: Files restored to before turn 1")
        assert picker.choices[1].label == "Before turn 1 · 3 files +2 −1"
        assert "a.txt, b.txt, c.txt" in picker.choices[1].description
        await pilot.press("1")
        await dialog(pilot, app, RestoreScreen)
        assert "edited outside" not in painted(app)  # the restore's own writes
        await pilot.press("2")  # the files only
        await until(pilot, lambda: len(kinds(app, RewindEntry)) == 2)
        assert files_of(project) == after
        assert not kinds(app, RewindEntry)[1].agent_told
        await until(pilot, lambda: "A rewind undone" in painted(app))


async def test_the_next_prompt_tells_the_agent_and_slash_changes_jumps_to_a_turn(
    project: Path,
) -> None:
    # A notice above the session: the log's indices are not the session's.
    app = make_app(project, notices=["a warning from the config file"])
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await a_turn(pilot, app, TURN)
        await a_turn(pilot, app, steps({"write": "a.txt", "text": "three\n"}))
        await send(pilot, "/changes")
        picker = await dialog(pilot, app, ChoiceScreen)
        assert [c.label for c in picker.choices] == [
            "Turn 2 · 1 file +1 −2",
            "Turn 1 · 3 files +2 −1",
        ]
        await pilot.press("2")
        await until(pilot, lambda: app.log_view.cursor is not None)
        entry = app.log_view.source[app.log_view.cursor or 0]
        assert isinstance(entry, ChangesEntry) and entry.turn == 1
        await until(pilot, lambda: "+two" in painted(app))  # expanded: its diffs

        # f: one file alone, back as it was before turn 1.
        await pilot.press("f")
        files = await dialog(pilot, app, ChoiceScreen)
        assert [c.label for c in files.choices] == ["a.txt", "b.txt", "c.txt"]
        await pilot.press("1")
        await dialog(pilot, app, RestoreScreen)
        assert "a.txt" in painted(app) and "c.txt  removed" not in painted(app)
        await pilot.press("1")
        await until(pilot, lambda: (project / "a.txt").read_text() == "one\n")
        assert (project / "c.txt").exists() and not (project / "b.txt").exists()

        # The next prompt starts with what was restored (the agent is told).
        await send(pilot, "hello")
        await until(pilot, lambda: idle(app) and "restored files" in painted(app))


async def test_a_rewind_while_a_turn_runs_offers_to_cancel_it_first(project: Path) -> None:
    app = make_app(project)
    gate = project.parent / "gate"
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await a_turn(pilot, app, TURN)
        await send(pilot, steps({"write": "a.txt", "text": "busy\n"}, {"wait": str(gate)}))
        await until(pilot, lambda: (project / "a.txt").read_text() == "busy\n")
        await send(pilot, "/rewind")
        await dialog(pilot, app, ChoiceScreen)
        await pilot.press("1")  # before turn 1
        asked = await dialog(pilot, app, ChoiceScreen)
        assert asked.title_text.startswith("A turn is running")
        await pilot.press("1")  # cancel it, then go on
        await dialog(pilot, app, RestoreScreen)
        view = app.conversation.current
        assert view is not None and not view.running
        await pilot.press("2")
        await until(pilot, lambda: bool(kinds(app, RewindEntry)))
        assert files_of(project) == {"a.txt": "one\n", "b.txt": "to delete\n"}
        gate.touch()


def test_e_opens_the_file_in_the_editor_and_the_app_comes_back(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text("import sys\nwith open(sys.argv[1], 'a') as f:\n    f.write('edited\\n')\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    term = PtyApp(SCRIPTED_AGENT, project, rows=24, columns=80)
    try:
        term.wait_for(b"is ready")
        term.type(steps({"write": "a.txt", "text": "new\n"}).encode() + b"\r")
        term.wait_for(b"changed 1 file")
        term.type(b"\x0c")  # Ctrl+L: the log
        term.read(0.3)
        term.type(b"k")
        term.wait_for(b"e edit")
        term.type(b"e")
        waiting.wait_until(
            lambda: (project / "a.txt").read_text() == "new\nedited\n", 20, what="not edited"
        )
        term.read(1.0)
        term.type(b"\x11")  # Ctrl+Q: the app took the terminal back and still answers
        assert term.wait_gone()
    finally:
        term.kill()
