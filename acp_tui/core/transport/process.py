"""An agent process: under a supervisor, in its own process group, stderr drained, reaped whole.

* POSIX: the host starts :mod:`acp_tui.core.transport.supervisor` (a new session and
  process group), which runs the agent as its child in that group. The
  supervisor stops the agent's whole tree when the host goes away however it
  goes (its lifeline socket closes, SIGKILL of the host included), and it
  adopts the agent's orphans (a child subreaper), so descendants that left
  the group or the session are found too. ``pid`` is the agent's,
  ``pgid`` the group's (the supervisor's pid).
  Windows: ``CREATE_NEW_PROCESS_GROUP`` and a Job object that kills the
  whole tree when the host's handle to it closes (:mod:`acp_tui.core.transport.winjob`).
* The agent gets the user's full environment plus the preset's (the SDK's
  default spawn keeps only HOME/PATH/SHELL/TERM/USER, losing API keys).
* stderr is read continuously into a bounded tail (the last 64 KiB) and
  handed to ``on_stderr``: an agent writing megabytes there never blocks.
* :meth:`AgentProcess.terminate` sends SIGTERM to the group, waits up to a
  grace period for every member to be gone (zombies count as gone), then
  SIGKILLs what is left: well within 2 s.
* Descendants that left the group (Claude Code runs each Bash command in a
  session of its own) are found by walking the process tree from the
  supervisor before the first signal (Linux, /proc), and their groups are
  stopped the same way (the supervisor stops them as well).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from acp_tui.core.transport import supervisor, winjob

STDERR_TAIL_BYTES = 64 * 1024
TERM_GRACE_SECONDS = 1.0
KILL_WAIT_SECONDS = 0.5
#: How long the supervisor may take to start the agent and say so.
START_TIMEOUT = 30.0


class AgentProcess:
    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        on_stderr: Callable[[str], None] | None,
        *,
        agent_pid: int | None = None,
        lifeline: socket.socket | None = None,
        job: Any = None,
    ) -> None:
        self._proc = proc
        #: The agent's own pid (the supervisor's child on POSIX).
        self.pid = agent_pid if agent_pid is not None else proc.pid
        self.pgid = proc.pid  # the leader of its own new session/group
        #: Closed only when the host is done with the agent (or the host dies).
        self._lifeline = lifeline
        self._job = job
        #: The groups a stop signals: the agent's, and those its descendants moved to.
        self._groups = [self.pgid]
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.stdin: asyncio.StreamWriter = proc.stdin
        self.stdout: asyncio.StreamReader = proc.stdout
        self._stderr_tail = bytearray()
        self._on_stderr = on_stderr
        self._stderr_task = asyncio.ensure_future(self._drain_stderr(proc.stderr))
        self._reaped = False

    @classmethod
    async def spawn(
        cls,
        command: str,
        args: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: Path,
        on_stderr: Callable[[str], None] | None = None,
        stdout_limit: int,
    ) -> AgentProcess:
        """Start the agent; raises ``FileNotFoundError``/``PermissionError``/``OSError``."""
        pipes: dict[str, Any] = {
            "stdin": asyncio.subprocess.PIPE,
            "stdout": asyncio.subprocess.PIPE,
            "stderr": asyncio.subprocess.PIPE,
            "cwd": str(cwd),
            "env": dict(env),
            "limit": stdout_limit,
        }
        if sys.platform == "win32":  # pragma: no cover - Windows
            proc = await asyncio.create_subprocess_exec(
                command, *args, creationflags=subprocess.CREATE_NEW_PROCESS_GROUP, **pipes
            )
            return cls(proc, on_stderr, job=winjob.contain(proc.pid))
        ours, theirs = socket.socketpair()
        try:
            proc = await asyncio.create_subprocess_exec(
                *supervisor.command("agent", str(theirs.fileno()), str(os.getpid())),
                "--",
                command,
                *args,
                start_new_session=True,
                pass_fds=(theirs.fileno(),),
                **pipes,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        try:
            async with asyncio.timeout(START_TIMEOUT):  # (not wait_for: see AgentConnection.call)
                hello = await _first_line(ours)
        except BaseException:
            ours.close()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
            raise
        if "pid" not in hello:
            ours.close()
            await proc.wait()
            if not hello:
                raise OSError(f"the supervisor ended with status {proc.returncode}")
            code = int(hello.get("errno") or 0)
            failure = {"not_found": FileNotFoundError, "not_executable": PermissionError}
            raise failure.get(str(hello.get("error")), OSError)(code, os.strerror(code), command)
        return cls(proc, on_stderr, agent_pid=int(hello["pid"]), lifeline=ours)

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode

    def stderr_tail(self) -> str:
        return self._stderr_tail.decode("utf-8", errors="replace")

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        tail = self._stderr_tail
        while True:
            data = await stream.read(8192)
            if not data:
                break
            tail += data
            if len(tail) > STDERR_TAIL_BYTES:
                del tail[: len(tail) - STDERR_TAIL_BYTES]
            if self._on_stderr is not None:
                text = decoder.decode(data)
                if text:
                    self._on_stderr(text)

    async def wait(self) -> int:
        code = await self._proc.wait()
        self._reaped = True
        return code

    async def _exit_code(self, timeout: float) -> int | None:
        """The exit status once known, polled: ``wait()`` (Python 3.11) also waits
        for the pipes to close, and a paused stdout (back-pressure) never does."""
        deadline = time.monotonic() + timeout
        while self._proc.returncode is None and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        return self._proc.returncode

    async def stderr_done(self, timeout: float) -> None:
        """Give the stderr reader a moment to take what is left in the pipe."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._stderr_task), timeout)

    async def terminate(
        self, grace: float = TERM_GRACE_SECONDS, kill_wait: float = KILL_WAIT_SECONDS
    ) -> None:
        """Stop the agent and everything in its process group."""
        with contextlib.suppress(Exception):
            self.stdin.close()
        if sys.platform == "win32":
            await self._terminate_windows(grace)
            return
        self._groups = [self.pgid, *escaped_groups(self.pgid, self.pgid)]
        self._signal_group(signal.SIGTERM)
        if not await self._wait_group_gone(grace):
            self._signal_group(signal.SIGKILL)
            await self._wait_group_gone(kill_wait)
        await self._exit_code(kill_wait)
        self._stderr_task.cancel()
        if self._lifeline is not None:
            self._lifeline.close()

    async def _terminate_windows(self, grace: float) -> None:  # pragma: no cover - Windows
        with contextlib.suppress(ProcessLookupError):
            self._proc.terminate()
        try:
            await asyncio.wait_for(self.wait(), grace)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.wait(), KILL_WAIT_SECONDS)
        self._stderr_task.cancel()
        winjob.close(self._job)

    def kill_now(self) -> None:
        """Synchronous last resort (interpreter exit): SIGKILL the whole group."""
        if sys.platform == "win32":  # pragma: no cover - Windows
            with contextlib.suppress(OSError):
                self._proc.kill()
            winjob.close(self._job)
            return
        self._groups = [self.pgid, *escaped_groups(self.pgid, self.pgid)]
        self._signal_group(signal.SIGKILL)

    def group_alive(self) -> bool:
        """Whether anything is left of the agent's group(s)."""
        return any(group_alive(pgid) for pgid in self._groups)

    def _signal_group(self, sig: signal.Signals) -> None:
        """Signal the agent's group and the groups its descendants escaped to."""
        for pgid in self._groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, sig)

    async def _wait_group_gone(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        delay = 0.005
        while True:
            if not any(group_alive(pgid) for pgid in self._groups):
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.05)


