"""/mcp lists the MCP servers the current session was given (config.toml's
[mcp_servers.NAME]), as a notice in its log; nothing goes to the agent."""

from __future__ import annotations

import json
from pathlib import Path

from acp_tui.core import Host
from acp_tui.core.model.entries import NoticeEntry
from acp_tui.ui.app import AcpApp
from tests.fake_agents import agent_spec
from tests.ui.helpers import idle, ready, screen_text, send, turn, until

STDIO = {
    "name": "files",
    "command": "/opt/mcp/files",
    "args": ["--root", "."],
    "env": [{"name": "FILES_LOG", "value": "debug"}],
}
HTTP = {"type": "http", "name": "docs", "url": "https://mcp.example.com/docs", "headers": []}


async def test_slash_mcp_lists_what_the_session_was_given(tmp_path: Path) -> None:
    host = Host(cancel_grace=2.0, mcp_servers=[STDIO, HTTP])
    app = AcpApp(agent_spec(), cwd=tmp_path, host=host)  # the agent takes no http servers
    async with app.run_test(size=(110, 30)) as pilot:
        await ready(pilot)
        session = app.session
        assert session is not None
        await until(pilot, lambda: "MCP servers left out: docs (http)" in screen_text(app))
        assert "mcp" in [c.name for c in app.prompt.commands]
        await send(pilot, "/mcp")
        await until(pilot, lambda: "MCP servers of this session:" in screen_text(app))
        shown = screen_text(app)
        assert "files (stdio): /opt/mcp/files --root ." in shown
        assert "docs (http)" not in shown.split("MCP servers of this session:")[1]
        notices = [e for e in session.thread.entries if isinstance(e, NoticeEntry)]
        assert notices[-1].level == "info"
        assert not any(e.kind == "user" for e in session.thread.entries)  # not sent
        assert idle(app)
        # What the agent itself says it got matches what /mcp lists.
        await turn(pilot, "mcp-servers")
        reply = json.loads(
            "".join(
                c.text for e in session.thread.entries if e.kind == "assistant" for c in e.chunks
            )
        )
        assert reply == {"method": "session/new", "mcpServers": [STDIO]}
