"""Nothing outlives the host: SIGKILL of the host, setsid in terminals (issue 12, point 2).

Every process here carries a marker in its environment (tests/processes.py),
so what is left is counted even after it was re-parented to init.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tui.core.host import Host
from acp_tui.core.transport.process import group_members
from tests.conftest import Recorder
from tests.fake_agents import agent_spec
from tests.processes import (
    MARKER_VAR,
    PtyTui,
    alive,
    describe,
    marked,
    new_marker,
    scripted_session,
    tui_command,
)
from tests.waiting import came_true


@pytest.fixture
def marker() -> Iterator[str]:
    """This test's marker; whatever carries it is killed at the end (a failed
    test must not leave its sleepers behind)."""
    value = new_marker()
    yield value
    for pid in marked(value):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _tree(path: Path) -> dict[str, Any]:
    assert came_true(path.exists, 30), "the agent never reported its children"
    tree: dict[str, Any] = json.loads(path.read_text())
    assert all(alive(pid) for pid in [tree["agent"], *tree["children"]])
    return tree


def _all_gone(marker: str, tree: dict[str, Any]) -> None:
    pids = [tree["agent"], *tree["children"]]
    assert came_true(lambda: not any(alive(pid) for pid in pids), 10), describe(pids)
    assert came_true(lambda: not group_members(tree["group"]), 10)
    assert came_true(lambda: not marked(marker), 10), describe(marked(marker))


async def test_sigkill_of_the_headless_host_leaves_nothing(
    headless: Any, tmp_path: Path, marker: str
) -> None:
    client = await headless(**{MARKER_VAR: marker})
    _, session_id = await scripted_session(client, tmp_path)
    report = tmp_path / "tree.json"
    prompt = {"sessionId": session_id, "text": f"spawn-tree {report}"}
    assert (await client.result("session.prompt", prompt))["stopReason"] == "end_turn"
    tree = _tree(report)
    # Children in the agent's group, in a session of their own, and orphaned.
    assert tree["children"][0] in group_members(tree["group"])
    assert tree["children"][1] not in group_members(tree["group"])
    client.proc.kill()  # SIGKILL: the host cannot clean up
    await client.proc.wait()
    await asyncio.to_thread(_all_gone, marker, tree)


def test_sigkill_of_the_tui_leaves_nothing(tmp_path: Path) -> None:
    tui = PtyTui(tui_command("--cwd", str(tmp_path)), cwd=tmp_path)
    try:
        tui.wait_ready()
        report = tmp_path / "tree.json"
        tui.type(f"spawn-tree {report}\r".encode())
        tree = _tree(report)
        tui.signal(signal.SIGKILL)
        assert tui.wait_exit(10)
        _all_gone(tui.marker, tree)
    finally:
        tui.close()


async def test_closing_a_connection_stops_an_orphaned_descendant(
    host: Host, recorder: Recorder, tmp_path: Path, marker: str
) -> None:
    # Orphaned before the host looks (its parent exited at once): only the
    # supervisor, which adopted it, still knows it belongs to the agent.
    connection, _ = await host.open_connection(agent_spec(**{MARKER_VAR: marker}), tmp_path)
    session = await host.create_session(connection.connection_id, tmp_path)
    report = tmp_path / "tree.json"
    await host.prompt(session.session_id, [{"type": "text", "text": f"spawn-tree {report}"}])
    tree = await asyncio.to_thread(_tree, report)
    await host.close_connection(connection.connection_id)
    assert not any(alive(pid) for pid in tree["children"]), describe(tree["children"])
    assert marked(marker) == []


@pytest.mark.parametrize("line", ["setsid sleep 1000", "setsid sleep 1000 & wait", "sleep 1000"])
async def test_release_stops_what_a_terminal_started_with_setsid(
    host: Host, recorder: Recorder, tmp_path: Path, line: str, marker: str
) -> None:
    connection, _ = await host.open_connection(agent_spec(**{MARKER_VAR: marker}), tmp_path)
    session = await host.create_session(connection.connection_id, tmp_path)
    tools = session.tools.terminals
    terminal_id = await tools.create(line, env={MARKER_VAR: marker}, cwd=tmp_path)
    agent = connection.process
    assert agent is not None

    def sleeping() -> list[int]:
        found = []
        for pid in marked(marker):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if cmdline[:2] == [b"sleep", b"1000"]:
                found.append(pid)
        return found

    assert await asyncio.to_thread(came_true, lambda: bool(sleeping()), 10)
    if line.startswith("setsid"):
        assert all(os.getsid(pid) != os.getsid(agent.pid) for pid in sleeping())
    await tools.release(terminal_id)
    assert sleeping() == [], describe(sleeping())


async def test_sigkill_of_the_host_stops_a_terminals_setsid_child(
    headless: Any, tmp_path: Path, marker: str
) -> None:
    client = await headless(**{MARKER_VAR: marker})
    _, session_id = await scripted_session(client, tmp_path)
    # The agent runs a terminal whose command leaves the pty's session.
    prompt = {"sessionId": session_id, "text": "terminal setsid sleep 1000 & wait"}
    turn = client.send("session.prompt", prompt)
    assert await asyncio.to_thread(came_true, lambda: len(marked(marker)) >= 5, 20)
    client.proc.kill()
    await client.proc.wait()
    turn.cancel()
    assert await asyncio.to_thread(came_true, lambda: not marked(marker), 10), describe(
        marked(marker)
    )
