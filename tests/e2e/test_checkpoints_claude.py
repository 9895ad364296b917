"""Checkpoints with the real Claude ACP adapters through ``acp-tui --headless --stdio``,
offline: whichever way the adapter writes (0.16 through our fs/write_text_file,
0.23 by itself), the turn's changes entry names the file and restoring the
turn's base checkpoint takes it away again."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from tests.e2e.harness import tool_calls
from tests.e2e.test_headless_claude import Agent
from tests.e2e.test_headless_claude import agent as agent  # the module's host and adapter

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]


async def test_restoring_the_base_of_a_write_removes_the_file(agent: Agent, workdir: Path) -> None:
    (workdir / "kept.txt").write_text("here before the turn\n")
    session_id = await agent.new_session(workdir)
    content = f"Hello from e2e {uuid.uuid4().hex}\nsecond line\n"
    target = workdir / "hello.txt"
    decision = await agent.prompt_with_decision(
        session_id, f"e2e:write hello.txt {json.dumps(content)}", "allow"
    )
    assert decision.done["result"] == {"stopReason": "end_turn"}
    assert target.read_text() == content

    snapshot = await agent.snapshot(session_id)
    kinds = [e["kind"] for e in snapshot["entries"]]
    assert kinds[-1] == "changes", kinds
    changes = snapshot["entries"][-1]
    assert changes["turn"] == 1
    assert changes["files"] == [
        {
            "path": str(target),
            "display": "hello.txt",
            "change": "added",
            "added": 2,
            "removed": 0,
        }
    ]  # the adapter's tool call was running: not "outside"
    (call,) = tool_calls(snapshot["entries"])
    assert call["status"] == "completed"
    listed = await agent.result("checkpoint.list", {"sessionId": session_id})
    assert [c["checkpointId"] for c in listed["checkpoints"]] == [
        changes["checkpointId"],
        changes["baseCheckpointId"],
    ]

    base = changes["baseCheckpointId"]
    plan = await agent.result(
        "checkpoint.restore", {"sessionId": session_id, "checkpointId": base, "dryRun": True}
    )
    assert [(f["display"], f["action"]) for f in plan["files"]] == [("hello.txt", "remove")]
    assert target.exists()
    restored = await agent.result(
        "checkpoint.restore", {"sessionId": session_id, "checkpointId": base}
    )
    assert restored["restored"] == [str(target)]
    assert not target.exists()
    assert sorted(p.name for p in workdir.iterdir()) == ["kept.txt"]
    rewind = (await agent.snapshot(session_id))["entries"][-1]
    assert rewind["kind"] == "rewind" and rewind["checkpointId"] == base
    assert rewind["undoCheckpointId"] == restored["checkpointId"]
    await agent.check_consistent(session_id)

    # The conversation goes on; undoing the restore brings the file back.
    after = await agent.prompt(session_id, "e2e:say still here")
    assert after["result"] == {"stopReason": "end_turn"}
    await agent.result(
        "checkpoint.restore", {"sessionId": session_id, "checkpointId": restored["checkpointId"]}
    )
    assert target.read_text() == content
    await agent.check_consistent(session_id)
