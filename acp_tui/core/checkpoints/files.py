"""What the file system says about a path, around the shadow repository.

Whether a path ``git status`` reports can be recorded (:func:`classify`),
whether writing a file back would destroy something no checkpoint holds
(:func:`in_the_way`), and the one hint about who changed a file during a turn
that a tree cannot give by itself (:func:`edited_outside_tools`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from acp_tui.core.checkpoints.model import FileChange, SkipReason


def classify(
    root: Path, rel: str, roots: Sequence[str], size_limit: int
) -> tuple[Literal[SkipReason, "drop"] | None, int | None]:
    """What to do with ``rel``, a path ``git status`` reported under ``root``:
    ``None`` to record it (or drop it, when gone); ``"drop"`` for a
    tracked file that became a folder or lies behind a symlink now (git
    records the link instead); otherwise why it is skipped, and its size.
    A symlink is kept when it resolves inside one of ``roots``."""
    if rel.endswith("/"):
        return "nested-repository", None
    full = root / rel
    if "/" in rel and os.path.realpath(full.parent) != str(full.parent):
        return "drop", None
    try:
        info = os.lstat(full)
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    except OSError:
        return "unreadable", None
    if stat.S_ISLNK(info.st_mode):
        target = os.path.realpath(full)
        inside = any(
            target == base or target.startswith(base.rstrip(os.sep) + os.sep) for base in roots
        )
        return (None if inside else "symlink-outside"), None
    if stat.S_ISDIR(info.st_mode):
        return "drop", None
    if not stat.S_ISREG(info.st_mode):
        return "special", None
    if info.st_size > size_limit:
        return "too-large", info.st_size
    if not os.access(full, os.R_OK):
        return "unreadable", info.st_size
    return None, None


def in_the_way(root: Path, rel: str, removed: set[str]) -> Literal["blocked", "unsaved"] | None:
    """Whether writing back ``rel``, absent from the tree now, would destroy
    something no checkpoint holds (git deletes whatever is in its way).

    ``"blocked"``: a folder at ``rel`` holding files the restore does not
    remove (ignored or skipped ones), or such a file where ``rel`` needs a
    folder; the restore leaves ``rel`` alone. ``"unsaved"``: an unrecorded
    file at ``rel`` itself, or an unrecorded symlink where a folder goes;
    the restore replaces it. ``None``: nothing is lost."""
    parts = rel.split("/")
    for depth in range(1, len(parts)):
        prefix = "/".join(parts[:depth])
        full = root / prefix
        if prefix in removed or not os.path.lexists(full):
            return None  # nothing deeper survives the removals
        if full.is_symlink():
            return "unsaved"
        if not full.is_dir():
            return "blocked"
    full = root / rel
    if full.is_symlink() or (full.exists() and not full.is_dir()):
        return "unsaved"
    if full.is_dir():
        for dirpath, dirnames, filenames in os.walk(full):
            for name in filenames + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]:
                inner = (Path(dirpath) / name).relative_to(root).as_posix()
                if inner not in removed:
                    return "blocked"
    return None


def edited_outside_tools(
    changes: Iterable[FileChange],
    windows: Sequence[tuple[float, float]],
    *,
    slack: float = 1.0,
) -> list[Path]:
    """The changed files (added or modified) whose modification time falls
    outside every ``(start, end)`` window (wall-clock seconds) in which one of
    the agent's tool calls or ``fs/write_text_file`` requests ran, give or take
    ``slack``: most likely written by someone else during the turn, such as
    the user in another editor. A heuristic: a tool that keeps a file's old
    time (``cp -p``, an unpacked archive) is reported too, and the user's edit
    made while a tool call runs is not."""
    out: list[Path] = []
    for change in changes:
        if change.change == "deleted":
            continue
        try:
            mtime = os.lstat(change.path).st_mtime
        except OSError:
            continue
        if not any(start - slack <= mtime <= end + slack for start, end in windows):
            out.append(change.path)
    return out
