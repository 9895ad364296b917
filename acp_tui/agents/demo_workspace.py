"""The demo agent's workspace: the files and commands it touches on its own.

``acp_tui.agents.demo_steps`` asks the client to read, write and run whenever the
client advertises the capability; these helpers are what it does otherwise, and what
it uses to pick a file. They choose a file to read (a path named in the prompt, a
well-known file, or the agent's own source), read a file only inside the session's
cwd, and run a shell command in a subprocess with a size limit and a timeout, killing
it (and its children) when cancelled.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
from pathlib import Path

DEFAULT_COMMAND = "dir" if os.name == "nt" else "ls -la"
OUTPUT_BYTE_LIMIT = 65536
RUN_TIMEOUT = 30.0
CLEANUP_TIMEOUT = 5.0
#: The last-resort file to read: the demo agent's own source.
OWN_SOURCE = Path(__file__).resolve().with_name("demo.py")


def read_target(cwd: Path, hint: str | None, text: str) -> Path:
    """The given path, a file named in the prompt, a well-known file, or our own source."""
    if hint:
        path = Path(hint).expanduser()
        return path if path.is_absolute() else cwd / path
    for token in text.split():
        bare = token.strip("`'\"“”‘’,;()[]<>")
        for candidate in (bare, bare.rstrip(".!?:")):
            if candidate and is_inside(cwd / candidate, cwd) and (cwd / candidate).is_file():
                return cwd / candidate
    for name in ("README.md", "pyproject.toml"):
        if (cwd / name).is_file():
            return cwd / name
    with contextlib.suppress(OSError):
        for child in sorted(cwd.iterdir()):
            if not child.name.startswith(".") and looks_like_text(child):
                return child
    return OWN_SOURCE


def is_inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root.resolve())
    except OSError:
        return False


def display_path(path: Path, cwd: Path) -> str:
    """``path`` relative to the session's cwd (or to the package, for our own source)."""
    for root in (cwd, OWN_SOURCE.parents[2]):
        with contextlib.suppress(ValueError, OSError):
            return path.resolve().relative_to(root.resolve()).as_posix()
    return str(path)


def looks_like_text(path: Path, max_size: int = 1 << 20) -> bool:
    """A small regular file whose start decodes as UTF-8 and has no NUL byte."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > max_size:
            return False
        with path.open("rb") as handle:
            sample = handle.read(4096)
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except (OSError, UnicodeDecodeError):
        return False
    return b"\0" not in sample


def read_locally(path: Path, cwd: Path) -> str:
    """Our own read, for clients without ``fs.readTextFile``: only inside cwd."""
    if path.resolve() != OWN_SOURCE and not is_inside(path, cwd):
        raise PermissionError(f"{path} is outside the session's working directory")
    return path.read_text(encoding="utf-8", errors="replace")


async def run_locally(command: str, cwd: Path) -> tuple[int | None, str, bool]:
    """Our own shell, for clients without ``terminal``: (exit code, output, truncated)."""
    posix = os.name == "posix"
    process = await asyncio.create_subprocess_shell(
        command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        cwd=str(cwd),
        start_new_session=posix,  # so a kill reaches the shell's children too
    )
    stdout = process.stdout
    assert stdout is not None
    chunks: list[bytes] = []
    size = 0

    async def drain() -> None:
        nonlocal size
        while block := await stdout.read(4096):
            if size < OUTPUT_BYTE_LIMIT:
                chunks.append(block[: OUTPUT_BYTE_LIMIT - size])
            size += len(block)

    exit_code: int | None = None
    note = ""
    try:
        await asyncio.wait_for(drain(), RUN_TIMEOUT)
        exit_code = await asyncio.wait_for(process.wait(), RUN_TIMEOUT)
    except TimeoutError:
        note = f"\n[stopped after {RUN_TIMEOUT:g} s]"
    finally:  # also on cancel: never leave the command running
        if process.returncode is None:
            with contextlib.suppress(OSError):
                if posix:
                    os.killpg(process.pid, signal.SIGKILL)
                else:
                    process.kill()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(process.wait(), CLEANUP_TIMEOUT)
    output = b"".join(chunks).decode("utf-8", errors="replace") + note
    return exit_code, output, size > OUTPUT_BYTE_LIMIT
