"""Issue 12, points 4, 5 and 10: one line must never take the host down.

Through a real ``acp-tui --headless --stdio`` (the issue's one-liners), a real
hostile agent (tests/agents/hostile_agent.py), and, for what a client or an
agent cannot make slip through, the writers themselves.
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from acp_tui.core.connection import AgentConnection
from acp_tui.core.host import Host
from acp_tui.core.model.entries import AssistantEntry, Chunk
from acp_tui.core.model.events import Event
from acp_tui.core.storage.history_store import HistoryStore, read_transcript
from acp_tui.core.transport.jsonrpc import JsonRpcPeer
from acp_tui.server.methods import Methods
from acp_tui.server.server import HeadlessServer
from tests.conftest import HeadlessClient, Recorder
from tests.fake_agents import HOSTILE_AGENT, agent_params, agent_spec

HOSTILE = agent_params(HOSTILE_AGENT)


async def open_hostile(client: HeadlessClient, cwd: Path) -> str:
    opened = await client.result("connection.open", {"agent": HOSTILE, "cwd": str(cwd)})
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    return str(created["sessionId"])


def answer_for(client: HeadlessClient, rpc_id: int) -> asyncio.Future[dict[str, Any]]:
    future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    client._responses[rpc_id] = future
    return future


# -- point 4: lone surrogates ------------------------------------------------------------


async def test_a_lone_surrogate_in_a_request_does_not_wedge_the_host(headless: Any) -> None:
    """The issue's one-liner: both requests are answered."""
    client = await headless()
    first, second = answer_for(client, 1), answer_for(client, 2)
    client.send_raw(
        b'{"version":1,"id":1,"method":"session.snapshot","params":{"sessionId":"\\ud800"}}\n'
        b'{"version":1,"id":2,"method":"nope"}\n'
    )
    one = await asyncio.wait_for(first, 20)
    assert one["error"] == {"code": "not_found", "message": "no session \ufffd"}
    assert (await asyncio.wait_for(second, 20))["error"]["code"] == "method_not_found"
    assert (await client.call("session.snapshot", {"sessionId": "x"}))["error"]["code"] == (
        "not_found"
    )


async def test_a_lone_surrogate_from_an_agent_reaches_the_client_and_the_history(
    headless: Any, tmp_path: Path
) -> None:
    """A Node agent that splits an emoji between chunks sends two lone surrogates."""
    data = tmp_path / "data"
    client = await headless(XDG_DATA_HOME=str(data))
    session_id = await open_hostile(client, tmp_path)
    done = await client.result("session.prompt", {"sessionId": session_id, "text": "surrogate"})
    assert done == {"stopReason": "end_turn"}
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    assert snapshot["entries"][1]["chunks"][0]["text"] == "split \ufffd\ufffd emoji"
    # The turn is in the history, whole.
    (path,) = (data / "acp-tui" / "sessions").glob("*.jsonl")
    entries = read_transcript(path).entries
    assert entries[1]["chunks"][0]["text"] == "split \ufffd\ufffd emoji"


def test_the_history_writes_a_turn_that_holds_a_lone_surrogate(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path)
    recorder = store.recorder("s1", agent="a", cwd=tmp_path)

    # The recorder knows the session from its snapshot and events only.
    recorder.start({"sessionId": "s1", "cursor": 0, "entries": []})
    reply = AssistantEntry(chunks=[Chunk("message", "bad \udc80 text", None)])
    recorder.apply(Event("entry-appended", {"index": 0, "entry": reply.to_wire()}))
    recorder.apply(Event("title-updated", {"title": "t\ud800"}))
    recorder.flush()
    assert not recorder.failed
    transcript = read_transcript(recorder.path)
    assert transcript.entries[0]["chunks"][0]["text"] == "bad \ufffd text"
    assert transcript.title == "t\ufffd"


