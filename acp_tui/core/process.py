"""An agent process: spawned in its own process group, stderr drained, reaped whole.

* The agent gets the user's full environment plus the preset's (the SDK's
  default spawn keeps only HOME/PATH/SHELL/TERM/USER, losing API keys).
* POSIX: ``start_new_session`` makes the agent a session and group leader,
  so one ``killpg`` reaches every descendant that stayed in its group.
  Windows: ``CREATE_NEW_PROCESS_GROUP``.
* stderr is read continuously into a bounded tail (the last 64 KiB) and
  handed to ``on_stderr``: an agent writing megabytes there never blocks.
* :meth:`AgentProcess.terminate` sends SIGTERM to the group, waits up to a
  grace period for every member to be gone (zombies count as gone), then
  SIGKILLs what is left: well within 2 s.
* Descendants that left the group (Claude Code runs each Bash command in a
  session of its own) are found by walking the process tree from the agent
  before the first signal (Linux, /proc), and their groups are stopped the
  same way. A process that was orphaned before that walk (its parent already
  gone) cannot be traced back to the agent and is not reached.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

STDERR_TAIL_BYTES = 64 * 1024
TERM_GRACE_SECONDS = 1.0
KILL_WAIT_SECONDS = 0.5


class AgentProcess:
    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        on_stderr: Callable[[str], None] | None,
    ) -> None:
        self._proc = proc
        self.pid = proc.pid
        self.pgid = proc.pid  # the leader of its own new session/group
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
        extra: dict[str, object] = {}
        if sys.platform == "win32":
            extra["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP
        else:
            extra["start_new_session"] = True
        proc = await asyncio.create_subprocess_exec(
            command,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=str(cwd),
            env=dict(env),
            limit=stdout_limit,
            **extra,  # type: ignore[arg-type]
        )
        return cls(proc, on_stderr)

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
        self._groups = [self.pgid, *escaped_groups(self.pid, self.pgid)]
        self._signal_group(signal.SIGTERM)
        if not await self._wait_group_gone(grace):
            self._signal_group(signal.SIGKILL)
            await self._wait_group_gone(kill_wait)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.wait(), kill_wait)
        self._stderr_task.cancel()

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

    def kill_now(self) -> None:
        """Synchronous last resort (interpreter exit): SIGKILL the whole group."""
        if sys.platform == "win32":  # pragma: no cover - Windows
            with contextlib.suppress(OSError):
                self._proc.kill()
            return
        self._groups = [self.pgid, *escaped_groups(self.pid, self.pgid)]
        self._signal_group(signal.SIGKILL)

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


def _process_table() -> dict[int, tuple[int, int]]:
    """pid -> (ppid, pgid) of every live (non-zombie) process (Linux, /proc)."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        # fields: state, ppid, pgrp, ...
        if len(fields) > 2 and fields[0] not in (b"Z", b"X"):
            table[int(name)] = (int(fields[1]), int(fields[2]))
    return table


def escaped_groups(root: int, pgid: int) -> list[int]:
    """Process groups other than ``pgid`` that descendants of ``root`` (or
    members of ``pgid``) have moved to (``setsid``/``setpgid``)."""
    if not sys.platform.startswith("linux"):
        return []
    table = _process_table()
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
    return [pid for pid, (_, group) in _process_table().items() if group == pgid]
