"""The supervisor: a tiny process between the host and what it starts.

The host never runs an agent (or a terminal's shell) directly: it runs this
file, as a script, with ``python -I -S`` (the standard library only, nothing
of acp_tui is imported: it starts in ~20 ms). The supervisor

* is the leader of a new session and process group (the host starts it so),
  and runs the command as its child in that group;
* makes itself a *child subreaper* (Linux ``PR_SET_CHILD_SUBREAPER``): any
  descendant that is orphaned — a double fork, ``setsid``, a daemonizing
  tool — is re-parented to it instead of to init, so it always finds every
  descendant, whatever session or group it moved to;
* ends everything it holds when the host goes away, however it goes: EOF on
  its lifeline (a socket to the host that only the host holds: the kernel
  closes it when the host dies, SIGKILL included), ``SIGHUP`` (a terminal's
  pty hung up when the host's side of it closed), or ``PR_SET_PDEATHSIG``
  (Linux: the kernel signals it when the host dies);
* also ends the rest of the tree when its command exits (the host reports the
  command's exit at once; stragglers never outlive it) or when it is asked to
  (``SIGTERM``/``SIGINT``): ``SIGTERM`` to every descendant, then ``SIGKILL``
  to what is left after :data:`GRACE` seconds;
* exits with its command's status (a signal re-raised on itself), so the host
  reads the command's exit code or signal from the supervisor's.

Usage::

    supervisor.py agent LIFELINE_FD HOST_PID -- COMMAND ARGS...
    supervisor.py terminal HOST_PID -- COMMAND ARGS...

In ``agent`` mode the first line written on the lifeline is JSON:
``{"pid": N}`` once COMMAND runs, or ``{"error": "not_found"|"not_executable"
|"os_error", "errno": E}`` when it could not be started (then the exit status
is 127). In ``terminal`` mode there is no lifeline (the pty is one) and the
command's stragglers get :data:`DRAIN` seconds to finish before they are
stopped, as a terminal's background output is still drained for that long.

The command gets ``PR_SET_PDEATHSIG`` = ``SIGKILL``: should the supervisor
itself be killed outright, its command dies with it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import signal
import sys
import time

#: Seconds between SIGTERM and SIGKILL when the supervisor stops the tree.
#: Below the host's own grace (1 s): the host's SIGKILL never cuts it short.
GRACE = 0.6
#: Terminal mode: how long stragglers may run on after the command exited.
DRAIN = 0.5
#: How long SIGKILL is repeated at the end (a tree that keeps forking).
KILL_WAIT = 0.3


def command(*args: str) -> list[str]:
    """How the host runs the supervisor: the standard library only (-S), and no
    PYTHON* variables of the command's environment (-I)."""
    return [sys.executable, "-I", "-S", __file__, *args]


_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_LINUX = sys.platform.startswith("linux")


def _prctl(option: int, value: int) -> None:
    if not _LINUX:
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def process_table() -> dict[int, tuple[int, int]]:
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


def descendants(root: int) -> list[int]:
    """Live descendants of ``root`` (Linux; elsewhere: an empty list)."""
    if not _LINUX:
        return []
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in process_table().items():
        children.setdefault(ppid, []).append(pid)
    found: list[int] = []
    todo = list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


