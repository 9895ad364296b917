"""The look of the TUI, pinned as SVG snapshots in snapshots/test_snapshots/.

Every scenario runs the real app on the real host core against the scripted
agent (a real subprocess), in a fixed working directory so paths in the
pictures never change. Review a changed SVG before accepting it
(``pytest --snapshot-update``).
"""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.ui.screens.choice import ChoiceScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets import status_bar
from tests.conftest import REPO
from tests.fake_agents import agent_spec
from tests.ui.helpers import describe, idle, make_app, ready, steady, submit, until

WORKSPACE = Path("/tmp/acp-tui-snapshots/workspace")
SNAPSHOT_FILES = REPO / "snapshots" / "test_snapshots"


@pytest.fixture(autouse=True)
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Elapsed times in the status line read 0s in every picture."""
    monkeypatch.setattr(status_bar, "now", lambda: 1000.0)


@pytest.fixture
def workspace() -> Path:
    shutil.rmtree(WORKSPACE, ignore_errors=True)
    WORKSPACE.mkdir(parents=True)
    (WORKSPACE / "greet.py").write_text('def greet(name):\n    return "Hello " + name\n')
    return WORKSPACE


def scenario(*prompts: str, modal: bool = False) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = await ready(pilot)
        for prompt in prompts:
            submit(app, prompt)
            if modal:
                await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
                await until(pilot, lambda: app.screen.armed)  # type: ignore[attr-defined]
            else:
                await until(
                    pilot,
                    lambda: app.session is not None and idle(app),
                    what=lambda sent=prompt: f"not idle after {sent!r}: {describe(app)}",
                )
        # Estimated heights are replaced by measured ones while idle; the
        # scrollbar's thumb depends on them.
        await until(pilot, lambda: app.log_view.measured, what="the log is not measured")
        await pilot.pause(0.3)
        await steady(pilot)

    return run_before


def test_snapshot_folder_is_the_top_level_one(workspace: Path) -> None:
    """The conftest override puts SVGs under snapshots/<test module>/."""
    assert SNAPSHOT_FILES.is_dir()
    assert any(SNAPSHOT_FILES.glob("*.svg"))


def test_empty_start_screen(snap_compare: Any, workspace: Path) -> None:
    """An empty log with the welcome: agent name, working directory and the
    main keys, centred; the prompt at the bottom with its placeholder; the
    status line shows the agent and "ready"."""
    app = make_app(agent_spec(), workspace)
    assert snap_compare(app, terminal_size=(100, 30), run_before=scenario())


def test_finished_conversation(snap_compare: Any, workspace: Path) -> None:
    """A finished turn: the user prompt, a folded thought, a markdown reply
    (heading, numbered list, highlighted code), an edit tool call with a
    coloured diff of greet.py, a `pytest -q` tool call with green terminal
    output and "exit 0", the closing reply; the plan panel above the prompt
    shows 2 of 3 items done."""
    app = make_app(agent_spec(), workspace)
    assert snap_compare(app, terminal_size=(110, 48), run_before=scenario("showcase"))


def test_permission_modal(snap_compare: Any, workspace: Path) -> None:
    """The permission dialog over the log: "Permission requested", the edit
    icon and title "Edit tc-1", the options [y] Allow, [a] Always allow,
    [n] Reject with Allow highlighted, and the key hint line."""
    app = make_app(agent_spec(), workspace)
    assert snap_compare(app, terminal_size=(100, 30), run_before=scenario("permission", modal=True))


def test_error_entry(snap_compare: Any, workspace: Path) -> None:
    """The agent died mid-turn: an error notice in the log says it exited
    with code 3 and shows the last stderr line ("fatal: scripted death");
    the status line says the agent is gone and the next prompt restarts it."""
    app = make_app(agent_spec(), workspace)
    assert snap_compare(app, terminal_size=(100, 30), run_before=scenario("die 3"))


def test_light_theme(snap_compare: Any, workspace: Path) -> None:
    """The finished conversation in the acp-light theme: dark text on a light
    background, diff and status colours readable on light."""
    app = make_app(agent_spec(), workspace, theme="acp-light")
    assert snap_compare(app, terminal_size=(110, 48), run_before=scenario("showcase"))


def test_high_contrast_theme(snap_compare: Any, workspace: Path) -> None:
    """The finished conversation in acp-high-contrast: white on black with
    saturated status colours."""
    app = make_app(agent_spec(), workspace, theme="acp-high-contrast")
    assert snap_compare(app, terminal_size=(110, 48), run_before=scenario("showcase"))


def test_narrow_terminal(snap_compare: Any, workspace: Path) -> None:
    """60x20: the conversation wraps to the width, tool-call badges move under
    long titles, nothing is cut mid-character, the status line fits."""
    app = make_app(agent_spec(), workspace)
    assert snap_compare(app, terminal_size=(60, 20), run_before=scenario("showcase"))


def test_wide_terminal(snap_compare: Any, workspace: Path) -> None:
    """160x45: the same conversation with room to spare, no stretched
    elements, the scrollbar gutter on the right."""
    app = make_app(agent_spec(), workspace)
    assert snap_compare(app, terminal_size=(160, 45), run_before=scenario("showcase"))


def test_model_picker(snap_compare: Any, workspace: Path) -> None:
    """The model picker over the log: "Choose Model", "1 ● Fast model"
    highlighted (the current value), "2   Smart model", the key hint line."""
    app = make_app(agent_spec(), workspace)

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        app.action_choose_config("model")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


def test_permission_at_80x24(snap_compare: Any, workspace: Path) -> None:
    """80x24: the dialog takes the whole screen; "notes.md  (new file)" and all
    twelve "+ line N" rows are readable; the options on one row, [y] Allow
    highlighted; the hint line below."""
    app = make_app(agent_spec(), workspace)
    assert snap_compare(
        app, terminal_size=(80, 24), run_before=scenario("write notes.md 12", modal=True)
    )


def test_permission_outside_the_project(snap_compare: Any, workspace: Path) -> None:
    """A write outside the project: "⚠ outside workspace: /tmp/acp-tui-outside.txt"
    in the warning colour under the title, and Reject preselected."""
    app = make_app(agent_spec(), workspace)
    run = scenario("write /tmp/acp-tui-outside.txt 3", modal=True)
    assert snap_compare(app, terminal_size=(100, 30), run_before=run)


def test_help_screen(snap_compare: Any, workspace: Path) -> None:
    """F1: acp-tui's own help over the log, keys grouped (Prompt, Turn,
    Conversation…), a hint line at the bottom."""
    app = make_app(agent_spec(), workspace)

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await pilot.press("f1")
        await pilot.pause(0.3)
        await steady(pilot)  # (its scrollbar was seen drawn before the last layout, under load)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)
