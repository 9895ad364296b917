"""How to start an agent: a plain value, cheap to import.

It lives apart from the connection (connection.py) so that naming and
listing agents, and the TUI's first frame, need none of what only a running
connection does (the SDK's schema, JSON-RPC, processes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from acp_tui.core.sessions.agent_names import command_name


@dataclass(frozen=True)
class AgentSpec:
    """How to start an agent: what ``connection.open`` caches by (with the cwd)."""

    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    #: A display name (the preset's), not part of the identity.
    name: str = field(default="", compare=False)

    @classmethod
    def of(
        cls,
        command: str,
        args: list[str] | tuple[str, ...] = (),
        env: Mapping[str, str] | None = None,
        name: str = "",
    ) -> AgentSpec:
        return cls(command, tuple(args), tuple(sorted((env or {}).items())), name)

    @property
    def display_name(self) -> str:
        """The preset's name, else the command's script's (agent_names.py)."""
        return self.name or command_name(self.command, self.args)
