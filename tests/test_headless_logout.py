"""connection.logout through a real headless process and the scripted agent
(with and without ACP's logout)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fake_agents import agent_params


async def test_after_logout_the_agent_asks_for_a_sign_in_again(
    headless: Any, tmp_path: Path
) -> None:
    count = tmp_path / "count"
    client = await headless()
    agent = agent_params(ACP_FAKE_LOGOUT="1", ACP_FAKE_COUNT_FILE=str(count))
    opened = await client.result("connection.open", {"agent": agent, "cwd": str(tmp_path)})
    connection_id = opened["connectionId"]
    assert opened["agentCapabilities"]["auth"]["logout"] == {}
    created = await client.result("session.create", {"connectionId": connection_id})
    session_id = created["sessionId"]
    said = {"sessionId": session_id, "text": "echo signed in"}
    assert (await client.result("session.prompt", said))["stopReason"] == "end_turn"

    assert await client.result("connection.logout", {"connectionId": connection_id}) == {}
    assert "logout" in count.read_text().splitlines()
    refused = await client.call("session.prompt", said)
    assert refused["error"]["code"] == "agent_error"
    assert refused["error"]["data"]["code"] == -32000  # ACP's auth_required
    new = await client.call("session.create", {"connectionId": connection_id})
    assert "requires authentication" in new["error"]["message"]

    await client.result(
        "connection.authenticate", {"connectionId": connection_id, "methodId": "token"}
    )
    assert (await client.result("session.prompt", said))["stopReason"] == "end_turn"


async def test_an_agent_without_logout_says_so(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    opened = await client.result("connection.open", {"agent": agent_params(), "cwd": str(tmp_path)})
    assert (opened["agentCapabilities"].get("auth") or {}).get("logout") is None
    frame = await client.call("connection.logout", {"connectionId": opened["connectionId"]})
    assert frame["error"]["code"] == "unsupported"
    assert "no logout" in frame["error"]["message"]
    frame = await client.call("connection.logout", {"connectionId": "nope"})
    assert frame["error"]["code"] == "not_found"
    frame = await client.call("connection.logout", {})
    assert frame["error"]["code"] == "invalid_params"
