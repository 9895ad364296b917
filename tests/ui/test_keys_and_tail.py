"""Issue 13, points 2 and 3 and the help: Ctrl+C, the tail, End, F1 / ?.

The real app on the real host core against the scripted agent (a subprocess).
"""

from __future__ import annotations

from pathlib import Path

from acp_tui.ui.screens.help import HelpScreen
from tests.fake_agents import agent_spec
from tests.ui.helpers import make_app, painted, ready, screen_text, send, turn, until


async def test_ctrl_c_cancels_a_running_turn_and_never_quits_mid_turn(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hang")
        await until(pilot, lambda: app.session is not None and app.session.status == "running")
        await pilot.press("ctrl+c", "ctrl+c")  # a double tap in the middle of a turn
        await until(pilot, lambda: app.session is not None and app.session.status == "idle")
        assert app.session is not None and app.session.last_stop_reason == "cancelled"
        assert app.is_running  # did not quit
        assert app.return_code is None


async def test_ctrl_c_clears_a_draft_then_twice_on_an_empty_prompt_quits(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt.insert("half a thought")
        await pilot.press("ctrl+c")
        assert app.prompt.text == ""
        await pilot.press("ctrl+c")  # armed: "Press Ctrl+C again to quit"
        assert app.return_code is None
        await pilot.press("ctrl+c")
        await until(pilot, lambda: app.return_code is not None)
    assert app.return_code == 0


async def test_sending_a_prompt_snaps_the_log_to_the_tail(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 20)) as pilot:
        await ready(pilot)
        await turn(pilot, "showcase")
        log = app.log_view
        await pilot.press("pageup", "pageup")
        await until(pilot, lambda: not log.following)
        await turn(pilot, "echo at the bottom")
        assert log.following
        assert log.scroll_y == log.max_scroll_y
        assert "at the bottom" in screen_text(app)


async def test_the_scrollbar_thumb_is_where_the_view_is_when_the_bar_appears(
    tmp_path: Path,
) -> None:
    """The view scrolls to the tail before Textual shows the bar (at the next
    layout); the thumb must not stay at the top (seen in snapshots under load)."""
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 20)) as pilot:
        await ready(pilot)
        await turn(pilot, "showcase")
        log = app.log_view
        bar = log.vertical_scrollbar
        assert log.scroll_y == log.max_scroll_y > 0
        assert bar.position == log.scroll_y
        bottom = log.scroll_y
        log.show_vertical_scrollbar = False  # the bar not shown yet as the view scrolls
        log.scroll_quietly(3)
        assert bar.position == bottom  # Textual left it where it was
        log.show_vertical_scrollbar = True
        assert bar.position == log.scroll_y == 3


async def test_end_on_an_empty_prompt_follows_and_the_hint_names_a_working_key(
    tmp_path: Path,
) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 20)) as pilot:
        await ready(pilot)
        await turn(pilot, "showcase")
        log = app.log_view
        await send(pilot, "slow 2000 0.05")  # output goes on arriving (cancelled at the end)
        await until(pilot, lambda: app.session is not None and app.session.status == "running")
        await pilot.press("pageup", "pageup")
        await until(pilot, lambda: log.new_output_below)
        assert "new output — End to follow" in screen_text(app)
        app.prompt.insert("a draft")
        await pilot.pause()
        assert "new output — Ctrl+End to follow" in screen_text(app)  # End edits the draft
        app.prompt.clear_draft()
        await pilot.pause()
        await pilot.press("end")
        await until(pilot, lambda: log.following)
        assert not log.new_output_below
        await pilot.press("escape")


async def test_expanding_an_entry_does_not_raise_the_new_output_hint(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 20)) as pilot:
        await ready(pilot)
        await turn(pilot, "showcase")
        await turn(pilot, "showcase")
        log = app.log_view
        log.focus()
        await pilot.press("home")
        await until(pilot, lambda: not log.following)
        await pilot.press("j", "j")  # the cursor onto the thought
        await pilot.press("enter")  # expand it
        await pilot.pause()
        await pilot.press("enter")  # and fold it again
        await pilot.pause()
        assert not log.new_output_below
        assert "new output" not in screen_text(app)


async def test_f1_and_question_mark_open_the_help(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        shown = painted(app)
        for words in ("Ctrl+R", "Ctrl+G", "Esc · Ctrl+C", "Esc Esc · /rewind", "Alt+1 … Alt+9"):
            assert words in shown
        await pilot.press("pagedown")  # its PgDn, not the log's
        await pilot.pause()
        assert "Ctrl+L" in painted(app)
        await pilot.press("pagedown", "pagedown")
        await pilot.pause()
        shown = painted(app)
        assert "Ctrl+P" in shown and "/export" in shown and "Agent log" in shown
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, HelpScreen))
        await pilot.press("question_mark")  # on an empty prompt: the help, not a "?"
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        app.prompt.insert("why")
        await pilot.press("question_mark")  # in a draft it is a character
        assert app.prompt.text == "why?"
        assert not isinstance(app.screen, HelpScreen)


async def test_the_welcome_names_the_palette_the_log_key_and_completion(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.pause()
        shown = screen_text(app)
        for words in ("Ctrl+P", "Ctrl+L", "@ to attach a file", "/ for commands", "F1"):
            assert words in shown
        assert all(len(line) <= 80 for line in app.log_view.empty_message.splitlines())
