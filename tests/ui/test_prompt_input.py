"""The prompt input, driven through the keyboard in a tiny app (tests/ui/prompt_harness.py):
sending, the keys it leaves to the app, its look."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType

from acp_tui.ui.history import PromptHistory
from acp_tui.ui.widgets.prompt_input import PLACEHOLDER
from tests.ui.prompt_harness import COMMANDS, PromptApp, is_open, prompt_app, type_text

# ----------------------------------------------------------------- sending


async def test_enter_submits_and_clears() -> None:
    async with prompt_app() as (app, pilot):
        await type_text(pilot, "hello world")
        await pilot.press("enter")
        await pilot.pause()
        assert app.texts == ["hello world"]
        assert app.submitted[0].input is app.prompt
        assert app.submitted[0].control is app.prompt
        assert app.prompt.text == ""
        assert app.prompt.prompt_history.entries == ["hello world"]
        assert app.focused is app.prompt


async def test_trailing_whitespace_is_stripped() -> None:
    async with prompt_app() as (app, pilot):
        await type_text(pilot, "hi  ")
        await pilot.press("ctrl+j", "ctrl+j", "enter")
        await pilot.pause()
        assert app.texts == ["hi"]


async def test_blank_input_does_not_submit() -> None:
    async with prompt_app() as (app, pilot):
        await pilot.press("enter")
        await pilot.press("space", "space", "ctrl+j", "enter")
        await pilot.pause()
        assert app.submitted == []
        assert app.prompt.text == "  \n"  # Enter on blank text does nothing at all
        assert app.prompt.prompt_history.entries == []


async def test_ctrl_j_inserts_newline_then_enter_sends_both_lines() -> None:
    async with prompt_app() as (app, pilot):
        await type_text(pilot, "first")
        await pilot.press("ctrl+j")
        await type_text(pilot, "second")
        assert app.prompt.text == "first\nsecond"
        assert app.submitted == []
        await pilot.press("enter")
        await pilot.pause()
        assert app.texts == ["first\nsecond"]


async def test_shift_enter_inserts_newline() -> None:
    async with prompt_app() as (app, pilot):
        await type_text(pilot, "a")
        await pilot.press("shift+enter")
        await type_text(pilot, "b")
        await pilot.pause()
        assert app.prompt.text == "a\nb"
        assert app.submitted == []


async def test_newline_replaces_the_selection() -> None:
    async with prompt_app() as (app, pilot):
        await type_text(pilot, "abc")
        await pilot.press("shift+left", "ctrl+j")
        await pilot.pause()
        assert app.prompt.text == "ab\n"


async def test_paste_with_newlines_does_not_submit() -> None:
    async with prompt_app() as (app, pilot):
        app.prompt.post_message(events.Paste("a\nb"))
        await pilot.pause()
        assert app.prompt.text == "a\nb"
        assert app.submitted == []
        assert app.prompt.cursor_location == (1, 1)
        await pilot.press("enter")
        await pilot.pause()
        assert app.texts == ["a\nb"]


async def test_paste_through_the_app_reaches_the_focused_input() -> None:
    async with prompt_app() as (app, pilot):
        app.post_message(events.Paste("x\ny\n"))
        await pilot.pause()
        assert app.prompt.text == "x\ny\n"
        assert app.submitted == []


# ------------------------------------------------------ keys for the app


async def test_shift_tab_reaches_priority_app_binding() -> None:
    async with prompt_app() as (app, pilot):
        await type_text(pilot, "keep me")
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.calls == ["shift+tab"]
        assert app.prompt.text == "keep me"
        assert app.focused is app.prompt


async def test_ctrl_c_and_ctrl_q_are_not_swallowed() -> None:
    async with prompt_app() as (app, pilot):
        await type_text(pilot, "keep me")
        await pilot.press("ctrl+c")
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.calls == ["ctrl+c", "ctrl+q"]
        assert app.prompt.text == "keep me"
        assert app.focused is app.prompt


async def test_ctrl_c_with_a_selection_copies_instead() -> None:
    """TextArea (8.2.8) binds ctrl+c to copy; it only acts when text is selected."""
    async with prompt_app() as (app, pilot):
        await type_text(pilot, "abc")
        await pilot.press("shift+home", "ctrl+c")
        await pilot.pause()
        assert app.clipboard == "abc"
        assert app.calls == []
        assert app.prompt.text == "abc"


async def test_escape_with_a_selection_reaches_the_app() -> None:
    async with prompt_app() as (app, pilot):
        await type_text(pilot, "abc")
        await pilot.press("shift+left", "escape")
        await pilot.pause()
        assert app.calls == ["escape"]


class PriorityCtrlCApp(PromptApp):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "clear_or_quit", priority=True),
    ]

    def action_clear_or_quit(self) -> None:
        self.calls.append("ctrl+c")
        self.prompt.clear_draft()


async def test_priority_ctrl_c_app_clears_the_draft() -> None:
    async with prompt_app(app=PriorityCtrlCApp(), commands=COMMANDS) as (app, pilot):
        await type_text(pilot, "/r")
        assert is_open(app.prompt)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.calls == ["ctrl+c"]
        assert app.prompt.text == ""
        assert not is_open(app.prompt)
        await pilot.press("ctrl+z")  # the clear is undoable
        await pilot.pause()
        assert app.prompt.text == "/r"


# ------------------------------------------------------------ appearance


async def test_height_grows_then_scrolls_and_placeholder() -> None:
    async with prompt_app(size=(60, 30)) as (app, pilot):
        prompt = app.prompt
        assert prompt.placeholder == PLACEHOLDER
        assert prompt.soft_wrap
        assert prompt.show_line_numbers is False
        assert prompt.outer_size.height == 3  # one line plus the border
        await type_text(pilot, "a")
        for _ in range(3):
            await pilot.press("ctrl+j", "b")
        await pilot.pause()
        assert prompt.outer_size.height == 6
        for _ in range(12):
            await pilot.press("ctrl+j", "c")
        await pilot.pause()
        assert prompt.outer_size.height == 10  # eight lines, then it scrolls
        assert prompt.max_scroll_y > 0
        await pilot.press("enter")
        await pilot.pause()
        assert prompt.outer_size.height == 3


async def test_wide_cjk_and_emoji_line() -> None:
    async with prompt_app(history=PromptHistory(["前の"]), size=(24, 12)) as (app, pilot):
        prompt = app.prompt
        wide = "日本語のテキスト🎉👍🏽 mixed ｗｉｄｅ 文字列とemoji👨‍👩‍👧 end"
        prompt.post_message(events.Paste(wide))
        await pilot.pause()
        assert prompt.text == wide
        assert prompt.outer_size.height > 3  # soft-wrapped onto several rows
        await pilot.press("up")  # a wrapped row, not the first: cursor moves
        assert prompt.text == wide
        await pilot.press("left", "backspace", "end", "home", "up", "up", "up", "up")
        await pilot.pause()
        assert prompt.text == "前の"  # reached the first row, then recalled
        await pilot.press("down")
        edited = prompt.text
        assert edited != wide and len(edited) == len(wide) - 1
        await pilot.press("enter")
        await pilot.pause()
        assert app.texts == [edited]
