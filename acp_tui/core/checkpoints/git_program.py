"""The git program checkpoints run: found on PATH once, its version checked,
and the one thing taken from the user's git config (the global excludes
file). Every git process gets an environment without the caller's
``GIT_*`` variables (:func:`clean_environ`); the shadow repository
(:mod:`acp_tui.core.checkpoints.shadow_repo`) adds its own on top.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

MIN_GIT = (2, 25)
"""``checkout --pathspec-from-file`` arrived in git 2.25."""


@dataclass(frozen=True)
class GitProgram:
    """The ``git`` found on PATH, or the reason there is none usable."""

    path: str | None
    version: tuple[int, ...] = ()
    reason: str | None = None


_found: GitProgram | None = None
_found_lock = threading.Lock()


def find_git(refresh: bool = False) -> GitProgram:
    """The git program on PATH and its version; cached after the first call."""
    global _found
    with _found_lock:
        if _found is None or refresh:
            _found = _probe_git()
        return _found


def _probe_git() -> GitProgram:
    path = shutil.which("git")
    if path is None:
        return GitProgram(None, reason="checkpoints are off: the git program is not on PATH")
    try:
        out = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            timeout=20,
            env={**clean_environ(), "LC_ALL": "C"},
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError) as error:
        return GitProgram(None, reason=f"checkpoints are off: {path} --version failed ({error})")
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", out)
    version = tuple(int(part) for part in match.groups() if part) if match else ()
    if version < MIN_GIT:
        found = ".".join(map(str, version)) or out.strip()
        need = ".".join(map(str, MIN_GIT))
        reason = f"checkpoints are off: git {need} or newer is needed (found {found})"
        return GitProgram(None, version, reason)
    return GitProgram(path, version)


def clean_environ() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}


_user_excludes: tuple[str | None] | None = None


def user_excludes_file(git: str) -> str | None:
    """The user's global excludes file (``core.excludesFile`` or git's
    default ``$XDG_CONFIG_HOME/git/ignore``), if it exists; cached."""
    global _user_excludes
    if _user_excludes is None:
        _user_excludes = (_read_user_excludes(git),)
    return _user_excludes[0]


def _read_user_excludes(git: str) -> str | None:
    env = {**clean_environ(), "LC_ALL": "C"}
    try:
        value = subprocess.run(
            [git, "config", "--global", "--path", "--get", "core.excludesFile"],
            capture_output=True,
            text=True,
            timeout=20,
            env=env,
            cwd=Path.home() if Path.home().is_dir() else None,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError, RuntimeError):
        value = ""
    if not value:
        config_home = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        value = str(Path(config_home) / "git" / "ignore")
    return value if os.path.isfile(value) else None