async def _first_line(sock: socket.socket) -> dict[str, Any]:
    """The supervisor's first message; ``{}`` when it ended without one."""
    loop = asyncio.get_running_loop()
    sock.setblocking(False)
    data = b""
    while b"\n" not in data:
        more = await loop.sock_recv(sock, 4096)
        if not more:
            return {}
        data += more
    message = json.loads(data.split(b"\n", 1)[0])
    return message if isinstance(message, dict) else {}


def escaped_groups(root: int, pgid: int) -> list[int]:
    """Process groups other than ``pgid`` that descendants of ``root`` (or
    members of ``pgid``) have moved to (``setsid``/``setpgid``)."""
    if not sys.platform.startswith("linux"):
        return []
    table = supervisor.process_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    todo = [root, *(pid for pid, (_, group) in table.items() if group == pgid)]
    seen: set[int] = set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        todo.extend(children.get(pid, ()))
    ours = os.getpgrp()
    groups = {table[pid][1] for pid in seen if pid in table}
    return sorted(g for g in groups if g not in (pgid, ours) and g > 1)


def group_alive(pgid: int) -> bool:
    """Whether any non-zombie process is left in process group ``pgid``."""
    if not sys.platform.startswith("linux"):
        return _group_signalable(pgid)
    return bool(group_members(pgid))


def _group_signalable(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) pids in process group ``pgid`` (Linux, from /proc)."""
    return [pid for pid, (_, group) in supervisor.process_table().items() if group == pgid]
