"""A name for an agent started as a plain command (``acp-tui -- node x.js``)
before it names itself in ``initialize``: the script's package, not "node".

For an interpreter or a package runner (node, python, bun, deno, npx, uvx…)
the script or package it runs is looked for; a script's name is the
``name`` of the nearest ``package.json`` or ``pyproject.toml`` above it,
else the script file's own name (its folder's for an ``index.js``).
Anything else is named after the command itself.
"""

from __future__ import annotations

import contextlib
import json
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path

_INTERPRETER = re.compile(r"^(node|nodejs|bun|deno|python[0-9.]*|pypy[0-9.]*|ruby)$")
_RUNNERS = frozenset({"npx", "pnpx", "bunx", "uvx", "pipx"})
#: Commands that run another command (after their options, or after "--").
_WRAPPERS = frozenset({"env", "nsenter", "unshare", "sudo", "nice", "nohup", "stdbuf", "setsid"})
_GENERIC_STEMS = frozenset({"index", "main", "cli", "__main__", "run", "server", "bin"})
#: Folders walked up from a script looking for its package.
_MAX_UP = 8


def command_name(command: str, args: Sequence[str]) -> str:
    base = Path(command).name
    words = list(args)
    if base in _RUNNERS:
        package = next((w for w in words if not w.startswith("-")), None)
        return _strip_version(package) if package else base
    if base in _WRAPPERS:  # nsenter --net=… -- env -i VAR=value… node script
        if "--" in words:
            words = words[words.index("--") + 1 :]
        at = next((i for i, w in enumerate(words) if not w.startswith("-") and "=" not in w), None)
        return command_name(words[at], words[at + 1 :]) if at is not None else base
    if not _INTERPRETER.match(base):
        return base
    for index, word in enumerate(words):
        if word == "-m" and index + 1 < len(words):
            return words[index + 1]
        if word in ("run",) and base == "deno":
            continue
        if word.startswith("-"):
            continue
        return _script_name(Path(word)) or base
    return base


def _strip_version(package: str) -> str:
    """``@scope/pkg@1.2`` → ``@scope/pkg``."""
    at = package.rfind("@")
    return package[:at] if at > 0 else package


def _script_name(script: Path) -> str | None:
    folder = script.parent
    for _ in range(_MAX_UP):
        found = _package_name(folder)
        if found:
            return found
        if folder.parent == folder:
            break
        folder = folder.parent
    if script.stem in _GENERIC_STEMS and script.parent.name:
        parent = script.parent
        if parent.name in ("dist", "build", "lib", "bin", "src") and parent.parent.name:
            parent = parent.parent
        return parent.name
    return script.stem or None


def _package_name(folder: Path) -> str | None:
    with contextlib.suppress(OSError, ValueError):
        data = json.loads((folder / "package.json").read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("name"), str) and data["name"]:
            return str(data["name"])
    with contextlib.suppress(OSError, ValueError):
        project = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
        name = project.get("project", {}).get("name")
        if isinstance(name, str) and name:
            return name
    return None
