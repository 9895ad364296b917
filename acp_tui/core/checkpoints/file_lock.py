"""An exclusive lock on a file, across the threads of a process and across processes.

``flock`` on POSIX, ``msvcrt.locking`` on Windows. The kernel frees the lock
of a process that dies, so a crashed holder never blocks the next one. Taken
by polling, so a waiter gives up after its timeout instead of hanging.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

POLL = 0.01

_thread_locks: dict[Path, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


class LockTimeout(TimeoutError):
    """The lock stayed held by someone else for the whole timeout."""


@contextlib.contextmanager
def file_lock(path: Path, timeout: float) -> Iterator[None]:
    """Hold the lock on ``path`` (created if missing) for the ``with`` block.

    Threads of this process queue on a :class:`threading.Lock` first (an
    ``flock`` is per open file, and polling it from two threads wastes time),
    then the process takes the file lock."""
    with _thread_locks_guard:
        thread_lock = _thread_locks.setdefault(path, threading.Lock())
    deadline = time.monotonic() + timeout
    if not thread_lock.acquire(timeout=timeout):
        raise LockTimeout(str(path))
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            while not _try_lock(fd):
                if time.monotonic() > deadline:
                    raise LockTimeout(str(path))
                time.sleep(POLL)
            try:
                yield
            finally:
                _unlock(fd)
        finally:
            os.close(fd)
    finally:
        thread_lock.release()


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
