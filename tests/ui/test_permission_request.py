"""Issue 13, points 4 and 5: the permission dialog shows the whole request.

The real app and host against the scripted agent's ``write`` and ``run``
commands: PgUp/PgDn scroll the dialog (not the log behind it), a 12-line new
file is readable at 80x24, wrapped diff rows keep their marker, and anything
outside the session's roots is marked with Reject preselected.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from textual.containers import VerticalScroll

from acp_tui.ui.permission_flow import DiffPreview, _diff
from acp_tui.ui.render import ThemePalette
from acp_tui.ui.screens.permission import PermissionScreen
from tests.fake_agents import agent_spec
from tests.ui.helpers import make_app, painted, ready, send, turn, until


async def open_dialog(pilot, app, command: str) -> PermissionScreen:  # type: ignore[no-untyped-def]
    await send(pilot, command)
    await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
    screen = app.screen
    assert isinstance(screen, PermissionScreen)
    await until(pilot, lambda: screen.armed)
    await pilot.pause(0.2)
    return screen


async def test_a_12_line_new_file_is_readable_at_80x24(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await open_dialog(pilot, app, "write notes.md 12")
        shown = painted(app)
        for n in range(1, 13):
            assert f"+ line {n} " in shown, f"line {n} is not on screen"
        assert "notes.md  (new file)" in shown
        assert str(tmp_path) not in shown  # paths inside the project are relative
        assert "[y] Allow" in shown and "[n] Reject" in shown
        assert "outside" not in shown
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(app.screen, PermissionScreen))


async def test_page_keys_scroll_the_request_not_the_log(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await turn(pilot, "showcase")
        log = app.log_view
        screen = await open_dialog(pilot, app, "write long.txt 80")
        preview = screen.query_one("#preview", VerticalScroll)
        log_y = log.scroll_y
        assert preview.scroll_y == 0 and preview.max_scroll_y > 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert preview.scroll_y > 0
        assert log.scroll_y == log_y  # the log behind it did not move
        await pilot.press("pageup")
        await pilot.pause()
        assert preview.scroll_y == 0
        await pilot.press("n")


def test_wrapped_diff_rows_keep_their_marker() -> None:
    palette = ThemePalette({}, True)
    long = "word " * 40
    item = {"path": "/p/a.txt", "oldText": "old line\n", "newText": f"{long}\n"}
    diff = _diff(item, palette, "/p")
    assert isinstance(diff, DiffPreview)
    console = Console(width=40, record=True, color_system=None)
    console.print(diff)
    rows = console.export_text().splitlines()
    assert rows[0].startswith("a.txt")
    added = [r for r in rows if "word" in r]
    assert len(added) > 3  # it wrapped
    assert all(r.startswith("+ ") for r in added)
    assert any(r.startswith("- old line") for r in rows)


async def test_a_write_outside_the_project_is_marked_and_reject_preselected(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    app = make_app(agent_spec(), project)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = await open_dialog(pilot, app, f"write {elsewhere / 'x.txt'} 3")
        shown = painted(app)
        assert "⚠ outside project: " in shown
        assert screen.highlighted == 2  # Reject (the scripted options: allow, always, reject)
        assert "▶ [n] Reject" in shown
        await pilot.press("enter")  # Enter takes the preselected Reject
        await until(pilot, lambda: app.session is not None and app.session.status == "idle")
        assert not (elsewhere / "x.txt").exists()
        await until(pilot, lambda: "reject" in painted(app))


async def test_a_command_outside_the_project_is_marked(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        screen = await open_dialog(pilot, app, "run echo hi > /etc/acp-tui-test")
        assert f"⚠ outside {tmp_path.name}: /etc/acp-tui-test" in painted(app)
        assert screen.highlighted == 2
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, PermissionScreen))
        screen = await open_dialog(pilot, app, "run ls -la src")
        assert "outside" not in painted(app)
        assert screen.highlighted == 0  # Allow, as usual
        await pilot.press("n")
