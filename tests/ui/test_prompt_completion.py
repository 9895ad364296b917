"""The prompt's slash-command menu: opening, ranking, accepting, where it floats."""

from __future__ import annotations

from textual import events

from acp_tui.ui.history import PromptHistory
from acp_tui.ui.widgets.command_menu import (
    CommandMenu,
    SlashCommand,
    parse_commands,
    rank_commands,
)
from tests.ui.prompt_harness import COMMANDS, PromptApp, is_open, prompt_app, type_text

# -------------------------------------------------------------- completion


async def test_slash_completion_flow() -> None:
    async with prompt_app(commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
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
    async with prompt_app(commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
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
    async with prompt_app() as (app, pilot):
        await type_text(pilot, "/r")  # no commands: "/" just types
        assert not is_open(app.prompt)
        assert app.prompt.menu is None
        await pilot.press("escape")
        await pilot.pause()
        assert app.calls == ["escape"]
        assert app.prompt.text == "/r"


async def test_menu_closes_when_nothing_matches_or_no_slash() -> None:
    async with prompt_app(commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
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
    async with prompt_app(commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
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
    async with prompt_app(commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
        await type_text(pilot, "/to")
        await pilot.press("enter")
        await pilot.pause()
        assert app.texts == ["/tour"]
        assert prompt.text == ""
        assert not is_open(prompt)


async def test_enter_on_command_with_input_completes_only() -> None:
    async with prompt_app(commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
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
    async with prompt_app(commands=COMMANDS) as (app, pilot):
        for key in ("slash", "t", "o", "enter"):
            app.post_message(events.Key(key, "/" if key == "slash" else key))
        await pilot.pause()
        await pilot.pause()
        assert app.texts == ["/tour"]


async def test_tab_accepts_command_without_input_and_menu_stays_shut() -> None:
    async with prompt_app(commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
        await type_text(pilot, "/t")
        await pilot.press("tab")
        await pilot.pause()
        assert prompt.text == "/tour"
        assert not is_open(prompt)  # not reopened on its own exact match
        await pilot.press("enter")
        await pilot.pause()
        assert app.texts == ["/tour"]


async def test_accept_keeps_arguments_after_the_first_word() -> None:
    async with prompt_app(commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
        await type_text(pilot, "/r ls")
        await pilot.press("home", "right", "right")
        await pilot.pause()
        assert is_open(prompt)
        await pilot.press("down", "tab")  # run
        await pilot.pause()
        assert prompt.text == "/run ls"
        assert prompt.cursor_location == (0, 5)


async def test_tab_reopens_a_dismissed_menu() -> None:
    async with prompt_app(commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
        await type_text(pilot, "/r")
        await pilot.press("escape")
        assert not is_open(prompt)
        await pilot.press("tab")
        await pilot.pause()
        assert is_open(prompt)
        assert app.focused is prompt


async def test_tab_without_completion_moves_focus() -> None:
    async with prompt_app(with_button=True) as (app, pilot):
        await type_text(pilot, "hi")
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused is app.query_one("#other")
        assert app.prompt.text == "hi"


async def test_menu_up_down_wrap_and_history_untouched() -> None:
    async with prompt_app(history=PromptHistory(["older"]), commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
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
    async with prompt_app() as (app, pilot):
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
    async with prompt_app(commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
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
    async with prompt_app(app=TopPromptApp(), commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
        await type_text(pilot, "/")
        assert prompt.region.y == 0
        assert prompt.menu is not None
        assert prompt.menu.region.y == prompt.region.bottom
        assert prompt.menu.region.height == 3 + 2


async def test_menu_follows_the_input_when_it_grows_and_on_resize() -> None:
    async with prompt_app(commands=COMMANDS, size=(40, 20)) as (app, pilot):
        prompt = app.prompt
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
    async with prompt_app(with_button=True, commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
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
    async with prompt_app(commands=COMMANDS) as (app, pilot):
        prompt = app.prompt
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
