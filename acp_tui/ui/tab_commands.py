"""``/new [AGENT]``, ``/resume [ID]``, ``/fork`` and ``/close``: opening and
closing sessions of the window."""

from __future__ import annotations

from typing import Any

TAB_COMMANDS: list[dict[str, Any]] = [
    {
        "name": "new",
        "description": "acp-tui: a new session in a new tab (this agent, or AGENT)",
        "input": {"hint": "agent (default: this one)"},
    },
    {
        "name": "resume",
        "description": "acp-tui: an earlier session of this agent in a new tab (a list, or ID)",
        "input": {"hint": "session id (default: choose from a list)"},
    },
    {"name": "fork", "description": "acp-tui: this conversation forked, in a new tab"},
    {"name": "close", "description": "acp-tui: close this session's tab"},
]


def parse_tab_command(text: str) -> tuple[str, str] | None:
    """``("new", agent)`` (agent "" for the current one), ``("resume", id)``
    (id "" to choose), ``("fork", "")`` or ``("close", "")`` for such a line;
    None for any other."""
    first, _, rest = text.strip().partition(" ")
    if "\n" in rest:
        return None
    if first in ("/new", "/resume"):
        return first[1:], rest.strip()
    if first in ("/close", "/fork") and not rest.strip():
        return first[1:], ""
    return None
