"""fs/* and terminal/* driven by a real ACP agent process (AC-4 … AC-10)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError

from acp_tui.core.host import Host
from acp_tui.core.sessions.session import Session
from tests.conftest import Recorder
from tests.fake_agents import agent_spec
from tests.test_lifecycle import text_of


@pytest.fixture
async def session(host: Host, tmp_path: Path) -> Session:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    connection, _ = await host.open_connection(agent_spec(), workspace)
    return await host.create_session(connection.connection_id, workspace)


async def ask(host: Host, recorder: Recorder, session: Session, command: str) -> Any:
    """Run one scripted command; return the JSON the agent replied with."""
    before = len(recorder.events)
    assert await host.prompt(session.session_id, [{"type": "text", "text": command}]) == "end_turn"
    turn = recorder.events[before:]
    texts = [
        (e.data.get("entry") or {}).get("chunks", [{}])[0].get("text", "")
        if e.type == "entry-appended"
        else (e.text_delta or {}).get("text", "")
        for e in turn
        if e.type in ("entry-appended", "entry-updated")
    ]
    reply = "".join(t for t in texts if t.startswith("{") or t.startswith("["))
    return json.loads(reply)


async def call(host: Host, recorder: Recorder, session: Session, method: str, **params: Any) -> Any:
    request = {"method": method, "params": {"sessionId": session.agent_session_id, **params}}
    return await ask(host, recorder, session, "call " + json.dumps(request))


async def test_ac4_read_lines_through_the_agent(
    host: Host, recorder: Recorder, session: Session
) -> None:
    path = session.cwd / "notes.txt"
    path.write_bytes(b"one\r\ntwo\nthree\n")
    whole = await ask(host, recorder, session, f"fs-read {path}")
    assert whole == {"result": {"content": "one\r\ntwo\nthree\n"}}
    for line in (0, 1):
        first = await ask(host, recorder, session, f"fs-read {path} {line} 1")
        assert first["result"]["content"] == "one\r\n"
    second = await ask(host, recorder, session, f"fs-read {path} 2 2")
    assert second["result"]["content"] == "two\nthree\n"
    past = await ask(host, recorder, session, f"fs-read {path} 9")
    assert past["error"]["code"] == -32602
    assert "9" in past["error"]["message"] and "3" in past["error"]["message"]


async def test_ac5_the_fence_refuses_without_leaking_paths(
    host: Host, recorder: Recorder, session: Session, tmp_path: Path
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    (session.cwd / "link").symlink_to(outside)
    for target in (str(outside), f"{session.cwd}/../secret.txt", f"{session.cwd}/link"):
        refused = await ask(host, recorder, session, f"fs-read {target}")
        assert refused["error"]["code"] == -32602
        assert "outside the allowed roots" in refused["error"]["message"]
        assert str(tmp_path) not in json.dumps(refused)
    write_out = await ask(host, recorder, session, f"fs-write {session.cwd}/link changed")
    assert "error" in write_out and outside.read_text() == "secret"
    no_parent = await ask(host, recorder, session, f"fs-write {session.cwd}/missing/x.txt hi")
    assert "parent directory does not exist" in no_parent["error"]["message"]
    assert str(tmp_path) not in json.dumps(no_parent)


async def test_ac6_write_is_exact(host: Host, recorder: Recorder, session: Session) -> None:
    target = session.cwd / "out.txt"
    content = "line one\r\nline two\nno newline at the end — ünïcödé"
    request = {
        "method": "fs/write_text_file",
        "params": {"sessionId": session.agent_session_id, "path": str(target), "content": content},
    }
    result = await ask(host, recorder, session, "call " + json.dumps(request))
    assert result == {"result": None} or result == {"result": {}}
    assert target.read_bytes() == content.encode()


async def test_allow_roots_extend_the_fence(host: Host, recorder: Recorder, tmp_path: Path) -> None:
    workspace = tmp_path / "ws2"
    extra = tmp_path / "extra"
    workspace.mkdir()
    extra.mkdir()
    (extra / "shared.txt").write_text("shared\n")
    connection, _ = await host.open_connection(agent_spec(), workspace)
    session = await host.create_session(connection.connection_id, workspace, allow_roots=[extra])
    allowed = await ask(host, recorder, session, f"fs-read {extra / 'shared.txt'}")
    assert allowed["result"]["content"] == "shared\n"


async def test_terminal_runs_on_a_pty_and_its_output_stays_in_the_entry(
    host: Host, recorder: Recorder, session: Session
) -> None:
    result = await ask(host, recorder, session, "terminal printf 'a\\nb\\n'; exit 3")
    assert result["result"]["exit"] == {"exitCode": 3}
    assert result["result"]["output"]["output"] == "a\nb\n"
    found = session.thread.tool_call("term-1")
    assert found is not None
    item = found[1].content[0]
    # Released by the agent, yet the entry keeps the output and exit status (AC-9).
    assert item["output"] == "a\nb\n"
    assert item["exitStatus"] == {"exitCode": 3, "signal": None}
    updates = [
        e.data["patch"]["entry"]["content"][0]
        for e in recorder.of_type("entry-updated")
        if "entry" in e.data["patch"] and e.data["patch"]["entry"]["toolCallId"] == "term-1"
    ]
    assert any("exitStatus" in u for u in updates)


async def test_ac7_environment_and_stdin(host: Host, recorder: Recorder, session: Session) -> None:
    shown = await ask(host, recorder, session, 'terminal printf \'[%s|%s]\' "$PAGER" "$GIT_PAGER"')
    assert shown["result"]["output"]["output"] == "[|cat]"
    created = await call(
        host,
        recorder,
        session,
        "terminal/create",
        command='printf \'[%s|%s]\' "$PAGER" "$GIT_PAGER"; cat',
        env=[{"name": "PAGER", "value": "less"}],
    )
    terminal_id = created["result"]["terminalId"]
    exit_status = await call(
        host, recorder, session, "terminal/wait_for_exit", terminalId=terminal_id
    )
    assert exit_status["result"]["exitCode"] == 0
    output = await call(host, recorder, session, "terminal/output", terminalId=terminal_id)
    assert output["result"]["output"] == "[less|cat]"


async def test_ac8_output_limit_keeps_whole_lines(
    host: Host, recorder: Recorder, session: Session
) -> None:
    created = await call(
        host,
        recorder,
        session,
        "terminal/create",
        command="printf 'héllo\\nwörld\\nmore\\n'",
        outputByteLimit=10,
    )
    terminal_id = created["result"]["terminalId"]
    await call(host, recorder, session, "terminal/wait_for_exit", terminalId=terminal_id)
    output = await call(host, recorder, session, "terminal/output", terminalId=terminal_id)
    assert output["result"]["output"] == "héllo\n"
    assert output["result"]["truncated"] is True


async def test_ac9_kill_keeps_the_handle_release_forgets_it(
    host: Host, recorder: Recorder, session: Session
) -> None:
    created = await call(
        host, recorder, session, "terminal/create", command="echo started; sleep 100"
    )
    terminal_id = created["result"]["terminalId"]
    for _ in range(200):  # killed once it has written something (the shell runs)
        output = await call(host, recorder, session, "terminal/output", terminalId=terminal_id)
        if output["result"]["output"]:
            break
        await asyncio.sleep(0.05)
    assert (await call(host, recorder, session, "terminal/kill", terminalId=terminal_id))[
        "result"
    ] in ({}, None)
    status = await call(host, recorder, session, "terminal/wait_for_exit", terminalId=terminal_id)
    assert status["result"]["signal"] in ("SIGTERM", "SIGKILL")
    output = await call(host, recorder, session, "terminal/output", terminalId=terminal_id)
    assert output["result"]["output"].startswith("started")
    await call(host, recorder, session, "terminal/release", terminalId=terminal_id)
    gone = await call(host, recorder, session, "terminal/output", terminalId=terminal_id)
    assert gone["error"]["code"] == -32602


async def test_ac10_at_most_eight_live_terminals(
    host: Host, recorder: Recorder, session: Session
) -> None:
    ids = []
    for _ in range(8):
        created = await call(host, recorder, session, "terminal/create", command="sleep 100")
        ids.append(created["result"]["terminalId"])
    ninth = await call(host, recorder, session, "terminal/create", command="sleep 100")
    assert ninth["error"]["code"] == -32602 and "8" in ninth["error"]["message"]
    await call(host, recorder, session, "terminal/kill", terminalId=ids[0])
    still = await call(host, recorder, session, "terminal/create", command="sleep 100")
    assert "error" in still, "a killed terminal counts until it is released"
    await call(host, recorder, session, "terminal/release", terminalId=ids[0])
    again = await call(host, recorder, session, "terminal/create", command="true")
    assert "terminalId" in again["result"]


async def test_terminal_cwd_must_pass_the_fence(
    host: Host, recorder: Recorder, session: Session, tmp_path: Path
) -> None:
    refused = await call(
        host, recorder, session, "terminal/create", command="pwd", cwd=str(tmp_path)
    )
    assert refused["error"]["code"] == -32602
    assert str(tmp_path) not in refused["error"]["message"]


async def test_closing_the_session_kills_its_terminals(
    host: Host, recorder: Recorder, session: Session
) -> None:
    created = await call(host, recorder, session, "terminal/create", command="echo $$; sleep 100")
    terminal_id = created["result"]["terminalId"]
    snapshot = session.tools.terminals.output(terminal_id)
    assert session.tools.terminals.live_count() == 1
    connection_id = next(iter(host.connections))
    await host.close_connection(connection_id)
    await session.wait_closed()
    assert session.tools.terminals.live_count() == 0
    assert snapshot.output is not None


async def test_unknown_terminal_in_content_is_shown_as_it_came(
    host: Host, recorder: Recorder, session: Session
) -> None:
    update = {
        "sessionUpdate": "tool_call",
        "toolCallId": "t-foreign",
        "title": "foreign",
        "content": [{"type": "terminal", "terminalId": "never-created"}],
    }
    await host.prompt(
        session.session_id, [{"type": "text", "text": "updates " + json.dumps([update])}]
    )
    found = session.thread.tool_call("t-foreign")
    assert found is not None
    assert found[1].content == [{"type": "terminal", "terminalId": "never-created"}]


async def test_unknown_update_kinds_are_reported(
    host: Host, recorder: Recorder, session: Session
) -> None:
    updates = [
        {"sessionUpdate": "brand_new_kind", "x": 1},
        {"sessionUpdate": "tool_call", "title": "no id"},
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "still fine"}},
    ]
    await host.prompt(
        session.session_id, [{"type": "text", "text": "updates " + json.dumps(updates)}]
    )
    errors = [e.data["message"] for e in recorder.of_type("error", session.session_id)]
    assert any("brand_new_kind" in m for m in errors)
    assert any("malformed tool_call" in m for m in errors)
    assert text_of(recorder, session.session_id) == "still fine"


async def test_an_unknown_method_or_session_gets_the_sdks_error(
    host: Host, recorder: Recorder, session: Session
) -> None:
    """Answers built by the SDK's RequestError factories (its codes, its data)."""
    unknown = await call(host, recorder, session, "fs/delete_file", path="x")
    assert unknown["error"]["code"] == RequestError.method_not_found("x").code
    assert unknown["error"]["data"] == {"method": "fs/delete_file"}
    request = {"method": "fs/read_text_file", "params": {"sessionId": "nope", "path": "x"}}
    stranger = await ask(host, recorder, session, "call " + json.dumps(request))
    assert stranger["error"]["code"] == RequestError.invalid_params().code
    assert stranger["error"]["message"] == "unknown session 'nope'"
