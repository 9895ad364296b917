"""The config file's ``[mcp_servers.NAME]`` tables: MCP servers given to every
session acp-tui starts (``session/new``, ``session/load``, ``session/resume``)::

    [mcp_servers.files]             # a stdio server: the agent runs it
    command = "mcp-files"           # no slash: looked up on PATH (else passed as written)
    args = ["--root", "."]
    env = { FILES_LOG = "debug" }

    [mcp_servers.docs]              # an http server (type = "sse" for SSE)
    url = "https://mcp.example.com/docs"
    headers = { Authorization = "Bearer ..." }
    agents = ["claude", "mine"]     # only these agents (presets or [agents.NAME]);
                                    # without it: every agent
    enabled = false                 # switched off

``type`` is "stdio" (the default without ``url``), "http" (the default with
``url``) or "sse". A wrong entry is reported (through ``warn``) and that
server left out; an unknown key is reported and ignored.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_tui.agents.config_text import dotted_key

MCP_KEYS = ("type", "command", "args", "env", "url", "headers", "agents", "enabled")
MCP_TYPES = ("stdio", "http", "sse")
_STDIO_ONLY = ("command", "args", "env")
_REMOTE_ONLY = ("url", "headers")
Warn = Callable[[tuple[str, ...], str], None]


@dataclass(frozen=True)
class McpServer:
    """One ``[mcp_servers.NAME]``, as the ACP wire shape of session/new."""

    name: str
    #: {"name", "command", "args", "env": [{name, value}]} or
    #: {"type": "http"|"sse", "name", "url", "headers": [{name, value}]}.
    wire: dict[str, Any]
    #: The agents it is for (None: every agent).
    agents: tuple[str, ...] | None = None


@dataclass(frozen=True)
class McpSettings:
    servers: tuple[McpServer, ...] = field(default=())

    def for_agent(self, name: str | None) -> list[dict[str, Any]]:
        """The wire shapes of the servers for agent ``name`` (None: an agent
        without a name, e.g. a headless ``connection.open`` command: only the
        servers for every agent)."""
        return [
            dict(s.wire)
            for s in self.servers
            if s.agents is None or (name is not None and name in s.agents)
        ]


def mcp_settings(
    value: Any,
    warn: Warn,
    hint: Callable[[str], str],
    *,
    agent_names: Iterable[str],
    folder: Path,
) -> McpSettings:
    if value is None:
        return McpSettings()
    if not isinstance(value, dict):
        warn(
            ("mcp_servers",),
            "mcp_servers must be a table of [mcp_servers.NAME] tables; ignoring it",
        )
        return McpSettings()
    known = tuple(agent_names)
    servers = []
    for name, table in value.items():
        server = _server(name, table, warn, hint, known, folder)
        if server is not None:
            servers.append(server)
    return McpSettings(tuple(servers))


def _strings(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _server(
    name: str,
    table: Any,
    warn: Warn,
    hint: Callable[[str], str],
    known: tuple[str, ...],
    folder: Path,
) -> McpServer | None:
    key = ("mcp_servers", name)
    where = dotted_key(key)
    ignoring = f"ignoring MCP server {name!r}"
    if not name.strip():
        warn(key, f"an MCP server's name cannot be blank; {ignoring}")
        return None
    if not isinstance(table, dict):
        warn(key, f'{where} must be a table with command = "..." or url = "..."; {ignoring}')
        return None
    for extra in table:
        if extra not in MCP_KEYS:
            warn(
                (*key, extra),
                f"unknown key '{dotted_key((*key, extra))}'{hint(extra)}; ignoring it",
            )
    enabled = table.get("enabled", True)
    if not isinstance(enabled, bool):
        warn((*key, "enabled"), f"{where}.enabled must be true or false; {ignoring}")
        return None
    kind = table.get("type", "http" if "url" in table else "stdio")
    if kind not in MCP_TYPES:
        warn(
            (*key, "type"),
            f'{where}.type must be "stdio", "http" or "sse" (got {kind!r}); {ignoring}',
        )
        return None
    agents = table.get("agents")
    if agents is not None:
        if not isinstance(agents, list) or not all(isinstance(a, str) and a for a in agents):
            warn((*key, "agents"), f"{where}.agents must be a list of agents' names; {ignoring}")
            return None
        for agent in agents:
            if agent not in known:
                warn(
                    (*key, "agents"),
                    f"{where}.agents: {agent!r} is not an agent (known: {', '.join(known)})",
                )
    wrong, meant = (_STDIO_ONLY, "stdio") if kind != "stdio" else (_REMOTE_ONLY, "http and sse")
    for extra in wrong:
        if extra in table:
            warn(
                (*key, extra),
                f"{where}.{extra} is for {meant} servers only (this one is {kind}); ignoring it",
            )
    wire = (
        _stdio(table, key, warn, ignoring, folder)
        if kind == "stdio"
        else _remote(kind, table, key, warn, ignoring)
    )
    if wire is None or not enabled:
        return None
    return McpServer(name, {"name": name, **wire}, None if agents is None else tuple(agents))


def _stdio(
    table: dict[str, Any], key: tuple[str, ...], warn: Warn, ignoring: str, folder: Path
) -> dict[str, Any] | None:
    where = dotted_key(key)
    command = table.get("command")
    if command is None:
        warn(key, f'{where} has no command = "..." (or url = "..."); {ignoring}')
        return None
    if not isinstance(command, str) or not command.strip():
        warn((*key, "command"), f"{where}.command must be a non-empty string; {ignoring}")
        return None
    args = table.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        warn((*key, "args"), f"{where}.args must be a list of strings; {ignoring}")
        return None
    env = table.get("env", {})
    if not _strings(env):
        warn((*key, "env"), f"{where}.env must be a table of strings; {ignoring}")
        return None
    return {
        "command": _executable(command.strip(), folder),
        "args": list(args),
        "env": [{"name": k, "value": v} for k, v in env.items()],
    }


def _executable(command: str, folder: Path) -> str:
    """ACP asks for an absolute path: a bare name is looked up on PATH, a
    relative path is relative to the config file's folder."""
    if "/" in command:
        path = Path(command).expanduser()
        return str(path if path.is_absolute() else folder / path)
    return shutil.which(command) or command


def _remote(
    kind: str, table: dict[str, Any], key: tuple[str, ...], warn: Warn, ignoring: str
) -> dict[str, Any] | None:
    where = dotted_key(key)
    url = table.get("url")
    if url is None:
        warn(key, f'{where} (type = "{kind}") has no url = "..."; {ignoring}')
        return None
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        warn((*key, "url"), f"{where}.url must be an http:// or https:// address; {ignoring}")
        return None
    headers = table.get("headers", {})
    if not _strings(headers):
        warn((*key, "headers"), f"{where}.headers must be a table of strings; {ignoring}")
        return None
    return {
        "type": kind,
        "url": url,
        "headers": [{"name": k, "value": v} for k, v in headers.items()],
    }
