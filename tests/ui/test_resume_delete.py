"""Deleting an earlier session from the resume picker (Ctrl+D, then "Delete"
in the confirm): an agent's session with session/delete, a transcript only
from the local history; an agent without session/delete keeps its sessions.
Real app, real host, the scripted agent, 80x24, keys only."""

from __future__ import annotations

from pathlib import Path

from acp_tui.core.connection import AgentSpec
from acp_tui.core.host import Host
from acp_tui.core.storage.history_store import HistoryStore
from acp_tui.ui.app import AcpApp
from acp_tui.ui.resume import PICK
from acp_tui.ui.screens.choice import ChoiceScreen
from tests.fake_agents import agent_spec
from tests.ui.helpers import ready, screen_rows, screen_text, turn, until


def app_for(spec: AgentSpec, cwd: Path, store: HistoryStore, resume: str | None) -> AcpApp:
    return AcpApp(spec, cwd=cwd, host=Host(history=store), resume=resume)


async def sittings(spec: AgentSpec, cwd: Path, store: HistoryStore, *words: str) -> None:
    """One earlier run of the app per word, each saying ``echo WORD``."""
    for word in words:
        app = app_for(spec, cwd, store, None)
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(pilot)
            await turn(pilot, f"echo {word}")


def labels(app: AcpApp) -> list[str]:
    picker = app.screen
    assert isinstance(picker, ChoiceScreen)
    return [c.label for c in picker.choices]


def toasts(app: AcpApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def shown(app: AcpApp, text: str) -> bool:
    return any(text in row for row in screen_rows(app))


async def test_ctrl_d_deletes_an_agents_session_after_asking(tmp_path: Path) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    store = HistoryStore(tmp_path / "history")
    spec = agent_spec(ACP_FAKE_STATE_DIR=str(state), ACP_FAKE_DELETE="1")
    await sittings(spec, tmp_path, store, "alpha", "beta")
    app = app_for(spec, tmp_path, store, PICK)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        assert labels(app) == ["echo beta", "echo alpha"]  # newest first
        await until(pilot, lambda: shown(app, "Ctrl+D delete"))
        picker = app.screen
        await pilot.press("down", "ctrl+d")
        await until(pilot, lambda: app.screen is not picker)
        await until(pilot, lambda: shown(app, "Delete session echo alpha?"))
        await pilot.press("enter")  # "Delete"
        await until(pilot, lambda: app.screen is picker and labels(app) == ["echo beta"])
        assert len(list(state.glob("*.jsonl"))) == 1  # the agent forgot it
        assert [s.first_prompt for s in store.sessions()] == ["echo beta"]  # and acp-tui
        assert "Deleted echo alpha" in toasts(app)
        await pilot.press("enter")  # the one left is resumed
        await ready(pilot)
        await until(pilot, lambda: "beta" in screen_text(app))


async def test_keep_in_the_confirm_deletes_nothing(tmp_path: Path) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    store = HistoryStore(tmp_path / "history")
    spec = agent_spec(ACP_FAKE_STATE_DIR=str(state), ACP_FAKE_DELETE="1")
    await sittings(spec, tmp_path, store, "alpha")
    app = app_for(spec, tmp_path, store, PICK)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        picker = app.screen
        await pilot.press("delete")  # the Delete key does it too
        await until(pilot, lambda: app.screen is not picker)
        await pilot.press("2")  # "Keep"
        await until(pilot, lambda: app.screen is picker)
        assert labels(app) == ["echo alpha"]
        assert len(list(state.glob("*.jsonl"))) == 1 and len(store.sessions()) == 1


async def test_an_agent_without_session_delete_refuses_in_the_picker(tmp_path: Path) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    store = HistoryStore(tmp_path / "history")
    spec = agent_spec(ACP_FAKE_STATE_DIR=str(state))
    await sittings(spec, tmp_path, store, "alpha")
    app = app_for(spec, tmp_path, store, PICK)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        picker = app.screen
        await pilot.press("ctrl+d")
        await until(pilot, lambda: "scripted cannot delete its sessions" in toasts(app))
        assert app.screen is picker and labels(app) == ["echo alpha"]  # no confirm
        assert len(list(state.glob("*.jsonl"))) == 1 and len(store.sessions()) == 1


async def test_a_transcript_only_is_deleted_from_the_history(tmp_path: Path) -> None:
    """An agent that can neither list nor load: the picker lists acp-tui's
    transcripts; the last one deleted, a new session starts."""
    store = HistoryStore(tmp_path / "history")
    spec = agent_spec()
    await sittings(spec, tmp_path, store, "alpha", "beta")
    app = app_for(spec, tmp_path, store, PICK)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        assert labels(app) == ["echo beta", "echo alpha"]
        picker = app.screen
        assert isinstance(picker, ChoiceScreen)
        assert all(c.description.endswith("transcript only") for c in picker.choices)
        await pilot.press("ctrl+d")
        await until(pilot, lambda: app.screen is not picker)
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is picker and labels(app) == ["echo alpha"])
        assert [s.first_prompt for s in store.sessions()] == ["echo alpha"]
        await pilot.press("ctrl+d")
        await until(pilot, lambda: app.screen is not picker)
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, ChoiceScreen))
        assert store.sessions() == []
        await ready(pilot)  # none left: the picker closed and a new session started
        await turn(pilot, "echo fresh start")
        assert "alpha" not in screen_text(app) and "beta" not in screen_text(app)
