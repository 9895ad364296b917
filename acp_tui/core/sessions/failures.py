"""What an error entry says: the error, the cause the agent gave in the
error's ``data``, the last lines of its stderr, and where its log is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp_tui.core.errors import HostError
from acp_tui.core.storage.state_paths import shown_path

#: stderr lines shown in an error entry.
STDERR_LINES = 12
DETAIL_CHARS = 600


def details(error: HostError) -> str | None:
    """The agent's own words in a JSON-RPC error's ``data`` (claude-agent-acp
    puts the cause in ``data.details``), or None."""
    data = error.data
    inner: Any = (
        data.get("data") if isinstance(data, dict) and error.code == "agent_error" else None
    )
    if inner is None or inner == {}:
        return None
    if isinstance(inner, dict) and isinstance(inner.get("details"), str):
        text = inner["details"]
    elif isinstance(inner, str):
        text = inner
    else:
        text = json.dumps(inner, ensure_ascii=False, default=str)
    text = text.strip()
    if len(text) > DETAIL_CHARS:
        text = text[:DETAIL_CHARS] + "…"
    return text or None


def last_lines(stderr: str, count: int = STDERR_LINES) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    return "\n".join(lines[-count:])


def describe(
    message: str, *, error: HostError | None = None, stderr: str = "", log: Path | None = None
) -> str:
    """The text of an error entry. The stderr tail and the log path default to
    what the error's data carries (an ``agent_exited`` error has both)."""
    data = error.data if error is not None and isinstance(error.data, dict) else {}
    if not stderr and isinstance(data.get("stderr"), str):
        stderr = data["stderr"]
    if log is None and isinstance(data.get("log"), str):
        log = Path(data["log"])
    parts = [message]
    cause = details(error) if error is not None else None
    if cause:
        parts.append(f"Cause: {cause}")
    tail = last_lines(stderr)
    if tail:
        parts.append("Last lines of the agent's stderr:\n" + tail)
    if log is not None:
        parts.append(f"Agent log: {shown_path(log)}")
    return "\n\n".join(parts)
