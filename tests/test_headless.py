"""acp-host-jsonl-v1 through a real `acp-tui --headless --stdio` process."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui import ACP_HOST_VERSION
from acp_tui.core.transport.process import group_members
from tests.conftest import HeadlessClient
from tests.fake_agents import SCRIPTED_AGENT, agent_params
from tests.test_lifecycle import alive

SCRIPTED = agent_params()


async def open_session(client: HeadlessClient, cwd: Path, **open_params: Any) -> tuple[str, str]:
    opened = await client.result(
        "connection.open", {"agent": SCRIPTED, "cwd": str(cwd), **open_params}
    )
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    return opened["connectionId"], created["sessionId"]


def rebuild_text(events: list[dict[str, Any]], session_id: str) -> str:
    chunks: dict[tuple[int, int], list[str]] = {}
    for event in events:
        if event.get("sessionId") != session_id:
            continue
        if event["type"] == "entry-appended" and event["entry"]["kind"] == "assistant":
            for k, chunk in enumerate(event["entry"]["chunks"]):
                chunks[(event["index"], k)] = [chunk["text"]]
        elif event["type"] == "entry-updated" and "textDelta" in event["patch"]:
            delta = event["patch"]["textDelta"]
            chunks.setdefault((event["index"], delta["chunk"]), []).append(delta["text"])
    return "".join("".join(parts) for _, parts in sorted(chunks.items()))


async def test_open_create_prompt_and_the_response_follows_the_turn(
    headless: Any, tmp_path: Path
) -> None:
    client = await headless()
    opened = await client.result("connection.open", {"agent": SCRIPTED, "cwd": str(tmp_path)})
    assert opened["hostVersion"] == ACP_HOST_VERSION
    assert opened["reused"] is False
    assert opened["agentInfo"]["name"] == "scripted"
    assert opened["protocolVersion"] == 1
    assert "agentCapabilities" in opened and opened["authMethods"] == []
    again = await client.result("connection.open", {"agent": SCRIPTED, "cwd": str(tmp_path)})
    assert again["connectionId"] == opened["connectionId"] and again["reused"] is True
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    session_id = created["sessionId"]
    assert created["modes"]["currentModeId"] == "ask"
    result = await client.result("session.prompt", {"sessionId": session_id, "text": "echo a b"})
    assert result == {"stopReason": "end_turn"}
    # The response was written after the last event of the turn.
    response_at = next(
        i for i, f in enumerate(client.frames) if f.get("result") == {"stopReason": "end_turn"}
    )
    idle_at = max(
        i
        for i, f in enumerate(client.frames)
        if f.get("event", {}).get("type") == "status-changed" and f["event"].get("status") == "idle"
    )
    assert idle_at < response_at
    session_events = [e for e in client.events if e.get("sessionId") == session_id]
    cursors = [e["cursor"] for e in session_events]
    assert cursors == list(range(1, len(cursors) + 1))
    assert session_events[0]["type"] == "entry-appended"
    assert session_events[0]["entry"] == {
        "kind": "user",
        "content": [{"type": "text", "text": "echo a b"}],
    }
    assert rebuild_text(client.events, session_id) == "a b "


async def test_snapshot_then_events_above_its_cursor(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    await client.result("session.prompt", {"sessionId": session_id, "text": "echo one"})
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    assert snapshot["status"] == "idle"
    assert [e["kind"] for e in snapshot["entries"]] == ["user", "assistant"]
    assert snapshot["entries"][1]["chunks"][0]["text"] == "one "
    cursor = snapshot["cursor"]
    await client.result("session.prompt", {"sessionId": session_id, "text": "echo two"})
    later = [e for e in client.events if e.get("sessionId") == session_id and e["cursor"] > cursor]
    assert later[0]["cursor"] == cursor + 1 and later[0]["type"] == "entry-appended"
    assert later[0]["index"] == 2


async def test_framing_errors_get_answers_and_the_host_keeps_serving(headless: Any) -> None:
    client = await headless()
    client.send_raw(b"this is not json\n")
    client.send_raw(b"[1, 2, 3]\n")
    client.send_raw(b'{"version": 1, "method": "session.snapshot"}\n')
    client.send_raw(b'{"version": 1, "id": "seven", "method": "x"}\n')
    client.send_raw(b"\n")
    assert (await client.call("session.snapshot", {"sessionId": "nope"}))["error"]["code"] == (
        "not_found"
    )
    no_version = await client.call_raw({"id": 41, "method": "session.snapshot"})
    assert no_version["error"]["code"] == "protocol_error"
    unknown = await client.call("no.such.method")
    assert unknown["error"]["code"] == "method_not_found"
    bad_params = await client.call("session.prompt", {"sessionId": 3})
    assert bad_params["error"]["code"] == "invalid_params"
    not_object = await client.call_raw({"version": 1, "id": 42, "method": "x", "params": [1]})
    assert not_object["error"]["code"] in ("invalid_params", "method_not_found")
    decide = await client.call("permission.decide", {"requestId": "perm-404", "optionId": "a"})
    assert decide["error"]["code"] == "not_found"
    close = await client.call("connection.close", {"connectionId": "conn-404"})
    assert close["error"]["code"] == "not_found"
    errors = [e for e in client.events if e["type"] == "error"]
    assert len(errors) == 4, errors
    assert all(e["code"] == "protocol_error" for e in errors)


async def test_a_line_over_8_mib_with_an_id_gets_a_frame_too_large_response(
    headless: Any,
) -> None:
    """Issue 12, point 3: a program waiting on its request id must not hang."""
    client = await headless()
    pad = b"x" * (8 * 1024 * 1024)
    huge = b'{"version":1,"id":7,"method":"session.prompt","params":{"text":"' + pad + b'"}}\n'
    answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    client._responses[7] = answer
    client.send_raw(huge)
    response = await asyncio.wait_for(answer, 30)
    assert response["error"]["code"] == "frame_too_large"
    # Without a usable id near its start, the line is reported as an event.
    client.send_raw(b'{"version":1,"method":"x","params":{"pad":"' + pad + b'"},"id":8}\n')
    event = await client.wait_event(lambda e: e["type"] == "error", timeout=30)
    assert event["code"] == "frame_too_large"
    after = await client.call("session.snapshot", {"sessionId": "none"})
    assert after["error"]["code"] == "not_found"
    assert not any(f.get("id") == 8 for f in client.frames)


async def test_cancel_is_served_while_a_prompt_runs(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    prompt = client.send("session.prompt", {"sessionId": session_id, "text": "hang"})
    await client.wait_event(lambda e: e.get("status") == "running")
    assert (await client.call("session.cancel", {"sessionId": session_id}))["result"] == {}
    done = await asyncio.wait_for(prompt, 10)
    assert done["result"] == {"stopReason": "cancelled"}


async def test_agent_death_through_the_server(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    connection_id, session_id = await open_session(client, tmp_path)
    died = await client.call("session.prompt", {"sessionId": session_id, "text": "die 4"})
    assert died["error"]["code"] == "agent_exited"
    assert "fatal: scripted death" in died["error"]["data"]["stderr"]
    statuses = [
        e["status"]
        for e in client.events
        if e["type"] == "status-changed" and e.get("sessionId") == session_id
    ]
    assert statuses == ["running", "error", "closed"]
    later = await client.call("session.prompt", {"sessionId": session_id, "text": "echo x"})
    assert later["error"]["code"] == "agent_exited"
    reopened = await client.result("connection.open", {"agent": SCRIPTED, "cwd": str(tmp_path)})
    assert reopened["reused"] is False and reopened["connectionId"] != connection_id


async def grandchild_in_group(client: HeadlessClient, cwd: Path) -> tuple[int, int]:
    opened = await client.result(
        "connection.open", {"agent": SCRIPTED, "cwd": str(cwd), "traceFrames": False}
    )
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    client.send("session.prompt", {"sessionId": created["sessionId"], "text": "grandchild"})
    await client.wait_event(lambda e: "pid=" in rebuild_text([e], created["sessionId"]))
    pid = int(rebuild_text(client.events, created["sessionId"]).split("=")[1])
    pgid = _pgid_of(pid)
    assert pid in group_members(pgid)
    return pgid, pid


def _pgid_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as f:
        stat = f.read()
    return int(stat[stat.rfind(b")") + 2 :].split()[2])


@pytest.mark.parametrize("how", ["eof", "shutdown", "close", "SIGTERM", "SIGHUP", "SIGINT"])
async def test_ac2_every_way_out_reaps_the_group(headless: Any, tmp_path: Path, how: str) -> None:
    client = await headless()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    pgid, grandchild = await grandchild_in_group(client, cwd)
    if how == "eof":
        assert await client.close_stdin_and_wait() == 0
    elif how == "shutdown":
        assert (await client.call("shutdown"))["result"] == {}
        assert await asyncio.wait_for(client.proc.wait(), 10) == 0
    elif how == "close":
        await client.result("connection.close", {"connectionId": "conn-1"})
    else:
        client.proc.send_signal(getattr(signal, how))
        await asyncio.wait_for(client.proc.wait(), 10)
    assert not alive(grandchild)
    assert group_members(pgid) == []
    cwd.rmdir()


async def test_every_request_is_answered_at_shutdown(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    hanging = client.send("session.prompt", {"sessionId": session_id, "text": "ignore-cancel"})
    await client.wait_event(lambda e: e.get("status") == "running")
    assert (await client.call("shutdown"))["result"] == {}
    answer = await asyncio.wait_for(hanging, 10)
    assert answer["error"]["code"] == "shutting_down"
    assert await asyncio.wait_for(client.proc.wait(), 10) == 0


async def test_stdout_carries_frames_only(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    await client.result("session.prompt", {"sessionId": session_id, "text": "stderr 100000"})
    await client.call("shutdown")
    await asyncio.wait_for(client.proc.wait(), 10)
    for frame in client.frames:
        assert frame["version"] == 1
        assert ("event" in frame) != ("id" in frame)
    assert any(e["type"] == "agent-stderr" for e in client.events)


async def test_ordering_of_10000_chunks(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    result = await client.call(
        "session.prompt", {"sessionId": session_id, "text": "flood 10000"}, timeout=60
    )
    assert result["result"] == {"stopReason": "end_turn"}
    text = rebuild_text(client.events, session_id)
    assert text.split("\n")[:-1] == [str(n) for n in range(10_000)]


async def test_default_agent_from_the_command_line(headless: Any, tmp_path: Path) -> None:
    client = await headless("--", sys.executable, str(SCRIPTED_AGENT))
    opened = await client.result("connection.open", {"cwd": str(tmp_path)})
    assert opened["agentInfo"]["name"] == "scripted"
    no_default = await headless()
    refused = await no_default.call("connection.open", {"cwd": str(tmp_path)})
    assert refused["error"]["code"] == "invalid_params"


async def test_trace_frames_shows_the_raw_protocol(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    await open_session(client, tmp_path, traceFrames=True)
    frames = [e for e in client.events if e["type"] == "protocol-frame"]
    assert frames[0]["direction"] == "out" and frames[0]["method"] == "initialize"
    assert frames[0]["payload"]["jsonrpc"] == "2.0"
    assert any(f["direction"] == "in" and f.get("rpcId") == 0 for f in frames)
    assert json.dumps(frames)  # plain JSON all the way down


async def test_modes_and_config_options(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    opened = await client.result("connection.open", {"agent": SCRIPTED, "cwd": str(tmp_path)})
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    session_id = created["sessionId"]
    assert created["configOptions"][0]["currentValue"] == "fast"
    assert await client.result("session.setMode", {"sessionId": session_id, "modeId": "auto"}) == {}
    changed = await client.wait_event(lambda e: e["type"] == "mode-changed")
    assert changed["currentModeId"] == "auto"
    shown = await client.result("session.prompt", {"sessionId": session_id, "text": "mode"})
    assert shown == {"stopReason": "end_turn"}
    assert rebuild_text(client.events, session_id) == "auto"
    bad = await client.call("session.setMode", {"sessionId": session_id, "modeId": "nope"})
    assert bad["error"]["code"] == "agent_error"
    assert bad["error"]["data"]["code"] == -32602
    options = await client.result(
        "session.setConfigOption", {"sessionId": session_id, "configId": "model", "value": "smart"}
    )
    assert options["configOptions"][0]["currentValue"] == "smart"
    updated = await client.wait_event(lambda e: e["type"] == "config-updated")
    assert updated["configOptions"][0]["currentValue"] == "smart"
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    assert snapshot["modes"]["currentModeId"] == "auto"
    assert snapshot["configOptions"][0]["currentValue"] == "smart"


async def test_an_agent_that_requires_sign_in(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    agent = {**SCRIPTED, "env": {"ACP_FAKE_REQUIRE_AUTH": "1"}}
    opened = await client.result("connection.open", {"agent": agent, "cwd": str(tmp_path)})
    assert [m["id"] for m in opened["authMethods"]] == ["token", "browser"]
    connection_id = opened["connectionId"]
    refused = await client.call("session.create", {"connectionId": connection_id})
    assert refused["error"]["code"] == "agent_error"
    assert refused["error"]["data"]["code"] == -32000
    assert "connection.authenticate" in refused["error"]["message"]
    assert "token, browser" in refused["error"]["message"]
    unknown = await client.call(
        "connection.authenticate", {"connectionId": connection_id, "methodId": "magic"}
    )
    assert unknown["error"]["code"] == "invalid_params"
    assert "token, browser" in unknown["error"]["message"]
    failed = await client.call(
        "connection.authenticate", {"connectionId": connection_id, "methodId": "browser"}
    )
    assert failed["error"]["code"] == "agent_error"
    assert "no browser" in failed["error"]["message"]
    assert (
        await client.result(
            "connection.authenticate", {"connectionId": connection_id, "methodId": "token"}
        )
        == {}
    )
    created = await client.result("session.create", {"connectionId": connection_id})
    done = await client.result("session.prompt", {"sessionId": created["sessionId"], "text": "hi"})
    assert done == {"stopReason": "end_turn"}
    missing = await client.call(
        "connection.authenticate", {"connectionId": "nope", "methodId": "token"}
    )
    assert missing["error"]["code"] == "not_found"


async def test_sessions_are_listed_and_resumed_across_agent_processes(
    headless: Any, tmp_path: Path
) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    data = tmp_path / "data"
    client = await headless(XDG_DATA_HOME=str(data))
    agent = {**SCRIPTED, "env": {"ACP_FAKE_STATE_DIR": str(state)}}
    opened = await client.result("connection.open", {"agent": agent, "cwd": str(tmp_path)})
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    session_id = created["sessionId"]
    await client.result("session.prompt", {"sessionId": session_id, "text": "echo kept words"})
    await client.result("connection.close", {"connectionId": opened["connectionId"]})
    # The local history has the transcript.
    stored = list((data / "acp-tui" / "sessions").glob("*.jsonl"))
    assert len(stored) == 1 and "kept words" in stored[0].read_text()

    again = await client.result("connection.open", {"agent": agent, "cwd": str(tmp_path)})
    assert again["reused"] is False
    listed = await client.result("session.list", {"connectionId": again["connectionId"]})
    assert [(s["sessionId"], s["source"]) for s in listed["sessions"]] == [(session_id, "agent")]
    loaded = await client.result(
        "session.load", {"connectionId": again["connectionId"], "sessionId": session_id}
    )
    assert loaded["sessionId"] == session_id
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    assert [e["kind"] for e in snapshot["entries"]] == ["user", "assistant"]
    assert rebuild_text(client.events, session_id).strip().endswith("kept words")
    done = await client.result("session.prompt", {"sessionId": session_id, "text": "echo more"})
    assert done == {"stopReason": "end_turn"}
    plain = await client.result("connection.open", {"agent": SCRIPTED, "cwd": str(tmp_path)})
    refused = await client.call(
        "session.load", {"connectionId": plain["connectionId"], "sessionId": "s1"}
    )
    assert refused["error"]["code"] == "unsupported"


async def test_a_text_prompt_attaches_its_mentions_as_the_tui_does(
    headless: Any, tmp_path: Path
) -> None:
    """``text`` is read like the TUI's prompt (Host.build_prompt): an ``@path``
    in the cwd is attached, one outside the allowed roots is not, and the
    result says why; ``prompt`` blocks are sent exactly as given."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("remember the milk\n")
    (tmp_path / "secret.txt").write_text("not yours\n")
    echo = Path(__file__).parent / "agents" / "echo_blocks_agent.py"
    client = await headless()
    opened = await client.result(
        "connection.open",
        {"agent": {"command": sys.executable, "args": [str(echo)]}, "cwd": str(project)},
    )
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    session_id = created["sessionId"]
    text = "see @notes.txt and @../secret.txt"
    result = await client.result("session.prompt", {"sessionId": session_id, "text": text})
    assert result["stopReason"] == "end_turn"
    assert result["notes"] == ["@../secret.txt was not attached: path is outside the allowed roots"]
    blocks = json.loads(rebuild_text(client.events, session_id))
    assert blocks[0] == {"type": "text", "text": text}
    assert [b["type"] for b in blocks] == ["text", "resource"]
    assert blocks[1]["resource"]["text"] == "remember the milk\n"
    assert blocks[1]["resource"]["uri"] == (project / "notes.txt").resolve().as_uri()
    given = [{"type": "text", "text": "see @notes.txt"}]
    again = await client.result("session.prompt", {"sessionId": session_id, "prompt": given})
    assert again == {"stopReason": "end_turn"}
    second = [e for e in client.events if e.get("sessionId") == session_id]
    last_reply = [e for e in second if e["type"] == "entry-appended"][-1]
    assert json.loads(last_reply["entry"]["chunks"][0]["text"]) == given
