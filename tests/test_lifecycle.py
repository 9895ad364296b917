"""Connection and session lifecycle (AC-1, AC-2, AC-3, AC-15) against real agent processes."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
from pathlib import Path

import pytest

from acp_tui import __version__
from acp_tui.core.errors import HostError
from acp_tui.core.host import Host
from acp_tui.core.transport.process import group_members
from tests.conftest import Recorder
from tests.fake_agents import agent_spec


def alive(pid: int) -> bool:
    """Running and not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] not in (b"Z", b"X")


def text_of(recorder: Recorder, session_id: str) -> str:
    """The assistant text the events describe, rebuilt from the events alone."""
    chunks: dict[tuple[int, int], str] = {}
    for event in recorder.events:
        if event.session_id != session_id:
            continue
        if event.type == "entry-appended" and event.data["entry"]["kind"] == "assistant":
            for k, chunk in enumerate(event.data["entry"]["chunks"]):
                chunks[(event.data["index"], k)] = chunk["text"]
        elif (delta := event.text_delta) is not None:
            key = (event.data["index"], delta["chunk"])
            chunks[key] = chunks.get(key, "") + delta["text"]
    return "".join(text for _, text in sorted(chunks.items()))


async def test_ac1_one_process_many_prompts_initialize_once(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    count_file = tmp_path / "initialize-count"
    spec = agent_spec(ACP_FAKE_COUNT_FILE=str(count_file))
    connection, reused = await host.open_connection(spec, tmp_path, trace_frames=True)
    assert not reused
    session = await host.create_session(connection.connection_id, tmp_path)
    assert await host.prompt(session.session_id, [{"type": "text", "text": "echo one"}]) == (
        "end_turn"
    )
    again, reused_again = await host.open_connection(spec, tmp_path)
    assert again is connection and reused_again
    assert await host.prompt(session.session_id, [{"type": "text", "text": "echo two"}]) == (
        "end_turn"
    )
    frames = [e.data for e in recorder.of_type("protocol-frame")]
    out_methods = [f.get("method") for f in frames if f["direction"] == "out"]
    assert out_methods.count("initialize") == 1
    assert out_methods.count("session/new") == 1
    prompts = [f["payload"] for f in frames if f.get("method") == "session/prompt"]
    assert [p["params"]["sessionId"] for p in prompts] == ["s1", "s1"]
    assert count_file.read_text().splitlines() == ["initialize"]
    assert connection.process is not None and connection.process.returncode is None
    assert text_of(recorder, session.session_id) == "one two "


async def test_ac15_initialize_advertises_truthfully(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    await host.open_connection(agent_spec(), tmp_path, trace_frames=True)
    frame = next(
        e.data["payload"]
        for e in recorder.of_type("protocol-frame")
        if e.data.get("method") == "initialize"
    )
    params = frame["params"]
    assert params["clientInfo"]["name"] == "acp-tui"
    assert params["clientInfo"]["version"] == __version__
    assert params["clientCapabilities"]["fs"] == {"readTextFile": True, "writeTextFile": True}
    assert params["clientCapabilities"]["terminal"] is True


async def test_open_caches_by_identity(host: Host, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    a, _ = await host.open_connection(agent_spec(), tmp_path)
    b, reused_b = await host.open_connection(agent_spec(), other)
    c, reused_c = await host.open_connection(agent_spec(X="1"), tmp_path)
    both = await asyncio.gather(
        host.open_connection(agent_spec(Y="1"), tmp_path),
        host.open_connection(agent_spec(Y="1"), tmp_path),
    )
    assert len({id(a), id(b), id(c)}) == 3 and not reused_b and not reused_c
    assert both[0][0] is both[1][0]
    assert sorted([both[0][1], both[1][1]]) == [False, True]


async def _grandchild_session(
    host: Host, cwd: Path, command: str = "grandchild"
) -> tuple[str, int, int, asyncio.Task[str]]:
    connection, _ = await host.open_connection(agent_spec(), cwd)
    session = await host.create_session(connection.connection_id, cwd)
    recorder = Recorder(host.attach())
    turn = asyncio.ensure_future(
        host.prompt(session.session_id, [{"type": "text", "text": command}])
    )
    event = await recorder.wait_for(
        lambda e: (
            e.text_delta is not None
            or (e.type == "entry-appended" and e.data["entry"]["kind"] == "assistant")
        )
    )
    recorder.close()
    entry = event.data.get("entry") or {}
    text = entry["chunks"][0]["text"] if entry else event.data["patch"]["textDelta"]["text"]
    grandchild = int(text.split("=")[1])
    assert connection.process is not None
    return connection.connection_id, connection.process.pgid, grandchild, turn


async def test_ac2_close_reaps_the_whole_group_and_frees_the_cwd(
    host: Host, tmp_path: Path
) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    connection_id, pgid, grandchild, turn = await _grandchild_session(host, cwd)
    assert alive(grandchild) and grandchild in group_members(pgid)
    await host.close_connection(connection_id)
    assert not alive(grandchild)
    assert group_members(pgid) == []
    with pytest.raises(HostError) as failed:
        await turn
    assert failed.value.code == "agent_exited"
    shutil.rmtree(cwd)  # nothing holds it any more


async def test_ac2_a_descendant_in_a_session_of_its_own_is_stopped_too(
    host: Host, tmp_path: Path
) -> None:
    connection_id, pgid, escaped, turn = await _grandchild_session(
        host, tmp_path, "grandchild own-session"
    )
    turn.add_done_callback(lambda t: t.exception())
    assert alive(escaped) and escaped not in group_members(pgid)
    await host.close_connection(connection_id)
    assert not alive(escaped)


async def test_ac2_shutdown_reaps_every_agent(tmp_path: Path) -> None:
    host = Host()
    pids = []
    for n in range(2):
        cwd = tmp_path / str(n)
        cwd.mkdir()
        _, pgid, grandchild, turn = await _grandchild_session(host, cwd)
        turn.add_done_callback(lambda t: t.exception())
        pids.append((pgid, grandchild))
    await host.shutdown()
    for pgid, grandchild in pids:
        assert not alive(grandchild) and group_members(pgid) == []
    with pytest.raises(HostError) as refused:
        await host.open_connection(agent_spec(), tmp_path)
    assert refused.value.code == "shutting_down"


async def test_ac2_a_group_that_ignores_sigterm_is_killed(host: Host, tmp_path: Path) -> None:
    script = tmp_path / "stubborn.py"
    script.write_text(
        "import signal, subprocess, sys, runpy\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "subprocess.Popen(['sh', '-c', 'trap \"\" TERM; sleep 1000'])\n"
        f"sys.argv = [{str(agent_spec().args[0])!r}]\n"
        f"runpy.run_path({str(agent_spec().args[0])!r}, run_name='__main__')\n"
    )
    spec = agent_spec()
    spec = type(spec).of(spec.command, [str(script)])
    connection, _ = await host.open_connection(spec, tmp_path)
    assert connection.process is not None
    pgid = connection.process.pgid
    await asyncio.sleep(0.3)
    assert len(group_members(pgid)) >= 2
    await host.close_connection(connection.connection_id)
    assert group_members(pgid) == []


async def test_ac3_agent_death_mid_turn(host: Host, recorder: Recorder, tmp_path: Path) -> None:
    connection, _ = await host.open_connection(agent_spec(), tmp_path)
    session = await host.create_session(connection.connection_id, tmp_path)
    with pytest.raises(HostError) as died:
        await asyncio.wait_for(
            host.prompt(session.session_id, [{"type": "text", "text": "die 7"}]), 10
        )
    assert died.value.code == "agent_exited"
    assert "exit code 7" in died.value.message
    assert "fatal: scripted death" in died.value.data["stderr"]
    statuses = [e.data["status"] for e in recorder.of_type("status-changed", session.session_id)]
    assert statuses == ["running", "error", "closed"]
    error = recorder.of_type("status-changed", session.session_id)[1]
    assert "exit code 7" in error.data["message"]
    notices = [e for e in recorder.of_type("entry-appended") if e.data["entry"]["kind"] == "notice"]
    assert "fatal: scripted death" in notices[-1].data["entry"]["text"]
    # Later requests fail fast; the same identity starts a fresh process.
    with pytest.raises(HostError) as later:
        await host.prompt(session.session_id, [{"type": "text", "text": "echo x"}])
    assert later.value.code == "agent_exited"
    fresh, reused = await host.open_connection(agent_spec(), tmp_path)
    assert not reused and fresh is not connection
    new_session = await host.create_session(fresh.connection_id, tmp_path)
    assert await host.prompt(new_session.session_id, [{"type": "text", "text": "echo ok"}]) == (
        "end_turn"
    )


async def test_ac3_every_in_flight_request_ends(host: Host, tmp_path: Path) -> None:
    connection, _ = await host.open_connection(agent_spec(), tmp_path)
    sessions = [await host.create_session(connection.connection_id, tmp_path) for _ in range(2)]
    hanging = asyncio.ensure_future(
        host.prompt(sessions[0].session_id, [{"type": "text", "text": "hang"}])
    )
    await asyncio.sleep(0.2)
    assert connection.process is not None
    os.kill(connection.process.pid, signal.SIGKILL)
    with pytest.raises(HostError) as failed:
        await asyncio.wait_for(hanging, 10)
    assert failed.value.code == "agent_exited"
    assert sessions[1].status == "closed"


async def test_stderr_flood_does_not_block(host: Host, recorder: Recorder, tmp_path: Path) -> None:
    connection, _ = await host.open_connection(agent_spec(), tmp_path)
    session = await host.create_session(connection.connection_id, tmp_path)
    reason = await asyncio.wait_for(
        host.prompt(session.session_id, [{"type": "text", "text": "stderr 5000000"}]), 30
    )
    assert reason == "end_turn"
    assert connection.process is not None
    tail = connection.process.stderr_tail()
    assert 0 < len(tail) <= 64 * 1024
    assert recorder.of_type("agent-stderr")


async def test_missing_command_is_a_clear_error(host: Host, tmp_path: Path) -> None:
    spec = agent_spec()
    missing = type(spec).of(str(tmp_path / "no-such-agent"))
    with pytest.raises(HostError) as failed:
        await host.open_connection(missing, tmp_path)
    assert failed.value.code == "invalid_params"
    assert str(tmp_path) not in failed.value.message
