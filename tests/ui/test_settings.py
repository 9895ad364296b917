"""Choosing the model / mode and signing in, from the keyboard and the status line."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette
from textual.widgets import OptionList, Static

from acp_tui.core.connection import AgentSpec
from acp_tui.core.model.entries import AssistantEntry, NoticeEntry
from acp_tui.ui.app import AcpApp
from acp_tui.ui.screens.choice import ChoiceScreen
from tests.fake_agents import agent_spec
from tests.ui.helpers import make_app, ready, screen_text, turn, until


def model(app: AcpApp) -> str:
    assert app.session is not None
    return str(app.session.config_options[0]["currentValue"])


def picker_text(app: AcpApp) -> str:
    """The open picker's title and options, as plain text."""
    picker = app.screen
    assert isinstance(picker, ChoiceScreen)
    options = picker.query_one(OptionList)
    lines = [str(picker.query_one("#choice-title", Static).render())]
    lines += [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    return "\n".join(lines)


def status(app: AcpApp) -> str:
    return str(app.query_one("#status").render())


async def test_the_palette_opens_the_model_picker(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        app.prompt.insert("half-typed")
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"choose model")
        await pilot.pause(0.3)  # the palette searches in a worker
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        assert picker_text(app).splitlines() == [
            "Choose Model",
            "1 ● Fast model",
            "2   Smart model",
        ]
        await pilot.press("down", "enter")
        await until(pilot, lambda: model(app) == "smart")
        await until(pilot, lambda: "Smart model" in status(app))
        assert app.focused is app.prompt
        assert app.prompt.text == "half-typed"


async def test_a_palette_hit_sets_a_value_directly(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"model: smart")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await until(pilot, lambda: model(app) == "smart")


async def test_escape_leaves_the_model_alone(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        app.action_choose_config("model")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("j", "escape")
        await until(pilot, lambda: not isinstance(app.screen, ChoiceScreen))
        await turn(pilot, "echo still here")
        assert model(app) == "fast"


async def test_a_click_on_the_model_in_the_status_line_opens_its_picker(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        column = status(app).index("Fast model")
        await pilot.click("#status", offset=(1 + column + 2, 0))  # 1: the bar's padding
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("2")
        await until(pilot, lambda: model(app) == "smart")


async def test_a_click_on_the_mode_opens_the_mode_picker(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        session = app.session
        assert session is not None and session.modes is not None
        column = status(app).index("Ask")
        await pilot.click("#status", offset=(1 + column + 1, 0))
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("down", "enter")
        await until(pilot, lambda: session.modes["currentModeId"] == "auto")  # type: ignore[index]
        await turn(pilot, "mode")
        assert "auto" in screen_text(app)


def needs_sign_in() -> AgentSpec:
    return agent_spec(ACP_FAKE_REQUIRE_AUTH="1")


async def test_sign_in_when_the_agent_requires_it(tmp_path: Path) -> None:
    app = make_app(needs_sign_in(), tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        assert "asks you to sign in" in screen_text(app)
        shown = picker_text(app)
        assert "scripted asks you to sign in" in shown
        assert "API token  Use the token in $FAKE_TOKEN" in shown and "Browser login" in shown
        await pilot.press("2")  # the browser method fails: the picker comes back
        await until(
            pilot,
            lambda: any("no browser" in str(n.message) for n in app._notifications),
        )
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("1")
        await ready(pilot)
        await turn(pilot, "echo signed in")
        assert "signed in" in screen_text(app)


async def test_declining_to_sign_in_says_so_and_a_message_tries_again(tmp_path: Path) -> None:
    app = make_app(needs_sign_in(), tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("escape")
        await until(pilot, lambda: "not signed in" in screen_text(app))
        assert app.session is None
        notices = [e.text for e in app.conversation.notices or [] if isinstance(e, NoticeEntry)]
        assert any("not signed in" in text for text in notices)
        app.prompt.insert("echo again")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("1")
        await until(pilot, lambda: "again" in screen_text(app))


async def test_a_prompt_refused_for_want_of_a_sign_in_asks_for_one_then_goes(
    tmp_path: Path,
) -> None:
    app = make_app(agent_spec(ACP_FAKE_PROMPT_AUTH="1"), tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        app.prompt.insert("echo after signing in")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        assert "asks you to sign in again" in picker_text(app)
        await pilot.press("1")

        def replied() -> bool:
            view = app.conversation.current
            replies = [e for e in view.entries if isinstance(e, AssistantEntry)] if view else []
            return any("after signing in" in "".join(c.text for c in e.chunks) for e in replies)

        await until(pilot, replied)  # the refused prompt, sent again once signed in
        assert app.session is not None and app.session.status == "idle"
