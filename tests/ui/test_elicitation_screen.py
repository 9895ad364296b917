"""The elicitation modals, driven by keys (Pilot): the form built from a
requestedSchema (every field type, every validation message, accept / decline /
cancel / withdraw), and the url-mode screen (open, copy, complete). 80x24 and
wide."""

from __future__ import annotations

import os
import webbrowser
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Button, Checkbox, Input, RadioSet, SelectionList, Static

from acp_tui.core.model.elicitation_form import FormSchemaError
from acp_tui.ui.screens.elicitation import ElicitationFormScreen
from acp_tui.ui.screens.elicitation_fields import FieldBlock
from acp_tui.ui.screens.elicitation_url import UrlElicitationScreen
from acp_tui.ui.themes import DEFAULT_THEME, register_themes
from tests.waiting import until

SIZES = [(80, 24), (120, 40)]
DRAFT = "half-typed prompt"
MESSAGE = "The deploy needs a few details before it can start."

#: One field of every type, in the order Tab visits them.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "minLength": 2, "maxLength": 8},
        "email": {"type": "string", "title": "Email", "format": "email"},
        "day": {"type": "string", "title": "Day", "format": "date", "default": "2026-12-24"},
        "replicas": {"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 10,
                     "default": 3},
        "ratio": {"type": "number", "title": "Ratio", "minimum": 0, "maximum": 1},
        "notify": {"type": "boolean", "title": "Notify the team", "default": True},
        "region": {"type": "string", "title": "Region", "oneOf": [
            {"const": "eu", "title": "Europe"}, {"const": "us", "title": "United States"}]},
        "checks": {"type": "array", "title": "Checks", "minItems": 1, "maxItems": 2,
                   "items": {"anyOf": [{"const": "lint", "title": "Lint"},
                                       {"const": "unit", "title": "Unit tests"},
                                       {"const": "e2e", "title": "End-to-end"}]},
                   "default": ["unit"]},
    },
    "required": ["name", "email", "region", "checks"],
}  # fmt: skip


class Host(App[None]):
    """A stand-in for the real app: a draft underneath, the answers recorded."""

    def __init__(self) -> None:
        super().__init__()
        register_themes(self)
        self.theme = DEFAULT_THEME
        self.results: list[dict[str, Any] | None] = []

    def compose(self) -> ComposeResult:
        yield Input(value=DRAFT, id="draft")

    def on_mount(self) -> None:
        self.query_one("#draft").focus()

    def open(self, screen: Any) -> Any:
        self.push_screen(screen, self.results.append)
        return screen


async def open_form(
    pilot: Pilot[Any], schema: dict[str, Any] = SCHEMA, **kwargs: Any
) -> ElicitationFormScreen:
    app = pilot.app
    assert isinstance(app, Host)
    screen = app.open(ElicitationFormScreen(MESSAGE, schema, agent="Claude Code", **kwargs))
    await pilot.pause()
    return screen  # type: ignore[no-any-return]


async def type_text(pilot: Pilot[Any], text: str) -> None:
    await pilot.press(*("space" if c == " " else c for c in text))


def error_of(screen: ElicitationFormScreen, name: str) -> str:
    return screen.block(name).error


def editor(screen: ElicitationFormScreen, name: str) -> Any:
    return screen.block(name).editor


async def fill_required(pilot: Pilot[Any], screen: ElicitationFormScreen) -> None:
    """Keys only: a name, an email, Europe; the checks keep their default."""
    assert pilot.app.focused is editor(screen, "name")
    await type_text(pilot, "Ada")
    await pilot.press("tab")
    await type_text(pilot, "ada@example.com")
    region = editor(screen, "region")
    region.focus()
    await pilot.press("space")  # the first option is highlighted: Europe
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
async def test_accept_sends_the_content_in_the_acp_shape(size: tuple[int, int]) -> None:
    app = Host()
    async with app.run_test(size=size) as pilot:
        screen = await open_form(pilot)
        await fill_required(pilot, screen)
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results == [
        {
            "action": "accept",
            "content": {
                "name": "Ada",
                "email": "ada@example.com",
                "day": "2026-12-24",
                "replicas": 3,
                "notify": True,
                "region": "eu",
                "checks": ["unit"],
            },
        }
    ]


