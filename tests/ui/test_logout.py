"""/logout: logs out of an agent that offers ACP's logout (said in the log;
the next prompt asks for a sign-in again), and says so of one that does not.
Real app, real host, the scripted agent, 80x24, keys only."""

from __future__ import annotations

from pathlib import Path

from acp_tui.core import AssistantEntry, NoticeEntry
from acp_tui.ui.screens.choice import ChoiceScreen
from tests.fake_agents import agent_spec
from tests.ui.helpers import make_app, ready, screen_text, send, until


async def test_slash_logout_logs_out_and_the_next_prompt_signs_in_again(tmp_path: Path) -> None:
    count = tmp_path / "count"
    spec = agent_spec(ACP_FAKE_LOGOUT="1", ACP_FAKE_COUNT_FILE=str(count))
    app = make_app(spec, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        assert "logout" in [c.name for c in app.prompt.commands]  # the menu and the help
        await send(pilot, "/logout")
        await until(pilot, lambda: "Logged out of scripted" in screen_text(app))
        assert "logout" in count.read_text().splitlines()
        session = app.session
        assert session is not None
        assert not any(e.kind == "user" for e in session.thread.entries)  # not sent
        notice = [e for e in session.thread.entries if isinstance(e, NoticeEntry)][-1]
        assert notice.level == "info"
        # The agent now refuses prompts until signed in: the sign-in picker, then it goes.
        await send(pilot, "echo back again")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("1")  # "API token"

        def replied() -> bool:
            replies = [e for e in session.thread.entries if isinstance(e, AssistantEntry)]
            return any("back again" in "".join(c.text for c in e.chunks) for e in replies)

        await until(pilot, replied)


async def test_slash_logout_with_an_agent_that_offers_none_says_so(tmp_path: Path) -> None:
    count = tmp_path / "count"
    app = make_app(agent_spec(ACP_FAKE_COUNT_FILE=str(count)), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "/logout")
        await until(pilot, lambda: "offers no logout" in screen_text(app))
        session = app.session
        assert session is not None
        notice = [e for e in session.thread.entries if isinstance(e, NoticeEntry)][-1]
        assert notice.level == "warning"
        assert not any(e.kind == "user" for e in session.thread.entries)
        assert "logout" not in count.read_text()  # the agent was not asked
        await send(pilot, "echo still here")  # and the session goes on, no sign-in
        await until(pilot, lambda: "still here" in screen_text(app).split("offers no logout")[1])
