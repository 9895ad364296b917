"""Issue 12, point 6, at the terminal: the real `acp-tui` on a real pty, driven
through the hostile agent's strings, never writes the agent's escapes.

Every hostile string carries ``ESC ] 0 ; PWNED BEL`` (set the window title),
a C1 CSI and a bidi override; none of their bytes may appear in what the
program wrote to the terminal (a pty: the bytes a real terminal would obey).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from tests.fake_agents import HOSTILE_AGENT
from tests.ui.helpers import PtyApp


def test_no_agent_escape_sequence_reaches_the_terminal(tmp_path: Path) -> None:
    term = PtyApp(HOSTILE_AGENT, tmp_path, rows=45, columns=180)
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
        assert term.wait_gone()
        written = bytes(term.output)
        assert b"\x1b]0;" not in written  # the OSC that sets the window title
        # Its payload is shown only where the raw input is shown as JSON
        # (escaped: \u001b]0;PWNED\u0007), never as text of its own.
        assert written.count(b"PWNED") == written.count(b"\\u001b]0;PWNED")
        assert b"\xc2\x9b" not in written  # C1 CSI
        # BEL: only as the end of Textual's own OSC 22 (the mouse pointer's shape).
        assert written.count(b"\x07") == len(re.findall(rb"\x1b\]22;[a-z-]*\x07", written))
        assert "\u202e".encode() not in written  # bidi override
        # (The made-safe title is checked by Pilot, tests/ui/test_hostile_text.py:
        # whether a frame showed it before the quit depends on timing.)
    finally:
        term.kill()
