"""Agents that never answer or stop reading (issue 12, point 9), with real processes.

* ``initialize`` and ``session/new`` time out (``[timeouts]`` in the config
  file) with an error naming the agent and carrying its last stderr lines,
  headless and in the TUI on a real pty.
* An agent that stops reading its stdin with a 2 MiB prompt stuck in the pipe
  delays only what is sent to it: ``session.cancel`` answers, the turn ends,
  the host reports the stuck agent, and a new prompt works once it reads.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from acp_tui.core import connection as connection_module
from acp_tui.core.errors import HostError
from acp_tui.core.host import Host
from acp_tui.core.transport.process import group_members
from acp_tui.core.transport.timeouts import Timeouts
from tests.conftest import Recorder
from tests.fake_agents import agent_params, agent_spec
from tests.processes import PtyTui, scripted_session, tui_command
from tests.waiting import came_true

TWO_MIB = 2 * 1024 * 1024
TIMEOUT_KEYS = {"initialize": "initialize", "session/new": "session_new"}


def _config(tmp_path: Path, **seconds: float) -> Path:
    """Timeouts; no checkpoints (a turn's prompt goes out at once, so a cancel
    right after "running" reaches an agent that has it)."""
    path = tmp_path / "config.toml"
    lines = ["[checkpoints]", "enabled = false", "[timeouts]"]
    lines += [f"{key} = {value}" for key, value in seconds.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("method", ["initialize", "session/new"])
async def test_an_agent_that_never_answers_times_out_headless(
    headless: Any, tmp_path: Path, method: str
) -> None:
    client = await headless(ACP_TUI_CONFIG=str(_config(tmp_path, **{TIMEOUT_KEYS[method]: 2})))
    agent = agent_params(ACP_FAKE_HANG=method)
    frame = await client.call("connection.open", {"agent": agent, "cwd": str(tmp_path)})
    if method == "session/new":
        opened = frame["result"]
        frame = await client.call(
            "session.create", {"connectionId": opened["connectionId"], "cwd": str(tmp_path)}
        )
    error = frame["error"]
    assert error["code"] == "timeout"
    # Named after the script's package before initialize (not "python3"), and
    # after its agentInfo once initialized (issue 13, point 8).
    name = "acp-tui" if method == "initialize" else "scripted"
    assert error["message"] == f"{name} did not answer {method} within 2 s"
    assert f"will hang in {method}" in error["data"]["stderr"]


async def test_a_timed_out_initialize_reaps_the_agent(tmp_path: Path) -> None:
    host = Host(timeouts=Timeouts(initialize=0.5))
    try:
        with pytest.raises(HostError) as failed:
            await host.open_connection(agent_spec(ACP_FAKE_HANG="initialize"), tmp_path)
        assert failed.value.code == "timeout"
        assert host.connections == {}
    finally:
        await host.shutdown()


@pytest.mark.parametrize("method", ["initialize", "session/new"])
def test_the_tui_says_when_the_agent_never_answers(tmp_path: Path, method: str) -> None:
    config = _config(tmp_path, **{TIMEOUT_KEYS[method]: 2})
    tui = PtyTui(
        tui_command("--cwd", str(tmp_path)),
        cwd=tmp_path,
        env={"ACP_TUI_CONFIG": str(config), "ACP_FAKE_HANG": method},
        dimensions=(30, 120),
    )
    try:
        assert tui.wait_for(lambda: tui.shows(f"did not answer {method} within 2 s"), 30), bytes(
            tui.output[-3000:]
        )
        assert tui.wait_for(lambda: tui.shows(f"will hang in {method}"), 10)
    finally:
        tui.close()


async def _deaf(flag: Path) -> None:
    """Until the agent has stopped reading its stdin."""
    marker = flag.with_name(flag.name + ".deaf")
    assert await asyncio.to_thread(came_true, marker.exists, 20)


async def _wait(future: asyncio.Future[Any], seconds: float = 15) -> Any:
    return await asyncio.wait_for(asyncio.shield(future), seconds)


async def test_cancel_and_new_prompts_work_while_a_prompt_is_stuck_in_the_pipe(
    headless: Any, tmp_path: Path
) -> None:
    client = await headless(ACP_TUI_CONFIG=str(_config(tmp_path, stuck_input=0.5)))
    _, session_id = await scripted_session(client, tmp_path)
    flag = tmp_path / "read-again"
    deaf = await client.result("session.prompt", {"sessionId": session_id, "text": f"deaf {flag}"})
    assert deaf["stopReason"] == "end_turn"
    await _deaf(flag)
    # The agent no longer reads: 2 MiB stay in the pipe and the host's buffer.
    big = "hang\n" + "x" * TWO_MIB
    seen = len(client.events)
    stuck = client.send("session.prompt", {"sessionId": session_id, "text": big})
    await client.wait_event(
        lambda e: client.events.index(e) >= seen and e.get("status") == "running", 20
    )
    assert (await _wait(client.send("session.cancel", {"sessionId": session_id})))["result"] == {}
    report = await client.wait_event(lambda e: e.get("code") == "agent_not_reading", 20)
    assert "has not read its input" in report["message"] and "MiB waiting" in report["message"]
    # The turn ends for the user (after the cancel grace), the agent still deaf.
    assert (await _wait(stuck, 30))["result"]["stopReason"] == "cancelled"
    again = client.send("session.prompt", {"sessionId": session_id, "text": "echo again"})
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    assert snapshot["status"] == "running"
    flag.touch()  # the agent reads again: everything queued reaches it in order
    assert (await _wait(again, 30))["result"]["stopReason"] == "end_turn"


async def test_past_the_backlog_bound_a_send_fails_at_once(
    host: Host, recorder: Recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection_module, "MAX_AGENT_BACKLOG", 1024 * 1024)
    connection, _ = await host.open_connection(agent_spec(), tmp_path)
    first = await host.create_session(connection.connection_id, tmp_path)
    second = await host.create_session(connection.connection_id, tmp_path)
    flag = tmp_path / "read-again"
    await host.prompt(first.session_id, [{"type": "text", "text": f"deaf {flag}"}])
    await _deaf(flag)
    big = [{"type": "text", "text": "hang\n" + "x" * TWO_MIB}]
    seen = len(recorder.events)
    stuck = asyncio.ensure_future(host.prompt(first.session_id, big))
    await recorder.wait_for(
        lambda e: recorder.events.index(e) >= seen and e.data.get("status") == "running"
    )
    await asyncio.sleep(0.1)  # the turn's request is queued on its next step
    with pytest.raises(HostError) as refused:
        await asyncio.wait_for(
            host.prompt(second.session_id, [{"type": "text", "text": "echo x"}]), 10
        )
    assert refused.value.code == "limit_exceeded"
    assert "is not reading its input" in refused.value.message
    assert connection.process is not None
    pgid = connection.process.pgid
    await asyncio.wait_for(host.close_connection(connection.connection_id), 10)
    assert group_members(pgid) == []
    with pytest.raises(HostError):
        await stuck
