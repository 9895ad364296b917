"""Issue 13, smaller points: prompt history across runs (per project), Ctrl+R,
paste chips. Ctrl+G ($EDITOR) runs the real program on a pty
(tests/ui/test_tui_process.py)."""

from __future__ import annotations

from pathlib import Path

from textual import events

from acp_tui.core.host import Host
from acp_tui.ui.app import AcpApp
from acp_tui.ui.history import PromptHistory, history_path
from acp_tui.ui.screens.history_search import HistorySearchScreen
from tests.fake_agents import agent_spec
from tests.ui.helpers import ready, turn, until


def app_in(cwd: Path) -> AcpApp:
    return AcpApp(agent_spec(), cwd=cwd, host=Host(cancel_grace=2.0))


async def test_prompt_history_is_kept_across_runs_per_project(tmp_path: Path) -> None:
    project, other = tmp_path / "project", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    first = app_in(project)
    async with first.run_test() as pilot:
        await ready(pilot)
        await turn(pilot, "echo remember me")
    again = app_in(project)  # a new run in the same project
    async with again.run_test() as pilot:
        await ready(pilot)
        await pilot.press("up")
        assert again.prompt.text == "echo remember me"
    elsewhere = app_in(other)
    async with elsewhere.run_test() as pilot:
        await ready(pilot)
        await pilot.press("up")
        assert elsewhere.prompt.text == ""  # another project's history
    assert history_path(project) != history_path(other)


def test_the_history_file_stays_bounded(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    history = PromptHistory(limit=5, path=path)
    for n in range(40):
        history.add(f"prompt {n}\nwith a second line")
    assert len(path.read_text().splitlines()) <= 10
    again = PromptHistory(limit=5, path=path)
    assert again.entries == [f"prompt {n}\nwith a second line" for n in range(35, 40)]


async def test_ctrl_r_finds_an_earlier_prompt(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    async with app.run_test() as pilot:
        await ready(pilot)
        for text in ("echo alpha one", "echo beta", "echo alpha two"):
            await turn(pilot, text)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, HistorySearchScreen))
        await pilot.press(*"alpha")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HistorySearchScreen)
        assert screen.matches == ["echo alpha two", "echo alpha one"]  # newest first
        await pilot.press("ctrl+r")  # the next older match
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, HistorySearchScreen))
        assert app.prompt.text == "echo alpha one"
        assert app.focused is app.prompt
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, HistorySearchScreen))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, HistorySearchScreen))
        assert app.prompt.text == "echo alpha one"  # Esc leaves the draft as it was


async def test_a_400_line_paste_is_a_chip_sent_whole_and_expandable(tmp_path: Path) -> None:
    app = app_in(tmp_path)
    pasted = "\n".join(f"log line {n}" for n in range(400))
    async with app.run_test() as pilot:
        await ready(pilot)
        app.prompt.insert("echo look at this ")
        app.post_message(events.Paste(pasted))
        await until(pilot, lambda: "[Pasted text #1 +400 lines]" in app.prompt.text)
        assert app.prompt.text.count("\n") == 0  # one line in the draft, not 400
        await pilot.press("ctrl+f")
        assert app.prompt.text == "echo look at this " + pasted + " "
        await pilot.press("ctrl+z")  # back to the chip
        assert "[Pasted text #1 +400 lines]" in app.prompt.text
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                app.session is not None
                and any(e.kind == "user" for e in app.session.thread.entries)
            ),
        )
        assert app.session is not None
        (user,) = [e for e in app.session.thread.entries if e.kind == "user"]
        assert user.text == "echo look at this " + pasted  # sent whole


async def test_undoing_a_multi_line_paste_does_not_crash(tmp_path: Path) -> None:
    """The undo workaround (prompt_extras.PromptExtras.action_undo; Textual 8.2.8
    raised after Ctrl+F, see the chip test above) keeps a plain paste undoable."""
    app = app_in(tmp_path)
    async with app.run_test() as pilot:
        await ready(pilot)
        app.post_message(events.Paste("one\ntwo\nthree\nfour"))
        await until(pilot, lambda: app.prompt.text.startswith("one"))
        await pilot.press("ctrl+z")
        assert app.prompt.text == ""
        await pilot.press("ctrl+y")
        assert app.prompt.text == "one\ntwo\nthree\nfour"
