"""Real processes for lifecycle tests: the TUI on a real pty, and counting leftovers.

Everything a test starts carries a marker in its environment (agents,
supervisors, terminals and whatever they start inherit it), so the test
counts its own processes only — also those orphaned and re-parented to
init — and never another test's or another user's acp-tui.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import signal
import struct
import sys
import termios
import uuid
from collections.abc import Callable
from pathlib import Path

from ptyprocess import PtyProcess

from tests.conftest import REPO, HeadlessClient
from tests.fake_agents import SCRIPTED_AGENT, agent_params
from tests.waiting import came_true

MARKER_VAR = "ACP_TUI_TEST_MARKER"


def new_marker() -> str:
    return uuid.uuid4().hex


def _state(pid: int) -> bytes | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2 :].split()[0]


def alive(pid: int) -> bool:
    """Running and not a zombie."""
    return _state(pid) not in (None, b"Z", b"X")


def marked(marker: str) -> list[int]:
    """Live processes whose environment carries ``marker``."""
    needle = f"{MARKER_VAR}={marker}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            environ = Path(f"/proc/{name}/environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0") and alive(int(name)):
            found.append(int(name))
    return found


def describe(pids: list[int]) -> list[str]:
    """``pid: command line`` of each pid, for assertion messages."""
    lines = []
    for pid in pids:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            cmdline = b"?"
        lines.append(f"{pid}: {cmdline.decode(errors='replace').strip()}")
    return lines


async def scripted_session(client: HeadlessClient, cwd: Path, **env: str) -> tuple[str, str]:
    """A connection to the scripted agent and a session on it: their ids."""
    agent = agent_params(**env)
    opened = await client.result("connection.open", {"agent": agent, "cwd": str(cwd)})
    created = await client.result(
        "session.create", {"connectionId": opened["connectionId"], "cwd": str(cwd)}
    )
    return opened["connectionId"], created["sessionId"]


def tui_command(*args: str) -> list[str]:
    """``acp-tui ARGS`` on the scripted agent (the same Python)."""
    return [sys.executable, "-m", "acp_tui", *args, "--", sys.executable, str(SCRIPTED_AGENT)]


class PtyTui:
    """The real ``acp-tui`` on a real pty, its processes marked."""

    def __init__(
        self,
        argv: list[str],
        *,
        cwd: Path,
        env: dict[str, str] | None = None,
        dimensions: tuple[int, int] = (30, 100),
    ) -> None:
        self.marker = new_marker()
        full_env = {
            **os.environ,
            "TERM": "xterm-256color",
            "ACP_TUI_DEMO_DELAY": "0",
            MARKER_VAR: self.marker,
            **(env or {}),
        }
        self.proc = PtyProcess.spawn(argv, env=full_env, dimensions=dimensions, cwd=str(REPO))
        self.cwd = cwd
        self.output = bytearray()
        self.master_closed = False

    @property
    def pid(self) -> int:
        return int(self.proc.pid)

    def drain(self) -> None:
        """Read what the TUI drew so far (a full pty would block it)."""
        if self.master_closed:
            return
        while select.select([self.proc.fd], [], [], 0)[0]:
            try:
                data = os.read(self.proc.fd, 65536)
            except OSError:
                return
            if not data:
                return
            self.output.extend(data)
            del self.output[: max(0, len(self.output) - 1024 * 1024)]

    def shows(self, text: str) -> bool:
        self.drain()
        return text.encode() in self.output

    def wait_for(self, condition: Callable[[], bool], timeout: float = 30.0) -> bool:
        def check() -> bool:
            self.drain()
            return condition()

        return came_true(check, timeout)

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Until the session is open (the welcome text is on screen)."""
        assert self.wait_for(lambda: b"is ready in" in self.output, timeout), (
            "the TUI never showed its session",
            bytes(self.output[-2000:]),
        )

    def type(self, data: bytes) -> None:
        self.proc.write(data)

    def pending_output(self) -> int:
        """Bytes the TUI wrote that nobody has read yet (FIONREAD on the master)."""
        raw = fcntl.ioctl(self.proc.fd, termios.FIONREAD, b"\0\0\0\0")
        return int(struct.unpack("i", raw)[0])

    def signal(self, sig: int) -> None:
        os.kill(self.pid, sig)

    def close_master(self) -> None:
        """The terminal goes away: our side of the pty is closed."""
        self.proc.fileobj.close()
        self.proc.closed = True
        self.master_closed = True

    def exited(self) -> bool:
        self.drain()
        return not self.proc.isalive()

    def wait_exit(self, timeout: float = 20.0) -> bool:
        return came_true(self.exited, timeout)

    def leftovers(self) -> list[int]:
        """Live processes of this TUI: itself, its agents and what they started."""
        return marked(self.marker)

    def close(self) -> None:
        """Kill whatever is left (a failed test must not leak processes)."""
        for pid in self.leftovers():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if not self.master_closed:
            self.close_master()
        came_true(lambda: not self.proc.isalive(), 5)
