"""What the checkpoints engine tests share: a git project, a state folder, and
ways to write and compare real files.

    pytestmark = needs_git                          skip the module where git is missing
    write(root, {"a.py": "X = 1", "b.bin": b"01"})  files (text or bytes) under root
    project_git(root, "init", "-q")                 the user's own git, not the shadow
    files_of(root)                                  the files on disk, with their bytes
    changed(checkpoints.changes(a, b))              {rel: "added" | "modified" | "deleted"}

The fixtures ``project`` (a git project with a commit, a stash, a hook and a
dirty index) and ``state`` (the shadow repositories' folder) are imported by
name, as ``from tests.checkpoint_helpers import project as project``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from acp_tui.core.checkpoints.engine import FileChange

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def project_git(root: Path, *args: str) -> str:
    """The user's own git on the project (not the shadow)."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return done.stdout.decode()


def files_of(root: Path) -> dict[str, bytes]:
    """The files under ``root`` (``.git`` left out), with their bytes."""
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if name != ".git"]
        for name in filenames:
            path = Path(dirpath) / name
            if not path.is_symlink():
                out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def changed(changes: list[FileChange]) -> dict[str, str]:
    return {change.rel: change.change for change in changes}


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project with a commit, a stash, a hook and a dirty index."""
    root = tmp_path / "project"
    write(
        root,
        {
            ".gitignore": "*.log\nbuild/\n",
            "README.md": "# project\n",
            "src/app.py": "def main():\n    return 1\n",
            "src/util.py": "X = 1\n",
            "docs/guide.md": "guide\n",
        },
    )
    project_git(root, "init", "-q")
    project_git(root, "add", "-A")
    project_git(root, "commit", "-qm", "initial")
    write(root, {"src/util.py": "X = 2\n"})
    project_git(root, "stash", "-q")
    write(root, {"docs/guide.md": "guide, staged\n"})
    project_git(root, "add", "docs/guide.md")
    hook = root / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {root.parent / 'hook-ran'}\n")
    hook.chmod(0o755)
    return root
