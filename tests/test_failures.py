"""Issue 13, point 8 (failures say why), the agent's name, and what a tool
call touches outside the project (point 5), against real agent processes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from acp_tui.core.capabilities.fs import PathFence
from acp_tui.core.capabilities.tool_paths import outside_paths
from acp_tui.core.errors import HostError
from acp_tui.core.host import Host
from acp_tui.core.model.entries import NoticeEntry, ToolCallEntry
from acp_tui.core.sessions.agent_names import command_name
from acp_tui.core.storage import agent_log
from acp_tui.core.storage.agent_log import AgentLog, logs_dir
from tests.fake_agents import agent_spec


async def test_an_error_entry_says_why(tmp_path: Path) -> None:
    host = Host(logs=tmp_path / "logs")
    try:
        connection, _ = await host.open_connection(agent_spec(), tmp_path)
        session = await host.create_session(connection.connection_id, tmp_path)
        with pytest.raises(HostError):
            await host.prompt(
                session.session_id, [{"type": "text", "text": "fail Query closed early"}]
            )
        notice = session.thread.entries[-1]
        assert isinstance(notice, NoticeEntry) and notice.level == "error"
        assert "Internal error" in notice.text
        assert "Cause: Query closed early" in notice.text  # the error's data.details
        assert "fatal: Query closed early" in notice.text  # the stderr tail
        log = connection.log_path
        assert log is not None and log.parent == tmp_path / "logs"
        assert f"Agent log: {log}" in notice.text
        written = log.read_text()
        assert "stderr | fatal: Query closed early" in written
        assert '"method": "session/prompt"' in written  # the protocol trace
        assert "Query closed early" in written
    finally:
        await host.shutdown()


async def test_a_session_that_cannot_start_says_why(tmp_path: Path) -> None:
    host = Host(logs=tmp_path / "logs")
    try:
        spec = agent_spec(ACP_FAKE_NEW_SESSION_FAILS="Query closed before response received")
        connection, _ = await host.open_connection(spec, tmp_path)
        with pytest.raises(HostError) as raised:
            await host.create_session(connection.connection_id, tmp_path)
        from acp_tui.core.sessions.failures import describe

        text = describe(
            raised.value.message,
            error=raised.value,
            stderr=connection.stderr_tail(),
            log=connection.log_path,
        )
        assert "Cause: Query closed before response received" in text
        assert "fatal: Query closed before response received" in text
        assert not connection.closed  # the agent is not gone: only its session failed
    finally:
        await host.shutdown()


async def test_agent_gone_is_reported_only_when_the_process_is_gone(tmp_path: Path) -> None:
    host = Host()
    try:
        connection, _ = await host.open_connection(agent_spec(), tmp_path)
        session = await host.create_session(connection.connection_id, tmp_path)
        with pytest.raises(HostError):
            await host.prompt(session.session_id, [{"type": "text", "text": "close-stdout"}])
        await asyncio.sleep(0)
        texts = [e.text for e in session.thread.entries if isinstance(e, NoticeEntry)]
        assert any("closed its output (stdout) while still running" in t for t in texts)
        assert not any("the agent exited" in t for t in texts)
    finally:
        await host.shutdown()


async def test_the_agent_is_called_by_its_own_name_once_initialized(tmp_path: Path) -> None:
    host = Host()
    try:
        spec = agent_spec(name="")  # no preset name
        assert spec.display_name == "acp-tui"  # the script's package, not "python3"
        connection, _ = await host.open_connection(spec, tmp_path)
        assert connection.agent_name == "scripted"  # its agentInfo
        assert connection.history_key == "scripted"
    finally:
        await host.shutdown()


def test_a_node_script_is_named_after_its_package(tmp_path: Path) -> None:
    for name in ("agent-one", "@scope/agent-two"):
        package = tmp_path / name.replace("/", "_")
        (package / "dist").mkdir(parents=True)
        (package / "package.json").write_text(json.dumps({"name": name}))
        script = package / "dist" / "index.js"
        assert command_name("/usr/bin/node", [str(script)]) == name
    assert command_name("node", [str(tmp_path / "loose" / "tool.js")]) == "tool"
    assert command_name("/usr/bin/python3", ["-m", "some_agent"]) == "some_agent"
    assert command_name("npx", ["-y", "@zed-industries/codex-acp@0.3"]) == (
        "@zed-industries/codex-acp"
    )
    assert command_name("/opt/bin/goose", ["acp"]) == "goose"


def test_the_agent_log_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agent_log, "MAX_BYTES", 4000)
    log = AgentLog.create(tmp_path, "agent", 1)
    assert log is not None
    for n in range(400):
        log.frame("in", {"jsonrpc": "2.0", "id": n, "result": {"n": "x" * 50}})
        log.frame(
            "in",
            {
                "method": "session/update",
                "params": {
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": "y" * 10_000},
                    }
                },
            },
        )
    log.stderr("last words\n")
    log.close()
    current, older = log.path, log.path.with_name(log.path.name + ".1")
    assert current.stat().st_size <= 4000 and older.stat().st_size <= 4000
    assert "stderr | last words" in current.read_text()
    assert "agent_message_chunk (10000 chars)" in older.read_text() + current.read_text()
    assert "y" * 100 not in older.read_text() + current.read_text()  # text is not copied


def test_old_agent_logs_are_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agent_log, "KEEP_FILES", 3)
    for pid in range(6):
        made = AgentLog.create(tmp_path, "agent", pid)
        assert made is not None
        made.close()
    assert len(list(tmp_path.glob("*.log"))) == 3


def test_logs_live_in_the_state_directory() -> None:
    assert logs_dir({"XDG_STATE_HOME": "/x/state"}) == Path("/x/state/acp-tui/logs")
    assert logs_dir({"HOME": "/h"}).parts[-3:] == ("state", "acp-tui", "logs")


def test_paths_outside_the_roots(tmp_path: Path) -> None:
    fence = PathFence([tmp_path])

    def outside(**fields: object) -> list[str]:
        entry = ToolCallEntry(tool_call_id="t", **fields)  # type: ignore[arg-type]
        return outside_paths(entry, fence)

    inside = str(tmp_path / "a.txt")
    assert outside(raw_input={"file_path": inside}) == []
    assert outside(raw_input={"file_path": "/etc/passwd"}) == ["/etc/passwd"]
    assert outside(locations=[{"path": "/tmp/../etc/x"}]) == ["/tmp/../etc/x"]
    assert outside(content=[{"type": "diff", "path": "/srv/x", "newText": ""}]) == ["/srv/x"]
    assert outside(raw_input={"command": "echo hi > /etc/motd"}) == ["/etc/motd"]
    assert outside(raw_input={"command": "echo hi >/etc/motd"}) == ["/etc/motd"]
    assert outside(raw_input={"command": "cat ../secret.txt"}) == ["../secret.txt"]
    assert outside(raw_input={"command": "rm -rf ~/.ssh"}) == ["~/.ssh"]
    assert outside(raw_input={"command": "ls src > /dev/null"}) == []
    assert outside(raw_input={"command": "/usr/bin/ls -la"}) == []  # the program itself
    assert outside(raw_input={"command": ["cp", inside, "/opt/x"]}) == ["/opt/x"]