@pytest.mark.parametrize("size", SIZES)
async def test_required_fields_are_marked_next_to_the_field_and_nothing_is_sent(
    size: tuple[int, int],
) -> None:
    app = Host()
    async with app.run_test(size=size) as pilot:
        screen = await open_form(pilot)
        editor(screen, "checks").deselect_all()
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.results == [] and app.screen is screen
        assert error_of(screen, "name") == "Required."
        assert error_of(screen, "email") == "Required."
        assert error_of(screen, "region") == "Required."
        assert error_of(screen, "checks") == "Choose at least 1."
        assert error_of(screen, "day") == "" and error_of(screen, "notify") == ""
        # The message is on screen, under its field, and the first one has the focus.
        name = screen.block("name")
        message = name.query_one(".field-error", Static)
        assert message.display and str(message.render()) == "✗ Required."
        assert message.region.y > name.editor.region.y
        assert app.focused is name.editor
        # Fixing a field clears its message as it changes.
        await type_text(pilot, "Ada")
        assert error_of(screen, "name") == ""
        assert not message.display
        # The buttons stay on screen at any size (the fields scroll).
        buttons = screen.query_one("#buttons")
        assert 0 <= buttons.region.y < size[1]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("name", "A", "Must be 2–8 characters."),
        ("name", "Adalberta", "Must be 2–8 characters."),
        ("email", "ada@", "Must be an email address, like name@example.com."),
        ("day", "24.12.2026", "Must be a date, like 2026-12-02."),
        ("replicas", "0", "Must be from 1 to 10."),
        ("replicas", "11", "Must be from 1 to 10."),
        ("ratio", "1.5", "Must be from 0 to 1."),
    ],
)
async def test_each_text_rule_shows_its_message(name: str, text: str, message: str) -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await fill_required(pilot, screen)
        field = editor(screen, name)
        field.focus()
        field.value = ""
        await type_text(pilot, text)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.results == []
        assert error_of(screen, name) == message
        assert app.focused is field


async def test_leaving_a_text_field_checks_it_and_number_fields_take_only_numbers() -> None:
    app = Host()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_form(pilot)
        await pilot.press("tab")
        await type_text(pilot, "not-an-email")
        await pilot.press("tab")  # leaving a field that holds something checks it
        await pilot.pause()
        assert error_of(screen, "email") == "Must be an email address, like name@example.com."
        assert error_of(screen, "name") == ""  # empty: "Required" waits for accepting
        replicas = editor(screen, "replicas")
        replicas.focus()
        replicas.value = ""
        await type_text(pilot, "1x2")  # an integer field refuses the x
        assert replicas.value == "12"
        ratio = editor(screen, "ratio")
        ratio.focus()
        await type_text(pilot, "0.5")
        assert ratio.value == "0.5"


async def test_enter_moves_to_the_next_field_and_accepts_on_the_last() -> None:
    schema = {
        "properties": {
            "first": {"type": "string"},
            "second": {"type": "integer"},
        },
        "required": ["first"],
    }
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot, schema)
        await type_text(pilot, "one")
        await pilot.press("enter")
        assert app.focused is editor(screen, "second")
        assert app.results == []
        await type_text(pilot, "2")
        await pilot.press("enter")
        await pilot.pause()
    assert app.results == [{"action": "accept", "content": {"first": "one", "second": 2}}]


@pytest.mark.parametrize("size", SIZES)
async def test_boolean_choice_and_multi_select_by_keyboard(size: tuple[int, int]) -> None:
    app = Host()
    async with app.run_test(size=size) as pilot:
        screen = await open_form(pilot)
        await fill_required(pilot, screen)
        notify = editor(screen, "notify")
        assert isinstance(notify, Checkbox) and notify.value
        notify.focus()
        await pilot.press("space")
        assert not notify.value
        region = editor(screen, "region")
        assert isinstance(region, RadioSet)
        region.focus()
        await pilot.press("down", "space")  # United States; the label is the title
        assert region.pressed_button is not None
        assert str(region.pressed_button.label) == "United States"
        checks = editor(screen, "checks")
        assert isinstance(checks, SelectionList)
        checks.focus()
        await pilot.press("space")  # Lint on (the cursor starts on the first option)
        await pilot.press("down", "down", "space")  # End-to-end on: three is too many
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert error_of(screen, "checks") == "Choose at most 2."
        await pilot.press("space")  # End-to-end off again: the message goes
        assert error_of(screen, "checks") == ""
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results[0] is not None
    content = app.results[0]["content"]
    assert content["notify"] is False
    assert content["region"] == "us"
    assert content["checks"] == ["lint", "unit"]  # in the schema's order


