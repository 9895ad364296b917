"""Issue 12, point 6: no string an agent controls reaches the screen unescaped.

The hostile agent (tests/agents/hostile_agent.py) wraps every string it
controls in an OSC title change, bold red, a BEL, a C1 CSI and a bidi
override. Each field is looked for on the composed screen (the dialogs and
toasts included), shown made safe; and no row of the screen ever holds a
control character.
"""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from acp_tui.core.host import Host
from acp_tui.ui.app import AcpApp
from acp_tui.ui.screens.choice import ChoiceScreen
from acp_tui.ui.screens.permission import PermissionScreen
from tests.agents.hostile_agent import shown
from tests.fake_agents import HOSTILE_AGENT, agent_spec
from tests.ui.helpers import idle, ready, screen_rows, send, until


def _unsafe(row: str) -> list[str]:
    return [
        f"U+{ord(c):04X}"
        for c in row
        if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) <= 0xDFFF
    ]


def check_screen(app: AcpApp, *tags: str) -> str:
    """The screen's text, after checking it is safe and shows every ``tag`` made safe."""
    rows = screen_rows(app)
    for row in rows:
        assert not _unsafe(row), (_unsafe(row), row)
    text = "\n".join(rows)
    for tag in tags:
        assert shown(tag) in text, (tag, text)
    return text


async def settle(pilot: Pilot[int]) -> None:
    await pilot.pause(0.2)
    await pilot.pause()


async def test_every_agent_controlled_string_is_shown_clean(tmp_path: Path) -> None:
    app = AcpApp(agent_spec(HOSTILE_AGENT), cwd=tmp_path, host=Host(cancel_grace=2.0))
    async with app.run_test(size=(200, 50)) as pilot:
        await ready(pilot)
        await settle(pilot)
        # agentInfo (the welcome and the status line), the mode, a config option.
        check_screen(app, "agent", "v1", "mode-ask", "cfg", "fast")

        await send(pilot, "strings")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        screen = app.screen
        assert isinstance(screen, PermissionScreen)
        await until(pilot, lambda: screen.armed)
        await settle(pilot)
        # The permission dialog: the tool's title, its locations, options, preview.
        check_screen(app, "tool", "loc", "opt-allow", "opt-reject", "tool-text", "diff-line")
        await pilot.press("y")
        await until(pilot, lambda: idle(app))
        await settle(pilot)
        # The log (tool title, locations, content, diff, the reply), the plan,
        # the session title in the status line.
        check_screen(app, "tool", "loc", "tool-text", "diff-path", "diff-line", "reply", "plan-1")
        check_screen(app, "plan-2", "title", "usd")  # the usage's cost currency too

        # Slash commands: descriptions and hints; a name with a control
        # character (it could neither be typed nor shown) is not offered.
        app.prompt.insert("/")
        await settle(pilot)
        text = check_screen(app, "cmd-desc", "hint")
        assert "/review" in text and "evil" not in text
        app.prompt.clear_draft()
        await settle(pilot)

        # The pickers: modes and config values with their descriptions.
        app.action_choose_mode()
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await settle(pilot)
        check_screen(app, "mode-ask", "mdesc", "mode-auto")
        await pilot.press("escape")
        app.action_choose_config("model")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await settle(pilot)
        check_screen(app, "fast", "fast-desc", "smart")
        await pilot.press("escape")
        await settle(pilot)

        # An error the agent answers with: the notice in the log and the toast
        # (toasts are never read as markup: the text quotes the agent).
        await send(pilot, "fail")
        await until(pilot, lambda: idle(app))
        await settle(pilot)
        check_screen(app, "error")
        toasts = [str(n.message) for n in app._notifications]
        assert any(shown("error") in toast for toast in toasts), toasts
        assert all(not _unsafe(toast) for toast in toasts), toasts
        assert not any(n.markup for n in app._notifications)

        # Its stderr, shown with the notice when it dies.
        await send(pilot, "die-loud")
        await until(pilot, lambda: app.session is not None and app.session.status == "closed")
        await settle(pilot)
        check_screen(app, "stderr", "stderr-last")
