"""The permission modal (AC-13): keys, mouse, counter, preview and focus hand-back."""

from __future__ import annotations

from typing import Any

import pytest
from rich.syntax import Syntax
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Input, Static, TextArea

from acp_tui.ui.screens.permission import (
    PermissionOptionRow,
    PermissionPrompt,
    PermissionScreen,
    assign_keys,
)

ALL_KINDS = [
    {"optionId": "opt-allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "opt-always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "opt-reject", "name": "Reject", "kind": "reject_once"},
    {"optionId": "opt-never", "name": "Always reject", "kind": "reject_always"},
]
DRAFT = "half-typed draft: fix the [bold] parser"


def make_prompt(options: list[dict[str, str]] | None = None, **kwargs: Any) -> PermissionPrompt:
    return PermissionPrompt(
        request_id="req-1",
        title=kwargs.pop("title", "Write demo-notes.md"),
        tool_kind=kwargs.pop("tool_kind", "edit"),
        options=ALL_KINDS if options is None else options,
        **kwargs,
    )


class PermissionApp(App[None]):
    """A stand-in for the real app: a draft prompt underneath, results recorded."""

    def __init__(self, prompt: PermissionPrompt, *, draft: type[Widget] = Input) -> None:
        super().__init__()
        self.prompt = prompt
        self.draft_type = draft
        self.results: list[str | None] = []
        self.modal: PermissionScreen | None = None

    def compose(self) -> ComposeResult:
        if self.draft_type is TextArea:
            yield TextArea(DRAFT, id="draft")
        else:
            yield Input(value=DRAFT, id="draft")

    def on_mount(self) -> None:
        self.query_one("#draft").focus()

    def open(self) -> PermissionScreen:
        self.modal = PermissionScreen(self.prompt)
        self.push_screen(self.modal, self.results.append)
        return self.modal


def modal_open(app: App[Any]) -> bool:
    return isinstance(app.screen, PermissionScreen)


def focused(app: App[Any]) -> Widget | None:
    return app.focused


def draft_text(widget: Widget) -> str:
    if isinstance(widget, Input):
        return widget.value
    assert isinstance(widget, TextArea)
    return widget.text


def screen_text(app: App[Any]) -> str:
    """What the terminal shows right now, as plain text (one line per row)."""
    # The compositor is private, but it is what gets painted: no markup, no SVG escapes.
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def answer(prompt: PermissionPrompt, *keys: str) -> list[str | None]:
    app = PermissionApp(prompt)
    async with app.run_test(size=(100, 40)) as pilot:
        app.open()
        await pilot.pause()
        assert modal_open(app)
        await pilot.press(*keys)
        await pilot.pause()
        assert not modal_open(app)
    return app.results


# ---------------------------------------------------------------- key map


def test_assign_keys_mnemonics_then_digits() -> None:
    assert assign_keys(ALL_KINDS) == [("y", "1"), ("a", "2"), ("n", "3"), ("N", "4")]
    twice = [
        {"optionId": "a1", "name": "Allow", "kind": "allow_once"},
        {"optionId": "a2", "name": "Allow for this file", "kind": "allow_once"},
        {"optionId": "r1", "name": "Reject", "kind": "reject_once"},
        {"optionId": "x", "name": "Something new", "kind": "future_kind"},
    ]
    assert assign_keys(twice) == [("y", "1"), ("2", "2"), ("n", "3"), ("4", "4")]
    many = [{"optionId": f"o{i}", "name": f"O{i}", "kind": "allow_always"} for i in range(11)]
    keys = assign_keys(many)
    assert keys[0] == ("a", "1")
    assert keys[8] == ("9", "9")
    assert keys[9] == (None, None)
    assert keys[10] == (None, None)


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("y", "opt-allow"),
        ("a", "opt-always"),
        ("n", "opt-reject"),
        ("N", "opt-never"),
        # A kitty-protocol terminal may report shift+n without its text.
        ("shift+n", "opt-never"),
    ],
)
async def test_mnemonic_keys_choose_at_once(key: str, expected: str) -> None:
    assert await answer(make_prompt(), key) == [expected]


@pytest.mark.parametrize(
    ("key", "expected"),
    [("1", "opt-allow"), ("2", "opt-always"), ("3", "opt-reject"), ("4", "opt-never")],
)
async def test_digit_keys_choose_by_position(key: str, expected: str) -> None:
    assert await answer(make_prompt(), key) == [expected]


