"""Issue 13, "also seen, smaller": marks and notes in the log, the status line
at 80 columns, the plan, themes, tool-call raw I/O, Claude Code's markup,
/export, and the resume hint printed on exit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acp_tui.core.connection import AgentSpec
from acp_tui.core.model.entries import ToolCallEntry, UserEntry
from acp_tui.ui.export_command import EXPORT_COMMAND
from acp_tui.ui.render import EntryRenderer, RenderOptions, RenderStyles
from acp_tui.ui.resume import resume_hint
from acp_tui.ui.widgets import status_bar
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.status_bar import StatusBar, StatusInfo
from tests.fake_agents import agent_spec
from tests.ui.helpers import make_app, painted, ready, screen_text, send, turn, until


def rendered(entry: ToolCallEntry | UserEntry, *, expanded: bool = False) -> str:
    options = RenderOptions(width=90, styles=RenderStyles.default(), expanded=expanded)
    return "\n".join(strip.text for strip in EntryRenderer().render(entry, options))


async def test_a_cancelled_reply_is_marked_and_settings_changes_are_noted(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "slow 100 0.05")
        await until(pilot, lambda: "line 2" in screen_text(app))
        await pilot.press("escape")
        await until(pilot, lambda: app.session is not None and app.session.status == "idle")
        await until(pilot, lambda: "Cancelled." in screen_text(app))
        await pilot.press("shift+tab")  # the next mode
        app.action_choose_config("model")
        await pilot.press("2")  # the smart model
        await until(pilot, lambda: "Model: Smart model" in screen_text(app))
        assert "Mode: Auto" in screen_text(app)


@pytest.mark.parametrize("width", [80, 60])
async def test_the_status_line_keeps_state_usage_and_cost_at_80_columns(width: int) -> None:
    from textual.app import App, ComposeResult

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield StatusBar()

    app = One()
    async with app.run_test(size=(width, 3)) as pilot:
        bar = app.query_one(StatusBar)
        bar.info = StatusInfo(
            agent="Claude Agent",
            agent_version="0.23.1",
            title="Fixing the flaky test in the parser",
            mode="Accept Edits",
            config=(("model", "Model", "Default (recommended)"),),
            status="running",
            running_since=status_bar.now(),
            used_tokens=45_200,
            context_size=200_000,
            cost="0.42 USD",
            queued=1,
        )
        await pilot.pause()
        line = painted(app).splitlines()[0]
        assert "45.2k/200.0k" in line and "0.42 USD" in line
        assert "◐ running" in line and "⏳" in line
        if width == 80:
            assert "Default" in line and "(recommended)" not in line  # abbreviated
        bar.info = StatusInfo(agent="Claude Agent", status="error", used_tokens=10, cost="1 USD")
        await pilot.pause()
        assert "✗ error" in painted(app) and "1 USD" in painted(app)


async def test_a_plan_from_an_earlier_turn_is_not_pinned(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(110, 48)) as pilot:
        await ready(pilot)
        await turn(pilot, "showcase")  # has a plan
        plan = app.query_one(PlanPanel)
        assert plan.entries and plan.display
        await turn(pilot, "echo no plan this time")
        assert plan.entries == []
        assert not plan.has_class("-has-plan")


async def test_a_theme_picked_in_the_palette_is_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('default_agent = "demo"\n\n[agents.mine]\ncommand = "x"\n')
    monkeypatch.setenv("ACP_TUI_CONFIG", str(config))
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.pause()
        assert "theme" not in config.read_text()  # starting with one saves nothing
        app.theme = "acp-light"  # what the palette's theme picker does
        await until(pilot, lambda: 'theme = "acp-light"' in config.read_text())
    text = config.read_text()
    assert text.index("theme = ") < text.index("[agents.mine]")  # top level, not in a table
    assert 'default_agent = "demo"' in text and 'command = "x"' in text


def test_raw_tool_io_is_folded_when_the_content_shows() -> None:
    entry = ToolCallEntry(
        tool_call_id="t1",
        title="Write a.py",
        tool_kind="edit",
        status="completed",
        content=[{"type": "diff", "path": "a.py", "oldText": "x\n", "newText": "y\n"}],
        raw_input={"file_path": "a.py", "content": "y\n"},
        raw_output={"ok": True},
    )
    folded = rendered(entry)
    assert "a.py" in folded and "input:" not in folded and "output:" not in folded
    expanded = rendered(entry, expanded=True)
    assert "input:" in expanded and "output:" in expanded
    bare = ToolCallEntry(tool_call_id="t2", title="Read", raw_input={"file_path": "b.py"})
    assert "input:" in rendered(bare)  # all there is to show


def test_claude_code_markup_in_a_replayed_prompt_is_a_compact_note() -> None:
    text = (
        "<command-name>/model</command-name>\n<command-message>model</command-message>\n"
        "<command-args>opus</command-args>\n"
        "<local-command-stdout>Set model to opus (claude-opus-4)</local-command-stdout>"
        "<local-command-caveat>Caveat: The messages below were generated by the user while"
        " running local commands. DO NOT respond.</local-command-caveat>"
    )
    shown = rendered(UserEntry([{"type": "text", "text": text}]))
    assert "/model opus" in shown
    assert "⎿ Set model to opus (claude-opus-4)" in shown
    assert "<" not in shown and "Caveat" not in shown


def test_a_long_prompt_is_folded_in_the_log() -> None:
    entry = UserEntry([{"type": "text", "text": "\n".join(f"row {n}" for n in range(400))}])
    folded = rendered(entry)
    assert "row 7" in folded and "row 8\n" not in folded + "\n"
    assert "392 more lines" in folded
    assert "row 399" in rendered(entry, expanded=True)


async def test_export_writes_where_its_menu_says(tmp_path: Path) -> None:
    assert "project folder" in str(EXPORT_COMMAND["description"])
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await turn(pilot, "echo something to keep")
        app.prompt.insert("/export")
        await pilot.press("enter")  # the menu completes "/export "
        await pilot.press("enter")  # and this sends it: the default place
        await until(pilot, lambda: any(tmp_path.glob("acp-tui-*.md")))
    (written,) = tmp_path.glob("acp-tui-*.md")
    assert re.fullmatch(r"acp-tui-\d{4}-\d\d-\d\d-\d{4}(-[a-z0-9-]+)?\.md", written.name)
    assert "something to keep" in written.read_text()


async def test_quitting_tells_how_to_resume(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert resume_hint(app.spec, app.session, tmp_path) is None  # nothing to resume yet
        await turn(pilot, "echo hi")
    assert app.session is not None
    hint = resume_hint(app.spec, app.session, tmp_path)
    assert hint is not None
    assert f"acp-tui scripted --cwd {tmp_path} --resume {app.session.agent_session_id}" in hint
    raw = AgentSpec.of("/usr/bin/node", ["/opt/agent.js"])
    command = resume_hint(raw, app.session, Path.cwd().resolve())
    assert command is not None and command.endswith("-- /usr/bin/node /opt/agent.js")


async def test_a_session_that_fails_to_start_says_why_and_not_agent_gone(tmp_path: Path) -> None:
    spec = agent_spec(ACP_FAKE_NEW_SESSION_FAILS="Query closed before response received")
    app = make_app(spec, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "Could not start" in screen_text(app))
        await pilot.pause()
        shown = screen_text(app)
        assert "Could not start scripted: the agent answered session/new with an error" in shown
        assert "Cause: Query closed before response received" in shown
        assert "fatal: Query closed before response received" in shown  # its stderr
        status = painted(app).splitlines()[-1]
        assert "not started" in status and "agent gone" not in status
