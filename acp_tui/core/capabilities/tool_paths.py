"""The paths a tool call touches, and which of them lie outside the session's
roots (the permission dialog marks those: with agents that write files
themselves, like claude-agent-acp, that dialog is the only guard).

Paths come from the tool call's locations, its diffs, the usual path fields of
its raw input (``file_path``, ``path``, ``cwd``…), and for a command, the
words of the command line that look like paths (absolute, ``~/…``, ``../…``,
redirections included). ``/dev/…`` (``/dev/null``) and the program itself are
not counted.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import Any

from acp_tui.core.capabilities.fs import PathFence
from acp_tui.core.model.entries import ToolCallEntry

#: Raw-input fields that name a path, as agents spell them.
PATH_FIELDS = (
    "file_path",
    "filePath",
    "path",
    "notebook_path",
    "cwd",
    "directory",
    "target",
    "destination",
    "source",
    "old_path",
    "new_path",
)
_REDIRECT = re.compile(r"^(?:\d*>>?|<|&>|\d*>&?)")


def _command_paths(command: str) -> list[str]:
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    found: list[str] = []
    for position, word in enumerate(words):
        word = _REDIRECT.sub("", word)
        if "=" in word and word.startswith("-"):
            word = word.split("=", 1)[1]
        if position == 0 and not _REDIRECT.match(words[0]):
            continue  # the program
        if word.startswith(("/", "~", "../")) or word == "..":
            found.append(word)
    return found


def touched_paths(entry: ToolCallEntry) -> list[str]:
    """Every path the tool call names (duplicates removed, order kept)."""
    paths: list[str] = []
    for location in entry.locations:
        if isinstance(location.get("path"), str):
            paths.append(location["path"])
    for item in entry.content:
        if item.get("type") == "diff" and isinstance(item.get("path"), str):
            paths.append(item["path"])
    raw: Any = entry.raw_input
    if isinstance(raw, dict):
        paths += [str(raw[key]) for key in PATH_FIELDS if isinstance(raw.get(key), str)]
        command = raw.get("command")
        if isinstance(command, list):
            command = shlex.join(str(part) for part in command)
        if isinstance(command, str):
            paths += _command_paths(command)
    return list(dict.fromkeys(p for p in paths if p.strip()))


def outside_paths(entry: ToolCallEntry, fence: PathFence) -> list[str]:
    """The paths of :func:`touched_paths` that lie outside the fence's roots."""
    outside = []
    for path in touched_paths(entry):
        if path.startswith("/dev/"):
            continue
        expanded = os.path.expanduser(path)
        if not Path(expanded).is_absolute():
            raw = entry.raw_input if isinstance(entry.raw_input, dict) else {}
            base = raw.get("cwd") if isinstance(raw.get("cwd"), str) else None
            expanded = os.path.join(base or str(fence.roots[0]), expanded)
        if not fence.contains(expanded):
            outside.append(path)
    return outside
