"""The real Claude ACP adapters through ``acp-tui --headless --stdio``, offline.

One headless host and one agent process per adapter version serve every test
of this module (each test makes its own session in its own cwd): that is how
a front end uses the host, and it keeps the suite fast. Tests that end the
agent are in test_agent_lifecycle.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from acp_tui.core.transport.process import group_members
from tests import waiting
from tests.conftest import HeadlessClient
from tests.e2e.harness import (
    WAIT,
    InstalledAdapter,
    MockApi,
    assistant_text,
    check_consistent,
    children,
    client_calls,
    cmdline,
    make_home,
    netns_of,
    session_events,
    tool_calls,
)

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]


@dataclass
class Agent:
    """One headless host with one open connection to a real adapter."""

    client: HeadlessClient
    opened: dict[str, Any]
    adapter: InstalledAdapter
    mock: MockApi

    @property
    def connection_id(self) -> str:
        return str(self.opened["connectionId"])

    def agent_pids(self) -> list[int]:
        """The host's children: the agents' supervisors (each leads its agent's group)."""
        return children(self.client.proc.pid)

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return await self.client.call(method, params, timeout=WAIT)

    async def result(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        frame = await self.call(method, params)
        assert "result" in frame, frame
        result: dict[str, Any] = frame["result"]
        return result

    async def new_session(self, cwd: Path) -> str:
        created = await self.result(
            "session.create", {"connectionId": self.connection_id, "cwd": str(cwd)}
        )
        return str(created["sessionId"])

    def send_prompt(self, session_id: str, text: str) -> asyncio.Future[dict[str, Any]]:
        return self.client.send("session.prompt", {"sessionId": session_id, "text": text})

    async def prompt(self, session_id: str, text: str) -> dict[str, Any]:
        return await asyncio.wait_for(self.send_prompt(session_id, text), WAIT)

    async def snapshot(self, session_id: str) -> dict[str, Any]:
        return await self.result("session.snapshot", {"sessionId": session_id})

    async def check_consistent(self, session_id: str) -> None:
        """The events so far replay to the session's snapshot."""
        check_consistent(self.client.events, session_id, await self.snapshot(session_id))

    async def wait_event(self, session_id: str, kind: str, **match: Any) -> dict[str, Any]:
        return await self.client.wait_event(
            lambda e: (
                e.get("sessionId") == session_id
                and e["type"] == kind
                and all(e.get(k) == v for k, v in match.items())
            ),
            timeout=WAIT,
        )

    def deltas(self, session_id: str) -> list[str]:
        """The text of every textDelta patch of the session so far."""
        return [
            e["patch"]["textDelta"]["text"]
            for e in session_events(self.client.events, session_id)
            if "textDelta" in e.get("patch", {})
        ]

    async def until(self, condition: Callable[[], bool], timeout: float = WAIT) -> None:
        await waiting.until(condition, timeout)

    async def prompt_with_decision(
        self, session_id: str, text: str, option_id: str, watch: Path | None = None
    ) -> Decision:
        """Prompt, then answer its permission request with ``option_id``."""
        pending = self.send_prompt(session_id, text)
        asked = await self.wait_event(session_id, "permission-requested")
        while_asking = await self.snapshot(session_id)
        existed = watch is not None and watch.exists()
        decided = await self.result(
            "permission.decide", {"requestId": asked["requestId"], "optionId": option_id}
        )
        assert decided == {}
        done = await asyncio.wait_for(pending, WAIT)
        return Decision(done, asked, while_asking, existed)


@dataclass
class Decision:
    #: The session.prompt response frame.
    done: dict[str, Any]
    #: The permission-requested event.
    asked: dict[str, Any]
    #: A snapshot taken while the request was pending.
    while_asking: dict[str, Any]
    #: Whether the watched path existed while the request was pending.
    existed: bool


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def agent(
    adapter: InstalledAdapter, mock_api: MockApi, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Agent]:
    home = make_home(tmp_path_factory.mktemp(f"home-{adapter.minor}"))
    client = await HeadlessClient.start("--", *mock_api.agent_command(adapter, home), cwd=home)
    try:
        opened = await client.call("connection.open", {"traceFrames": True}, timeout=WAIT)
        assert "result" in opened, opened
        yield Agent(client, opened["result"], adapter, mock_api)
    finally:
        pids = children(client.proc.pid)
        try:
            # End of input: the host reaps every agent and exits 0.
            assert await client.close_stdin_and_wait(timeout=WAIT) == 0
        finally:
            await client.kill()
        assert all(group_members(pid) == [] for pid in pids)


def check_offered_options(asked: dict[str, Any]) -> None:
    options = [(o["optionId"], o["kind"]) for o in asked["options"]]
    assert options == [
        ("allow_always", "allow_always"),
        ("allow", "allow_once"),
        ("reject", "reject_once"),
    ]


def pending_tool_call(snapshot: dict[str, Any], asked: dict[str, Any]) -> dict[str, Any]:
    """The snapshot's tool call entry carrying the pending request ``asked``."""
    (entry,) = [
        e for e in tool_calls(snapshot["entries"]) if e["toolCallId"] == asked["toolCallId"]
    ]
    assert entry["permission"]["requestId"] == asked["requestId"]
    assert entry["status"] == "waiting_for_confirmation"
    return entry


async def test_the_agent_runs_confined_to_the_loopback_namespace(agent: Agent) -> None:
    (pid,) = agent.agent_pids()
    ours = netns_of(os.getpid())
    # The group's leader is acp-tui's supervisor (core/supervisor.py), which
    # runs outside; the agent (its child) and all it starts run inside.
    group = [p for p in group_members(pid) if p != pid]
    assert group
    assert {netns_of(p) for p in group} == {agent.mock.netns}
    assert agent.mock.netns != ours
    # Inside: no route out, refused at once (no waiting for a timeout).
    probe = (
        "import socket, sys\n"
        "try:\n"
        "    socket.create_connection(('1.1.1.1', 80), timeout=2)\n"
        "except OSError as exc:\n"
        "    print('refused', exc.errno); sys.exit(0)\n"
        "print('connected'); sys.exit(1)\n"
    )
    started = time.monotonic()
    inside = subprocess.run(
        [*agent.mock.enter(), sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert inside.returncode == 0, inside.stdout + inside.stderr
    assert inside.stdout.startswith("refused")
    assert time.monotonic() - started < 1.9
    # And the mock is not reachable from outside its namespace.
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", agent.mock.port), timeout=2).close()


async def test_streamed_multi_turn_chat(agent: Agent, workdir: Path) -> None:
    assert agent.opened["reused"] is False
    assert agent.opened["agentInfo"]["version"] == agent.adapter.version
    assert agent.opened["protocolVersion"] == 1
    (pid,) = agent.agent_pids()
    assert cmdline(pid)[-1] == str(agent.adapter.adapter.entry)
    session_id = await agent.new_session(workdir)

    words = " ".join(f"w{i}-{uuid.uuid4().hex[:6]}" for i in range(14))
    pending = agent.send_prompt(session_id, f"e2e:say {words}")
    first = await agent.client.wait_event(
        lambda e: e.get("sessionId") == session_id and "textDelta" in e.get("patch", {}),
        timeout=WAIT,
    )
    assert not pending.done(), "the first delta is shown while the reply still streams"
    done = await asyncio.wait_for(pending, WAIT)
    assert done["result"] == {"stopReason": "end_turn"}
    deltas = agent.deltas(session_id)
    assert len(deltas) >= 3, deltas
    assert first["patch"]["textDelta"]["text"] == deltas[0]
    assert "".join(deltas).strip() == words

    done = await agent.prompt(session_id, "e2e:recall")
    assert done["result"] == {"stopReason": "end_turn"}
    snapshot = await agent.snapshot(session_id)
    assert snapshot["status"] == "idle"
    assert [e["kind"] for e in snapshot["entries"]] == ["user", "assistant", "user", "assistant"]
    assert snapshot["entries"][0]["content"] == [{"type": "text", "text": f"e2e:say {words}"}]
    first_reply, second_reply = assistant_text(snapshot["entries"])
    assert first_reply.strip() == words
    # The model's answer quotes turn 1: the agent sent it the whole conversation.
    assert second_reply.strip() == f"Earlier I said: {words}"
    turns = [r for r in agent.mock.messages(workdir) if r["reply"] in ("say", "recall")]
    assert [r["reply"] for r in turns] == ["say", "recall"]
    history = json.dumps(turns[1]["body"]["messages"])
    assert f"e2e:say {words}" in history and words in history
    # Same session, same agent process, initialized once.
    statuses = [
        e["stopReason"]
        for e in session_events(agent.client.events, session_id)
        if e["type"] == "status-changed" and e["status"] == "idle"
    ]
    assert statuses == ["end_turn", "end_turn"]
    assert agent.agent_pids() == [pid]
    initializes = [
        e
        for e in agent.client.events
        if e["type"] == "protocol-frame" and e.get("method") == "initialize"
    ]
    assert len(initializes) == 1
    again = await agent.result("connection.open", {})
    assert again["connectionId"] == agent.connection_id and again["reused"] is True
    assert agent.agent_pids() == [pid]
    await agent.check_consistent(session_id)


async def test_write_approved_writes_the_exact_file(agent: Agent, workdir: Path) -> None:
    session_id = await agent.new_session(workdir)
    content = f"Hello from e2e {uuid.uuid4().hex}\nsecond line\n"
    target = workdir / "hello.txt"
    decision = await agent.prompt_with_decision(
        session_id, f"e2e:write hello.txt {json.dumps(content)}", "allow", watch=target
    )
    assert decision.done["result"] == {"stopReason": "end_turn"}
    check_offered_options(decision.asked)
    entry = pending_tool_call(decision.while_asking, decision.asked)
    assert entry["toolKind"] == "edit"
    assert not decision.existed, "nothing is written before the approval"
    assert (workdir / "hello.txt").read_text() == content
    resolved = await agent.wait_event(session_id, "permission-resolved")
    assert resolved["outcome"] == {"outcome": "selected", "optionId": "allow"}
    snapshot = await agent.snapshot(session_id)
    (call,) = tool_calls(snapshot["entries"])
    assert call["status"] == "completed" and "permission" not in call
    writes = client_calls(agent.client.events, session_id, "fs/write_text_file")
    if agent.adapter.routes_tools_through_client:
        (write,) = writes
        assert write["params"]["path"] == str(workdir / "hello.txt")
        assert write["params"]["content"] == content
    else:
        assert writes == []  # 0.23 writes the file itself after the approval
    await agent.check_consistent(session_id)


async def test_write_rejected_writes_nothing(agent: Agent, workdir: Path) -> None:
    session_id = await agent.new_session(workdir)
    decision = await agent.prompt_with_decision(
        session_id, "e2e:write nope.txt should never exist", "reject"
    )
    assert "result" in decision.done, decision.done
    pending_tool_call(decision.while_asking, decision.asked)
    assert not (workdir / "nope.txt").exists()
    assert list(workdir.iterdir()) == []
    resolved = await agent.wait_event(session_id, "permission-resolved")
    assert resolved["outcome"] == {"outcome": "selected", "optionId": "reject"}
    snapshot = await agent.snapshot(session_id)
    (call,) = tool_calls(snapshot["entries"])
    # We mark it rejected at once; both adapters then report it failed.
    statuses = [
        e["patch"]["entry"]["status"]
        for e in session_events(agent.client.events, session_id)
        if e["type"] == "entry-updated" and "entry" in e["patch"]
    ]
    assert "rejected" in statuses
    assert call["status"] == "failed" and "permission" not in call
    assert client_calls(agent.client.events, session_id, "fs/write_text_file") == []
    # The conversation goes on after a refusal.
    after = await agent.prompt(session_id, "e2e:say carrying on")
    assert after["result"] == {"stopReason": "end_turn"}
    assert assistant_text((await agent.snapshot(session_id))["entries"])[-1] == "carrying on"
    assert list(workdir.iterdir()) == []
    await agent.check_consistent(session_id)


async def test_bash_approved_runs_the_command(agent: Agent, workdir: Path) -> None:
    session_id = await agent.new_session(workdir)
    marker = f"ran-{uuid.uuid4().hex[:8]}"
    command = f"echo hi > out.txt; echo {marker}"
    decision = await agent.prompt_with_decision(
        session_id, f"e2e:bash {command}", "allow", watch=workdir / "out.txt"
    )
    assert decision.done["result"] == {"stopReason": "end_turn"}
    check_offered_options(decision.asked)
    assert pending_tool_call(decision.while_asking, decision.asked)["toolKind"] == "execute"
    assert not decision.existed
    assert (workdir / "out.txt").read_text() == "hi\n"
    snapshot = await agent.snapshot(session_id)
    (call,) = tool_calls(snapshot["entries"])
    assert call["status"] == "completed"
    # The command's output went back to the model.
    after = [r for r in agent.mock.messages(workdir) if r["reply"] == "after-tool"]
    assert len(after) == 1 and marker in json.dumps(after[0]["body"]["messages"][-1])
    creates = client_calls(agent.client.events, session_id, "terminal/create")
    if agent.adapter.routes_tools_through_client:
        (create,) = creates
        assert create["params"]["command"] == command  # the whole shell line
        assert not create["params"].get("args")
        (terminal,) = [c for c in call["content"] if c.get("type") == "terminal"]
        assert marker in terminal["output"]
        assert terminal["exitStatus"]["exitCode"] == 0
        released = client_calls(agent.client.events, session_id, "terminal/release")
        assert len(released) == 1
    else:
        assert creates == []  # 0.23 runs the command itself
        assert marker in json.dumps(call)
    await agent.check_consistent(session_id)


async def test_read_result_goes_back_to_the_model(agent: Agent, workdir: Path) -> None:
    session_id = await agent.new_session(workdir)
    secret = f"the secret is {uuid.uuid4().hex}"
    (workdir / "notes.txt").write_text(f"first line\n{secret}\n")
    done = await agent.prompt(session_id, "e2e:read notes.txt")
    assert done["result"] == {"stopReason": "end_turn"}
    snapshot = await agent.snapshot(session_id)
    (call,) = tool_calls(snapshot["entries"])
    assert call["status"] == "completed" and call["toolKind"] == "read"
    assert "permission" not in call
    turns = agent.mock.messages(workdir)
    assert [r["reply"] for r in turns] == ["read", "after-tool"]
    (result,) = [
        b
        for b in turns[1]["body"]["messages"][-1]["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    assert secret in json.dumps(result) and not result.get("is_error")
    assert secret in assistant_text(snapshot["entries"])[-1]  # the model quoted it
    reads = client_calls(agent.client.events, session_id, "fs/read_text_file")
    if agent.adapter.routes_tools_through_client:
        (read,) = reads
        assert read["params"]["path"] == str(workdir / "notes.txt")
    else:
        assert reads == []
    await agent.check_consistent(session_id)


async def test_cancel_mid_stream(agent: Agent, workdir: Path) -> None:
    session_id = await agent.new_session(workdir)
    pending = agent.send_prompt(session_id, "e2e:slow")
    await agent.until(lambda: len(agent.deltas(session_id)) >= 3)  # well under way
    started = time.monotonic()
    assert await agent.result("session.cancel", {"sessionId": session_id}) == {}
    done = await asyncio.wait_for(pending, WAIT)
    took = time.monotonic() - started
    assert done["result"] == {"stopReason": "cancelled"}
    assert took < 10, f"the cancel took {took:.1f}s"
    snapshot = await agent.snapshot(session_id)
    assert snapshot["status"] == "idle"
    text = assistant_text(snapshot["entries"])[-1]
    assert "slow line 0." in text and "slow line 1199." not in text
    # The adapter really stopped the model's stream (the mock saw it go away).
    await agent.until(
        lambda: any(r["reply"] == "slow" and "outcome" in r for r in agent.mock.messages(workdir))
    )
    (slow,) = [r for r in agent.mock.messages(workdir) if r["reply"] == "slow"]
    assert slow["outcome"] == "aborted" and slow["seconds"] < 20
    # The session goes on, each reply with its own prompt (claude-agent-acp 0.23
    # answers the first prompt after a cancel with a stale end_turn: the host
    # absorbs it, see acp_tui/core/sessions/cancel_recovery.py).
    after = await agent.prompt(session_id, "e2e:say still here")
    assert after["result"] == {"stopReason": "end_turn"}
    again = await agent.prompt(session_id, "e2e:say once more")
    assert again["result"] == {"stopReason": "end_turn"}
    replies = assistant_text((await agent.snapshot(session_id))["entries"])
    assert replies[1:] == ["still here", "once more"]
    await agent.check_consistent(session_id)


async def test_cancel_while_a_permission_is_pending(agent: Agent, workdir: Path) -> None:
    session_id = await agent.new_session(workdir)
    pending = agent.send_prompt(session_id, "e2e:write never.txt cancelled before asked")
    asked = await agent.wait_event(session_id, "permission-requested")
    assert await agent.result("session.cancel", {"sessionId": session_id}) == {}
    done = await asyncio.wait_for(pending, WAIT)
    assert done["result"] == {"stopReason": "cancelled"}
    # The host answered the agent's request as cancelled (ACP requires it) ...
    resolved = await agent.wait_event(session_id, "permission-resolved")
    assert resolved["requestId"] == asked["requestId"]
    assert resolved["outcome"] == {"outcome": "cancelled"}
    # ... so a late decision is refused and nothing is written.
    late = await agent.call(
        "permission.decide", {"requestId": asked["requestId"], "optionId": "allow"}
    )
    assert late["error"]["code"] == "already_decided"
    snapshot = await agent.snapshot(session_id)
    (call,) = tool_calls(snapshot["entries"])
    assert call["status"] == "canceled" and "permission" not in call
    assert snapshot["status"] == "idle"
    await asyncio.sleep(0.5)
    assert list(workdir.iterdir()) == []
    await agent.check_consistent(session_id)


async def test_accept_edits_mode_writes_without_asking(agent: Agent, workdir: Path) -> None:
    created = await agent.result(
        "session.create", {"connectionId": agent.connection_id, "cwd": str(workdir)}
    )
    session_id = created["sessionId"]
    modes = [m["id"] for m in created["modes"]["availableModes"]]
    assert modes == ["default", "acceptEdits", "plan", "dontAsk"]
    assert created["modes"]["currentModeId"] == "default"
    if agent.adapter.minor == "0.23":
        assert [c["id"] for c in created["configOptions"]] == ["mode", "model"]
    assert (
        await agent.result("session.setMode", {"sessionId": session_id, "modeId": "acceptEdits"})
        == {}
    )
    changed = await agent.wait_event(session_id, "mode-changed")
    assert changed["currentModeId"] == "acceptEdits"
    done = await agent.prompt(session_id, "e2e:write auto.txt written without asking")
    assert done["result"] == {"stopReason": "end_turn"}
    assert (workdir / "auto.txt").read_text() == "written without asking"
    assert [e for e in session_events(agent.client.events, session_id) if "requestId" in e] == []
    snapshot = await agent.snapshot(session_id)
    (call,) = tool_calls(snapshot["entries"])
    assert call["status"] == "completed"
    await agent.check_consistent(session_id)


async def test_a_read_outside_the_roots(agent: Agent, tmp_path: Path, workdir: Path) -> None:
    """0.16 reads through our fs/read_text_file, so our path fence decides:
    refused outside the session's roots, served with ``allowRoots``. 0.23
    reads by itself and asks permission for a path outside its cwd."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = f"outside secret {uuid.uuid4().hex}"
    (outside / "secret.txt").write_text(secret + "\n")
    directive = "e2e:read ../outside/secret.txt"

    fenced = await agent.new_session(workdir)
    if agent.adapter.routes_tools_through_client:
        done = await agent.prompt(fenced, directive)
        (read,) = client_calls(agent.client.events, fenced, "fs/read_text_file")
        assert read["params"]["path"].endswith("secret.txt")
    else:
        decision = await agent.prompt_with_decision(fenced, directive, "reject")
        done = decision.done
    assert done["result"] == {"stopReason": "end_turn"}
    (call,) = tool_calls((await agent.snapshot(fenced))["entries"])
    assert call["status"] == "failed"
    assert secret not in json.dumps(agent.mock.messages(workdir))
    assert secret not in json.dumps(agent.client.events)
    await agent.check_consistent(fenced)

    other = tmp_path / "other-work"
    other.mkdir()
    created = await agent.result(
        "session.create",
        {"connectionId": agent.connection_id, "cwd": str(other), "allowRoots": [str(outside)]},
    )
    allowed = created["sessionId"]
    if agent.adapter.routes_tools_through_client:
        done = await agent.prompt(allowed, directive)
    else:
        done = (await agent.prompt_with_decision(allowed, directive, "allow")).done
    assert done["result"] == {"stopReason": "end_turn"}
    (call,) = tool_calls((await agent.snapshot(allowed))["entries"])
    assert call["status"] == "completed"
    (after,) = [r for r in agent.mock.messages(other) if r["reply"] == "after-tool"]
    assert secret in json.dumps(after["body"]["messages"][-1])
    await agent.check_consistent(allowed)


async def test_read_then_edit_approved(agent: Agent, workdir: Path) -> None:
    source = workdir / "code.py"
    source.write_text("def answer():\n    return 41\n\n\nprint(answer())\n")
    session_id = await agent.new_session(workdir)
    done = await agent.prompt(session_id, "e2e:read code.py")  # Claude edits only what it read
    assert done["result"] == {"stopReason": "end_turn"}
    decision = await agent.prompt_with_decision(
        session_id, 'e2e:edit code.py "return 41" "return 42"', "allow"
    )
    assert decision.done["result"] == {"stopReason": "end_turn"}
    pending = pending_tool_call(decision.while_asking, decision.asked)
    diff = next(c for c in pending["content"] if c.get("type") == "diff")
    assert "return 41" in diff["oldText"] and "return 42" in diff["newText"]
    assert source.read_text() == "def answer():\n    return 42\n\n\nprint(answer())\n"
    snapshot = await agent.snapshot(session_id)
    assert [c["status"] for c in tool_calls(snapshot["entries"])] == ["completed", "completed"]
    writes = client_calls(agent.client.events, session_id, "fs/write_text_file")
    if agent.adapter.routes_tools_through_client:
        (write,) = writes
        assert write["params"]["content"] == source.read_text()
    else:
        assert writes == []
    await agent.check_consistent(session_id)