async def test_a_second_option_of_the_same_kind_gets_its_digit() -> None:
    options = [
        {"optionId": "a1", "name": "Allow", "kind": "allow_once"},
        {"optionId": "a2", "name": "Allow for this session", "kind": "allow_once"},
        {"optionId": "r1", "name": "Reject", "kind": "reject_once"},
    ]
    app = PermissionApp(make_prompt(options))
    async with app.run_test(size=(100, 40)) as pilot:
        app.open()
        await pilot.pause()
        text = screen_text(app)
        assert "[y] Allow" in text
        assert "[2] Allow for this session" in text
        assert "[n] Reject" in text
        await pilot.press("2")
        await pilot.pause()
    assert app.results == ["a2"]
    assert await answer(make_prompt(options), "y") == ["a1"]


async def test_unbound_keys_do_nothing() -> None:
    # "a" has no option here, and "7" is past the last option.
    options = [ALL_KINDS[0], ALL_KINDS[2]]
    app = PermissionApp(make_prompt(options))
    async with app.run_test(size=(100, 40)) as pilot:
        app.open()
        await pilot.pause()
        await pilot.press("a", "N", "7", "x")
        await pilot.pause()
        assert modal_open(app)
        assert app.results == []
        await pilot.press("n")
        await pilot.pause()
    assert app.results == ["opt-reject"]


# ---------------------------------------------------------------- highlight + Enter


async def test_enter_chooses_the_initial_highlight_first_allow_once() -> None:
    options = [ALL_KINDS[2], ALL_KINDS[1], ALL_KINDS[0]]  # reject, always, allow
    assert await answer(make_prompt(options), "enter") == ["opt-allow"]


async def test_initial_highlight_is_the_first_option_without_allow_once() -> None:
    options = [ALL_KINDS[3], ALL_KINDS[1]]
    assert await answer(make_prompt(options), "enter") == ["opt-never"]


async def test_down_enter_chooses_the_next_option() -> None:
    assert await answer(make_prompt(), "down", "enter") == ["opt-always"]


async def test_up_down_stop_at_the_ends() -> None:
    assert await answer(make_prompt(), "up", "up", "enter") == ["opt-allow"]
    assert await answer(make_prompt(), *["down"] * 6, "enter") == ["opt-never"]


async def test_j_k_move_the_highlight() -> None:
    assert await answer(make_prompt(), "j", "j", "j", "k", "enter") == ["opt-reject"]


async def test_highlight_is_shown_on_one_row() -> None:
    app = PermissionApp(make_prompt())
    async with app.run_test(size=(100, 40)) as pilot:
        app.open()
        await pilot.pause()
        rows = list(app.screen.query(PermissionOptionRow))
        assert [row.has_class("-highlighted") for row in rows] == [True, False, False, False]
        await pilot.press("down")
        await pilot.pause()
        assert [row.has_class("-highlighted") for row in rows] == [False, True, False, False]
        assert "▶ [a] Always allow" in screen_text(app)
        assert {row.has_class("-allow") for row in rows[:2]} == {True}
        assert {row.has_class("-reject") for row in rows[2:]} == {True}


# ---------------------------------------------------------------- Esc


async def test_escape_chooses_reject_once() -> None:
    assert await answer(make_prompt(), "escape") == ["opt-reject"]


async def test_escape_falls_back_to_reject_always() -> None:
    options = [ALL_KINDS[0], ALL_KINDS[3]]
    assert await answer(make_prompt(options), "escape") == ["opt-never"]


async def test_escape_without_reject_options_cancels() -> None:
    options = [ALL_KINDS[0], ALL_KINDS[1]]
    app = PermissionApp(make_prompt(options))
    async with app.run_test(size=(100, 40)) as pilot:
        app.open()
        await pilot.pause()
        assert "Esc cancels" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert not modal_open(app)
    assert app.results == [None]


async def test_hint_names_the_keys() -> None:
    app = PermissionApp(make_prompt())
    async with app.run_test(size=(100, 40)) as pilot:
        app.open()
        await pilot.pause()
        assert "y/a/n/N choose · ↑↓ + Enter · Esc rejects" in screen_text(app)


# ---------------------------------------------------------------- mouse


async def test_click_on_an_option_chooses_it() -> None:
    app = PermissionApp(make_prompt())
    async with app.run_test(size=(100, 40)) as pilot:
        app.open()
        await pilot.pause()
        assert await pilot.click("#option-2")
        await pilot.pause()
        assert not modal_open(app)
    assert app.results == ["opt-reject"]


