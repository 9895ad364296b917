"""``/mcp``: the MCP servers the current session was given (config.toml's
``[mcp_servers.NAME]``, agents/config_mcp.py), as a notice in its log.

A local command: handled by acp-tui, never sent to the agent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acp_tui.core import SessionView
    from acp_tui.ui.host_link import HostLink
    from acp_tui.ui.surface import Surface

__all__ = ["MCP_COMMAND", "describe_mcp_servers", "is_mcp_command", "show_mcp_servers"]

#: How /mcp shows up in slash completion, beside the agent's own commands.
MCP_COMMAND = {"name": "mcp", "description": "acp-tui: the MCP servers this session was given"}


def is_mcp_command(text: str) -> bool:
    return text.strip() == "/mcp"


def describe_mcp_servers(servers: Iterable[Mapping[str, Any]]) -> str:
    """One server a line: its name, its type, what runs it or where it is."""
    lines = []
    for server in servers:
        kind = server.get("type", "stdio")
        if kind == "stdio":
            where = " ".join([str(server.get("command", "")), *map(str, server.get("args", []))])
        else:
            where = str(server.get("url", ""))
        lines.append(f"• {server.get('name')} ({kind}): {where}")
    if not lines:
        return "This session was given no MCP servers ([mcp_servers.NAME] in the config file)."
    return "MCP servers of this session:\n" + "\n".join(lines)


def show_mcp_servers(surface: Surface, link: HostLink, view: SessionView | None) -> None:
    """The list, as an info notice in ``view``'s session's log."""
    if view is None:
        surface.toast("No session yet", severity="warning", timeout=4)
        return
    servers = link.snapshot(view.session_id).get("mcpServers", [])
    link.add_notice(view.session_id, "info", describe_mcp_servers(servers))
