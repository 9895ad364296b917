"""The agent's questions in the real app (Pilot): the real host core and a real
ACP agent on the SDK (tests/agents/elicitation_agent.py) asking them.

The form and the url page open when the question comes, the answer reaches the
agent, and a question closed elsewhere (withdrawn, its turn ended or cancelled,
answered by another front end) closes its modal — also when another screen
covers it. 80x24 and wide."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.core.connection import AgentSpec
from acp_tui.core.model.entries import AssistantEntry
from acp_tui.ui.app import AcpApp
from acp_tui.ui.screens.elicitation import ElicitationFormScreen
from acp_tui.ui.screens.elicitation_url import UrlElicitationScreen
from acp_tui.ui.screens.help import HelpScreen
from tests.conftest import TESTS
from tests.ui.helpers import idle, make_app, painted, ready, send, until

AGENT = TESTS / "agents" / "elicitation_agent.py"
SIZES = [(80, 24), (120, 40)]


def asking(**env: str) -> AgentSpec:
    return AgentSpec.of(sys.executable, [str(AGENT)], env)


def reply(app: AcpApp) -> Any:
    """The agent's last reply, as the JSON it wrote."""
    assert app.session is not None
    entry = [e for e in app.session.thread.entries if isinstance(e, AssistantEntry)][-1]
    return json.loads("".join(chunk.text for chunk in entry.chunks))


async def replied(pilot: Pilot[int], app: AcpApp, replies_before: int) -> Any:
    def count() -> int:
        assert app.session is not None
        return sum(isinstance(e, AssistantEntry) for e in app.session.thread.entries)

    await until(pilot, lambda: count() > replies_before and idle(app))
    return reply(app)


def replies(app: AcpApp) -> int:
    assert app.session is not None
    return sum(isinstance(e, AssistantEntry) for e in app.session.thread.entries)


async def question(pilot: Pilot[int], app: AcpApp, kind: type) -> Any:
    """The modal of ``kind``, once it takes keys (a form opening while the
    user was typing waits until they pause)."""
    await until(pilot, lambda: isinstance(app.screen, kind))
    screen = app.screen
    if isinstance(screen, ElicitationFormScreen):
        await until(pilot, lambda: screen.armed and app.focused is not None)
    await pilot.pause()
    return screen


def toasts(app: AcpApp) -> list[str]:
    """The toasts shown (``notify`` posts a message: wait for them with until)."""
    return [str(n.message) for n in app._notifications]


