"""The ``terminal/*`` client capability: agent commands on real ptys.

One :class:`TerminalManager` per ACP session. ``create`` runs the agent's command
through a POSIX shell (the user's PATH applies) on a real pseudo-terminal in the
given cwd and returns a host-made id. Output is kept head-first in a
:class:`~acp_tui.core.capabilities.output_buffer.HeadBuffer` (at most 1 MiB).

POSIX: ``ptyprocess`` forks the child as a session leader on a new pty; before
``exec`` the child points stdin at ``/dev/null`` (nothing can wait for input) and
turns the pty's ONLCR off (output has ``\\n``, not ``\\r\\n``; ANSI escapes kept).
The child is the supervisor (core/supervisor.py, terminal mode) and it runs the
shell: whatever the command starts — in the pty's group, in groups or sessions
of its own (``setsid``), orphaned — is stopped when the terminal is killed or
released, when the shell exits (after a short drain) and when the host dies
(the pty hangs up; SIGKILL of the host included). The exit status is the shell's.
The non-blocking master fd is read with ``loop.add_reader`` (EIO/EOF: the slave
side is gone). Exit is seen via ``os.pidfd_open`` + ``add_reader`` on Linux, else
a ``waitpid`` thread; the pty is then drained until EIO (capped by
:data:`DRAIN_TIMEOUT`) before ``wait_for_exit`` answers. ``kill`` sends SIGTERM
to the process group (the supervisor stops the rest of the tree), and SIGKILL once
the supervisor is gone or after :data:`KILL_GRACE`.
Windows runs the line through ``cmd.exe`` on pywinpty, in a kill-on-close Job
object (untested here).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp import RequestError

from acp_tui.core.capabilities.output_buffer import HeadBuffer
from acp_tui.core.transport import supervisor, winjob
from acp_tui.core.transport.acp_protocol import internal_error, invalid_params

if sys.platform != "win32":
    import termios

__all__ = [
    "DEFAULT_OUTPUT_LIMIT",
    "MAX_LIVE_TERMINALS",
    "ExitStatus",
    "TerminalManager",
    "TerminalSnapshot",
]

log = logging.getLogger(__name__)

MAX_LIVE_TERMINALS = 8
DEFAULT_OUTPUT_LIMIT = 1024 * 1024
PTY_ROWS = 50
PTY_COLUMNS = 200
CHANGE_INTERVAL = 0.1  # seconds between on_change calls per terminal
DRAIN_TIMEOUT = 0.5  # seconds to keep draining the pty after the process exited
KILL_GRACE = 1.0  # seconds between SIGTERM and SIGKILL
_READS_PER_WAKEUP = 16
_READ_SIZE = 65536
_POSIX_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"})


@dataclass(frozen=True)
class ExitStatus:
    """How a terminal's process ended: an exit code, or the signal that killed it."""

    exit_code: int | None
    signal: str | None

    def to_wire(self) -> dict[str, Any]:
        return {"exitCode": self.exit_code, "signal": self.signal}


@dataclass(frozen=True)
class TerminalSnapshot:
    """What ``terminal/output`` answers."""

    output: str
    truncated: bool
    exit_status: ExitStatus | None


def exit_status_from_wait(status: int) -> ExitStatus:
    """Turn a ``waitpid`` status into an :class:`ExitStatus`."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"SIG{number}"
        return ExitStatus(exit_code=None, signal=name)
    if os.WIFEXITED(status):
        return ExitStatus(exit_code=os.WEXITSTATUS(status), signal=None)
    return ExitStatus(exit_code=None, signal=None)


def build_environment(
    base_env: Mapping[str, str], agent_env: Mapping[str, str] | None
) -> dict[str, str]:
    """User env, then pager defaults, then the agent's env on top (its values win)."""
    env = dict(base_env)
    env["PAGER"] = ""
    env["GIT_PAGER"] = "cat"
    env.update(agent_env or {})
    env.setdefault("TERM", "xterm-256color")
    return env


def pick_shell(base_env: Mapping[str, str]) -> str:
    """The user's ``$SHELL`` if it is a POSIX-like shell, else ``/bin/sh``."""
    shell = base_env.get("SHELL", "")
    posix_like = os.path.isabs(shell) and os.path.basename(shell) in _POSIX_SHELLS
    return shell if posix_like and os.access(shell, os.X_OK) else "/bin/sh"


