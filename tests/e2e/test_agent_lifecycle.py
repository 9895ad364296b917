"""A real Claude adapter's end: killed mid-turn (the host reports it and stays
usable), and stopped by the host while it runs a command (nothing survives)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from acp_tui.core.transport.process import group_members
from tests import waiting
from tests.conftest import HeadlessClient
from tests.e2e.harness import (
    WAIT,
    InstalledAdapter,
    MockApi,
    alive,
    assistant_text,
    children,
    cmdline,
    descendants,
    pgid_of,
    session_events,
)

pytestmark = pytest.mark.e2e


async def until(condition: Callable[[], bool], timeout: float = WAIT) -> None:
    await waiting.until(condition, timeout)


async def result(client: HeadlessClient, method: str, params: dict[str, Any]) -> dict[str, Any]:
    frame = await client.call(method, params, timeout=WAIT)
    assert "result" in frame, frame
    answer: dict[str, Any] = frame["result"]
    return answer


async def open_session(client: HeadlessClient, cwd: Path) -> tuple[dict[str, Any], str]:
    """A connection to the command-line agent and a session in ``cwd``."""
    opened = await result(client, "connection.open", {})
    created = await result(
        client, "session.create", {"connectionId": opened["connectionId"], "cwd": str(cwd)}
    )
    return opened, str(created["sessionId"])


async def test_agent_killed_mid_turn(
    adapter: InstalledAdapter, mock_api: MockApi, home: Path, workdir: Path
) -> None:
    client = await HeadlessClient.start("--", *mock_api.agent_command(adapter, home), cwd=workdir)
    try:
        opened, session_id = await open_session(client, workdir)
        pending = client.send("session.prompt", {"sessionId": session_id, "text": "e2e:slow"})

        def deltas() -> int:
            return sum(
                1
                for e in session_events(client.events, session_id)
                if "textDelta" in e.get("patch", {})
            )

        await until(lambda: deltas() >= 2)  # mid-turn, mid-stream
        (pid,) = children(client.proc.pid)
        assert pgid_of(pid) == pid  # the agent's supervisor leads its process group
        group = group_members(pid)
        assert pid in group
        os.killpg(pid, signal.SIGKILL)  # from outside, the whole group

        done = await asyncio.wait_for(pending, WAIT)
        assert done["error"]["code"] == "agent_exited", done
        assert done["error"]["data"]["exitCode"] == -signal.SIGKILL
        statuses = [
            e["status"]
            for e in session_events(client.events, session_id)
            if e["type"] == "status-changed"
        ]
        assert statuses == ["running", "error", "closed"]
        await until(lambda: all(group_members(p) == [] for p in group))
        snapshot = (await client.call("session.snapshot", {"sessionId": session_id}))["result"]
        assert snapshot["status"] == "closed"
        notices = [e for e in snapshot["entries"] if e["kind"] == "notice"]
        assert notices and notices[-1]["level"] == "error"
        assert "slow line 0." in assistant_text(snapshot["entries"])[0]  # kept what came
        later = await client.call("session.prompt", {"sessionId": session_id, "text": "e2e:say x"})
        assert later["error"]["code"] == "agent_exited"

        # The host goes on: the same agent again is a new process, and it works.
        reopened = (await client.call("connection.open", {}, timeout=WAIT))["result"]
        assert reopened["reused"] is False
        assert reopened["connectionId"] != opened["connectionId"]
        (new_pid,) = children(client.proc.pid)
        assert new_pid != pid
        again = await client.call(
            "session.create",
            {"connectionId": reopened["connectionId"], "cwd": str(workdir)},
            timeout=WAIT,
        )
        new_session = again["result"]["sessionId"]
        answer = await client.call(
            "session.prompt", {"sessionId": new_session, "text": "e2e:say back again"}, timeout=WAIT
        )
        assert answer["result"] == {"stopReason": "end_turn"}
        assert assistant_text(
            (await client.call("session.snapshot", {"sessionId": new_session}))["result"]["entries"]
        ) == ["back again"]
        assert await client.close_stdin_and_wait(timeout=WAIT) == 0
        assert group_members(new_pid) == []
    finally:
        await client.kill()


@pytest.mark.parametrize("how", ["close", "eof"])
async def test_a_running_command_does_not_outlive_the_agent(
    adapter: InstalledAdapter,
    mock_api: MockApi,
    home: Path,
    workdir: Path,
    how: str,
) -> None:
    """AC-2: on connection.close or EOF on stdin, nothing the agent started survives.

    0.16 runs Bash in our terminal/* (our pty, which we kill). 0.23's Claude
    Code runs it itself, in a shell it starts in a session of its own: out of
    the agent's process group; the host finds it by walking the agent's
    process tree before it stops the group."""
    duration = f"{300 + os.getpid() % 100}.{time.time_ns() % 1000:03d}"
    client = await HeadlessClient.start("--", *mock_api.agent_command(adapter, home), cwd=workdir)
    started: list[int] = []
    try:
        opened, session_id = await open_session(client, workdir)
        command = f"sleep {duration}; echo x > slept.txt"  # a write: Claude asks first
        client.send("session.prompt", {"sessionId": session_id, "text": f"e2e:bash {command}"})
        asked = await client.wait_event(
            lambda e: e["type"] == "permission-requested" and e.get("sessionId") == session_id,
            timeout=WAIT,
        )
        decided = await client.call(
            "permission.decide", {"requestId": asked["requestId"], "optionId": "allow"}
        )
        assert decided["result"] == {}
        await until(
            lambda: any(cmdline(p) == ["sleep", duration] for p in descendants(client.proc.pid))
        )
        (agent_pid,) = [
            p
            for p in children(client.proc.pid)
            if p == pgid_of(p) and cmdline(p)[-1:] == [str(adapter.adapter.entry)]
        ]
        started = descendants(client.proc.pid)  # the agent, its helpers, the command
        if how == "close":
            closed = await client.call("connection.close", {"connectionId": opened["connectionId"]})
            assert closed["result"] == {}
        else:
            assert await client.close_stdin_and_wait(timeout=WAIT) == 0
        assert group_members(agent_pid) == []
        await asyncio.sleep(2)  # AC-2: gone within 2 s
        survivors = [(p, " ".join(cmdline(p))[:100]) for p in started if alive(p)]
        assert survivors == [], survivors
    finally:
        await client.kill()
        for pid in started:  # whatever leaked: do not leave it running
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


async def test_a_session_resumed_in_a_new_agent_process(
    adapter: InstalledAdapter, mock_api: MockApi, home: Path, workdir: Path, tmp_path: Path
) -> None:
    """session.list then session.load on a new process: the agent replays the
    conversation into the host, and the next turn's model request holds it."""
    data = tmp_path / "data"
    client = await HeadlessClient.start(
        "--", *mock_api.agent_command(adapter, home), cwd=workdir, XDG_DATA_HOME=str(data)
    )
    try:
        opened, session_id = await open_session(client, workdir)
        said = await result(
            client, "session.prompt", {"sessionId": session_id, "text": "e2e:say plum"}
        )
        assert said == {"stopReason": "end_turn"}
        await result(client, "connection.close", {"connectionId": opened["connectionId"]})

        reopened = await result(client, "connection.open", {})
        assert reopened["reused"] is False
        assert reopened["agentCapabilities"]["loadSession"] is True
        listed = await result(
            client, "session.list", {"connectionId": reopened["connectionId"], "cwd": str(workdir)}
        )
        assert session_id in [s["sessionId"] for s in listed["sessions"]]
        loaded = await result(
            client,
            "session.load",
            {
                "connectionId": reopened["connectionId"],
                "sessionId": session_id,
                "cwd": str(workdir),
            },
        )
        assert loaded["sessionId"] == session_id
        snapshot = await result(client, "session.snapshot", {"sessionId": session_id})
        assert "plum" in " ".join(assistant_text(snapshot["entries"]))
        assert any(e["kind"] == "user" for e in snapshot["entries"])
        recalled = await result(
            client, "session.prompt", {"sessionId": session_id, "text": "e2e:recall"}
        )
        assert recalled == {"stopReason": "end_turn"}
        last = [r for r in mock_api.messages(workdir) if r.get("reply") == "recall"][-1]
        assert "plum" in json.dumps(last["body"]["messages"])
        # The local history holds the replayed conversation and the new turn.
        stored = "".join(p.read_text() for p in (data / "acp-tui" / "sessions").glob("*.jsonl"))
        assert "plum" in stored and "Earlier I said" in stored
        assert await client.close_stdin_and_wait(timeout=WAIT) == 0
    finally:
        await client.kill()
