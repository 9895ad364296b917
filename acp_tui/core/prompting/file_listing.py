"""The files under a folder, for ``@`` completion: git's list, or a walk with .gitignore.

Inside a git work tree the list comes from ``git ls-files --cached --others
--exclude-standard -z`` (fast, and exactly git's idea of what is ignored:
nested ``.gitignore`` files, ``.git/info/exclude``, the global excludes file),
minus the files deleted from the work tree. Elsewhere, or when git is missing
or fails, the tree is walked with :func:`os.scandir`, breadth first, skipping
:data:`SKIP_DIRS` and honouring the top-level and nested ``.gitignore`` files
through a small matcher (:func:`parse_gitignore`) that supports the common
patterns: ``name``, ``*.ext``, ``?``, ``[abc]``/``[!abc]``, ``dir/``,
``/anchored``, ``a/b`` (anchored), leading ``**/``, trailing ``/**``, ``a/**/b``,
``!negation``, ``#`` comments and ``\\#``/``\\!`` escapes. Not supported: POSIX
character classes (``[[:alpha:]]``), escaped trailing spaces, case-insensitive
matching (``core.ignoreCase``), ``.git/info/exclude`` and the global excludes
file (only meaningful inside a git tree, where git itself is used). As in git,
a file inside an ignored directory cannot be re-included. Symlinks are listed,
never followed; names that are not valid UTF-8 are left out.

Directories are listed too, with a trailing ``/`` (``src/app/``); in a git tree
they are the parents of the listed files. Both listings stop at a cap.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path

DEFAULT_CAP = 200_000
"""Most paths (files and directories) listed."""

SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "__pycache__"})
"""Directories the walk never enters (a git listing has its own rules)."""

GIT_TIMEOUT = 20.0


@dataclass(frozen=True)
class IgnoreRule:
    """One ``.gitignore`` line, compiled."""

    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    anchored: bool
    """Matched against the path relative to the ``.gitignore``'s directory
    (the pattern has a ``/`` other than a trailing one); otherwise against the
    entry's name at any depth."""


