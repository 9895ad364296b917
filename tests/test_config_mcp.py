"""MCP servers configured once (agents/config_mcp.py): the config file's
``[mcp_servers.NAME]`` tables, and what the real headless host gives the
scripted agent with them (it reports the mcpServers of its session/new,
session/load or session/resume)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from acp_tui.agents.config import load_config
from acp_tui.agents.presets import PRESETS
from acp_tui.core.host import Host
from acp_tui.core.model.entries import AssistantEntry, NoticeEntry
from acp_tui.core.sessions.session import Session
from tests.fake_agents import SCRIPTED_AGENT, agent_spec
from tests.test_cancel_recovery import cancelled_turn, text
from tests.test_config import toml_str
from tests.test_headless import rebuild_text

GOOD = """\
[mcp_servers.files]
command = "/opt/mcp/files"
args = ["--root", "."]
env = { FILES_LOG = "debug", B = "2" }

[mcp_servers.local]
command = "tools/mcp-local"

[mcp_servers.docs]
url = "https://mcp.example.com/docs"
headers = { Authorization = "Bearer t0k" }
agents = ["mine", "claude"]

[mcp_servers.events]
type = "sse"
url = "http://127.0.0.1:9/events"

[mcp_servers.off]
command = "/opt/mcp/off"
enabled = false
"""

FILES = {
    "name": "files",
    "command": "/opt/mcp/files",
    "args": ["--root", "."],
    "env": [{"name": "FILES_LOG", "value": "debug"}, {"name": "B", "value": "2"}],
}
DOCS = {
    "type": "http",
    "name": "docs",
    "url": "https://mcp.example.com/docs",
    "headers": [{"name": "Authorization", "value": "Bearer t0k"}],
}
EVENTS = {"type": "sse", "name": "events", "url": "http://127.0.0.1:9/events", "headers": []}


def test_good_entries_become_the_acp_wire_shapes(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(GOOD + '[agents.mine]\ncommand = "x"\n')
    config = load_config(path)
    assert config.problems == []
    local = {
        "name": "local",
        "command": str(tmp_path / "tools" / "mcp-local"),  # relative to the config's folder
        "args": [],
        "env": [],
    }
    assert config.mcp.for_agent("mine") == [FILES, local, DOCS, EVENTS]
    assert config.mcp.for_agent("claude") == [FILES, local, DOCS, EVENTS]
    # Not in docs' agents list, or no name at all (a bare command): the others only.
    assert config.mcp.for_agent("gemini") == [FILES, local, EVENTS]
    assert config.mcp.for_agent(None) == [FILES, local, EVENTS]


def test_bad_entries_name_their_line_and_key_and_only_they_are_left_out(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        "[mcp_servers.a]\n"  # 1
        'command = "/bin/a"\n'  # 2
        'args = "--x"\n'  # 3
        "[mcp_servers.b]\n"  # 4
        'url = "ftp://example.com"\n'  # 5
        "[mcp_servers.c]\n"  # 6
        'type = "websocket"\n'  # 7
        "[mcp_servers.d]\n"  # 8
        "enabled = false\n"  # 9  (no command, but switched off: still reported)
        "[mcp_servers.e]\n"  # 10
        'comand = "/bin/e"\n'  # 11
        "[mcp_servers.f]\n"  # 12
        'url = "https://f.example.com"\n'  # 13
        "headers = { X = 1 }\n"  # 14
        "[mcp_servers.g]\n"  # 15
        'command = "/bin/g"\n'  # 16
        'agents = ["nobody"]\n'  # 17
        "headers = { X = 'y' }\n"  # 18
        "[mcp_servers.h]\n"  # 19
        'command = "/bin/h"\n'  # 20
        'enabled = "no"\n'  # 21
        "[mcp_servers.ok]\n"  # 22
        'command = "/bin/ok"\n'  # 23
    )
    config = load_config(path)
    where = f"acp-tui: config {path}"
    assert config.problems == [
        f"{where} line 3: mcp_servers.a.args must be a list of strings; ignoring MCP server 'a'",
        f"{where} line 5: mcp_servers.b.url must be an http:// or https:// address;"
        " ignoring MCP server 'b'",
        f'{where} line 7: mcp_servers.c.type must be "stdio", "http" or "sse"'
        " (got 'websocket'); ignoring MCP server 'c'",
        f'{where} line 8: mcp_servers.d has no command = "..." (or url = "...");'
        " ignoring MCP server 'd'",
        f'{where} line 10: mcp_servers.e has no command = "..." (or url = "...");'
        " ignoring MCP server 'e'",
        f"{where} line 11: unknown key 'mcp_servers.e.comand' (did you mean 'command'?);"
        " ignoring it",
        f"{where} line 14: mcp_servers.f.headers must be a table of strings;"
        " ignoring MCP server 'f'",
        f"{where} line 17: mcp_servers.g.agents: 'nobody' is not an agent"
        f" (known: {', '.join(PRESETS)})",
        f"{where} line 18: mcp_servers.g.headers is for http and sse servers only"
        " (this one is stdio); ignoring it",
        f"{where} line 21: mcp_servers.h.enabled must be true or false; ignoring MCP server 'h'",
    ]
    # g is kept (for an agent that does not exist: no session gets it); ok is whole.
    assert [s["name"] for s in config.mcp.for_agent(None)] == ["ok"]
    assert [s["name"] for s in config.mcp.for_agent("nobody")] == ["g", "ok"]


def test_mcp_servers_that_is_not_a_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('theme = "acp-light"\nmcp_servers = ["files"]\n')
    config = load_config(path)
    assert config.problems == [
        f"acp-tui: config {path} line 2: mcp_servers must be a table of"
        " [mcp_servers.NAME] tables; ignoring it"
    ]
    assert config.theme == "acp-light" and config.mcp.for_agent(None) == []


# -- through the real headless host ------------------------------------------------------------


def _config(tmp_path: Path, agent_env: dict[str, str]) -> Path:
    env = ", ".join(f"{k} = {toml_str(v)}" for k, v in agent_env.items())
    path = tmp_path / "config.toml"
    path.write_text(
        GOOD
        + "[mcp_servers.elsewhere]\n"
        + 'command = "/opt/mcp/elsewhere"\n'
        + 'agents = ["claude"]\n'
        + "[agents.mine]\n"
        + f"command = {toml_str(sys.executable)}\n"
        + f"args = [{toml_str(SCRIPTED_AGENT)}]\n"
        + f"env = {{ {env} }}\n"
    )
    return path


async def _given(client: Any, session_id: str) -> dict[str, Any]:
    before = rebuild_text(client.events, session_id)
    await client.result("session.prompt", {"sessionId": session_id, "text": "mcp-servers"})
    reply: dict[str, Any] = json.loads(rebuild_text(client.events, session_id)[len(before) :])
    return reply


def _notices(client: Any, session_id: str) -> list[dict[str, Any]]:
    return [
        e["entry"]
        for e in client.events
        if e["type"] == "entry-appended"
        and e.get("sessionId") == session_id
        and e["entry"]["kind"] == "notice"
    ]


async def test_configured_servers_reach_session_new_and_load(headless: Any, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    path = _config(tmp_path, {"ACP_FAKE_MCP": "http,sse", "ACP_FAKE_STATE_DIR": str(state)})
    client = await headless("mine", cwd=tmp_path, ACP_TUI_CONFIG=str(path))
    opened = await client.result("connection.open", {"cwd": str(tmp_path)})
    assert opened["agentCapabilities"]["mcpCapabilities"] == {"http": True, "sse": True}
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    session_id = created["sessionId"]
    local = {"name": "local", "command": str(tmp_path / "tools" / "mcp-local"), "args": []}
    local["env"] = []
    # Not "off" (enabled = false), not "elsewhere" (for claude only).
    expected = [FILES, local, DOCS, EVENTS]
    assert await _given(client, session_id) == {"method": "session/new", "mcpServers": expected}
    assert _notices(client, session_id) == []
    loaded = await client.result(
        "session.load", {"connectionId": opened["connectionId"], "sessionId": session_id}
    )
    reply = await _given(client, loaded["sessionId"])
    assert reply == {"method": "session/load", "mcpServers": expected}
    await client.result("shutdown")
    await client.close_stdin_and_wait()
    assert client.proc.stderr is not None
    assert "acp-tui: config" not in (await client.proc.stderr.read()).decode()


async def test_session_create_with_its_own_mcp_servers_replaces_the_configured_ones(
    headless: Any, tmp_path: Path
) -> None:
    path = _config(tmp_path, {"ACP_FAKE_MCP": "http"})
    client = await headless("mine", cwd=tmp_path, ACP_TUI_CONFIG=str(path))
    opened = await client.result("connection.open", {"cwd": str(tmp_path)})
    own = {"name": "own", "command": "/opt/own", "args": ["-v"], "env": []}
    created = await client.result(
        "session.create", {"connectionId": opened["connectionId"], "mcpServers": [own]}
    )
    assert await _given(client, created["sessionId"]) == {
        "method": "session/new",
        "mcpServers": [own],
    }
    none = await client.result(
        "session.create", {"connectionId": opened["connectionId"], "mcpServers": []}
    )
    assert await _given(client, none["sessionId"]) == {"method": "session/new", "mcpServers": []}


async def test_http_and_sse_servers_are_withheld_from_an_agent_that_does_not_take_them(
    headless: Any, tmp_path: Path
) -> None:
    path = _config(tmp_path, {"ACP_FAKE_MCP": "sse"})  # sse yes, http no
    client = await headless("mine", cwd=tmp_path, ACP_TUI_CONFIG=str(path))
    opened = await client.result("connection.open", {"cwd": str(tmp_path)})
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    session_id = created["sessionId"]
    reply = await _given(client, session_id)
    assert [s["name"] for s in reply["mcpServers"]] == ["files", "local", "events"]
    notices = _notices(client, session_id)
    assert [(n["level"], n["text"]) for n in notices] == [
        (
            "warning",
            "MCP servers left out: docs (http); the agent does not take http MCP servers"
            " (its mcpCapabilities)",
        )
    ]


async def test_a_bare_command_gets_only_the_servers_for_every_agent(
    headless: Any, tmp_path: Path
) -> None:
    path = _config(tmp_path, {})
    client = await headless(
        "--", sys.executable, str(SCRIPTED_AGENT), cwd=tmp_path, ACP_TUI_CONFIG=str(path)
    )
    opened = await client.result("connection.open", {"cwd": str(tmp_path)})
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    session_id = created["sessionId"]
    reply = await _given(client, session_id)
    # No http/sse capability at all; docs is for mine and claude only anyway.
    assert [s["name"] for s in reply["mcpServers"]] == ["files", "local"]
    (notice,) = _notices(client, session_id)
    assert notice["text"].startswith("MCP servers left out: events (sse); ")


# -- session/resume: a revived session, and the reopen after a cancel ------------------------------

STDIO = {"name": "files", "command": "/opt/mcp/files", "args": [], "env": []}
HTTP = {"type": "http", "name": "docs", "url": "https://mcp.example.com/docs", "headers": []}


def _reply(session: Session) -> Any:
    entry = session.thread.entries[-1]
    assert isinstance(entry, AssistantEntry)
    return json.loads("".join(c.text for c in entry.chunks))


async def test_session_resume_gets_the_configured_servers_too(tmp_path: Path) -> None:
    host = Host(mcp_servers=[STDIO, HTTP])
    try:
        spec = agent_spec(ACP_FAKE_REOPEN="1", ACP_FAKE_LAG_AFTER_CANCEL="1")
        connection, _ = await host.open_connection(spec, tmp_path)
        session = await host.create_session(connection.connection_id, tmp_path)
        # The reopen after a cancel (cancel_recovery.py) resumes with them.
        await cancelled_turn(host, session)
        await host.prompt(session.session_id, text("mcp-servers"))
        assert _reply(session) == {"method": "session/resume", "mcpServers": [STDIO]}
        # A session resumed in a new agent process (the TUI's revive).
        fresh, _ = await host.open_connection(agent_spec(ACP_FAKE_REOPEN="1"), tmp_path)
        resumed = await host.load_session(
            fresh.connection_id,
            session.agent_session_id,
            tmp_path,
            resume=list(session.thread.entries),
        )
        await host.prompt(resumed.session_id, text("mcp-servers"))
        assert _reply(resumed) == {"method": "session/resume", "mcpServers": [STDIO]}
        notices = [e.text for e in resumed.thread.entries if isinstance(e, NoticeEntry)]
        assert any(n.startswith("MCP servers left out: docs (http)") for n in notices)
    finally:
        await host.shutdown()
