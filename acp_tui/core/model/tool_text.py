"""Tool calls as text, for every surface: kind icons and labels, diff hunks,
terminal exit labels.

UI-free: the TUI's log and permission dialog and the Markdown export all
take these from here, so one tool call looks the same everywhere. Text from
an agent is cleaned (:mod:`acp_tui.core.model.content_text`) on the way.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from acp_tui.core.model.content_text import clean, one_line

__all__ = ["KIND_ICONS", "KIND_LABELS", "diff_lines", "exit_label", "kind_icon", "kind_label"]

#: One single-cell, text-presentation symbol per ACP tool kind (emoji would
#: be two cells wide in some terminals and one in others).
KIND_ICONS: dict[str, str] = {
    "read": "≡",
    "edit": "✎",
    "delete": "⌫",
    "move": "↔",
    "search": "⌕",
    "execute": "$",
    "think": "∴",
    "fetch": "⇣",
    "switch_mode": "⇄",
    "other": "◆",
}

#: What each ACP tool kind is called in a sentence ("tool" for any other).
KIND_LABELS: dict[str, str] = {
    "read": "read",
    "edit": "edit",
    "delete": "delete",
    "move": "move",
    "search": "search",
    "execute": "execute",
    "think": "think",
    "fetch": "fetch",
    "switch_mode": "switch mode",
    "other": "tool",
}


def kind_icon(kind: str) -> str:
    """The icon of tool kind ``kind`` (an unknown kind is ``other``'s)."""
    return KIND_ICONS.get(kind, KIND_ICONS["other"])


def kind_label(kind: str) -> str:
    return KIND_LABELS.get(kind, KIND_LABELS["other"])


def diff_lines(old: str | None, new: str) -> list[str]:
    """The hunks of a unified diff from ``old`` to ``new`` (``None``: a new
    file), each line ending in ``\\n``, without the ``---``/``+++`` header;
    a side that does not end in a newline gets git's ``\\ No newline at end
    of file``. The text is cleaned first (escapes dropped, controls shown)."""
    if old is None and not new:  # an empty new file: no hunk at all
        return []
    out: list[str] = []
    raw = difflib.unified_diff(_split(old or ""), _split(new), n=3)
    for index, line in enumerate(raw):
        if index < 2:  # the ---/+++ header: the caller writes its own
            continue
        if line.endswith("\n"):
            out.append(line)
        else:
            out += [line + "\n", "\\ No newline at end of file\n"]
    return out


def _split(text: str) -> list[str]:
    """Lines with their ``\\n`` (only ``\\n`` separates lines, unlike splitlines)."""
    parts = clean(text).split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def exit_label(exit_status: Any) -> str:
    """How a terminal ended: ``exit 0``, ``killed by SIGTERM``, ``exited``;
    ``still running`` when it has no exit status yet."""
    if not isinstance(exit_status, Mapping):
        return "still running"
    signal = exit_status.get("signal")
    code = exit_status.get("exitCode")
    if signal:
        return f"killed by {one_line(str(signal))}"
    if isinstance(code, int):
        return f"exit {code}"
    return "exited"