class Supervisor:
    def __init__(self, command: list[str], host_pid: int, lifeline: int | None, drain: float):
        self.command = command
        self.host_pid = host_pid
        self.lifeline = lifeline
        self.drain = drain
        self.me = os.getpid()
        self.child = 0
        self.status: int | None = None  # the command's waitpid status
        self.signals: list[int] = []
        self.wake_r, wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, self._note)

    def _note(self, signum: int, _frame: object) -> None:
        self.signals.append(signum)

    # -- starting ------------------------------------------------------------

    def start(self) -> dict[str, object]:
        """Fork and exec the command; what to tell the host."""
        err_r, err_w = os.pipe()  # close-on-exec: EOF means exec succeeded
        pid = os.fork()
        if pid == 0:  # the child: nothing here may raise past os._exit
            try:
                os.close(err_r)
                _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
                signal.set_wakeup_fd(-1)
                for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
                    signal.signal(sig, signal.SIG_DFL)
                for ignored in ("SIGPIPE", "SIGXFSZ"):  # Python ignores them
                    if hasattr(signal, ignored):
                        signal.signal(getattr(signal, ignored), signal.SIG_DFL)
                os.execvp(self.command[0], self.command)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.write(err_w, str(exc.errno or 0).encode())
            finally:
                os._exit(127)
        os.close(err_w)
        with os.fdopen(err_r, "rb") as f:
            failure = f.read()
        self.child = pid
        if not failure:
            return {"pid": pid}
        os.waitpid(pid, 0)
        self.child = 0
        code = int(failure or b"0")
        kind = {errno.ENOENT: "not_found", errno.EACCES: "not_executable"}.get(code, "os_error")
        return {"error": kind, "errno": code}

    # -- running -------------------------------------------------------------

    def _reap(self) -> None:
        """Collect every exited child: the command and adopted orphans."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.child:
                self.status = status

    def _host_gone(self) -> bool:
        return os.getppid() != self.host_pid

    def run(self) -> None:
        """Wait for the command's exit, a stop signal or the host's end."""
        poller = select.poll()
        poller.register(self.wake_r, select.POLLIN)
        if self.lifeline is not None:
            poller.register(self.lifeline, select.POLLIN)
        while True:
            self._reap()
            if self.status is not None:
                if self.drain > 0:
                    self._wait_tree(self.drain)
                return
            stop = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}
            if stop.intersection(self.signals) or self._host_gone():
                return
            for fd, _ in poller.poll(1000):
                if fd == self.wake_r:
                    with contextlib.suppress(BlockingIOError):
                        for signum in os.read(self.wake_r, 512):
                            self.signals.append(signum)
                elif fd == self.lifeline and not self._read_lifeline():
                    return

    def _read_lifeline(self) -> bool:
        """False once the host's end closed."""
        assert self.lifeline is not None
        try:
            return bool(os.read(self.lifeline, 4096))
        except BlockingIOError:
            return True
        except OSError:
            return False

    # -- stopping ------------------------------------------------------------

    def _alive(self) -> list[int]:
        if _LINUX:
            return descendants(self.me)
        self._reap()
        return [self.child] if self.child and self.status is None else []

    def _signal_tree(self, sig: int) -> None:
        targets = self._alive()
        for pid in targets:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        if not _LINUX:
            # No process table: the group is what we can reach.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(os.getpgrp(), sig)

    def _wait_tree(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        delay = 0.005
        while True:
            self._reap()
            if not self._alive():
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def stop_tree(self) -> None:
        """SIGTERM every descendant, then SIGKILL what is left after GRACE."""
        if not self._alive():
            return
        self._signal_tree(signal.SIGTERM)
        if self._wait_tree(GRACE):
            return
        deadline = time.monotonic() + KILL_WAIT
        while self._alive() and time.monotonic() < deadline:
            self._signal_tree(signal.SIGKILL)
            self._wait_tree(0.05)

    def exit(self) -> None:
        """Exit as the command did (its code, or its signal re-raised)."""
        self._reap()
        status = self.status
        if status is None:
            os._exit(128 + signal.SIGTERM)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            with contextlib.suppress(Exception):
                import resource

                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            signal.set_wakeup_fd(-1)
            with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP cannot be
                signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
            os.kill(self.me, sig)
            os._exit(128 + sig)  # a signal that does not end a process
        os._exit(os.waitstatus_to_exitcode(status))


def main(argv: list[str]) -> None:
    mode = argv[0]
    if mode == "agent":
        lifeline: int | None = int(argv[1])
        host_pid = int(argv[2])
        rest = argv[3:]
    else:
        lifeline = None
        host_pid = int(argv[1])
        rest = argv[2:]
    command = rest[1:] if rest[:1] == ["--"] else rest
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    # SIGHUP rather than SIGKILL: the supervisor must live to stop its tree.
    _prctl(_PR_SET_PDEATHSIG, signal.SIGHUP)
    supervisor = Supervisor(command, host_pid, lifeline, DRAIN if mode == "terminal" else 0.0)
    if supervisor._host_gone():  # the host died before PDEATHSIG was set
        os._exit(128 + signal.SIGHUP)
    if lifeline is not None:
        os.set_inheritable(lifeline, False)  # the agent gets no copy
        os.set_blocking(lifeline, True)
    started = supervisor.start()
    if lifeline is not None:
        with contextlib.suppress(OSError):
            os.write(lifeline, json.dumps(started).encode() + b"\n")
        os.set_blocking(lifeline, False)
    if "error" in started:
        os._exit(127)
    if mode == "agent":
        # The agent's stdio pipes are its own: holding them here would keep
        # the host from seeing its stdout close. stderr stays (our last words).
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
    supervisor.run()
    supervisor.stop_tree()
    supervisor.exit()


if __name__ == "__main__":
    main(sys.argv[1:])
