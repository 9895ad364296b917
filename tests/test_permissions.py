"""Permission requests that never hang (AC-11, AC-12, AC-13) and cancellation."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from acp_tui.core.errors import HostError
from acp_tui.core.host import Host
from acp_tui.core.model.events import Event
from acp_tui.core.sessions.session import Session
from tests.conftest import Recorder
from tests.fake_agents import agent_spec
from tests.test_lifecycle import text_of


async def start(host: Host, tmp_path: Path, command: str) -> tuple[Session, asyncio.Task[str]]:
    connection, _ = await host.open_connection(agent_spec(), tmp_path)
    session = await host.create_session(connection.connection_id, tmp_path)
    turn = asyncio.ensure_future(
        host.prompt(session.session_id, [{"type": "text", "text": command}])
    )
    return session, turn


async def requested(recorder: Recorder, after: int = 0) -> Event:
    return await recorder.wait_for(lambda e: e.type == "permission-requested" and e.cursor > after)


def reply(recorder: Recorder, session: Session) -> Any:
    text = text_of(recorder, session.session_id)
    return json.loads(text)


def tool_status(session: Session, tool_call_id: str) -> str:
    found = session.thread.tool_call(tool_call_id)
    assert found is not None
    return found[1].to_wire()["status"]


async def test_ac11_request_is_stored_inline_and_ac13_selected_reaches_the_agent(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    session, turn = await start(host, tmp_path, "permission tc-1")
    event = await requested(recorder)
    assert event.data["toolCallId"] == "tc-1"
    assert [o["optionId"] for o in event.data["options"]] == ["allow", "always", "reject"]
    wire = session.thread.tool_call("tc-1")[1].to_wire()  # type: ignore[index]
    assert wire["status"] == "waiting_for_confirmation"
    assert wire["permission"]["requestId"] == event.data["requestId"]
    assert wire["permission"]["options"] == event.data["options"]
    host.decide(event.data["requestId"], "always")
    assert await asyncio.wait_for(turn, 10) == "end_turn"
    assert reply(recorder, session) == {"outcome": "selected", "optionId": "always", "_meta": None}
    assert tool_status(session, "tc-1") == "in_progress"
    resolved = recorder.of_type("permission-resolved")
    assert resolved[0].data["outcome"] == {"outcome": "selected", "optionId": "always"}
    # The entry change is committed before the resolution event.
    updates = [e for e in recorder.events if e.cursor <= resolved[0].cursor and e.session_id]
    assert updates[-2].type == "entry-updated"
    assert updates[-2].data["patch"]["entry"]["status"] == "in_progress"


async def test_reject_is_a_selected_reject_option(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    session, turn = await start(host, tmp_path, "permission")
    event = await requested(recorder)
    host.decide(event.data["requestId"], "reject")
    await asyncio.wait_for(turn, 10)
    assert reply(recorder, session)["optionId"] == "reject"
    assert tool_status(session, "tc-1") == "rejected"


async def test_ac12_a_second_decision_is_already_decided(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    _session, turn = await start(host, tmp_path, "permission")
    request_id = (await requested(recorder)).data["requestId"]
    with pytest.raises(HostError) as bad_option:
        host.decide(request_id, "no-such-option")
    assert bad_option.value.code == "invalid_params"
    host.decide(request_id, "allow")
    for second in (
        lambda: host.decide(request_id, "reject"),
        lambda: host.decide(request_id, cancelled=True),
    ):
        with pytest.raises(HostError) as again:
            second()
        assert again.value.code == "already_decided"
    await asyncio.wait_for(turn, 10)
    assert len(recorder.of_type("permission-resolved")) == 1
    with pytest.raises(HostError) as unknown:
        host.decide("perm-999999", "allow")
    assert unknown.value.code == "not_found"


@pytest.mark.parametrize("first", ["decision", "cancel"])
async def test_ac12_decision_racing_a_cancel(
    host: Host, recorder: Recorder, tmp_path: Path, first: str
) -> None:
    session, turn = await start(host, tmp_path, "permission")
    request_id = (await requested(recorder)).data["requestId"]
    if first == "decision":
        host.decide(request_id, "allow")
        await host.cancel(session.session_id)
        expected = "selected"
    else:
        await host.cancel(session.session_id)
        with pytest.raises(HostError) as late:
            host.decide(request_id, "allow")
        assert late.value.code == "already_decided"
        expected = "cancelled"
    await asyncio.wait_for(turn, 10)
    resolved = recorder.of_type("permission-resolved")
    assert len(resolved) == 1 and resolved[0].data["outcome"]["outcome"] == expected
    assert reply(recorder, session)["outcome"] == expected
    # Either way the turn was cancelled: the running tool call shows it.
    assert tool_status(session, "tc-1") == "canceled"


@pytest.mark.parametrize(
    ("command", "tool_call_id", "status"),
    [
        ("permission-then-complete", "tc-c", "completed"),
        ("permission-then-replace", "tc-r", "pending"),
    ],
)
async def test_ac11_resolved_cancelled_when_the_agent_moves_on(
    host: Host, recorder: Recorder, tmp_path: Path, command: str, tool_call_id: str, status: str
) -> None:
    session, turn = await start(host, tmp_path, command)
    request_id = (await requested(recorder)).data["requestId"]
    assert await asyncio.wait_for(turn, 10) == "end_turn"
    assert reply(recorder, session)["outcome"] == "cancelled"
    assert tool_status(session, tool_call_id) == status
    with pytest.raises(HostError) as late:
        host.decide(request_id, "allow")
    assert late.value.code == "already_decided"


async def test_ac11_a_newer_request_supersedes_the_older(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    session, turn = await start(host, tmp_path, "permission-twice")
    first = await requested(recorder)
    second = await requested(recorder, after=first.cursor)
    assert second.data["requestId"] != first.data["requestId"]
    assert tool_status(session, "tc-2") == "waiting_for_confirmation"
    host.decide(second.data["requestId"], "allow")
    await asyncio.wait_for(turn, 10)
    outcomes = reply(recorder, session)
    assert outcomes[0]["outcome"] == "cancelled"
    assert outcomes[1] == {"outcome": "selected", "optionId": "allow", "_meta": None}


async def test_ac11_the_end_of_the_turn_resolves_a_pending_request(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    session, turn = await start(host, tmp_path, "permission-abandon")
    request_id = (await requested(recorder)).data["requestId"]
    assert await asyncio.wait_for(turn, 10) == "end_turn"
    resolved = recorder.of_type("permission-resolved")
    assert [r.data["requestId"] for r in resolved] == [request_id]
    assert resolved[0].data["outcome"] == {"outcome": "cancelled"}
    assert session.thread.pending_requests() == []
    assert host.pending_permission(request_id) is None


async def test_ac11_closing_the_session_resolves_a_pending_request(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    session, turn = await start(host, tmp_path, "permission")
    request_id = (await requested(recorder)).data["requestId"]
    connection_id = next(iter(host.connections))
    await host.close_connection(connection_id)
    with pytest.raises(HostError):
        await asyncio.wait_for(turn, 10)
    assert recorder.of_type("permission-resolved")[0].data["outcome"] == {"outcome": "cancelled"}
    assert session.thread.pending_requests() == []
    assert host.pending_permission(request_id) is None


async def test_ac12_agent_cancel_request_marks_the_tool_call_canceled(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    session, turn = await start(host, tmp_path, "cancel-permission")
    request_id = (await requested(recorder)).data["requestId"]
    assert await asyncio.wait_for(turn, 10) == "end_turn"
    assert reply(recorder, session) == {"outcome": {"outcome": "cancelled"}}
    assert tool_status(session, "tc-x") == "canceled"
    with pytest.raises(HostError) as late:
        host.decide(request_id, "allow")
    assert late.value.code == "already_decided"


async def test_permission_for_an_unannounced_tool_call_without_kind(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    session, turn = await start(host, tmp_path, "permission-raw tc-raw")
    event = await requested(recorder)
    found = session.thread.tool_call("tc-raw")
    assert found is not None
    assert found[1].to_wire()["toolKind"] == "other"
    assert found[1].title == "Edit tc-raw"
    host.decide(event.data["requestId"], "allow")
    await asyncio.wait_for(turn, 10)


async def test_cancel_marks_running_tool_calls_and_ends_with_the_agents_reason(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    session, turn = await start(host, tmp_path, "permission")
    await requested(recorder)
    await host.cancel(session.session_id)
    assert await asyncio.wait_for(turn, 10) == "end_turn"  # the scripted agent answers its ask
    assert tool_status(session, "tc-1") == "canceled"
    statuses = recorder.of_type("status-changed", session.session_id)
    assert statuses[-1].data == {"status": "idle", "stopReason": "end_turn"}


async def test_an_agent_that_ignores_cancel_still_ends_the_turn(tmp_path: Path) -> None:
    host = Host(cancel_grace=0.5)
    recorder = Recorder(host.attach())
    try:
        session, turn = await start(host, tmp_path, "ignore-cancel")
        await recorder.wait_for(lambda e: e.data.get("status") == "running")
        await host.cancel(session.session_id)
        assert await asyncio.wait_for(turn, 10) == "cancelled"
        notices = [e.data["entry"] for e in recorder.of_type("entry-appended")]
        assert "did not end the turn" in notices[-1]["text"]
        assert session.status == "idle"
        # The connection stays usable.
        again = await host.prompt(session.session_id, [{"type": "text", "text": "echo alive"}])
        assert again == "end_turn"
    finally:
        recorder.close()
        await host.shutdown()


async def test_cancel_of_an_idle_session_is_a_no_op(host: Host, tmp_path: Path) -> None:
    connection, _ = await host.open_connection(agent_spec(), tmp_path)
    session = await host.create_session(connection.connection_id, tmp_path)
    await host.cancel(session.session_id)
    assert session.status == "idle"
