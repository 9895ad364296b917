"""Where the background host listens, and reaching it (starting it when asked).

The socket is private to the user: ``$XDG_RUNTIME_DIR/acp-tui/host.sock``,
or, where ``XDG_RUNTIME_DIR`` is unset, ``/tmp/acp-tui-<uid>/host.sock``. The
directory is made 0700 and must belong to the user (one made by someone
else is refused, never used). The host itself checks each peer's uid too.
"""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path

SOCKET_NAME = "host.sock"
LOCK_NAME = "host.lock"
LOG_NAME = "host.log"
#: Seconds a host started on demand may take to listen.
START_SECONDS = 15.0


class HostUnreachable(Exception):
    """No background host answers (and none could be started)."""


def socket_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "acp-tui"
    return Path("/tmp") / f"acp-tui-{os.getuid()}"


def socket_path(env: Mapping[str, str] | None = None) -> Path:
    return socket_dir(env) / SOCKET_NAME


def private_dir(env: Mapping[str, str] | None = None) -> Path:
    """The socket's directory, made 0700 if missing; OSError if it is not
    the user's own (a symlink, another owner, open to others)."""
    path = socket_dir(env)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise OSError(f"{path} is not a directory of this user's")
    if info.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


async def connect(
    path: Path | None = None, limit: int = 1 << 20
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the host at ``path``; HostUnreachable when none listens."""
    target = path if path is not None else socket_path()
    try:
        return await asyncio.open_unix_connection(str(target), limit=limit)
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        raise HostUnreachable(f"no acp-tui host listens at {target}") from exc


def start_host(env: Mapping[str, str] | None = None) -> subprocess.Popen[bytes]:
    """``acp-tui host`` in the background: its own session (no terminal, so a
    hangup of ours never reaches it), its output in ``host.log``."""
    directory = private_dir(env)
    log = open(directory / LOG_NAME, "ab")  # noqa: SIM115 (the child keeps it)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "acp_tui", "host"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
            env=dict(os.environ if env is None else env),
        )
    finally:
        log.close()
    # It outlives us, or ends first: then it is reaped here, never left a zombie.
    threading.Thread(target=process.wait, name="host-reaper", daemon=True).start()
    return process


async def connect_or_start(
    env: Mapping[str, str] | None = None, limit: int = 1 << 20
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the user's host, starting one when none listens."""
    path = socket_path(env)
    try:
        return await connect(path, limit)
    except HostUnreachable:
        pass
    process = start_host(env)
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            return await connect(path, limit)
        except HostUnreachable:
            if time.monotonic() > deadline:
                raise HostUnreachable(
                    f"the acp-tui host did not start (see {path.parent / LOG_NAME})"
                ) from None
            if process.returncode not in (None, 0):
                raise HostUnreachable(
                    f"the acp-tui host exited with {process.returncode}"
                    f" (see {path.parent / LOG_NAME})"
                ) from None
        await asyncio.sleep(0.05)
