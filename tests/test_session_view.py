"""A front end's replica of a session, built from a snapshot and the events
after it, equals the host's own session (in process and over the headless
protocol)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from acp_tui.core.host import Host
from acp_tui.core.model.session_view import SessionView, live_entry, replay
from tests.conftest import Recorder
from tests.fake_agents import SCRIPTED_AGENT, agent_spec

SCRIPTED = {"command": sys.executable, "args": [str(SCRIPTED_AGENT)]}

SETTINGS_UPDATES = [
    {"sessionUpdate": "current_mode_update", "currentModeId": "code"},
    {"sessionUpdate": "session_info_update", "title": "A title"},
    {"sessionUpdate": "usage_update", "used": 1200, "size": 200000},
    {
        "sessionUpdate": "plan",
        "entries": [{"content": "step one", "priority": "high", "status": "in_progress"}],
    },
    {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [{"name": "review", "description": "review the change"}],
    },
]


def wire(recorder: Recorder, session_id: str, after: int = 0) -> list[dict[str, Any]]:
    return [e.to_wire() for e in recorder.events if e.session_id == session_id and e.cursor > after]


async def decide_each(host: Host, recorder: Recorder, option: str) -> None:
    event = await recorder.wait_for(lambda e: e.type == "permission-requested")
    host.decide(event.data["requestId"], option)


async def test_a_replica_from_the_first_snapshot_equals_the_session(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    connection, _ = await host.open_connection(agent_spec(), tmp_path)
    session = await host.create_session(connection.connection_id, tmp_path)
    start = host.snapshot(session.session_id)
    for text in ("showcase", "echo one two three", "updates " + json.dumps(SETTINGS_UPDATES)):
        await host.prompt(session.session_id, [{"type": "text", "text": text}])
    deciding = asyncio.ensure_future(decide_each(host, recorder, "allow"))
    await host.prompt(session.session_id, [{"type": "text", "text": "permission p1"}])
    await deciding
    await host.set_mode(session.session_id, "ask")
    await recorder.wait_for(lambda e: e.cursor == session.cursor)

    view = replay(start, wire(recorder, session.session_id))

    assert view.snapshot() == host.snapshot(session.session_id)
    assert view.running is False and view.last_stop_reason == "end_turn"
    assert view.title == "A title" and view.usage == {"used": 1200, "size": 200000}
    assert view.permissions == {}
    kinds = {entry.kind for entry in view.entries}
    assert kinds == {"user", "assistant", "tool_call", "notice"}


async def test_a_snapshot_mid_run_and_the_events_after_it_give_the_same_state(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    connection, _ = await host.open_connection(agent_spec(), tmp_path)
    session = await host.create_session(connection.connection_id, tmp_path)
    await host.prompt(session.session_id, [{"type": "text", "text": "showcase"}])
    middle = host.snapshot(session.session_id)
    await host.prompt(session.session_id, [{"type": "text", "text": "echo after the snapshot"}])
    await recorder.wait_for(lambda e: e.cursor == session.cursor)

    # Every event is offered, those the snapshot already holds included.
    view = replay(middle, wire(recorder, session.session_id))

    assert middle["cursor"] > 0
    assert view.snapshot() == host.snapshot(session.session_id)


async def test_a_pending_permission_is_in_the_view_until_it_is_resolved(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    connection, _ = await host.open_connection(agent_spec(), tmp_path)
    session = await host.create_session(connection.connection_id, tmp_path)
    view = SessionView.from_snapshot(host.snapshot(session.session_id))
    turn = asyncio.ensure_future(
        host.prompt(session.session_id, [{"type": "text", "text": "permission p1"}])
    )
    asked = await recorder.wait_for(lambda e: e.type == "permission-requested")
    for event in wire(recorder, session.session_id):
        view.apply_wire(event)
    request_id = asked.data["requestId"]
    assert view.permissions[request_id]["toolCallId"] == "p1"
    found = view.tool_call("p1")
    assert found is not None and found[1].shown_status == "waiting_for_confirmation"
    # A view built from a snapshot taken now knows the request too.
    assert request_id in SessionView.from_snapshot(host.snapshot(session.session_id)).permissions
    host.decide(request_id, "allow")
    await turn
    await recorder.wait_for(lambda e: e.cursor == session.cursor)
    for event in wire(recorder, session.session_id, after=view.cursor):
        view.apply_wire(event)
    assert view.permissions == {}
    assert view.snapshot() == host.snapshot(session.session_id)


def test_events_the_view_already_holds_are_skipped() -> None:
    view = SessionView.from_snapshot({"sessionId": "s", "cursor": 3, "status": "idle"})
    assert not view.apply("status-changed", 3, {"status": "running"})
    assert view.status == "idle"
    assert view.apply("status-changed", 4, {"status": "running"})
    assert view.running and view.cursor == 4


def test_every_change_gives_an_entry_a_new_version() -> None:
    view = SessionView.from_snapshot({"sessionId": "s", "cursor": 0})
    view.apply("entry-appended", 1, {"index": 0, "entry": {"kind": "assistant", "chunks": []}})
    first = view.entries[0].version
    delta = {"chunk": 0, "type": "message", "text": "hi"}
    view.apply("entry-updated", 2, {"index": 0, "patch": {"textDelta": delta}})
    second = view.entries[0].version
    view.apply("entry-updated", 3, {"index": 0, "patch": {"textDelta": {**delta, "text": "!"}}})
    assert first < second < view.entries[0].version
    assert view.entries[0].to_wire()["chunks"][0]["text"] == "hi!"
    # Two entries rebuilt from one wire form are two versions (a log caches by them).
    entry = {"kind": "notice", "level": "info", "text": "x"}
    assert live_entry(entry).version != live_entry(entry).version


async def test_the_headless_protocol_carries_what_a_replica_needs(
    headless: Any, tmp_path: Path
) -> None:
    client = await headless()
    opened = await client.result("connection.open", {"agent": SCRIPTED, "cwd": str(tmp_path)})
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    session_id = created["sessionId"]
    await client.result("session.prompt", {"sessionId": session_id, "text": "showcase"})
    start = await client.result("session.snapshot", {"sessionId": session_id})
    await client.result("session.prompt", {"sessionId": session_id, "text": "echo more words"})
    end = await client.result("session.snapshot", {"sessionId": session_id})
    await client.wait_event(lambda e: e.get("cursor") == end["cursor"])

    view = replay(start, client.events)

    assert view.snapshot() == end