async def test_click_outside_the_options_does_not_answer() -> None:
    app = PermissionApp(make_prompt())
    async with app.run_test(size=(100, 40)) as pilot:
        app.open()
        await pilot.pause()
        await pilot.click("#heading")
        await pilot.click(offset=(0, 0))  # the dimmed backdrop
        await pilot.pause()
        assert modal_open(app)
        assert app.results == []


# ---------------------------------------------------------------- content


async def test_title_kind_locations_and_option_names_are_shown_verbatim() -> None:
    options = [
        {"optionId": "o1", "name": "Allow [bold]this[/] once", "kind": "allow_once"},
        {"optionId": "o2", "name": "Yes, and don't ask again for `rm`", "kind": "allow_always"},
        {"optionId": "o3", "name": "No — tell the agent what to do", "kind": "reject_once"},
    ]
    prompt = make_prompt(
        options,
        title="Run `rm -rf build/[old]`",
        tool_kind="execute",
        locations=["src/app.py:12", "README.md:3"],
    )
    app = PermissionApp(prompt)
    async with app.run_test(size=(100, 40)) as pilot:
        app.open()
        await pilot.pause()
        text = screen_text(app)
    assert "Permission requested" in text
    assert "execute" in text
    assert "Run `rm -rf build/[old]`" in text
    assert "src/app.py:12" in text
    assert "README.md:3" in text
    assert "[y] Allow [bold]this[/] once" in text
    assert "[a] Yes, and don't ask again for `rm`" in text
    assert "[n] No — tell the agent what to do" in text


async def test_counter_shows_position_and_follows_update_total() -> None:
    app = PermissionApp(make_prompt(position=2, total=3))
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.open()
        await pilot.pause()
        assert "2 of 3" in screen_text(app)
        screen.update_total(4)
        await pilot.pause()
        text = screen_text(app)
        assert "2 of 4" in text
        assert "2 of 3" not in text
        assert screen.total == 4


async def test_counter_is_hidden_for_a_single_request_until_more_queue() -> None:
    app = PermissionApp(make_prompt())
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.open()
        await pilot.pause()
        assert " of " not in screen_text(app)
        assert str(screen.query_one("#counter", Static).content) == ""
        screen.update_total(2)
        await pilot.pause()
        assert "1 of 2" in screen_text(app)


async def test_preview_renderable_is_shown() -> None:
    diff = Syntax("-old line\n+new line: hello preview\n", "diff", theme="ansi_dark")
    app = PermissionApp(make_prompt(preview=diff))
    async with app.run_test(size=(100, 40)) as pilot:
        app.open()
        await pilot.pause()
        text = screen_text(app)
        assert "+new line: hello preview" in text
        assert "-old line" in text
        assert "PgUp/PgDn scroll" in text


async def test_tall_preview_scrolls_and_options_stay_visible_at_60x20() -> None:
    body = "\n".join(f"$ step {i:03}" for i in range(200))
    app = PermissionApp(make_prompt(preview=Text(body), position=1, total=3))
    async with app.run_test(size=(60, 20)) as pilot:
        screen = app.open()
        await pilot.pause()
        text = screen_text(app)
        for line in ("[y] Allow", "[a] Always allow", "[n] Reject", "[N] Always reject"):
            assert line in text
        assert "1 of 3" in text
        assert "Esc rejects" in text
        assert "$ step 000" in text
        preview = screen.query_one("#preview", VerticalScroll)
        assert preview.max_scroll_y > 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert preview.scroll_y > 0
        assert "$ step 000" not in screen_text(app)
        await pilot.press("pageup")
        await pilot.pause()
        assert preview.scroll_y == 0
        # Scrolling the preview did not answer.
        assert app.results == []
        await pilot.press("enter")
        await pilot.pause()
    assert app.results == ["opt-allow"]


async def test_no_preview_means_no_scroll_region() -> None:
    app = PermissionApp(make_prompt())
    async with app.run_test(size=(60, 20)) as pilot:
        screen = app.open()
        await pilot.pause()
        assert not screen.query("#preview")
        await pilot.press("pagedown")
        await pilot.pause()
        assert modal_open(app)


# ---------------------------------------------------------------- focus + draft