@pytest.mark.parametrize("size", SIZES)
async def test_decline_cancel_and_the_buttons(size: tuple[int, int]) -> None:
    for key, action in [("ctrl+n", "decline"), ("escape", "cancel")]:
        app = Host()
        async with app.run_test(size=size) as pilot:
            await open_form(pilot)
            await type_text(pilot, "Ada")  # a typed field does not keep Esc or ^N
            await pilot.press(key)
            await pilot.pause()
            assert app.focused is app.query_one("#draft")  # focus back on the draft
            assert app.query_one("#draft", Input).value == DRAFT
        assert app.results == [{"action": action}]
    app = Host()
    async with app.run_test(size=size) as pilot:
        screen = await open_form(pilot)
        await pilot.click(screen.query_one("#decline", Button))
        await pilot.pause()
    assert app.results == [{"action": "decline"}]


async def test_tab_reaches_the_buttons_and_enter_presses_them() -> None:
    schema = {"properties": {"only": {"type": "boolean", "title": "Sure?"}}}
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot, schema)
        assert app.focused is editor(screen, "only")
        await pilot.press("tab")
        assert app.focused is screen.query_one("#accept", Button)
        await pilot.press("enter")
        await pilot.pause()
    assert app.results == [{"action": "accept", "content": {"only": False}}]


async def test_withdraw_closes_it_without_an_answer() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        screen.withdraw()
        await pilot.pause()
        assert app.screen is not screen
        screen.withdraw()  # twice is harmless
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results == [None]


async def test_a_required_field_it_cannot_show_blocks_accepting_only() -> None:
    schema = {
        "properties": {
            "color": {"type": "_vendor.color", "title": "Color"},
            "note": {"type": "string"},
        },
        "required": ["color"],
    }
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot, schema)
        assert screen.query_one("#accept", Button).disabled
        text = str(screen.block("color").query_one(".field-unsupported", Static).render())
        assert "cannot show a field of type '_vendor.color'" in text
        assert "A required field cannot be shown" in str(screen.query_one("#hint").render())
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.results == []
        await pilot.press("ctrl+n")
        await pilot.pause()
    assert app.results == [{"action": "decline"}]
    with pytest.raises(FormSchemaError):
        ElicitationFormScreen(MESSAGE, {"properties": "nope"})


async def test_keys_typed_as_it_appears_go_back_to_the_draft() -> None:
    early: list[str] = []

    def keep(event: events.Key) -> None:
        early.append(event.character or "")

    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot, arm_after=1.5, on_early_key=keep)
        assert app.focused is None and not screen.armed
        await type_text(pilot, "ok")
        await pilot.press("enter", "ctrl+s")
        assert early == ["o", "k"]
        assert app.results == []
        assert "You were typing" in str(screen.query_one("#hint").render())
        await until(lambda: app.focused is not None, 10, poll=0.1, pause=pilot.pause)
        assert screen.armed and app.focused is editor(screen, "name")
        assert editor(screen, "name").value == ""


async def test_agent_text_is_shown_as_text() -> None:
    schema = {"properties": {"x": {"type": "string", "title": "[b]bold[/b]\x1b[2J"}}}
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = ElicitationFormScreen("[red]hi[/red]\x1b]52;c;AAAA\x07 there", schema)
        app.open(screen)
        await pilot.pause()
        message = str(screen.query_one("#message", Static).render())
        assert message.startswith("[red]hi[/red]") and "\x1b" not in message
        label = str(screen.query_one(FieldBlock).query_one(".field-label", Static).render())
        assert label.startswith("[b]bold[/b]") and "\x1b" not in label


async def test_agent_text_leaves_no_escape_remnants() -> None:
    """One sanitizer (the core's): a colour sequence is dropped whole, not
    left on screen as "[31m" with its ESC blanked out."""
    schema = {"properties": {"x": {"type": "string"}}}
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = ElicitationFormScreen("\x1b[31mred\x1b[0m alert\x07", schema)
        app.open(screen)
        await pilot.pause()
        assert str(screen.query_one("#message", Static).render()) == "red alert␇"


