"""The parts of a host core the config decides: the history store, and the
background host's core (acp-tui host)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_tui.agents.config import Config
    from acp_tui.core import HistoryStore, Host


def history_store(config: Config) -> HistoryStore | None:
    """The local history store (None when the config turns it off)."""
    from acp_tui.core import HistoryStore, default_root

    settings = config.history
    if not settings.enabled:
        return None
    store = HistoryStore(
        default_root(os.environ),
        max_sessions=settings.max_sessions,
        max_age_days=settings.max_age_days,
    )
    try:
        store.prune()
    except OSError as exc:
        print(f"acp-tui: cannot tidy the session history: {exc}", file=sys.stderr)
    return store


def build_host(config: Config) -> Host:
    """The background host's core: the config's history, limits and checkpoints;
    roots, directories and MCP servers come with each session."""
    from acp_tui.core import Host, logs_dir

    return Host(
        history=history_store(config),
        timeouts=config.timeouts,
        text_budget=config.text_budget,
        logs=logs_dir(),
        checkpoints=config.checkpoints,
        mcp_servers=config.mcp.for_agent(None),
    )