@pytest.mark.parametrize("size", SIZES)
async def test_a_form_question_is_filled_in_and_the_answer_reaches_the_agent(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = make_app(asking(), tmp_path)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        before = replies(app)
        await send(pilot, "form")
        form = await question(pilot, app, ElicitationFormScreen)
        shown = painted(app)
        assert "Question from Asking agent" in shown
        assert "Set up the new project." in shown
        assert app.focused is form.block("name").editor  # the first field, default in it
        await pilot.press("tab", *"ada@example.org", "tab", "tab", "tab", *"80", "ctrl+s")
        # The port is out of bounds: the form stays, saying why, and nothing went out.
        await pilot.pause()
        assert app.screen is form
        assert form.block("port").error == "Must be from 1024 to 65535."
        assert app.focused is form.block("port").editor
        assert "Must be from 1024 to 65535." in painted(app)  # scrolled to it
        assert len(app.host.elicitations) == 1
        await pilot.press(*"80", "ctrl+s")
        answer = await replied(pilot, app, before)
        assert not isinstance(app.screen, ElicitationFormScreen)
        assert answer["action"] == "accept"
        content = answer["content"]
        assert content["name"] == "my-app" and content["email"] == "ada@example.org"
        assert content["port"] == 8080 and content["logging"] is True
        assert content["size"] == "m" and content["tags"] == ["cli"]


@pytest.mark.parametrize("size", SIZES)
async def test_a_url_question_is_accepted_when_copied_and_closes_when_the_agent_is_done(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = make_app(asking(), tmp_path)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        before = replies(app)
        await send(pilot, f"url-when {tmp_path / 'done'}")
        page = await question(pilot, app, UrlElicitationScreen)
        shown = painted(app)
        assert "auth.example.com" in shown
        assert "https://auth.example.com/connect?state=abc123" in shown
        pending = app.host.elicitations.pending()
        assert len(pending) == 1 and not pending[0].waiting
        await pilot.press("c")  # copying the URL is the user's consent: accept
        await until(pilot, lambda: all(p.waiting for p in app.host.elicitations.pending()))
        await pilot.pause(0.2)
        assert app.screen is page  # still open, waiting for the agent
        (tmp_path / "done").touch()  # the agent sends elicitation/complete now
        # The agent's elicitation/complete closes it (the toast says why).
        await until(pilot, lambda: not isinstance(app.screen, UrlElicitationScreen))
        await until(pilot, lambda: "The agent says it is done." in toasts(app))
        assert len(app.host.elicitations) == 0
        assert await replied(pilot, app, before) == {"action": "accept"}


async def test_declining_a_url_question(tmp_path: Path) -> None:
    app = make_app(asking(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        before = replies(app)
        await send(pilot, "url")
        await question(pilot, app, UrlElicitationScreen)
        await pilot.press("d")
        assert await replied(pilot, app, before) == {"action": "decline"}
        assert not isinstance(app.screen, UrlElicitationScreen)


async def test_a_url_question_still_waiting_closes_when_its_turn_ends(tmp_path: Path) -> None:
    app = make_app(asking(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        before = replies(app)
        await send(pilot, "url-wait")
        await question(pilot, app, UrlElicitationScreen)
        await pilot.press("c")
        await until(pilot, lambda: not isinstance(app.screen, UrlElicitationScreen))
        await until(pilot, lambda: "The question closed: the agent ended its turn." in toasts(app))
        assert await replied(pilot, app, before) == {"action": "accept"}


async def test_a_withdrawn_question_closes_its_form(tmp_path: Path) -> None:
    app = make_app(asking(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        before = replies(app)
        await send(pilot, f"withdraw-when {tmp_path / 'go'}")
        await question(pilot, app, ElicitationFormScreen)
        (tmp_path / "go").touch()  # the agent withdraws it now
        await until(pilot, lambda: not isinstance(app.screen, ElicitationFormScreen))
        await until(pilot, lambda: "The agent withdrew its question." in toasts(app))
        assert await replied(pilot, app, before) == {"result": {"action": "cancel"}}


async def test_a_question_withdrawn_under_another_screen_closes_when_that_one_does(
    tmp_path: Path,
) -> None:
    app = make_app(asking(), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        before = replies(app)
        await send(pilot, f"withdraw-when {tmp_path / 'go'}")
        await question(pilot, app, ElicitationFormScreen)
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        (tmp_path / "go").touch()  # the agent withdraws it now
        await replied(pilot, app, before)
        # The help stays: closing the question did not close the screen on top.
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await until(pilot, lambda: len(app.screen_stack) == 1)
        assert not any(isinstance(s, ElicitationFormScreen) for s in app.screen_stack)


async def test_a_question_answered_elsewhere_closes_its_form(tmp_path: Path) -> None:
    app = make_app(asking(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        before = replies(app)
        await send(pilot, "form")
        await question(pilot, app, ElicitationFormScreen)
        [pending] = app.host.elicitations.pending()
        # Another front end of the same host (a headless client) answers first.
        app.host.respond_elicitation(pending.request_id, "decline")
        assert await replied(pilot, app, before) == {"action": "decline"}
        assert not isinstance(app.screen, ElicitationFormScreen)


async def test_cancelling_the_turn_closes_its_question(tmp_path: Path) -> None:
    app = make_app(asking(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        before = replies(app)
        await send(pilot, 'ask {"type": "object", "properties": {"ok": {"type": "boolean"}}}')
        await question(pilot, app, ElicitationFormScreen)
        await pilot.press("ctrl+c")  # the app's key: cancels the running turn
        await until(pilot, lambda: not isinstance(app.screen, ElicitationFormScreen))
        await until(pilot, lambda: "The question closed: the turn was cancelled." in toasts(app))
        assert await replied(pilot, app, before) == {"result": {"action": "cancel"}}


async def test_a_question_asked_before_the_session_exists(tmp_path: Path) -> None:
    app = make_app(asking(ELICIT_ON_NEW="1"), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await question(pilot, app, ElicitationFormScreen)
        assert app.session is None  # session/new waits for the answer
        assert "Which workspace should this session use?" in painted(app)
        await pilot.press(*"main", "ctrl+s")
        await ready(pilot)
        assert form not in app.screen_stack
        before = replies(app)
        await send(pilot, "caps")
        answer = await replied(pilot, app, before)
        assert answer["onNew"] == {"action": "accept", "content": {"answer": "main"}}
        assert answer["clientCapabilities"]["elicitation"] == {"form": {}, "url": {}}
