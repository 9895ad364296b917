"""Resuming a session in the TUI: with session/load, and from the local history."""

from __future__ import annotations

from pathlib import Path

from acp_tui.core.connection import AgentSpec
from acp_tui.core.host import Host
from acp_tui.core.storage.history_store import HistoryStore
from acp_tui.ui.app import AcpApp
from acp_tui.ui.resume import LATEST, PICK
from acp_tui.ui.screens.choice import ChoiceScreen
from tests.fake_agents import agent_spec
from tests.ui.helpers import ready, screen_text, turn, until


def agent(state: Path | None) -> AgentSpec:
    return agent_spec(ACP_FAKE_STATE_DIR=str(state)) if state else agent_spec()


def app_for(spec: AgentSpec, cwd: Path, store: HistoryStore, resume: str | None) -> AcpApp:
    return AcpApp(spec, cwd=cwd, host=Host(history=store), resume=resume)


async def first_sitting(spec: AgentSpec, cwd: Path, store: HistoryStore, words: str) -> None:
    app = app_for(spec, cwd, store, None)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await turn(pilot, f"echo {words}")


async def test_continue_loads_the_latest_session_and_goes_on(tmp_path: Path) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    store = HistoryStore(tmp_path / "history")
    await first_sitting(agent(state), tmp_path, store, "first sitting")
    app = app_for(agent(state), tmp_path, store, LATEST)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: "first sitting" in screen_text(app))
        await turn(pilot, "echo second sitting")
        shown = screen_text(app)
        assert shown.index("first sitting") < shown.index("second sitting")


async def test_resume_lists_sessions_to_pick_from(tmp_path: Path) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    store = HistoryStore(tmp_path / "history")
    await first_sitting(agent(state), tmp_path, store, "alpha")
    await first_sitting(agent(state), tmp_path, store, "beta")
    app = app_for(agent(state), tmp_path, store, PICK)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        picker = app.screen
        assert isinstance(picker, ChoiceScreen)
        labels = sorted(c.label for c in picker.choices)
        assert labels == ["echo alpha", "echo beta"]
        wanted = next(n for n, c in enumerate(picker.choices) if c.label == "echo alpha")
        await pilot.press(str(wanted + 1))
        await ready(pilot)
        await until(pilot, lambda: "alpha" in screen_text(app))
        assert "beta" not in screen_text(app)


async def test_escape_in_the_picker_starts_a_new_session(tmp_path: Path) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    store = HistoryStore(tmp_path / "history")
    await first_sitting(agent(state), tmp_path, store, "old words")
    app = app_for(agent(state), tmp_path, store, PICK)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("escape")
        await ready(pilot)
        assert app.session is not None and len(app.session.thread) == 0
        assert "old words" not in screen_text(app)


async def test_an_agent_that_cannot_load_shows_the_kept_transcript(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "history")
    await first_sitting(agent(None), tmp_path, store, "kept here")
    app = app_for(agent(None), tmp_path, store, LATEST)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: "kept here" in screen_text(app))
        assert "cannot load sessions" in screen_text(app)
        await turn(pilot, "echo fresh")
        shown = screen_text(app)
        assert shown.index("kept here") < shown.index("fresh")


async def test_slash_resume_opens_an_earlier_session_in_a_new_tab(tmp_path: Path) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    store = HistoryStore(tmp_path / "history")
    await first_sitting(agent(state), tmp_path, store, "from yesterday")
    app = app_for(agent(state), tmp_path, store, None)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await turn(pilot, "echo today in tab one")
        app.prompt.insert("/resume")
        await pilot.press("escape", "enter")  # Esc: the completion menu shut
        assert len(app.tabs) == 2
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        picker = app.screen
        assert isinstance(picker, ChoiceScreen)
        wanted = next(n for n, c in enumerate(picker.choices) if c.label == "echo from yesterday")
        await pilot.press(str(wanted + 1))
        await until(pilot, lambda: "from yesterday" in screen_text(app))
        assert "today in tab one" not in screen_text(app)
        await pilot.press("alt+1")
        await until(pilot, lambda: "today in tab one" in screen_text(app))
        assert "from yesterday" not in screen_text(app)
