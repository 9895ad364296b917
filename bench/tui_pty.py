"""The installed ``acp-tui`` on a real pty, against bench/flood_agent.py (bench helper).

A reader thread takes everything the TUI writes as soon as it is written (a
full pty would block the TUI), strips the escape sequences and checks it
against the texts someone waits for, noting the time of the read that
brought each one. So "on screen" means: the TUI wrote it to the terminal.
"""

from __future__ import annotations

import codecs
import os
import re
import select
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from ptyprocess import PtyProcess

BENCH = Path(__file__).resolve().parent
FLOOD_AGENT = BENCH / "flood_agent.py"
#: CSI and OSC sequences, and two-character escapes.
_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")
_CLOCK = os.sysconf("SC_CLK_TCK")
#: The words of flood_agent's ``stream``: w0xxx, w1xxx… (the chunk number).
_WORD = re.compile(r"w(\d+)x")


class _Waiter:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tail = ""
        self.seen = threading.Event()
        self.at = 0.0
        self.wall = 0.0


class Tui:
    """``acp-tui --cwd DIR -- python bench/flood_agent.py`` at ``columns`` x ``rows``."""

    def __init__(self, columns: int = 120, rows: int = 40) -> None:
        self.home = Path(tempfile.mkdtemp(prefix="acp-bench-"))
        self.stamp = self.home / "last-chunk"
        program = Path(sys.executable).with_name("acp-tui")
        env = {
            **os.environ,
            "TERM": "xterm-256color",
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / "config"),
            "XDG_STATE_HOME": str(self.home / "state"),
            "FLOOD_STAMP_FILE": str(self.stamp),
        }
        self.process = PtyProcess.spawn(
            [str(program), "--cwd", str(self.home), "--", sys.executable, str(FLOOD_AGENT)],
            env=env,
            dimensions=(rows, columns),
        )
        self._waiters: list[_Waiter] = []
        self._lock = threading.Lock()
        self._closed = False
        #: The highest chunk number (``stream``'s words) written so far.
        self.drawn = -1
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        fd = self.process.fd
        while not self._closed:
            if not select.select([fd], [], [], 0.2)[0]:
                continue
            try:
                data = os.read(fd, 1 << 20)
            except OSError:
                return
            if not data:
                return
            at, wall = time.perf_counter(), time.time()
            text = pending + decoder.decode(data)
            cut = text.rfind("\x1b", max(len(text) - 64, 0))
            if cut >= 0 and _ESCAPE.match(text, cut) is None:
                text, pending = text[:cut], text[cut:]  # an escape split across reads
            else:
                pending = ""
            plain = _ESCAPE.sub("", text)
            numbers = _WORD.findall(plain)
            if numbers:
                self.drawn = max(self.drawn, *map(int, numbers))
            with self._lock:
                for waiter in self._waiters:
                    seen = waiter.tail + plain
                    if waiter.text in seen:
                        waiter.at, waiter.wall = at, wall
                        waiter.seen.set()
                    else:
                        waiter.tail = seen[-len(waiter.text) :]
                self._waiters = [w for w in self._waiters if not w.seen.is_set()]

    def expect(self, text: str) -> _Waiter:
        """Start watching for ``text`` in what is written from now on."""
        waiter = _Waiter(text)
        with self._lock:
            self._waiters.append(waiter)
        return waiter

    def wait(self, waiter: _Waiter, timeout: float = 120) -> float:
        """The time (perf_counter) ``waiter``'s text was written."""
        if not waiter.seen.wait(timeout):
            raise TimeoutError(f"{waiter.text!r} not shown within {timeout} s")
        return waiter.at

    def ready(self) -> None:
        self.wait(self.expect("ready"), 60)
        time.sleep(0.5)  # let start-up settle (the first measurements)

    def type(self, text: str) -> float:
        """Write ``text`` as typed keys; returns when (perf_counter)."""
        at = time.perf_counter()
        os.write(self.process.fd, text.encode())
        return at

    def cpu(self) -> float:
        """CPU seconds (user + system) the TUI process has used so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK

    def agent_done(self) -> float | None:
        """The wall-clock time the agent wrote its last chunk, once it has."""
        try:
            return float(self.stamp.read_text())
        except (OSError, ValueError):
            return None

    def close(self) -> None:
        if self.process.isalive():
            self.type("\x11")  # Ctrl+Q
            deadline = time.monotonic() + 10
            while self.process.isalive() and time.monotonic() < deadline:
                time.sleep(0.05)
        if self.process.isalive():
            self.process.kill(signal.SIGKILL)
        self._closed = True
        self._reader.join(2)
        self.process.close(force=True)
