"""The TUI's link to the background host (RemoteHost) logs out and deletes
sessions through the headless methods (connection.logout, session.delete):
a real host process on a real socket, the scripted agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.core import HostError
from acp_tui.ui.remote_host import RemoteHost
from tests.background import HostProcess, background, runtime
from tests.fake_agents import agent_spec

__all__ = ["background", "runtime"]  # fixtures


async def test_logout_and_delete_go_through_the_background_host(
    background: HostProcess, tmp_path: Path
) -> None:
    background.start()
    state, count = tmp_path / "agent-state", tmp_path / "count"
    state.mkdir()
    link = RemoteHost(env=background.env)
    link.attach(1024, 64 * 1024)
    env = {"ACP_FAKE_STATE_DIR": str(state), "ACP_FAKE_COUNT_FILE": str(count)}
    spec = agent_spec(ACP_FAKE_LOGOUT="1", ACP_FAKE_DELETE="1", **env)
    try:
        agent = await link.open(spec, tmp_path)
        kept = await link.create_session(agent.connection_id, tmp_path)
        doomed = await link.create_session(agent.connection_id, tmp_path)
        await link.close_session(doomed)  # (the agent stays: the other session uses it)
        await link.delete_session(agent.connection_id, doomed)
        listed = await link.list_sessions(agent.connection_id, tmp_path)
        assert [s["sessionId"] for s in listed] == [kept]
        await link.logout(agent.connection_id)
        assert count.read_text().splitlines()[-2:] == [f"delete {doomed}", "logout"]
        plain = await link.open(agent_spec(**env), tmp_path)  # another agent: no logout
        with pytest.raises(HostError) as refused:
            await link.logout(plain.connection_id)
        assert refused.value.code == "unsupported"
    finally:
        await link.end_sessions()
        await link.shutdown()
