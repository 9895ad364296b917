"""The prompt input, driven through the keyboard in a tiny app."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button

from acp_tui.ui.history import HistoryBrowser, PromptHistory
from acp_tui.ui.widgets.command_menu import (
    CommandMenu,
    SlashCommand,
    parse_commands,
    rank_commands,
)
from acp_tui.ui.widgets.prompt_input import PLACEHOLDER, PromptInput

COMMANDS: list[dict[str, Any]] = [
    {"name": "tour", "description": "Everything at once", "input": None},
    {"name": "read", "description": "Read a file", "input": None},
    {"name": "run", "description": "Run a shell command", "input": {"hint": "a shell command"}},
]


class PromptApp(App[None]):
    """The widget docked at the bottom, plus app bindings that record what reached the app."""

    CSS = "#prompt { dock: bottom; }"

    BINDINGS: ClassVar[list[BindingType]] = [
        # Not priority: the input must let Escape through when its menu is closed.
        Binding("escape", "record('escape')", "Cancel turn"),
        # Priority, as the real app must declare it (the Screen binds shift+tab).
        Binding("shift+tab", "record('shift+tab')", "Next mode", priority=True),
        # Not priority: proves the input itself does not swallow these.
        Binding("ctrl+c", "record('ctrl+c')", "Clear / quit"),
        Binding("ctrl+q", "record('ctrl+q')", "Quit"),
    ]

    def __init__(self, history: PromptHistory | None = None, with_button: bool = False) -> None:
        super().__init__()
        self.history = history
        self.with_button = with_button
        self.submitted: list[PromptInput.Submitted] = []
        self.calls: list[str] = []

    def compose(self) -> ComposeResult:
        if self.with_button:
            yield Button("other", id="other")
        yield PromptInput(history=self.history, id="prompt")

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        self.submitted.append(message)

    def action_record(self, name: str) -> None:
        self.calls.append(name)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def texts(self) -> list[str]:
        return [message.text for message in self.submitted]


def is_open(prompt: PromptInput) -> bool:
    """``completion_open`` behind a call, so that mypy does not narrow it between steps."""
    return prompt.completion_open


async def type_text(pilot: Any, text: str) -> None:
    keys = ["space" if ch == " " else ch for ch in text]
    await pilot.press(*keys)
    await pilot.pause()


# ----------------------------------------------------------------- sending


async def test_enter_submits_and_clears() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
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
    app = PromptApp()
    async with app.run_test() as pilot:
        await type_text(pilot, "hi  ")
        await pilot.press("ctrl+j", "ctrl+j", "enter")
        await pilot.pause()
        assert app.texts == ["hi"]


async def test_blank_input_does_not_submit() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        await pilot.press("enter")
        await pilot.press("space", "space", "ctrl+j", "enter")
        await pilot.pause()
        assert app.submitted == []
        assert app.prompt.text == "  \n"  # Enter on blank text does nothing at all
        assert app.prompt.prompt_history.entries == []


async def test_ctrl_j_inserts_newline_then_enter_sends_both_lines() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        await type_text(pilot, "first")
        await pilot.press("ctrl+j")
        await type_text(pilot, "second")
        assert app.prompt.text == "first\nsecond"
        assert app.submitted == []
        await pilot.press("enter")
        await pilot.pause()
        assert app.texts == ["first\nsecond"]


async def test_shift_enter_inserts_newline() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        await type_text(pilot, "a")
        await pilot.press("shift+enter")
        await type_text(pilot, "b")
        await pilot.pause()
        assert app.prompt.text == "a\nb"
        assert app.submitted == []


async def test_newline_replaces_the_selection() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        await type_text(pilot, "abc")
        await pilot.press("shift+left", "ctrl+j")
        await pilot.pause()
        assert app.prompt.text == "ab\n"


async def test_paste_with_newlines_does_not_submit() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        app.prompt.post_message(events.Paste("a\nb"))
        await pilot.pause()
        assert app.prompt.text == "a\nb"
        assert app.submitted == []
        assert app.prompt.cursor_location == (1, 1)
        await pilot.press("enter")
        await pilot.pause()
        assert app.texts == ["a\nb"]


async def test_paste_through_the_app_reaches_the_focused_input() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        app.post_message(events.Paste("x\ny\n"))
        await pilot.pause()
        assert app.prompt.text == "x\ny\n"
        assert app.submitted == []


# ----------------------------------------------------------------- history


async def test_history_up_down_restores_the_draft() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        for text in ("one", "two"):
            await type_text(pilot, text)
            await pilot.press("enter")
        await type_text(pilot, "draft")
        prompt = app.prompt

        await pilot.press("up")
        assert prompt.text == "two"
        assert prompt.cursor_location == (0, 3)
        await pilot.press("up")
        assert prompt.text == "one"
        await pilot.press("up")  # oldest: stays
        assert prompt.text == "one"
        await pilot.press("down")
        assert prompt.text == "two"
        assert prompt.cursor_location == (0, 3)
        await pilot.press("down")
        assert prompt.text == "draft"
        assert prompt.cursor_location == (0, 5)
        await pilot.press("down")  # already at the draft: nothing to recall
        assert prompt.text == "draft"
        assert app.submitted and app.texts == ["one", "two"]


async def test_history_keeps_edits_to_recalled_entries() -> None:
    app = PromptApp(history=PromptHistory(["one", "two"]))
    async with app.run_test() as pilot:
        prompt = app.prompt
        await pilot.press("up")
        await type_text(pilot, "!")
        assert prompt.text == "two!"
        await pilot.press("up", "down")
        assert prompt.text == "two!"
        await pilot.press("down")
        assert prompt.text == ""
        await pilot.press("up", "enter")
        await pilot.pause()
        assert app.texts == ["two!"]
        assert prompt.prompt_history.entries == ["one", "two", "two!"]
        await pilot.press("up", "up")
        assert prompt.text == "two"  # the edit was not written into the history


async def test_up_in_middle_of_multiline_draft_moves_cursor() -> None:
    app = PromptApp(history=PromptHistory(["old"]))
    async with app.run_test() as pilot:
        prompt = app.prompt
        await type_text(pilot, "l1")
        await pilot.press("ctrl+j")
        await type_text(pilot, "l2")
        await pilot.press("ctrl+j")
        await type_text(pilot, "l3")
        assert prompt.cursor_location == (2, 2)
        await pilot.press("up")
        assert prompt.text == "l1\nl2\nl3"
        assert prompt.cursor_location == (1, 2)
        await pilot.press("down")
        assert prompt.cursor_location == (2, 2)
        await pilot.press("down")  # last line, not browsing: plain cursor movement
        assert prompt.text == "l1\nl2\nl3"
        await pilot.press("up", "up")  # now on the first line
        assert prompt.cursor_location[0] == 0
        await pilot.press("up")
        assert prompt.text == "old"
        await pilot.press("down")
        assert prompt.text == "l1\nl2\nl3"


async def test_down_in_middle_of_recalled_multiline_entry_moves_cursor() -> None:
    app = PromptApp(history=PromptHistory(["a\nb\nc"]))
    async with app.run_test() as pilot:
        prompt = app.prompt
        await pilot.press("up")
        assert prompt.text == "a\nb\nc"
        assert prompt.cursor_location == (2, 1)
        await pilot.press("up")  # not the first line: cursor moves
        assert prompt.cursor_location == (1, 1)
        await pilot.press("down", "down")  # back to the last line, then past it
        assert prompt.text == ""


async def test_shift_up_selects_instead_of_recalling() -> None:
    app = PromptApp(history=PromptHistory(["old"]))
    async with app.run_test() as pilot:
        await type_text(pilot, "abc")
        await pilot.press("shift+up")
        await pilot.pause()
        assert app.prompt.text == "abc"
        assert app.prompt.selected_text == "abc"


async def test_up_with_empty_history_keeps_text() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        await type_text(pilot, "abc")
        await pilot.press("up")
        assert app.prompt.text == "abc"
        assert app.prompt.cursor_location == (0, 0)


def test_prompt_history_bounds_and_dedupes() -> None:
    history = PromptHistory(limit=3)
    for text in ("a", "a", "b", "  ", "", "c", "d", "d"):
        history.add(text)
    assert history.entries == ["b", "c", "d"]
    assert len(history) == 3
    history.add("b")
    assert history.entries == ["c", "d", "b"]
    assert PromptHistory(["x", "x", "y"]).entries == ["x", "y"]
    with pytest.raises(ValueError):
        PromptHistory(limit=0)


def walking(browser: HistoryBrowser) -> bool:
    return browser.browsing


def test_history_browser_snapshot_survives_new_entries() -> None:
    history = PromptHistory(["one", "two"])
    browser = HistoryBrowser(history)
    assert browser.newer("draft") is None
    assert browser.older("draft") == "two"
    assert walking(browser)
    history.add("three")  # e.g. another input sharing the history
    assert browser.older("two") == "one"
    assert browser.older("one") is None
    assert browser.newer("one") == "two"
    assert browser.newer("two") == "draft"
    assert not walking(browser)
    assert browser.older("draft") == "three"  # a new walk sees the new entry
    browser.reset()
    assert not walking(browser)


# -------------------------------------------------------------- completion


async def test_slash_completion_flow() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/r")
        assert is_open(prompt)
        menu = prompt.menu
        assert menu is not None and menu.display
        # prefix matches first (agent order), then the substring match
        assert [c.name for c in menu.commands] == ["read", "run", "tour"]
        assert menu.highlighted == 0
        await pilot.press("down")
        assert menu.highlighted == 1
        assert prompt.text == "/r"  # Down moved in the menu, not in history/text
        await pilot.press("tab")
        await pilot.pause()
        assert prompt.text == "/run "
        assert prompt.cursor_location == (0, 5)
        assert not is_open(prompt)
        assert app.focused is prompt
        assert app.submitted == []


async def test_escape_closes_menu_without_reaching_app() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/r")
        assert is_open(prompt)
        await pilot.press("escape")
        await pilot.pause()
        assert not is_open(prompt)
        assert app.calls == []
        assert prompt.text == "/r"
        await pilot.press("escape")
        await pilot.pause()
        assert app.calls == ["escape"]
        # typing again reopens it
        await type_text(pilot, "u")
        assert is_open(prompt)
        assert prompt.menu is not None
        assert [c.name for c in prompt.menu.commands] == ["run"]


async def test_escape_reaches_app_without_commands_or_menu() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        await type_text(pilot, "/r")  # no commands: "/" just types
        assert not is_open(app.prompt)
        assert app.prompt.menu is None
        await pilot.press("escape")
        await pilot.pause()
        assert app.calls == ["escape"]
        assert app.prompt.text == "/r"


async def test_menu_closes_when_nothing_matches_or_no_slash() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/zzz")
        assert not is_open(prompt)
        await pilot.press("backspace", "backspace", "backspace")
        await pilot.pause()
        assert is_open(prompt)  # "/" matches everything
        await pilot.press("backspace")
        await pilot.pause()
        assert not is_open(prompt)
        await type_text(pilot, "x/r")
        assert not is_open(prompt)


async def test_menu_closes_when_cursor_leaves_first_word() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/run ls")
        assert not is_open(prompt)
        await pilot.press("home", "right", "right")
        await pilot.pause()
        assert is_open(prompt)  # cursor back inside "/run"
        assert prompt.menu is not None
        assert [c.name for c in prompt.menu.commands] == ["run"]
        await pilot.press("end")
        await pilot.pause()
        assert not is_open(prompt)


async def test_enter_on_command_without_input_submits() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/to")
        await pilot.press("enter")
        await pilot.pause()
        assert app.texts == ["/tour"]
        assert prompt.text == ""
        assert not is_open(prompt)


async def test_enter_on_command_with_input_completes_only() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/ru")
        await pilot.press("enter")
        await pilot.pause()
        assert app.submitted == []
        assert prompt.text == "/run "
        await type_text(pilot, "ls -la")
        await pilot.press("enter")
        await pilot.pause()
        assert app.texts == ["/run ls -la"]


async def test_keys_typed_faster_than_changed_messages() -> None:
    """Enter queued right behind the keystrokes still sees the fresh menu."""
    app = PromptApp()
    async with app.run_test() as pilot:
        app.prompt.set_commands(COMMANDS)
        for key in ("slash", "t", "o", "enter"):
            app.post_message(events.Key(key, "/" if key == "slash" else key))
        await pilot.pause()
        await pilot.pause()
        assert app.texts == ["/tour"]


async def test_tab_accepts_command_without_input_and_menu_stays_shut() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/t")
        await pilot.press("tab")
        await pilot.pause()
        assert prompt.text == "/tour"
        assert not is_open(prompt)  # not reopened on its own exact match
        await pilot.press("enter")
        await pilot.pause()
        assert app.texts == ["/tour"]


async def test_accept_keeps_arguments_after_the_first_word() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/r ls")
        await pilot.press("home", "right", "right")
        await pilot.pause()
        assert is_open(prompt)
        await pilot.press("down", "tab")  # run
        await pilot.pause()
        assert prompt.text == "/run ls"
        assert prompt.cursor_location == (0, 5)


async def test_tab_reopens_a_dismissed_menu() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/r")
        await pilot.press("escape")
        assert not is_open(prompt)
        await pilot.press("tab")
        await pilot.pause()
        assert is_open(prompt)
        assert app.focused is prompt


async def test_tab_without_completion_moves_focus() -> None:
    app = PromptApp(with_button=True)
    async with app.run_test() as pilot:
        await type_text(pilot, "hi")
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused is app.query_one("#other")
        assert app.prompt.text == "hi"


async def test_menu_up_down_wrap_and_history_untouched() -> None:
    app = PromptApp(history=PromptHistory(["older"]))
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/")
        menu = prompt.menu
        assert menu is not None
        assert [c.name for c in menu.commands] == ["tour", "read", "run"]
        await pilot.press("up")
        assert prompt.text == "/"
        assert menu.highlighted == 2  # wrapped to the last
        await pilot.press("down")
        assert menu.highlighted == 0


async def test_set_commands_never_touches_text() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.prompt
        await type_text(pilot, "/r")
        prompt.set_commands(COMMANDS)
        await pilot.pause()
        assert prompt.text == "/r"
        assert is_open(prompt)  # the open-able menu appears for the text typed
        prompt.set_commands([])
        await pilot.pause()
        assert prompt.text == "/r"
        assert not is_open(prompt)


async def test_click_on_menu_row_accepts_and_keeps_focus() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/r")
        menu = prompt.menu
        assert menu is not None
        # The menu floats just above the input.
        assert menu.region.bottom == prompt.region.y
        assert menu.region.width == prompt.region.width
        await pilot.click(CommandMenu, offset=(3, 2))  # second row: run
        await pilot.pause()
        assert prompt.text == "/run "
        assert app.focused is prompt
        assert not is_open(prompt)


class TopPromptApp(PromptApp):
    CSS = "#prompt { dock: top; }"


async def test_menu_opens_below_when_no_room_above() -> None:
    app = TopPromptApp()
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/")
        assert prompt.region.y == 0
        assert prompt.menu is not None
        assert prompt.menu.region.y == prompt.region.bottom
        assert prompt.menu.region.height == 3 + 2


async def test_menu_follows_the_input_when_it_grows_and_on_resize() -> None:
    app = PromptApp()
    async with app.run_test(size=(40, 20)) as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/")
        menu = prompt.menu
        assert menu is not None
        await pilot.press("end")
        prompt.post_message(events.Paste("\nmore\nlines"))
        await pilot.pause()
        # the cursor left the first line: the menu closed; bring it back
        prompt.move_cursor((0, 1))
        await pilot.pause()
        assert is_open(prompt)
        assert prompt.outer_size.height == 5
        assert menu.region.bottom == prompt.region.y
        await pilot.resize_terminal(30, 16)
        await pilot.pause()
        assert menu.region.bottom == prompt.region.y
        assert menu.region.width == prompt.region.width == 30


async def test_blur_closes_menu() -> None:
    app = PromptApp(with_button=True)
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/r")
        assert is_open(prompt)
        app.query_one("#other").focus()
        await pilot.pause()
        assert not is_open(prompt)
        prompt.set_commands(COMMANDS[:2])  # commands arriving while unfocused
        await pilot.pause()
        assert not is_open(prompt)
        prompt.focus()
        await pilot.pause()
        assert is_open(prompt)  # back to "/r": the menu shows again


async def test_unmount_removes_menu() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.prompt
        prompt.set_commands(COMMANDS)
        await type_text(pilot, "/r")
        menu = prompt.menu
        assert menu is not None and menu.is_attached
        await prompt.remove()
        await pilot.pause()
        assert not menu.is_attached


def test_parse_commands_is_tolerant() -> None:
    parsed = parse_commands(
        [
            {"name": "/tour", "description": " Tour ", "input": None},
            {"name": "run", "description": "Run", "input": {"hint": "cmd"}},
            {"name": "run", "description": "duplicate"},
            {"name": "odd", "input": {"unstructured": True}},
            {"name": ""},
            {"name": "two words"},
            {"description": "no name"},
        ]
    )
    assert parsed == [
        SlashCommand("tour", "Tour", None, False),
        SlashCommand("run", "Run", "cmd", True),
        SlashCommand("odd", "", None, True),
    ]


def test_rank_commands_orders_exact_prefix_substring_fuzzy() -> None:
    commands = [SlashCommand(n) for n in ("rerun", "run", "prune", "runner", "rxn", "tour")]
    names = [c.name for c in rank_commands(commands, "run")]
    assert names == ["run", "runner", "rerun", "prune"]
    fuzzy = ["rerun", "run", "prune", "runner", "rxn"]
    assert [c.name for c in rank_commands(commands, "RN")] == fuzzy
    assert [c.name for c in rank_commands(commands, "")] == [c.name for c in commands]


# ------------------------------------------------------ keys for the app


async def test_shift_tab_reaches_priority_app_binding() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        await type_text(pilot, "keep me")
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.calls == ["shift+tab"]
        assert app.prompt.text == "keep me"
        assert app.focused is app.prompt


async def test_ctrl_c_and_ctrl_q_are_not_swallowed() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        await type_text(pilot, "keep me")
        await pilot.press("ctrl+c")
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.calls == ["ctrl+c", "ctrl+q"]
        assert app.prompt.text == "keep me"
        assert app.focused is app.prompt


async def test_ctrl_c_with_a_selection_copies_instead() -> None:
    """TextArea (8.2.8) binds ctrl+c to copy; it only acts when text is selected."""
    app = PromptApp()
    async with app.run_test() as pilot:
        await type_text(pilot, "abc")
        await pilot.press("shift+home", "ctrl+c")
        await pilot.pause()
        assert app.clipboard == "abc"
        assert app.calls == []
        assert app.prompt.text == "abc"


async def test_escape_with_a_selection_reaches_the_app() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
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
    app = PriorityCtrlCApp()
    async with app.run_test() as pilot:
        app.prompt.set_commands(COMMANDS)
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
    app = PromptApp()
    async with app.run_test(size=(60, 30)) as pilot:
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
    app = PromptApp(history=PromptHistory(["前の"]))
    async with app.run_test(size=(24, 12)) as pilot:
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
