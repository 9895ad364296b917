"""The background host for tests: a real ``acp-tui host`` process on a socket
of its own (a short private XDG_RUNTIME_DIR), and a client of that socket
with the same calls as the headless client (tests/conftest.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, HeadlessClient
from tests.waiting import came_true


class SocketClient(HeadlessClient):
    """A surface on the background host's socket."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, reading: bool = True
    ) -> None:
        self.stream = reader
        self.writer = writer
        self._reading = asyncio.Event()
        if reading:
            self._reading.set()
        super().__init__(proc=None)  # type: ignore[arg-type]

    @classmethod
    async def open(
        cls, runtime: Path, *, reading: bool = True, limit: int = 64 * 1024 * 1024
    ) -> SocketClient:
        """A surface of the host whose runtime directory is ``runtime``;
        ``reading=False``: it reads nothing until :meth:`resume_reading`."""
        reader, writer = await asyncio.open_unix_connection(
            str(runtime / "acp-tui" / "host.sock"), limit=limit
        )
        return cls(reader, writer, reading=reading)

    def resume_reading(self) -> None:
        self._reading.set()

    async def _read(self) -> None:
        await self._reading.wait()
        with contextlib.suppress(ConnectionError):
            while line := await self.stream.readline():
                frame = json.loads(line)
                self.frames.append(frame)
                if "event" in frame:
                    self.events.append(frame["event"])
                elif frame.get("id") in self._responses:
                    future = self._responses.pop(frame["id"])
                    if not future.done():
                        future.set_result(frame)
                self._changed.set()
        self._changed.set()

    def send_raw(self, data: bytes) -> None:
        self.writer.write(data)

    @property
    def gone(self) -> bool:
        """The host closed this connection."""
        return self._reader.done()

    async def drop(self) -> None:
        """Close the socket at once (a terminal that went away)."""
        self.writer.transport.abort()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader

    async def kill(self) -> None:
        await self.drop()


class HostProcess:
    """``acp-tui host`` with ``XDG_RUNTIME_DIR`` = ``runtime``."""

    def __init__(self, runtime: Path, env: dict[str, str]) -> None:
        self.runtime = runtime
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self.clients: list[SocketClient] = []

    @property
    def socket(self) -> Path:
        return self.runtime / "acp-tui" / "host.sock"

    def command(self, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "acp_tui", *args],
            env=self.env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=30,
            **kwargs,
        )

    def start(self, *args: str, **popen: Any) -> subprocess.Popen[bytes]:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "acp_tui", "host", *args],
            env=self.env,
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            **popen,
        )
        assert came_true(self.socket.exists, timeout=20), "the host did not listen"
        return self.proc

    async def client(self) -> SocketClient:
        client = await SocketClient.open(self.runtime)
        self.clients.append(client)
        return client

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def short_runtime() -> Path:
    """A private runtime directory with a short path (a socket's path is at
    most 107 bytes; pytest's tmp_path can be longer)."""
    path = Path(tempfile.mkdtemp(prefix="acpt-", dir="/tmp"))
    os.chmod(path, 0o700)
    return path


def stop_left_host(runtime: Path) -> None:
    """End a host a test left running there (one started on demand)."""
    lock = runtime / "acp-tui" / "host.lock"
    with contextlib.suppress(OSError, ValueError):
        pid = int(lock.read_text().strip())
        environ = Path(f"/proc/{pid}/environ").read_bytes()
        if f"XDG_RUNTIME_DIR={runtime}".encode() in environ.split(b"\0"):
            os.kill(pid, signal.SIGTERM)
            came_true(lambda: not Path(f"/proc/{pid}").exists(), timeout=10)


@pytest.fixture
def runtime() -> Iterator[Path]:
    path = short_runtime()
    yield path
    stop_left_host(path)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
async def background(runtime: Path, tmp_path: Path) -> AsyncIterator[HostProcess]:
    env = {
        **os.environ,
        "XDG_RUNTIME_DIR": str(runtime),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "ACP_TUI_CONFIG": str(tmp_path / "no-config.toml"),
    }
    host = HostProcess(runtime, env)
    yield host
    for client in host.clients:
        await client.drop()
    host.stop()