class _Sink:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.changed = asyncio.Event()

    async def write(self, data: bytes) -> None:
        for line in data.splitlines():
            self.lines.append(json.loads(line))
        self.changed.set()

    def close(self) -> None:
        pass

    async def wait_for(self, predicate: Any) -> dict[str, Any]:
        async def scan() -> dict[str, Any]:
            while True:
                for line in self.lines:
                    if predicate(line):
                        return line
                self.changed.clear()
                await self.changed.wait()

        return await asyncio.wait_for(scan(), 10)


async def test_the_event_writer_survives_an_event_it_cannot_encode_as_is() -> None:
    """An event holding a lone surrogate once stopped the writer for good."""
    host = Host()
    reader = asyncio.StreamReader()
    sink = _Sink()
    server = HeadlessServer(host, Methods(host), reader, sink)
    serving = asyncio.ensure_future(server.serve())
    host.hub.publish(Event("error", {"code": "internal", "message": "slipped \ud800 through"}))
    event = await sink.wait_for(lambda f: "event" in f)
    assert event["event"]["message"] == "slipped \ufffd through"
    reader.feed_data(b'{"version":1,"id":5,"method":"nope"}\n')
    answer = await sink.wait_for(lambda f: f.get("id") == 5)
    assert answer["error"]["code"] == "method_not_found"
    reader.feed_eof()
    await asyncio.wait_for(serving, 10)


# -- point 5: deep nesting ---------------------------------------------------------------


async def test_deeply_nested_json_is_an_error_for_that_line_only(headless: Any) -> None:
    """The issue's one-liner, and a deep line with an id: answered with that id."""
    client = await headless()
    answer = answer_for(client, 1)
    client.send_raw(b"[" * 1000 + b"]" * 1000 + b"\n")
    client.send_raw(b'{"version":1,"id":1,"method":"nope"}\n')
    assert (await asyncio.wait_for(answer, 20))["error"]["code"] == "method_not_found"
    deep = answer_for(client, 2)
    nested = b'{"a":' * 5000 + b"1" + b"}" * 5000
    client.send_raw(b'{"version":1,"id":2,"method":"session.prompt","params":' + nested + b"}\n")
    response = await asyncio.wait_for(deep, 20)
    assert response["error"]["code"] == "protocol_error"
    assert "nested" in response["error"]["message"]
    errors = [e for e in client.events if e["type"] == "error"]
    assert [e["code"] for e in errors] == ["protocol_error"]
    assert client.proc.returncode is None


async def test_deeply_nested_frames_from_an_agent_keep_the_connection(
    headless: Any, tmp_path: Path
) -> None:
    """Once, the same line from an agent ended the connection ("the agent exited")."""
    client = await headless()
    session_id = await open_hostile(client, tmp_path)
    done = await client.result("session.prompt", {"sessionId": session_id, "text": "deep 3000"})
    assert done == {"stopReason": "end_turn"}
    errors = [e["message"] for e in client.events if e["type"] == "error"]
    assert any("nested more than 64 deep (session/update)" in m for m in errors), errors
    assert any("nested more than 64 deep (fs/read_text_file)" in m for m in errors), errors
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    assert snapshot["status"] == "idle"
    assert snapshot["entries"][-1]["chunks"][0]["text"] == "still here"
    again = await client.result("session.prompt", {"sessionId": session_id, "text": "surrogate"})
    assert again == {"stopReason": "end_turn"}


async def _peer_pair(
    max_frame: int = 1024 * 1024,
) -> tuple[JsonRpcPeer, asyncio.StreamReader, asyncio.StreamWriter, list[str]]:
    """Our peer on one end of a socket pair; the test plays the agent on the other."""
    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=ours)
    agent_reader, agent_writer = await asyncio.open_connection(sock=theirs)
    errors: list[str] = []

    async def no_request(method: str, params: Any, rpc_id: Any) -> Any:
        return {}

    peer = JsonRpcPeer(
        reader,
        writer,
        on_request=no_request,
        on_notification=lambda method, params: None,
        on_protocol_error=errors.append,
        max_frame=max_frame,
    )
    return peer, agent_reader, agent_writer, errors


