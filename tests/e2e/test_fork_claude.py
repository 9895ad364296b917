"""session.fork with the real Claude ACP adapters through ``acp-tui --headless
--stdio``, offline. Both advertise ``session/fork``: the fork starts from the
parent's conversation (its snapshot holds it, and the model is sent it), and
the two go their own ways. (An agent that does not offer it is refused with
``unsupported``: tests/test_headless_fork.py.)"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from tests.e2e.harness import assistant_text
from tests.e2e.test_headless_claude import Agent
from tests.e2e.test_headless_claude import agent as agent  # the module's host and adapter

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]


async def test_a_fork_carries_the_conversation_and_goes_its_own_way(
    agent: Agent, workdir: Path
) -> None:
    parent = await agent.new_session(workdir)
    words = f"fork-{uuid.uuid4().hex[:8]} before the fork"
    done = await agent.prompt(parent, f"e2e:say {words}")
    assert done["result"] == {"stopReason": "end_turn"}
    caps = agent.opened["agentCapabilities"].get("sessionCapabilities") or {}
    assert "fork" in caps, caps  # claude-code-acp 0.16 and claude-agent-acp 0.23 offer it
    forked = await agent.result("session.fork", {"sessionId": parent})
    fork = str(forked["sessionId"])
    assert fork != parent
    snapshot = await agent.snapshot(fork)
    assert [e["kind"] for e in snapshot["entries"]] == ["user", "assistant"]
    assert assistant_text(snapshot["entries"])[0].strip() == words

    done = await agent.prompt(fork, "e2e:recall")
    assert done["result"] == {"stopReason": "end_turn"}
    fork_reply = assistant_text((await agent.snapshot(fork))["entries"])[-1]
    # The model was sent the parent's turn in the fork: the agent forked it.
    assert fork_reply.strip() == f"Earlier I said: {words}"
    recalls = [r for r in agent.mock.messages(workdir) if r["reply"] == "recall"]
    assert words in json.dumps(recalls[-1]["body"]["messages"])

    # The parent did not see the fork's turn.
    parent_entries = (await agent.snapshot(parent))["entries"]
    assert [e["kind"] for e in parent_entries] == ["user", "assistant"]
    done = await agent.prompt(parent, "e2e:say the parent goes on")
    assert done["result"] == {"stopReason": "end_turn"}
    await agent.check_consistent(parent)