def build_shell_line(command: str, args: Sequence[str], cwd: Path) -> str:
    """The shell line to run: quoted ``command + args``, or ``command`` as a whole line."""
    if args:
        return shlex.join([command, *args])
    if " " in command:
        path = Path(command) if os.path.isabs(command) else cwd / command
        if path.is_file() and os.access(path, os.X_OK):
            return shlex.quote(command)
    return command


def _pid_exists(pid: int) -> bool:
    try:
        os.getpgid(pid)
    except ProcessLookupError:
        return False
    return True


class _PosixPty:
    """A shell line on a ptyprocess pty, watched from the event loop."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], sink: _Terminal) -> None:
        from ptyprocess import PtyProcess

        cwd_text = str(cwd)

        def child_setup() -> None:  # in the child, before exec: no race with the command
            os.chdir(cwd_text)
            attrs = termios.tcgetattr(1)
            attrs[1] &= ~termios.ONLCR  # "\n" stays "\n", not "\r\n"
            termios.tcsetattr(1, termios.TCSANOW, attrs)
            null_fd = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null_fd, 0)  # stdin: nothing may wait for input
            os.close(null_fd)

        dimensions = (PTY_ROWS, PTY_COLUMNS)
        supervised = [*supervisor.command("terminal", str(os.getpid())), "--", *argv]
        self._proc: Any = PtyProcess.spawn(
            supervised, env=env, echo=False, preexec_fn=child_setup, dimensions=dimensions
        )
        self._proc.delayafterclose = 0
        self._loop = sink.loop
        self._sink = sink
        self.pid: int = self._proc.pid
        self._fd: int = self._proc.fd
        self._reading = True
        self._pidfd: int | None = None
        os.set_blocking(self._fd, False)
        self._loop.add_reader(self._fd, self._on_readable)
        try:
            self._pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):  # not Linux, or pidfds are not allowed
            threading.Thread(target=self._wait_thread, name="terminal-waitpid", daemon=True).start()
        else:
            self._loop.add_reader(self._pidfd, self._on_pidfd)

    def _on_readable(self) -> None:
        for _ in range(_READS_PER_WAKEUP):
            try:
                data = os.read(self._fd, _READ_SIZE)
            except BlockingIOError:
                return
            except OSError:  # EIO: every holder of the slave side is gone
                data = b""
            if not data:
                self._stop_reading()
                self._sink.on_eof()
                return
            self._sink.on_data(data)

    def _stop_reading(self) -> None:
        if self._reading:
            self._reading = False
            self._loop.remove_reader(self._fd)

    def _on_pidfd(self) -> None:
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            pid, status = self.pid, -1
        if pid != 0:
            self._close_pidfd()
            self._on_reaped(status)

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    def _wait_thread(self) -> None:
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            status = -1
        with contextlib.suppress(RuntimeError):  # the loop is already closed
            self._loop.call_soon_threadsafe(self._on_reaped, status)

    def _on_reaped(self, status: int) -> None:
        self._proc.terminated = True  # we reaped it; ptyprocess must not waitpid again
        unknown = ExitStatus(exit_code=None, signal=None)
        self._sink.on_exit(unknown if status < 0 else exit_status_from_wait(status))

    def signal_group(self, sig: int) -> None:
        # Members left in our group keep the kernel from reusing its id (the leader's
        # pid); so once we reaped the leader, a live process with that pid means the
        # group is gone and the id belongs to someone else now.
        if self._proc.terminated and _pid_exists(self.pid):
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)

    def close(self) -> None:
        self._stop_reading()
        self._close_pidfd()
        if not self._proc.closed:
            self._proc.fileobj.close()  # closes the master fd
            self._proc.closed = True
            self._proc.fd = -1


class _WindowsPty:  # pragma: no cover - Windows only, untested here
    """A ``cmd.exe`` line on pywinpty (ConPTY); one thread reads, then waits for exit."""

    def __init__(self, line: str, cwd: Path, env: dict[str, str], sink: _Terminal) -> None:
        import winpty

        cmdline = f'"{env.get("COMSPEC", "cmd.exe")}" /d /s /c "{line}"'
        dims = (PTY_ROWS, PTY_COLUMNS)
        self._proc: Any = winpty.PtyProcess.spawn(cmdline, cwd=str(cwd), env=env, dimensions=dims)
        #: Kill-on-close: the command's tree ends with the host (core/winjob.py).
        self._job = winjob.contain(self._proc.pid)
        self._sink = sink
        threading.Thread(target=self._watch, name="terminal-winpty", daemon=True).start()

    def _post(self, callback: Callable[..., None], *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is already closed
            self._sink.loop.call_soon_threadsafe(callback, *args)

    def _watch(self) -> None:
        while True:
            try:
                text = self._proc.read(_READ_SIZE)
            except Exception:  # EOFError once the console is gone
                break
            if text:
                data = str(text).replace("\r\n", "\n").encode("utf-8", "replace")
                self._post(self._sink.on_data, data)
        self._post(self._sink.on_eof)
        while self._proc.isalive():
            time.sleep(0.05)
        self._post(self._sink.on_exit, ExitStatus(exit_code=self._proc.exitstatus, signal=None))

    def signal_group(self, sig: int) -> None:
        with contextlib.suppress(Exception):
            self._proc.terminate(force=sig != signal.SIGTERM)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._proc.close(force=True)
        winjob.close(self._job)


class _Terminal:
    """One terminal: its output buffer, exit state and throttled change notifications."""

    def __init__(self, limit: int, on_change: Callable[[str], None] | None) -> None:
        self.id = uuid.uuid4().hex  # made by the host, never taken from the agent
        self.loop = asyncio.get_running_loop()
        self.buffer = HeadBuffer(limit)
        self.process: _PosixPty | _WindowsPty | None = None
        self.exit_status: ExitStatus | None = None
        self.done: asyncio.Future[ExitStatus] = self.loop.create_future()
        self._on_change = on_change
        self._reaped: ExitStatus | None = None
        self._eof = False
        self._drain_timer: asyncio.TimerHandle | None = None
        self._change_timer: asyncio.TimerHandle | None = None
        self._last_change = float("-inf")

    def on_data(self, data: bytes) -> None:
        if self.buffer.feed(data) and self._on_change and not self._change_timer:
            delay = max(0.0, self._last_change + CHANGE_INTERVAL - self.loop.time())
            self._change_timer = self.loop.call_later(delay, self._fire_change)

    def on_eof(self) -> None:
        self._eof = True
        if self._reaped is not None:
            self._finish()

    def on_exit(self, status: ExitStatus) -> None:
        self._reaped = status
        if self._eof:
            self._finish()
        elif self._drain_timer is None:  # a background job may still hold the pty
            self._drain_timer = self.loop.call_later(DRAIN_TIMEOUT, self._finish)

    def _finish(self) -> None:
        if self.done.done() or self._reaped is None:
            return
        if self._drain_timer is not None:
            self._drain_timer.cancel()
        if self.process is not None:
            self.process.close()
        self.exit_status = self._reaped
        self.done.set_result(self._reaped)
        self._cancel_change_timer()
        self._fire_change()  # once, promptly, at exit

    def _fire_change(self) -> None:
        self._change_timer = None
        self._last_change = self.loop.time()
        if self._on_change is not None:
            try:
                self._on_change(self.id)
            except Exception:
                log.exception("terminal on_change callback failed")

    def _cancel_change_timer(self) -> None:
        if self._change_timer is not None:
            self._change_timer.cancel()
            self._change_timer = None

    def mute(self) -> None:
        """Never call ``on_change`` again (the terminal is being released)."""
        self._on_change = None
        self._cancel_change_timer()

    def snapshot(self) -> TerminalSnapshot:
        output, truncated = self.buffer.snapshot(final=self.done.done())
        return TerminalSnapshot(output=output, truncated=truncated, exit_status=self.exit_status)

    async def kill(self) -> None:
        """SIGTERM the process group; SIGKILL the group once the shell is gone or the
        grace time is over (stragglers that ignore SIGTERM or SIGHUP die too)."""
        process = self.process
        if process is None:
            return
        if not self.done.done():
            process.signal_group(signal.SIGTERM)
            deadline = self.loop.time() + KILL_GRACE
            while self._reaped is None and self.loop.time() < deadline:
                await asyncio.sleep(0.02)
        process.signal_group(signal.SIGKILL)
        await asyncio.shield(self.done)


def _unknown_id(terminal_id: str) -> RequestError:
    return invalid_params(f"unknown terminal id {terminal_id[:64]!r}")


class TerminalManager:
    """All terminals of one ACP session."""

    def __init__(
        self,
        *,
        base_env: Mapping[str, str] | None = None,
        on_change: Callable[[str], None] | None = None,
    ) -> None:
        self._base_env = dict(os.environ if base_env is None else base_env)
        self._on_change = on_change
        self._terminals: dict[str, _Terminal] = {}
        self._closed = False

    def live_count(self) -> int:
        """Terminals created and not yet released (killed ones included)."""
        return len(self._terminals)

    async def create(
        self,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        *,
        cwd: Path,
        output_byte_limit: int | None = None,
    ) -> str:
        """Start ``command`` on a new pty in ``cwd``; return the new terminal id."""
        if self._closed:
            raise invalid_params("the session's terminals are closed")
        if len(self._terminals) >= MAX_LIVE_TERMINALS:
            raise invalid_params(
                f"at most {MAX_LIVE_TERMINALS} terminals may be open at once; "
                "release one before creating another",
            )
        if not command.strip():
            raise invalid_params("command must not be empty")
        if output_byte_limit is not None and output_byte_limit < 0:
            raise invalid_params("outputByteLimit must not be negative")
        full_env = build_environment(self._base_env, env)
        texts = [command, *args, *full_env, *full_env.values()]
        if any("\0" in text for text in texts) or any("=" in name or not name for name in full_env):
            raise invalid_params("NUL in command, args or env, or a bad env name")
        if not cwd.is_dir():
            raise invalid_params("the terminal's cwd is not an existing directory")
        limit = DEFAULT_OUTPUT_LIMIT
        if output_byte_limit is not None:
            limit = min(output_byte_limit, DEFAULT_OUTPUT_LIMIT)
        terminal = _Terminal(limit, self._on_change)
        try:
            if sys.platform == "win32":  # pragma: no cover
                line = subprocess.list2cmdline([command, *args]) if args else command
                terminal.process = _WindowsPty(line, cwd, full_env, terminal)
            else:
                argv = [pick_shell(self._base_env), "-c", build_shell_line(command, args, cwd)]
                terminal.process = _PosixPty(argv, cwd, full_env, terminal)
        except Exception as exc:  # messages may hold paths: report the kind only
            message = f"could not start the command ({type(exc).__name__})"
            raise internal_error(message) from exc
        self._terminals[terminal.id] = terminal
        return terminal.id

    def _get(self, terminal_id: str) -> _Terminal:
        terminal = self._terminals.get(terminal_id)
        if terminal is None:
            raise _unknown_id(terminal_id)
        return terminal

    def output(self, terminal_id: str) -> TerminalSnapshot:
        """The output so far (head, bounded) and the exit status once exited."""
        return self._get(terminal_id).snapshot()

    async def wait_for_exit(self, terminal_id: str) -> ExitStatus:
        """Wait until the process exited and its output was drained."""
        return await asyncio.shield(self._get(terminal_id).done)

    async def kill(self, terminal_id: str) -> None:
        """Stop the process (and its group); the terminal stays queryable."""
        await self._get(terminal_id).kill()

    async def release(self, terminal_id: str) -> TerminalSnapshot:
        """Stop the process if running, forget the id, return the final snapshot."""
        terminal = self._terminals.pop(terminal_id, None)
        if terminal is None:
            raise _unknown_id(terminal_id)
        terminal.mute()
        await terminal.kill()
        return terminal.snapshot()

    async def close(self) -> None:
        """Kill and forget every terminal; later ``create`` calls are refused. Idempotent."""
        self._closed = True
        terminals = list(self._terminals.values())
        self._terminals.clear()
        for terminal in terminals:
            terminal.mute()
        results = await asyncio.gather(*(t.kill() for t in terminals), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                log.warning("killing a terminal on close failed: %r", result)