@pytest.mark.parametrize("how", ["deep", "too large"])
async def test_an_unreadable_answer_fails_its_request_instead_of_hanging(how: str) -> None:
    peer, agent_reader, agent_writer, errors = await _peer_pair(max_frame=64 * 1024)
    running = asyncio.ensure_future(peer.run())
    request = asyncio.ensure_future(peer.request("session/prompt", {"sessionId": "s"}))
    sent = json.loads(await agent_reader.readline())
    deep, large = b"[" * 500 + b"]" * 500, b'"' + b"x" * (128 * 1024) + b'"'
    result = deep if how == "deep" else large
    agent_writer.write(b'{"jsonrpc":"2.0","id":%d,"result":' % sent["id"] + result + b"}\n")
    await agent_writer.drain()
    with pytest.raises(Exception, match="the answer was"):  # not a hang
        await asyncio.wait_for(request, 10)
    assert len(errors) == 1
    # The connection goes on.
    second = asyncio.ensure_future(peer.request("session/cancel", {}))
    sent = json.loads(await agent_reader.readline())
    agent_writer.write(json.dumps({"jsonrpc": "2.0", "id": sent["id"], "result": 7}).encode())
    agent_writer.write(b"\n")
    assert await asyncio.wait_for(second, 10) == 7
    agent_writer.close()
    await asyncio.wait_for(running, 10)


async def test_an_unreadable_request_from_the_agent_is_refused() -> None:
    peer, agent_reader, agent_writer, errors = await _peer_pair()
    running = asyncio.ensure_future(peer.run())
    nested = b"[" * 2000 + b"]" * 2000
    agent_writer.write(b'{"jsonrpc":"2.0","id":"r1","method":"fs/read_text_file","params":')
    agent_writer.write(nested + b"}\n")
    answer = json.loads(await asyncio.wait_for(agent_reader.readline(), 10))
    assert answer["id"] == "r1" and answer["error"]["code"] == -32600
    assert errors and "nested" in errors[0]
    agent_writer.close()
    await asyncio.wait_for(running, 10)


# -- point 10: small things --------------------------------------------------------------


async def test_version_true_is_not_version_1(headless: Any) -> None:
    client = await headless()
    answer = await client.call_raw({"version": True, "id": 3, "method": "session.snapshot"})
    assert answer["error"] == {"code": "protocol_error", "message": "version must be 1"}
    answer = await client.call_raw({"version": 1.0, "id": 4, "method": "session.snapshot"})
    assert answer["error"]["code"] == "protocol_error"


async def _flood(
    host: Host, recorder: Recorder, cwd: Path, command: str, kind: str
) -> tuple[AgentConnection, list[Event]]:
    """Run ``command`` on the hostile agent; the ``kind`` events it caused."""
    spec = agent_spec(HOSTILE_AGENT, name="")
    connection, _ = await host.open_connection(spec, cwd)
    session = await host.create_session(connection.connection_id, cwd)
    assert await host.prompt(session.session_id, [{"type": "text", "text": command}])
    await asyncio.sleep(1.5)  # past the coalescing window: every summary is out
    return connection, recorder.of_type(kind)


async def test_a_flood_of_bad_updates_is_coalesced(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    _, errors = await _flood(host, recorder, tmp_path, "bad-updates 20000", "error")
    assert len(errors) < 200, len(errors)
    summaries = [e for e in errors if "repeated" in e.data]
    assert summaries and "more like this" in summaries[0].data["message"]
    # Nothing is lost from the count: every bad update is an event or counted in one.
    assert sum(e.data.get("repeated", 1) for e in errors) == 20000


async def test_a_flood_on_stderr_is_coalesced(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    connection, stderr = await _flood(
        host, recorder, tmp_path, "stderr-flood 20000", "agent-stderr"
    )
    assert len(stderr) < 100, len(stderr)
    assert any("more like this" in e.data["text"] for e in stderr)
    # The tail is kept in full for when the agent fails.
    assert "line 19999" in connection.process.stderr_tail()  # type: ignore[union-attr]
