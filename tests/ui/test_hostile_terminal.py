"""Issue 12, point 6, at the terminal: the real `acp-tui` on a real pty, driven
through the hostile agent's strings, never writes the agent's escapes.

Every hostile string carries ``ESC ] 0 ; PWNED BEL`` (set the window title),
a C1 CSI and a bidi override; none of their bytes may appear in what the
program wrote to the terminal (a pty: the bytes a real terminal would obey).
"""

from __future__ import annotations

import os
import re
import select
import signal
import sys
import time
from pathlib import Path

from ptyprocess import PtyProcess

HOSTILE_AGENT = Path(__file__).parent.parent / "agents" / "hostile_agent.py"


class Terminal:
    def __init__(self, tmp_path: Path) -> None:
        self.output = bytearray()
        self.tui = PtyProcess.spawn(
            [
                sys.executable,
                "-m",
                "acp_tui",
                "--cwd",
                str(tmp_path),
                "--",
                sys.executable,
                str(HOSTILE_AGENT),
            ],
            env={**os.environ, "TERM": "xterm-256color"},
            dimensions=(45, 180),
        )

    def read(self, seconds: float = 0.1) -> None:
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.tui.fd], [], [], left)[0]:
                return
            try:
                self.output += self.tui.read(65536)
            except EOFError:
                return

    def wait_for(self, needle: bytes, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.output:
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} never shown")
            self.read()

    def type(self, data: bytes) -> None:
        self.tui.write(data)


def test_no_agent_escape_sequence_reaches_the_terminal(tmp_path: Path) -> None:
    term = Terminal(tmp_path)
    try:
        term.wait_for(b"is ready")
        term.type(b"strings\r")
        term.wait_for(b"opt-allow")
        time.sleep(1.0)  # the dialog answers no key while the user is typing
        term.read()
        term.type(b"y")
        term.wait_for(b"reply")
        term.read(0.5)  # keys right after a dialog closes are ignored for a moment
        term.type(b"/")
        term.wait_for(b"cmd-desc")
        term.type(b"\x03")  # Ctrl+C clears the draft
        term.read(0.3)
        term.type(b"fail\r")
        term.wait_for(b"answered")
        term.type(b"die-loud\r")
        term.wait_for(b"stderr-last")
        term.read(0.5)
        term.type(b"\x11")  # Ctrl+Q
        deadline = time.monotonic() + 20
        while term.tui.isalive() and time.monotonic() < deadline:
            term.read()
        written = bytes(term.output)
        assert b"\x1b]0;" not in written  # the OSC that sets the window title
        # Its payload is shown only where the raw input is shown as JSON
        # (escaped: \u001b]0;PWNED\u0007), never as text of its own.
        assert written.count(b"PWNED") == written.count(b"\\u001b]0;PWNED")
        assert b"\xc2\x9b" not in written  # C1 CSI
        # BEL: only as the end of Textual's own OSC 22 (the mouse pointer's shape).
        assert written.count(b"\x07") == len(re.findall(rb"\x1b\]22;[a-z-]*\x07", written))
        assert "\u202e".encode() not in written  # bidi override
        assert "title␇".encode() in written  # the session title, shown made safe
    finally:
        if term.tui.isalive():
            term.tui.kill(signal.SIGKILL)