@pytest.mark.parametrize("draft", [Input, TextArea])
async def test_focus_returns_to_the_draft_untouched(draft: type[Widget]) -> None:
    app = PermissionApp(make_prompt(), draft=draft)
    async with app.run_test(size=(100, 40)) as pilot:
        widget = app.query_one("#draft")
        assert focused(app) is widget
        app.open()
        await pilot.pause()
        # Nothing on the modal takes focus; keys go to the modal, not the draft.
        assert focused(app) is None
        await pilot.press("j", "k", "down")
        await pilot.press("a")
        await pilot.pause()
        assert app.results == ["opt-always"]
        assert focused(app) is widget
        assert draft_text(widget) == DRAFT
        # Typing goes to the draft again.
        await pilot.press("!")
        await pilot.pause()
        assert "!" in draft_text(widget)


async def test_push_screen_wait_in_a_worker() -> None:
    outcomes: list[str | None] = []

    class WaitingApp(PermissionApp):
        async def ask(self) -> None:
            outcomes.append(await self.push_screen_wait(PermissionScreen(self.prompt)))

    app = WaitingApp(make_prompt())
    async with app.run_test(size=(100, 40)) as pilot:
        worker = app.run_worker(app.ask(), exclusive=True)
        await pilot.pause()
        assert modal_open(app)
        await pilot.press("N")
        await worker.wait()
        await pilot.pause()
    assert outcomes == ["opt-never"]


async def test_answers_only_once() -> None:
    app = PermissionApp(make_prompt())
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.open()
        await pilot.pause()
        screen.action_choose_highlighted()
        screen.action_escape()
        await pilot.pause()
    assert app.results == ["opt-allow"]


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_renders_in_dark_and_light_themes(theme: str) -> None:
    app = PermissionApp(make_prompt(preview=Text("echo hi"), position=1, total=2))
    async with app.run_test(size=(60, 20)) as pilot:
        app.theme = theme
        app.open()
        await pilot.pause()
        text = screen_text(app)
        assert "[y] Allow" in text
        assert "echo hi" in text
        row = app.screen.query_one("#option-0", PermissionOptionRow)
        other = app.screen.query_one("#option-1", PermissionOptionRow)
        assert row.styles.background != other.styles.background


async def test_many_locations_are_summarised() -> None:
    locations = [f"src/file_{i}.py:{i}" for i in range(10)]
    app = PermissionApp(make_prompt(locations=locations))
    async with app.run_test(size=(100, 40)) as pilot:
        app.open()
        await pilot.pause()
        text = screen_text(app)
    assert "src/file_0.py:0" in text
    assert "src/file_2.py:2" in text
    assert "src/file_3.py:3" not in text
    assert "… and 7 more" in text


async def test_an_unarmed_dialog_ignores_answers_and_hands_typing_back() -> None:
    typed: list[str] = []
    prompt = make_prompt()
    app = PermissionApp(prompt)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = PermissionScreen(
            prompt, arm_after=1.5, on_early_key=lambda key: typed.append(key.character or "")
        )
        app.push_screen(screen, app.results.append)
        await pilot.pause()
        assert not screen.armed
        await pilot.press("y", "enter", "escape", "a")
        assert app.results == [] and app.screen is screen
        assert typed == ["y", "a"]
        assert "pause" in screen_text(app)
        await pilot.pause(1.6)
        assert screen.armed
        await pilot.press("y")
        await pilot.pause()
        assert app.results == ["opt-allow"]


@pytest.mark.parametrize("kind", ["read", "edit", "delete", "execute", "switch_mode", "bogus"])
async def test_the_dialog_and_the_log_show_one_icon_for_one_tool_call(kind: str) -> None:
    """One home for tool kinds (acp_tui.core.model.tool_text): the dialog's
    header and the log's line for the same call carry the same icon."""
    from acp_tui.core import ToolCallEntry, kind_icon, kind_label
    from acp_tui.ui.render import EntryRenderer, RenderOptions, RenderStyles

    entry = ToolCallEntry(tool_call_id="t1", title="The call", tool_kind=kind)
    options = RenderOptions(width=80, styles=RenderStyles.default())
    strips = EntryRenderer().render(entry, options)
    log_line = "".join(segment.text for segment in strips[0])
    app = PermissionApp(make_prompt(title="The call", tool_kind=kind))
    async with app.run_test(size=(100, 40)) as pilot:
        app.open()
        await pilot.pause()
        text = screen_text(app)
    icon = kind_icon(kind)
    assert log_line.startswith(f" {icon} The call")
    assert f"{icon} {kind_label(kind)}  The call" in text
