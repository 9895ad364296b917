"""Shared fixtures: real fake-agent processes, an event recorder, a headless client."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_textual_snapshot

from acp_tui.core.host import Host
from acp_tui.core.model.channel import ChannelClosed, EventChannel
from acp_tui.core.model.events import Event

TESTS = Path(__file__).parent
REPO = TESTS.parent

# Nothing a test starts reads the developer's config or writes into their
# session history: every process inherits these (tests that need a config
# or a history point these variables elsewhere themselves).
_ISOLATED = Path(tempfile.mkdtemp(prefix="acp-tui-tests-"))
os.environ["ACP_TUI_CONFIG"] = str(_ISOLATED / "no-config.toml")
os.environ["XDG_DATA_HOME"] = str(_ISOLATED / "data")
# The state folder: checkpoints' shadow repositories, spilled text.
os.environ["XDG_STATE_HOME"] = str(_ISOLATED / "state")
# The background host's socket (acp-tui host): never the developer's own.
os.environ["XDG_RUNTIME_DIR"] = str(_ISOLATED / "run")
SNAPSHOT_ROOT = REPO / "snapshots"


class TopLevelSVGExtension(pytest_textual_snapshot.SVGImageExtension):  # type: ignore[misc]
    """Keep snapshot SVGs in the top-level snapshots/<test module>/ folder.

    pytest-textual-snapshot 1.1.0 (pinned with syrupy 4.8.0) has no option for
    the folder; ``snap_compare`` looks ``SVGImageExtension`` up at call time,
    so rebinding it here is enough (tests/ui/test_snapshot_location.py checks).
    """

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOT_ROOT / test_location.basename)


pytest_textual_snapshot.SVGImageExtension = TopLevelSVGExtension


class Recorder:
    """Consumes one front-end channel in the background and keeps every event."""

    def __init__(self, channel: EventChannel) -> None:
        self.channel = channel
        self.events: list[Event] = []
        self._changed = asyncio.Event()
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            try:
                event = await self.channel.get()
            except ChannelClosed:
                return
            self.events.append(event)
            self._changed.set()

    def of_type(self, kind: str, session_id: str | None = None) -> list[Event]:
        return [
            e
            for e in self.events
            if e.type == kind and (session_id is None or e.session_id == session_id)
        ]

    async def wait_for(self, predicate: Callable[[Event], bool], timeout: float = 10) -> Event:
        async def scan() -> Event:
            seen = 0
            while True:
                for event in self.events[seen:]:
                    if predicate(event):
                        return event
                seen = len(self.events)
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(scan(), timeout)

    def close(self) -> None:
        self._task.cancel()


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[Host]:
    host = Host()
    try:
        yield host
    finally:
        await host.shutdown()


@pytest.fixture
async def recorder(host: Host) -> AsyncIterator[Recorder]:
    recorder = Recorder(host.attach())
    yield recorder
    recorder.close()


class HeadlessClient:
    """Drives a real ``acp-tui --headless --stdio`` process over NDJSON."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.frames: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self._responses: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._next_id = 1
        self._changed = asyncio.Event()
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, *args: str, cwd: Path | None = None, **env: str) -> HeadlessClient:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "acp_tui",
            "--headless",
            "--stdio",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=str(cwd or REPO),
            env={**os.environ, "ACP_TUI_DEMO_DELAY": "0", **env},
            limit=64 * 1024 * 1024,
        )
        return cls(proc)

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                break
            frame = json.loads(line)
            self.frames.append(frame)
            if "event" in frame:
                self.events.append(frame["event"])
            elif frame.get("id") in self._responses:
                future = self._responses.pop(frame["id"])
                if not future.done():
                    future.set_result(frame)
            self._changed.set()

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    def send(self, method: str, params: dict[str, Any] | None = None) -> asyncio.Future[Any]:
        rpc_id = self._next_id
        self._next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._responses[rpc_id] = future
        message: dict[str, Any] = {"version": 1, "id": rpc_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send_raw(json.dumps(message).encode() + b"\n")
        return future

    async def call_raw(self, message: dict[str, Any], timeout: float = 20) -> dict[str, Any]:
        """Send ``message`` as it is (it must carry its own integer id)."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._responses[message["id"]] = future
        self.send_raw(json.dumps(message).encode() + b"\n")
        return await asyncio.wait_for(future, timeout)

    async def call(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = 20
    ) -> dict[str, Any]:
        """The response frame (with ``result`` or ``error``)."""
        return await asyncio.wait_for(self.send(method, params), timeout)

    async def result(self, method: str, params: dict[str, Any] | None = None) -> Any:
        frame = await self.call(method, params)
        assert "result" in frame, frame
        return frame["result"]

    async def wait_event(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10
    ) -> dict[str, Any]:
        async def scan() -> dict[str, Any]:
            seen = 0
            while True:
                for event in self.events[seen:]:
                    if predicate(event):
                        return event
                seen = len(self.events)
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(scan(), timeout)

    async def close_stdin_and_wait(self, timeout: float = 10) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = await asyncio.wait_for(self.proc.wait(), timeout)
        await asyncio.wait_for(self._reader, timeout)
        return code

    async def kill(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        self._reader.cancel()


@pytest.fixture
async def headless() -> AsyncIterator[Callable[..., Any]]:
    clients: list[HeadlessClient] = []

    async def start(*args: str, cwd: Path | None = None, **env: str) -> HeadlessClient:
        client = await HeadlessClient.start(*args, cwd=cwd, **env)
        clients.append(client)
        return client

    yield start
    for client in clients:
        await client.kill()
