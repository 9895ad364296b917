"""session.delete through a real headless process and the scripted agent:
an agent's session (ACP session/delete, where offered) and its transcript,
a transcript only, and the refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import HeadlessClient
from tests.fake_agents import agent_params


async def start(headless: Any, tmp_path: Path, **env: str) -> tuple[HeadlessClient, str]:
    client: HeadlessClient = await headless(XDG_DATA_HOME=str(tmp_path / "data"))
    opened = await client.result(
        "connection.open", {"agent": agent_params(**env), "cwd": str(tmp_path)}
    )
    return client, opened["connectionId"]


async def session_with(client: HeadlessClient, connection_id: str, words: str) -> str:
    created = await client.result("session.create", {"connectionId": connection_id})
    session_id: str = created["sessionId"]
    await client.result("session.prompt", {"sessionId": session_id, "text": f"echo {words}"})
    return session_id


def transcripts(tmp_path: Path) -> list[str]:
    """The words of each transcript the local history keeps."""
    kept = sorted((tmp_path / "data" / "acp-tui" / "sessions").glob("*.jsonl"))
    return sorted(w for p in kept for w in ("alpha", "beta") if f"echo {w}" in p.read_text())


async def listed(client: HeadlessClient, connection_id: str) -> list[tuple[str, str]]:
    result = await client.result("session.list", {"connectionId": connection_id})
    return [(s["sessionId"], s["source"]) for s in result["sessions"]]


async def test_an_agents_session_is_deleted_there_and_from_the_history(
    headless: Any, tmp_path: Path
) -> None:
    state, count = tmp_path / "agent-state", tmp_path / "count"
    state.mkdir()
    env = {
        "ACP_FAKE_STATE_DIR": str(state),
        "ACP_FAKE_DELETE": "1",
        "ACP_FAKE_COUNT_FILE": str(count),
    }
    client, connection_id = await start(headless, tmp_path, **env)
    alpha = await session_with(client, connection_id, "alpha")
    beta = await session_with(client, connection_id, "beta")
    assert transcripts(tmp_path) == ["alpha", "beta"]
    refused = await client.call(
        "session.delete", {"connectionId": connection_id, "sessionId": alpha}
    )
    assert refused["error"]["code"] == "invalid_params"  # open: close it first
    assert "open" in refused["error"]["message"]
    await client.result("session.close", {"sessionId": alpha})
    deleted = await client.result(
        "session.delete", {"connectionId": connection_id, "sessionId": alpha}
    )
    assert deleted == {}
    assert f"delete {alpha}" in count.read_text().splitlines()
    assert await listed(client, connection_id) == [(beta, "agent")]  # the agent forgot it
    assert transcripts(tmp_path) == ["beta"]  # and so did acp-tui
    # Another agent process (the same state) does not list it either.
    await client.result("connection.close", {"connectionId": connection_id})
    again = await client.result(
        "connection.open", {"agent": agent_params(**env), "cwd": str(tmp_path)}
    )
    assert again["reused"] is False
    assert again["agentCapabilities"]["sessionCapabilities"]["delete"] == {}
    assert await listed(client, again["connectionId"]) == [(beta, "agent")]


async def test_an_agent_without_session_delete_keeps_its_sessions(
    headless: Any, tmp_path: Path
) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    client, connection_id = await start(headless, tmp_path, ACP_FAKE_STATE_DIR=str(state))
    alpha = await session_with(client, connection_id, "alpha")
    await client.result("session.close", {"sessionId": alpha})
    frame = await client.call("session.delete", {"connectionId": connection_id, "sessionId": alpha})
    assert frame["error"]["code"] == "unsupported"
    assert "cannot delete" in frame["error"]["message"]
    assert await listed(client, connection_id) == [(alpha, "agent")]
    assert transcripts(tmp_path) == ["alpha"]


async def test_a_transcript_only_is_deleted_from_the_history_alone(
    headless: Any, tmp_path: Path
) -> None:
    """An agent without session/list: the list is acp-tui's transcripts
    (source local, named by their keys); deleting one asks the agent nothing."""
    count = tmp_path / "count"
    env = {"ACP_FAKE_DELETE": "1", "ACP_FAKE_COUNT_FILE": str(count)}
    client, connection_id = await start(headless, tmp_path, **env)
    alpha = await session_with(client, connection_id, "alpha")
    await session_with(client, connection_id, "beta")
    sessions = (await client.result("session.list", {"connectionId": connection_id}))["sessions"]
    assert {s["source"] for s in sessions} == {"local"}
    key = next(s["sessionId"] for s in sessions if s["agentSessionId"] == alpha)
    refused = await client.call("session.delete", {"connectionId": connection_id, "sessionId": key})
    assert refused["error"]["code"] == "invalid_params"  # still being written
    await client.result("session.close", {"sessionId": alpha})
    done = await client.result("session.delete", {"connectionId": connection_id, "sessionId": key})
    assert done == {}
    assert transcripts(tmp_path) == ["beta"]
    left = [s["sessionId"] for s in sessions if s["sessionId"] != key]
    assert await listed(client, connection_id) == [(k, "local") for k in left]
    assert "delete" not in count.read_text()  # the agent was not asked


async def test_session_delete_checks_its_params(headless: Any, tmp_path: Path) -> None:
    client, connection_id = await start(headless, tmp_path, ACP_FAKE_DELETE="1")
    frame = await client.call("session.delete", {"connectionId": connection_id})
    assert frame["error"]["code"] == "invalid_params"
    frame = await client.call("session.delete", {"connectionId": "nope", "sessionId": "s1"})
    assert frame["error"]["code"] == "not_found"
    # An id the agent never had: ACP says deleting it succeeds.
    frame = await client.call("session.delete", {"connectionId": connection_id, "sessionId": "x"})
    assert frame["result"] == {}
