"""session.close and the needs-you summary, through a real headless process
and the scripted agent (with and without ACP's session/close)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HeadlessClient
from tests.fake_agents import agent_params
from tests.test_headless_elicitation import open_session as open_asking_session


def closes(count: Path) -> list[str]:
    """The session/close requests the agent received (its ACP_FAKE_COUNT_FILE)."""
    lines = count.read_text().splitlines() if count.exists() else []
    return [line.removeprefix("close ") for line in lines if line.startswith("close ")]


async def start(
    headless: Any, tmp_path: Path, *, agent_closes: bool
) -> tuple[HeadlessClient, str, Path]:
    count = tmp_path / "count.txt"
    env = {"ACP_FAKE_COUNT_FILE": str(count)}
    if agent_closes:
        env["ACP_FAKE_CLOSE"] = "1"
    client: HeadlessClient = await headless()
    opened = await client.result(
        "connection.open", {"agent": agent_params(**env), "cwd": str(tmp_path)}
    )
    caps = opened["agentCapabilities"].get("sessionCapabilities") or {}
    assert ("close" in caps) is agent_closes
    return client, opened["connectionId"], count


async def create(client: HeadlessClient, connection_id: str) -> str:
    created = await client.result("session.create", {"connectionId": connection_id})
    session_id: str = created["sessionId"]
    return session_id


def statuses(client: HeadlessClient, session_id: str) -> list[str]:
    return [
        e["status"]
        for e in client.events
        if e["type"] == "status-changed" and e.get("sessionId") == session_id
    ]


async def expect_closed_errors(client: HeadlessClient, session_id: str) -> None:
    """Every command on a closed session answers session_closed, naming it."""
    for method, params in [
        ("session.prompt", {"text": "echo again"}),
        ("session.cancel", {}),
        ("session.setMode", {"modeId": "auto"}),
        ("session.setConfigOption", {"configId": "model", "value": "smart"}),
        ("session.close", {}),
    ]:
        frame = await client.call(method, {"sessionId": session_id, **params})
        assert frame["error"]["code"] == "session_closed", (method, frame)
        assert session_id in frame["error"]["message"]


@pytest.mark.parametrize("agent_closes", [True, False], ids=["session-close", "no-session-close"])
async def test_close_an_idle_session(headless: Any, tmp_path: Path, agent_closes: bool) -> None:
    client, connection_id, count = await start(headless, tmp_path, agent_closes=agent_closes)
    session_id = await create(client, connection_id)
    assert (await client.result("session.prompt", {"sessionId": session_id, "text": "echo hi"}))[
        "stopReason"
    ] == "end_turn"
    assert await client.result("session.close", {"sessionId": session_id}) == {}
    assert statuses(client, session_id)[-1] == "closed"
    # The agent was sent session/close exactly when it offers it.
    assert closes(count) == ([session_id] if agent_closes else [])
    await expect_closed_errors(client, session_id)
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    assert snapshot["status"] == "closed"
    # The connection (and its agent process) stays: it is the client's to close.
    env = {"ACP_FAKE_COUNT_FILE": str(count), **({"ACP_FAKE_CLOSE": "1"} if agent_closes else {})}
    again = await client.result(
        "connection.open", {"agent": agent_params(**env), "cwd": str(tmp_path)}
    )
    assert again["reused"] is True and again["connectionId"] == connection_id
    other = await create(client, connection_id)
    reply = await client.result("session.prompt", {"sessionId": other, "text": "echo still here"})
    assert reply["stopReason"] == "end_turn"
    assert closes(count) == ([session_id] if agent_closes else [])


@pytest.mark.parametrize("agent_closes", [True, False], ids=["session-close", "no-session-close"])
async def test_close_during_a_turn_with_a_pending_permission(
    headless: Any, tmp_path: Path, agent_closes: bool
) -> None:
    client, connection_id, count = await start(headless, tmp_path, agent_closes=agent_closes)
    session_id = await create(client, connection_id)
    turn = client.send("session.prompt", {"sessionId": session_id, "text": "permission tc-1"})
    asked = await client.wait_event(lambda e: e["type"] == "permission-requested")
    request_id = asked["requestId"]
    assert await client.result("session.close", {"sessionId": session_id}) == {}
    answered = await asyncio.wait_for(turn, 10)
    assert answered["result"]["stopReason"] == "cancelled"
    resolved = [
        e
        for e in client.events
        if e["type"] == "permission-resolved" and e["requestId"] == request_id
    ]
    assert [e["outcome"] for e in resolved] == [{"outcome": "cancelled"}]
    assert statuses(client, session_id) == ["running", "closed"]
    # The first answer won: the close's.
    late = await client.call("permission.decide", {"requestId": request_id, "optionId": "allow"})
    assert late["error"]["code"] == "already_decided"
    assert closes(count) == ([session_id] if agent_closes else [])
    await expect_closed_errors(client, session_id)
    # Nothing late of the closed turn reaches the client as its session's.
    settled = await create(client, connection_id)
    await client.result("session.prompt", {"sessionId": settled, "text": "echo ok"})
    after_close = client.events.index(next(e for e in client.events if e.get("status") == "closed"))
    assert not [e for e in client.events[after_close + 1 :] if e.get("sessionId") == session_id]


async def test_close_a_hanging_turn_without_session_close_cancels_it(
    headless: Any, tmp_path: Path
) -> None:
    client, connection_id, _ = await start(headless, tmp_path, agent_closes=False)
    session_id = await create(client, connection_id)
    turn = client.send("session.prompt", {"sessionId": session_id, "text": "hang"})
    await client.wait_event(lambda e: e.get("status") == "running")
    assert await client.result("session.close", {"sessionId": session_id}) == {}
    assert (await asyncio.wait_for(turn, 10))["result"]["stopReason"] == "cancelled"


def needs_you(client: HeadlessClient) -> list[dict[str, Any]]:
    return [e for e in client.events if e["type"] == "needs-you"]


async def test_needs_you_follows_the_permissions_of_every_session(
    headless: Any, tmp_path: Path
) -> None:
    client, connection_id, _ = await start(headless, tmp_path, agent_closes=True)
    first = await create(client, connection_id)
    second = await create(client, connection_id)

    async def waiting(total: int) -> dict[str, Any]:
        return await client.wait_event(lambda e: e["type"] == "needs-you" and e["total"] == total)

    turn_one = client.send("session.prompt", {"sessionId": first, "text": "permission a"})
    one = await waiting(1)
    assert one["sessions"] == [{"sessionId": first, "permissions": 1, "questions": 0}]
    assert "sessionId" not in one and "cursor" not in one  # host-wide
    turn_two = client.send("session.prompt", {"sessionId": second, "text": "permission b"})
    two = await waiting(2)
    assert two["sessions"] == [
        {"sessionId": first, "permissions": 1, "questions": 0},
        {"sessionId": second, "permissions": 1, "questions": 0},
    ]
    asked = {
        e["sessionId"]: e["requestId"] for e in client.events if e["type"] == "permission-requested"
    }
    await client.result("permission.decide", {"requestId": asked[first], "optionId": "allow"})
    # A second decision changes nothing: no event for it.
    again = await client.call("permission.decide", {"requestId": asked[first], "optionId": "allow"})
    assert again["error"]["code"] == "already_decided"
    assert (await asyncio.wait_for(turn_one, 10))["result"]["stopReason"] == "end_turn"
    assert needs_you(client)[-1]["sessions"] == [
        {"sessionId": second, "permissions": 1, "questions": 0}
    ]
    await client.result("session.close", {"sessionId": second})
    assert (await asyncio.wait_for(turn_two, 10))["result"]["stopReason"] == "cancelled"
    # A turn more with nothing waiting: it publishes nothing.
    await client.result("session.prompt", {"sessionId": first, "text": "echo done"})
    assert [(e["total"], len(e["sessions"])) for e in needs_you(client)] == [
        (1, 1),
        (2, 2),
        (1, 1),
        (0, 0),
    ]
    # Each summary follows the event that changed it.
    for event in needs_you(client):
        before = client.events[client.events.index(event) - 1]
        assert before["type"] in ("permission-requested", "permission-resolved")


async def test_two_permissions_of_one_session_count_two(headless: Any, tmp_path: Path) -> None:
    client, connection_id, _ = await start(headless, tmp_path, agent_closes=False)
    session_id = await create(client, connection_id)
    turn = client.send("session.prompt", {"sessionId": session_id, "text": "permission-pair"})
    both = await client.wait_event(lambda e: e["type"] == "needs-you" and e["total"] == 2)
    assert both["sessions"] == [{"sessionId": session_id, "permissions": 2, "questions": 0}]
    await client.result("session.cancel", {"sessionId": session_id})
    assert "result" in await asyncio.wait_for(turn, 10)  # (the agent ends it as it likes)
    assert [e["total"] for e in needs_you(client)] == [1, 2, 1, 0]


async def test_needs_you_counts_questions_until_answered_or_closed(
    headless: Any, tmp_path: Path
) -> None:
    client: HeadlessClient = await headless()
    _, asking = await open_asking_session(client, tmp_path)  # (the elicitation agent)
    # A url question accepted waits for the agent, no longer for the user.
    url = client.send("session.prompt", {"sessionId": asking, "text": "url-wait"})
    question = await client.wait_event(lambda e: e["type"] == "elicitation-requested")
    one = await client.wait_event(lambda e: e["type"] == "needs-you")
    assert one == {
        "type": "needs-you",
        "sessions": [{"sessionId": asking, "permissions": 0, "questions": 1}],
        "total": 1,
    }
    await client.result(
        "elicitation.respond", {"requestId": question["requestId"], "action": "accept"}
    )
    await asyncio.wait_for(url, 10)
    assert [e["total"] for e in needs_you(client)] == [1, 0]
    # A form question open when its session closes: closed, and counted off.
    form = client.send("session.prompt", {"sessionId": asking, "text": "form"})
    await client.wait_event(lambda e: e["type"] == "needs-you" and e["total"] == 1 and e is not one)
    await client.result("session.close", {"sessionId": asking})
    await asyncio.wait_for(form, 10)
    reasons = [e["reason"] for e in client.events if e["type"] == "elicitation-resolved"]
    assert reasons[-1] == "closed"
    assert [e["total"] for e in needs_you(client)] == [1, 0, 1, 0]
