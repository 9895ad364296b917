"""Back-pressure (AC-14): bounded channels, merged deltas, nothing structural lost."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from acp_tui.core.host import Host
from acp_tui.core.model.channel import ChannelClosed
from acp_tui.core.model.events import Event
from tests.conftest import REPO
from tests.fake_agents import agent_params, agent_spec
from tests.test_headless import rebuild_text

CHUNKS = 100_000
EVERY = 1_000


def check_flood(events: list[dict[str, Any]], session_id: str) -> None:
    text = rebuild_text(events, session_id)
    assert text.split("\n")[:-1] == [str(n) for n in range(CHUNKS)]
    marks = [
        e["entry"]["toolCallId"]
        for e in events
        if e["type"] == "entry-appended" and e["entry"]["kind"] == "tool_call"
    ]
    assert marks == [f"mark-{n}" for n in range(EVERY, CHUNKS + 1, EVERY)]
    cursors = [e["cursor"] for e in events if e.get("sessionId") == session_id]
    assert cursors == sorted(set(cursors)), "cursors strictly increase"
    statuses = [e["status"] for e in events if e["type"] == "status-changed"]
    assert statuses == ["running", "idle"]


async def test_stalled_consumer_then_drain_loses_nothing(tmp_path: Path) -> None:
    host = Host()
    channel = host.attach(capacity=64, merge_at=32)
    try:
        connection, _ = await host.open_connection(agent_spec(), tmp_path)
        session = await host.create_session(connection.connection_id, tmp_path)
        turn = asyncio.ensure_future(
            host.prompt(
                session.session_id, [{"type": "text", "text": f"flood {CHUNKS} EVERY {EVERY}"}]
            )
        )
        # Stall: take nothing while the agent floods.
        peak = 0
        for _ in range(30):
            await asyncio.sleep(0.1)
            peak = max(peak, len(channel))
        stalled_at = len(session.thread)
        assert not turn.done(), "the agent must be held back while the consumer stalls"
        assert stalled_at < CHUNKS // EVERY, "the core stopped reading the agent"
        assert peak <= channel.capacity + 4, "the channel stays bounded"
        # Drain.
        received: list[Event] = []
        while not (turn.done() and len(channel) == 0):
            try:
                received.append(await asyncio.wait_for(channel.get(), 30))
            except ChannelClosed:
                break
            peak = max(peak, len(channel) + 1)
        assert await turn == "end_turn"
        assert peak <= channel.capacity + 4
        assert channel.merged > 0, "deltas were merged under pressure"
        check_flood([e.to_wire() for e in received], session.session_id)
        # The final state equals the no-pressure state: the thread itself.
        snapshot = session.snapshot()
        text = "".join(
            chunk["text"]
            for entry in snapshot["entries"]
            if entry["kind"] == "assistant"
            for chunk in entry["chunks"]
        )
        assert text == rebuild_text([e.to_wire() for e in received], session.session_id)
    finally:
        await host.shutdown()


async def test_stalled_headless_reader_then_drain(tmp_path: Path) -> None:
    """The whole chain: a reader that stops reading the server's stdout."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "acp_tui",
        "--headless",
        "--stdio",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=str(REPO),
        env=dict(os.environ),
        # asyncio reads a pipe ahead until twice this is buffered: keep it small
        # so that not reading really leaves the server's stdout unread.
        limit=2 * 1024 * 1024,
    )
    assert proc.stdin is not None and proc.stdout is not None
    agent = agent_params()
    requests = [
        {"id": 1, "method": "connection.open", "params": {"agent": agent, "cwd": str(tmp_path)}},
        {"id": 2, "method": "session.create", "params": {"connectionId": "conn-1"}},
    ]
    frames: list[dict[str, Any]] = []

    async def read_until(rpc_id: int) -> None:
        assert proc.stdout is not None
        while True:
            line = await proc.stdout.readline()
            assert line, "the server ended early"
            frame = json.loads(line)
            frames.append(frame)
            if frame.get("id") == rpc_id:
                assert "result" in frame, frame
                return

    try:
        for request in requests:
            proc.stdin.write(json.dumps({"version": 1, **request}).encode() + b"\n")
            await asyncio.wait_for(read_until(request["id"]), 30)
        session_id = frames[-1]["result"]["sessionId"]
        prompt = {"sessionId": session_id, "text": f"flood {CHUNKS} EVERY {EVERY}"}
        message = {"version": 1, "id": 3, "method": "session.prompt", "params": prompt}
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        await asyncio.sleep(3)  # the reader stalls; the pipe and the channel fill
        await asyncio.wait_for(read_until(3), 120)
        events = [f["event"] for f in frames if "event" in f]
        check_flood(events, session_id)
        deltas = sum(1 for e in events if e["type"] == "entry-updated")
        assert deltas < CHUNKS, "some deltas arrived merged"
    finally:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), 10)
