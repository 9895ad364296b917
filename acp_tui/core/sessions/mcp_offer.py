"""Which of the configured MCP servers an agent is given.

ACP lets a client give http and sse MCP servers only to an agent whose
``initialize`` answer says it takes them (``agentCapabilities.mcpCapabilities``
``http`` / ``sse``); stdio servers every agent takes. The others are left out,
and the session's log says which and why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def mcp_offer(
    configured: Iterable[Mapping[str, Any]],
    given: list[dict[str, Any]] | None,
    capabilities: Mapping[str, Any],
) -> tuple[list[dict[str, Any]], str | None]:
    """The servers a session gets: those a front end ``given`` (as they are),
    else the ``configured`` ones the agent takes; and a notice naming the
    ones left out, or None."""
    if given is not None:
        return given, None
    stated = capabilities.get("mcpCapabilities")
    mcp: Mapping[str, Any] = stated if isinstance(stated, Mapping) else {}
    taken: list[dict[str, Any]] = []
    left_out: list[str] = []
    kinds: set[str] = set()
    for server in configured:
        kind = str(server.get("type", "stdio"))
        if kind == "stdio" or mcp.get(kind) is True:
            taken.append(dict(server))
        else:
            left_out.append(f"{server.get('name')} ({kind})")
            kinds.add(kind)
    if not left_out:
        return taken, None
    return taken, (
        f"MCP servers left out: {', '.join(left_out)}; the agent does not take"
        f" {' or '.join(sorted(kinds))} MCP servers (its mcpCapabilities)"
    )
