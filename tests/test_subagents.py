"""A subagent's tool calls name their parent (``_meta.claudeCode.parentToolUseId``,
as claude-agent-acp sends them): the entry keeps it, in its wire form too."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from acp_tui.core.host import Host
from acp_tui.core.model.budget import TextBudget
from acp_tui.core.model.entries import ToolCallEntry, entry_from_wire
from acp_tui.core.model.session_state import SessionState
from acp_tui.core.model.session_view import SessionView, live_entry
from acp_tui.core.model.thread import Thread
from acp_tui.core.model.updates import Target, apply_update, permission_entry
from acp_tui.core.storage.history_store import HistoryStore
from tests.conftest import HeadlessClient, Recorder
from tests.fake_agents import agent_params, agent_spec


def target() -> Target:
    return Target(Thread(), SessionState(), TextBudget(), {}.get)


def under(parent: Any) -> dict[str, Any]:
    return {"claudeCode": {"parentToolUseId": parent}}


def call(tool_call_id: str, meta: Any = None, **fields: Any) -> dict[str, Any]:
    update = {"sessionUpdate": "tool_call", "toolCallId": tool_call_id, "title": tool_call_id}
    if meta is not None:
        update["_meta"] = meta
    return {**update, **fields}


def progress(tool_call_id: str, meta: Any = None, **fields: Any) -> dict[str, Any]:
    update = {"sessionUpdate": "tool_call_update", "toolCallId": tool_call_id, **fields}
    if meta is not None:
        update["_meta"] = meta
    return update


def entry(applied: Target, tool_call_id: str) -> ToolCallEntry:
    found = applied.thread.tool_call(tool_call_id)
    assert found is not None
    return found[1]


def test_a_child_names_its_parent_in_its_entry_and_its_wire_form() -> None:
    applied = target()
    apply_update(applied, call("task"))
    (event,) = apply_update(applied, call("child", under("task"), kind="read"))
    child = entry(applied, "child")
    assert child.parent_tool_call_id == "task"
    assert event.type == "entry-appended"
    assert event.data["entry"]["parentToolCallId"] == "task"
    # Without one, the wire form is as it always was.
    assert "parentToolCallId" not in entry(applied, "task").to_wire()
    # A stored transcript and a front end's replica keep it.
    stored = entry_from_wire(json.loads(json.dumps(child.to_wire())))
    assert isinstance(stored, ToolCallEntry) and stored.parent_tool_call_id == "task"
    live = live_entry(child.to_wire())
    assert isinstance(live, ToolCallEntry) and live.parent_tool_call_id == "task"
    assert live.to_wire() == child.to_wire()


def test_the_parent_comes_from_any_update_and_stays_when_later_ones_omit_it() -> None:
    applied = target()
    apply_update(applied, call("child"))
    assert entry(applied, "child").parent_tool_call_id is None
    (event,) = apply_update(applied, progress("child", under("task"), status="in_progress"))
    assert event.data["patch"]["entry"]["parentToolCallId"] == "task"
    apply_update(applied, progress("child", status="completed"))
    assert entry(applied, "child").parent_tool_call_id == "task"
    # Announced again (a whole replacement) without _meta: still its parent's.
    apply_update(applied, call("child", title="Read again"))
    assert entry(applied, "child").title == "Read again"
    assert entry(applied, "child").parent_tool_call_id == "task"
    apply_update(applied, call("child", under("other")))
    assert entry(applied, "child").parent_tool_call_id == "other"


@pytest.mark.parametrize(
    "meta",
    [
        pytest.param("task", id="_meta not an object"),
        pytest.param({"claudeCode": "task"}, id="claudeCode not an object"),
        pytest.param({"claudeCode": {}}, id="no parentToolUseId"),
        pytest.param(under(7), id="a number"),
        pytest.param(under(["task"]), id="a list"),
        pytest.param(under(""), id="empty"),
        pytest.param(under("child"), id="its own id"),
        pytest.param({"parentToolUseId": "task"}, id="not under claudeCode"),
    ],
)
def test_a_malformed_parent_is_ignored(meta: Any) -> None:
    applied = target()
    events = apply_update(applied, call("child", meta))
    assert [e.type for e in events] == ["entry-appended"]
    assert entry(applied, "child").parent_tool_call_id is None
    assert "parentToolCallId" not in entry(applied, "child").to_wire()
    apply_update(applied, progress("child", meta, status="completed"))
    assert entry(applied, "child").parent_tool_call_id is None


def test_a_malformed_stored_parent_is_dropped() -> None:
    for bad in (3, "", None, {"id": "task"}):
        wire = {"kind": "tool_call", "toolCallId": "c", "status": "completed"}
        stored = entry_from_wire({**wire, "parentToolCallId": bad})
        assert isinstance(stored, ToolCallEntry) and stored.parent_tool_call_id is None


def test_a_permission_request_may_name_the_parent_of_a_call_never_announced() -> None:
    applied = target()
    tool_call_id, events = permission_entry(
        applied, {"toolCallId": "asked", "title": "Edit", "_meta": under("task")}
    )
    assert tool_call_id == "asked" and [e.type for e in events] == ["entry-appended"]
    assert entry(applied, "asked").parent_tool_call_id == "task"
    # The same again changes nothing; a new parent does.
    assert permission_entry(applied, {"toolCallId": "asked", "_meta": under("task")})[1] == []
    _, events = permission_entry(applied, {"toolCallId": "asked", "_meta": under("other")})
    assert events[0].data["patch"]["entry"]["parentToolCallId"] == "other"


# -- a real agent's subagent -----------------------------------------------------------


@pytest.fixture
async def history_host(tmp_path: Path) -> AsyncIterator[tuple[Host, HistoryStore, Recorder]]:
    store = HistoryStore(tmp_path / "history")
    host = Host(history=store)
    recorder = Recorder(host.attach())
    try:
        yield host, store, recorder
    finally:
        recorder.close()
        await host.shutdown()


async def test_a_subagent_turn_through_the_host_and_its_transcript(
    tmp_path: Path, history_host: tuple[Host, HistoryStore, Recorder]
) -> None:
    host, store, recorder = history_host
    connection, _ = await host.open_connection(agent_spec(), tmp_path)
    session = await host.create_session(connection.connection_id, tmp_path)
    turn = asyncio.ensure_future(
        host.prompt(session.session_id, [{"type": "text", "text": "subagent"}])
    )
    asked = await recorder.wait_for(lambda e: e.type == "permission-requested")
    assert asked.data["toolCallId"] == "sub-edit"
    waiting = session.thread.tool_call("sub-edit")
    assert waiting is not None and waiting[1].parent_tool_call_id == "task-1"
    host.decide(asked.data["requestId"], "allow")
    assert await asyncio.wait_for(turn, 10) == "end_turn"
    tools = [e for e in session.thread.entries if isinstance(e, ToolCallEntry)]
    assert [(t.tool_call_id, t.parent_tool_call_id, t.status) for t in tools] == [
        ("task-1", None, "completed"),
        ("sub-read", "task-1", "completed"),
        ("sub-run", "task-1", "failed"),
        ("sub-edit", "task-1", "completed"),
    ]
    view = SessionView.from_snapshot(host.snapshot(session.session_id))
    assert view.snapshot()["entries"] == [e.to_wire() for e in session.thread.entries]
    stored = store.read(session.agent_session_id).entries
    parents = {w["toolCallId"]: w.get("parentToolCallId") for w in stored if "toolCallId" in w}
    assert parents == {
        "task-1": None,
        "sub-read": "task-1",
        "sub-run": "task-1",
        "sub-edit": "task-1",
    }


async def test_headless_clients_see_the_parent_in_events_and_the_snapshot(
    headless: Any, tmp_path: Path
) -> None:
    client: HeadlessClient = await headless()
    opened = await client.result("connection.open", {"agent": agent_params(), "cwd": str(tmp_path)})
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    session_id = created["sessionId"]
    prompt = client.send("session.prompt", {"sessionId": session_id, "text": "subagent"})
    asked = await client.wait_event(lambda e: e["type"] == "permission-requested")
    assert asked["toolCallId"] == "sub-edit"
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    tools = {e["toolCallId"]: e for e in snapshot["entries"] if e["kind"] == "tool_call"}
    assert "parentToolCallId" not in tools["task-1"]
    assert {k: t.get("parentToolCallId") for k, t in tools.items() if k != "task-1"} == {
        "sub-read": "task-1",
        "sub-run": "task-1",
        "sub-edit": "task-1",
    }
    assert tools["sub-edit"]["status"] == "waiting_for_confirmation"
    appended = [
        e["entry"]
        for e in client.events
        if e["type"] == "entry-appended" and e["entry"]["kind"] == "tool_call"
    ]
    assert [e.get("parentToolCallId") for e in appended] == [None, "task-1", "task-1", "task-1"]
    await client.result(
        "permission.decide", {"requestId": asked["requestId"], "optionId": "reject"}
    )
    response = await asyncio.wait_for(prompt, 20)
    assert response["result"]["stopReason"] == "end_turn"