def _glob_to_regex(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i) and (i == 0 or pattern[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("/**", i) and i + 3 == n:
            out.append("/.*")
            break
        ch = pattern[i]
        if ch == "*":
            while i < n and pattern[i] == "*":
                i += 1
            out.append("[^/]*")
            continue
        if ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1 : end]
                if body[:1] == "!":
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\").replace("[", "\\[") + "]")
                i = end + 1
                continue
        elif ch == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def parse_gitignore(text: str) -> list[IgnoreRule]:
    """The rules of one ``.gitignore`` file, in file order (see the module doc)."""
    rules: list[IgnoreRule] = []
    for raw in text.splitlines():
        line = raw.rstrip(" \t\r")
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate or line.startswith(("\\!", "\\#")):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        try:
            regex = re.compile(_glob_to_regex(line), re.DOTALL)
        except re.error:
            continue
        rules.append(IgnoreRule(regex, negate, dir_only, anchored))
    return rules


Levels = tuple[tuple[str, tuple[IgnoreRule, ...]], ...]
"""The ``.gitignore`` rules in force: (directory relative to the root, rules), outermost first."""


def is_ignored(levels: Levels, rel_path: str, is_dir: bool) -> bool:
    """Whether ``rel_path`` (relative to the root, no trailing ``/``) is ignored.

    The deepest ``.gitignore`` decides first; within a file the last matching
    line wins; a ``!`` line re-includes.
    """
    name = rel_path.rsplit("/", 1)[-1]
    for base, rules in reversed(levels):
        if base and not rel_path.startswith(base + "/"):
            continue
        sub = rel_path[len(base) + 1 :] if base else rel_path
        for rule in reversed(rules):
            if rule.dir_only and not is_dir:
                continue
            if rule.regex.fullmatch(sub if rule.anchored else name):
                return not rule.negate
    return False


@dataclass(frozen=True)
class Listing:
    paths: list[str]
    """Relative POSIX paths; directories end with ``/``. Unordered."""
    truncated: bool
    source: str
    """``"git"`` or ``"walk"``."""


class Stopped(Exception):
    """A listing was abandoned (its ``stop`` event was set)."""


def _check(stop: threading.Event | None) -> None:
    if stop is not None and stop.is_set():
        raise Stopped


def list_paths(
    root: str | os.PathLike[str], cap: int = DEFAULT_CAP, stop: threading.Event | None = None
) -> Listing:
    """Files and directories under ``root`` that are not ignored, at most ``cap``.

    Raises :class:`Stopped` soon after ``stop`` is set (a git process is killed).
    """
    root_path = Path(root)
    files = _git_files(root_path, cap, stop)
    if files is not None:
        return _with_parents(files, cap, "git")
    paths, truncated = _walk(root_path, cap, stop)
    return Listing(paths, truncated, "walk")


def _git(
    root: Path, args: list[str], cap: int, stop: threading.Event | None
) -> tuple[list[str], bool] | None:
    """Run ``git ls-files -z ARGS`` in ``root``; at most ``cap`` paths; None on failure."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    try:
        proc = subprocess.Popen(
            ["git", "ls-files", "-z", *args],
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    except OSError:
        return None
    timer = threading.Timer(GIT_TIMEOUT, proc.kill)
    timer.start()
    names: list[bytes] = []
    pending = b""
    truncated = False
    try:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while chunk := os.read(fd, 1 << 16):
            _check(stop)
            parts = (pending + chunk).split(b"\0")
            pending = parts.pop()
            names.extend(parts)
            if len(names) >= cap:
                truncated = True
                proc.kill()
                break
        code = proc.wait()
    finally:
        timer.cancel()
        if proc.poll() is None:  # stopped, or an error while reading
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    if not truncated and code != 0:
        return None
    paths: list[str] = []
    for name in dict.fromkeys(names):  # a conflicted file is listed once per stage
        try:
            paths.append(name.decode("utf-8"))
        except UnicodeDecodeError:
            continue  # not showable, not sendable as JSON text
    return paths[:cap], truncated


def _git_files(root: Path, cap: int, stop: threading.Event | None) -> tuple[list[str], bool] | None:
    listed = _git(root, ["--cached", "--others", "--exclude-standard"], cap, stop)
    if listed is None:
        return None
    files, truncated = listed
    deleted = _git(root, ["--deleted"], cap, stop)
    if deleted is not None and deleted[0]:
        gone = set(deleted[0])
        files = [f for f in files if f not in gone]
    return files, truncated


def _with_parents(listed: tuple[list[str], bool], cap: int, source: str) -> Listing:
    files, truncated = listed
    dirs: dict[str, None] = {}
    for path in files:
        cut = path.rfind("/")
        while cut > 0:
            parent = path[: cut + 1]
            if parent in dirs:
                break
            dirs[parent] = None
            cut = path.rfind("/", 0, cut)
    paths = files + list(dirs)
    if len(paths) > cap:
        paths, truncated = paths[:cap], True
    return Listing(paths, truncated, source)


def _read_rules(directory: str) -> tuple[IgnoreRule, ...]:
    try:
        with open(os.path.join(directory, ".gitignore"), encoding="utf-8", errors="replace") as f:
            return tuple(parse_gitignore(f.read(1 << 20)))
    except OSError:
        return ()


def _showable(name: str) -> bool:
    """False for a name that is not valid UTF-8 (it decoded to surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _walk(root: Path, cap: int, stop: threading.Event | None) -> tuple[list[str], bool]:
    paths: list[str] = []
    root_rules = _read_rules(str(root))
    queue: deque[tuple[str, str, Levels]] = deque(
        [(str(root), "", (("", root_rules),) if root_rules else ())]
    )
    while queue:
        _check(stop)
        directory, rel_dir, levels = queue.popleft()
        try:
            with os.scandir(directory) as entries:
                listed = sorted(entries, key=lambda e: e.name)
        except OSError:
            continue
        for entry in listed:
            name = entry.name
            if not _showable(name):
                continue
            rel = f"{rel_dir}{name}"
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and name in SKIP_DIRS:
                continue
            if levels and is_ignored(levels, rel, is_dir):
                continue
            if is_dir:
                paths.append(rel + "/")
                rules = _read_rules(entry.path)
                queue.append((entry.path, rel + "/", (*levels, (rel, rules)) if rules else levels))
            else:
                paths.append(rel)
            if len(paths) >= cap:
                return paths, True
    return paths, False