# -- url mode -----------------------------------------------------------------------------------

URL = "https://login.example.com/device?code=ABCD-1234"


async def open_url_screen(
    pilot: Pilot[Any], url: str = URL, consents: list[int] | None = None
) -> UrlElicitationScreen:
    app = pilot.app
    assert isinstance(app, Host)

    def consented() -> None:
        if consents is not None:
            consents.append(1)

    screen = app.open(
        UrlElicitationScreen(
            "Sign in to your account to continue.", url, agent="Claude Code", on_consent=consented
        )
    )
    await pilot.pause()
    return screen  # type: ignore[no-any-return]


@pytest.fixture
def browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$BROWSER is a real program that records the URL it is given (webbrowser
    reads $BROWSER when it first looks for browsers)."""
    record = tmp_path / "opened"
    script = tmp_path / "fake-browser"
    script.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{record}"\n')
    script.chmod(0o755)
    monkeypatch.setenv("BROWSER", f"{script} %s")
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    monkeypatch.setattr(webbrowser, "_browsers", {})
    return record


@pytest.mark.parametrize("size", SIZES)
async def test_url_mode_shows_the_host_opens_the_browser_and_waits_for_complete(
    size: tuple[int, int], browser: Path
) -> None:
    consents: list[int] = []
    app = Host()
    async with app.run_test(size=size) as pilot:
        screen = await open_url_screen(pilot, consents=consents)
        host = str(screen.query_one("#host", Static).render())
        assert host == "It goes to login.example.com:"
        assert str(screen.query_one("#url", Static).render()) == URL
        assert app.focused is None  # nothing takes focus: the draft keeps its keys
        await pilot.press("o")
        await until(browser.exists, 10, poll=0.05, pause=pilot.pause)
        assert browser.read_text() == URL
        assert consents == [1]
        assert "Opened in your browser" in str(screen.query_one("#status", Static).render())
        await pilot.press("o")
        assert consents == [1]  # consent is reported once
        assert app.screen is screen  # still waiting for the agent
        screen.complete()
        await pilot.pause()
        assert app.query_one("#draft", Input).value == DRAFT
    assert app.results == [{"action": "accept"}]


async def test_url_mode_copies_declines_cancels_and_withdraws(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SSH_TTY", "/dev/pts/99")  # copies go to the terminal (OSC 52)
    consents: list[int] = []
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_url_screen(pilot, consents=consents)
        await pilot.press("c")
        assert app.clipboard == URL
        assert consents == [1]
        assert "Copied to the terminal's clipboard" in str(
            screen.query_one("#status", Static).render()
        )
        await pilot.press("d")
        await pilot.pause()
    for key, result in [("escape", {"action": "cancel"}), (None, None)]:
        other = Host()
        async with other.run_test(size=(80, 24)) as pilot:
            screen = await open_url_screen(pilot)
            if key is None:
                screen.withdraw()
            else:
                await pilot.press(key)
            await pilot.pause()
        assert other.results == [result]
    assert app.results == [{"action": "decline"}]


async def test_url_mode_never_opens_what_is_not_a_web_address(browser: Path) -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_url_screen(pilot, "javascript:alert(1)\x1b[2J")
        host = str(screen.query_one("#host", Static).render())
        assert host.startswith("Not a web address (javascript)")
        assert "\x1b" not in str(screen.query_one("#url", Static).render())
        await pilot.press("o")
        await pilot.pause(0.3)
        assert not browser.exists()
        assert "opens only http and https" in str(screen.query_one("#status", Static).render())
        assert "o open" not in str(screen.query_one("#hint", Static).render())
    assert os.environ.get("BROWSER", "").endswith("%s")


async def test_url_mode_says_when_there_is_no_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BROWSER", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")  # no browser program to find
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    monkeypatch.setattr(webbrowser, "_browsers", {})
    consents: list[int] = []
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_url_screen(pilot, consents=consents)
        await pilot.press("o")
        await pilot.pause()
        status = str(screen.query_one("#status", Static).render())
        assert status == "No web browser found on this machine: press c to copy the URL."
        assert app.screen is screen
