"""``/export [path]``: the conversation as Markdown (core/transcript.py).

A local command: handled by acp-tui, never sent to the agent. Without a path
(or with a directory) the file is named after the session's title in the
session's working directory; a relative path is relative to that directory.
"""

from __future__ import annotations

import datetime as dt
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acp_tui.core import SessionView
    from acp_tui.ui.surface import Surface

__all__ = ["EXPORT_COMMAND", "export_conversation", "parse_local_command"]

#: How /export shows up in slash completion, beside the agent's own commands.
EXPORT_COMMAND = {
    "name": "export",
    "description": "acp-tui: save the conversation as Markdown in the project folder",
    "input": {"hint": "path (default: acp-tui-<date>[-<title>].md in the project folder)"},
}


def parse_local_command(text: str) -> str | None:
    """The argument of a ``/export`` line ("" when none), or None when
    ``text`` is not one."""
    first, _, rest = text.strip().partition(" ")
    if first != "/export" or "\n" in rest:
        return None
    return rest.strip()


def export_conversation(
    surface: Surface, session: SessionView | None, agent: dict[str, Any] | str, argument: str
) -> Path | None:
    """Write ``session``'s conversation (as its view holds it) as Markdown;
    ``agent``: its ``agentInfo``, or its name."""
    # (The exporter is loaded on the first /export, not before the first frame.)
    from acp_tui.core import ExportError, default_export_name, to_markdown, write_markdown

    if session is None or not session.entries or session.cwd is None:
        surface.toast("Nothing to export yet", severity="warning", timeout=4)
        return None
    try:
        parts = shlex.split(argument) if argument else []
    except ValueError as exc:
        surface.toast(f"/export: {exc}", severity="error")
        return None
    cwd = session.cwd
    target = Path(parts[0]).expanduser() if parts else Path()
    if not target.is_absolute():
        target = cwd / target
    if target.is_dir():
        target = target / default_export_name(session.title, dt.datetime.now())
    text = to_markdown(
        session.entries, title=session.title, agent=agent, cwd=cwd, plan=session.plan
    )
    try:
        written = write_markdown(target, text)
    except ExportError as exc:
        surface.toast(f"Export failed: {exc}", severity="error", timeout=8)
        return None
    shown = written.relative_to(cwd) if written.is_relative_to(cwd) else written
    surface.toast(f"Exported the conversation to {shown}", timeout=6)
    return written
