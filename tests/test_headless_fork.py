"""session.fork through a real headless process and the scripted agent (with
and without ACP's session/fork)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import HeadlessClient
from tests.fake_agents import agent_params


async def start(headless: Any, tmp_path: Path, **env: str) -> tuple[HeadlessClient, str]:
    client: HeadlessClient = await headless()
    opened = await client.result(
        "connection.open", {"agent": agent_params(**env), "cwd": str(tmp_path)}
    )
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    return client, created["sessionId"]


def texts(snapshot: dict[str, Any]) -> list[str]:
    """Each entry's text as one string: the user's prompts and the replies."""
    out = []
    for entry in snapshot["entries"]:
        if entry["kind"] == "user":
            out.append("".join(b.get("text", "") for b in entry["content"]))
        elif entry["kind"] == "assistant":
            out.append("".join(c["text"] for c in entry["chunks"] if c["type"] == "message"))
    return out


async def heard(client: HeadlessClient, session_id: str) -> list[str]:
    await client.result("session.prompt", {"sessionId": session_id, "text": "heard"})
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    said: list[str] = json.loads(texts(snapshot)[-1])
    return said


async def test_a_fork_starts_from_the_parents_conversation_and_goes_its_own_way(
    headless: Any, tmp_path: Path
) -> None:
    client, parent = await start(headless, tmp_path, ACP_FAKE_FORK="1")
    await client.result("session.prompt", {"sessionId": parent, "text": "echo before the fork"})
    forked = await client.result("session.fork", {"sessionId": parent})
    fork = forked["sessionId"]
    assert fork != parent and forked["modes"]["currentModeId"] == "ask"
    snapshot = await client.result("session.snapshot", {"sessionId": fork})
    assert texts(snapshot) == ["echo before the fork", "before the fork "]
    assert await heard(client, fork) == ["echo before the fork"]  # the agent's side too
    await client.result("session.prompt", {"sessionId": fork, "text": "echo only in the fork"})
    assert await heard(client, parent) == ["echo before the fork"]  # the parent is untouched
    assert "only in the fork" not in json.dumps(
        await client.result("session.snapshot", {"sessionId": parent})
    )


async def test_an_agent_without_fork_says_so(headless: Any, tmp_path: Path) -> None:
    client, parent = await start(headless, tmp_path)
    frame = await client.call("session.fork", {"sessionId": parent})
    assert frame["error"]["code"] == "unsupported"
    assert "cannot fork" in frame["error"]["message"]
    frame = await client.call("session.fork", {"sessionId": "no-such"})
    assert frame["error"]["code"] == "not_found"
