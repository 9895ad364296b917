"""session/close and session/resume with the real Claude ACP adapters, offline,
through ``acp-tui --headless --stdio``: a closed session is closed in the
agent too (where it offers session/close), and a session whose agent process
went away is resumed in a new one (``session.revive``: ``session/resume``, no
replay), the model still knowing the conversation."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from tests.e2e.harness import assistant_text
from tests.e2e.test_headless_claude import Agent
from tests.e2e.test_headless_claude import agent as agent  # the module's host and adapter

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]


async def test_a_closed_session_is_closed_in_the_agent(agent: Agent, workdir: Path) -> None:
    caps = agent.opened["agentCapabilities"].get("sessionCapabilities") or {}
    # claude-agent-acp 0.23 offers session/close; claude-code-acp 0.16 does not
    # (then the host closes it on its own side: tests/test_headless_close.py).
    assert ("close" in caps) == (agent.adapter.version >= "0.23"), caps
    session_id = await agent.new_session(workdir)
    done = await agent.prompt(session_id, "e2e:say closing soon")
    assert done["result"] == {"stopReason": "end_turn"}
    assert await agent.result("session.close", {"sessionId": session_id}) == {}
    await agent.wait_event(session_id, "status-changed", status="closed")
    again = await agent.call("session.prompt", {"sessionId": session_id, "text": "e2e:recall"})
    assert again["error"]["code"] == "session_closed"
    frames = json.dumps(agent.client.events)
    assert "error" not in [
        e["type"] for e in agent.client.events if e.get("sessionId") == session_id
    ]
    assert session_id in frames


async def test_a_session_whose_agent_went_away_is_resumed_in_a_new_process(
    agent: Agent, workdir: Path
) -> None:
    caps = agent.opened["agentCapabilities"].get("sessionCapabilities") or {}
    assert "resume" in caps, caps
    session_id = await agent.new_session(workdir)
    words = f"resume-{uuid.uuid4().hex[:8]} said before"
    done = await agent.prompt(session_id, f"e2e:say {words}")
    assert done["result"] == {"stopReason": "end_turn"}
    await agent.result("connection.close", {"connectionId": agent.connection_id})
    await agent.wait_event(session_id, "status-changed", status="closed")

    reopened = await agent.result("connection.open", {})
    assert reopened["reused"] is False
    revived = await agent.result(
        "session.revive", {"connectionId": reopened["connectionId"], "sessionId": session_id}
    )
    assert revived["revived"]["how"] == "resumed"
    new_id = revived["revived"]["sessionId"]
    snapshot = await agent.snapshot(new_id)
    # Resumed, not replayed: the host carried the thread over, once.
    assert assistant_text(snapshot["entries"]).count(words) <= 1
    assert words in " ".join(assistant_text(snapshot["entries"]))
    done = await agent.prompt(new_id, "e2e:recall")
    assert done["result"] == {"stopReason": "end_turn"}
    recalls = [r for r in agent.mock.messages(workdir) if r["reply"] == "recall"]
    assert words in json.dumps(recalls[-1]["body"]["messages"]), "the model knows it"
    agent.opened = reopened
