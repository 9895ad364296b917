"""The TUI always ends: a bounded shutdown with a hard exit as the last resort.

One :class:`ExitGuard` per ``run_tui``. It owns the process's ``SIGTERM``,
``SIGHUP`` and ``SIGINT`` handlers and a thread that watches the terminal
(``POLLHUP`` on its file descriptors: the terminal's other side closed).
When one of those fires, or the terminal output fails, or the user quits:

1. the app is asked to quit the normal way (the host reaps every agent, the
   transcript is flushed, Textual restores the terminal);
2. if the process is still running :attr:`deadline` seconds later — Textual
   wedged, or an agent's group would not die — the guard's thread kills the
   agents' process groups itself (``Host.kill_all_now``) and ends the
   process with ``os._exit``.

The handlers are plain ``signal.signal`` ones: unlike the event loop's, they
run even while the main thread is stuck inside a blocking call. They only
write a byte to a pipe; the thread does the rest.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Protocol

#: Seconds from a signal or a lost terminal to the hard exit: the agents are
#: reaped and the process gone within 2 s.
SIGNAL_DEADLINE = 1.5
#: Seconds from the user's quit to the hard exit (a terminal that is still
#: there: the orderly path gets longer).
QUIT_DEADLINE = 8.0
#: Exit status when the terminal went away (as if killed by SIGHUP).
LOST_TERMINAL_CODE = 128 + 1
_QUIT = 0
_LOST = 255


class ExitGuard:
    def __init__(
        self,
        *,
        request_quit: Callable[[], None],
        kill_agents: Callable[[], None],
        agents_gone: Callable[[], bool] = lambda: True,
        restore_terminal: Callable[[], None] = lambda: None,
    ) -> None:
        self._request_quit = request_quit
        self._kill_agents = kill_agents
        self._agents_gone = agents_gone
        self._restore_terminal = restore_terminal
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        self._finished = threading.Event()
        self._thread: threading.Thread | None = None
        self._previous: dict[int, object] = {}
        #: The exit status once a reason to end was seen (None: none yet).
        self.code: int | None = None
        self.reason = ""

    # -- setting up ----------------------------------------------------------

    def install(self, terminal_fds: Iterable[int] = ()) -> None:
        """Take over the signals and start watching the terminal."""
        for name in ("SIGTERM", "SIGHUP", "SIGINT"):
            sig = getattr(signal, name, None)
            if sig is not None:
                with contextlib.suppress(ValueError, OSError):
                    self._previous[sig] = signal.signal(sig, self._on_signal)
        ttys = [fd for fd in terminal_fds if _is_tty(fd)]
        self._thread = threading.Thread(
            target=self._watch, args=(ttys,), name="acp-tui-exit-guard", daemon=True
        )
        self._thread.start()

    def uninstall(self) -> None:
        """The app ended the normal way: stand down."""
        self._finished.set()
        with contextlib.suppress(OSError):
            os.write(self._write, b"\0")
        for sig, handler in self._previous.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(sig, handler)  # type: ignore[arg-type]
        if self._thread is not None:
            self._thread.join(1.0)

    # -- reasons to end --------------------------------------------------------

    def _on_signal(self, signum: int, _frame: object) -> None:
        self.trigger(signum)

    def trigger(self, signum: int = _QUIT) -> None:
        """Start the bounded end; safe from signal handlers and any thread."""
        with contextlib.suppress(OSError):
            os.write(self._write, bytes([signum]))

    def terminal_lost(self) -> None:
        self.trigger(_LOST)

    # -- the watcher -----------------------------------------------------------

    def _watch(self, ttys: list[int]) -> None:
        poller = select.poll()
        poller.register(self._read, select.POLLIN)
        for fd in ttys:
            poller.register(fd, 0)  # POLLHUP and POLLERR are always reported
        deadline: float | None = None
        while not self._finished.is_set():
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = poller.poll(None if timeout is None else int(timeout * 1000) + 1)
            for fd, events in ready:
                if fd == self._read:
                    data = os.read(self._read, 64)
                    for byte in data:
                        if byte == 0 and self._finished.is_set():
                            return
                        deadline = self._begin(byte, deadline)
                    continue
                poller.unregister(fd)
                if not events & select.POLLNVAL:  # not a closed fd: a hang-up
                    deadline = self._begin(_LOST, deadline)
            if (
                deadline is not None
                and time.monotonic() >= deadline
                and not self._finished.is_set()
            ):
                self._hard_exit()

    def _begin(self, signum: int, deadline: float | None) -> float:
        now = time.monotonic()
        if signum == _QUIT:
            code, reason, seconds = 0, "quit", QUIT_DEADLINE
        elif signum == _LOST:
            code, reason, seconds = LOST_TERMINAL_CODE, "the terminal closed", SIGNAL_DEADLINE
        else:
            code, reason, seconds = 128 + signum, f"signal {signum}", SIGNAL_DEADLINE
        first = self.code is None
        if first or (code != 0 and self.code == 0):
            self.code, self.reason = code, reason
        if first:
            with contextlib.suppress(Exception):
                self._request_quit()
        mine = now + seconds
        return mine if deadline is None else min(deadline, mine)

    def _hard_exit(self) -> None:
        """Last resort: reap the agents here, then end the process."""
        with contextlib.suppress(Exception):
            self._kill_agents()
        until = time.monotonic() + 0.3
        while time.monotonic() < until:
            with contextlib.suppress(Exception):
                if self._agents_gone():
                    break
            time.sleep(0.01)
        with contextlib.suppress(Exception):
            self._restore_terminal()
        # No last words on stderr: a write there may block (the terminal is
        # full, or Textual's writer holds the stream's lock).
        os._exit(self.code if self.code is not None else 1)


def _is_tty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


class Guarded(Protocol):
    """What the guard needs of the app it runs."""

    exit_guard: ExitGuard | None

    def run(self) -> int | None: ...

    def quit_threadsafe(self) -> None: ...

    def restore_terminal_now(self) -> None: ...

    def kill_agents_now(self) -> None: ...

    def agents_gone(self) -> bool: ...


def run_guarded(app: Guarded) -> int:
    """Run the app under an :class:`ExitGuard`; the exit status."""
    guard = ExitGuard(
        request_quit=app.quit_threadsafe,
        kill_agents=app.kill_agents_now,
        agents_gone=app.agents_gone,
        restore_terminal=app.restore_terminal_now,
    )
    app.exit_guard = guard
    streams = (sys.__stdin__, sys.__stdout__, sys.__stderr__)
    guard.install(s.fileno() for s in streams if s is not None)
    try:
        code = app.run()
    finally:
        guard.uninstall()
        app.kill_agents_now()
    return guard.code or code or 0
