"""The real TUI ends, agents reaped, when its terminal goes away mid-output (issue 12, point 1).

Textual's writer thread died on the first write to a closed pty and the app
then blocked for ever in ``Queue.put`` (acp_tui/ui/terminal_driver.py). To see
it, the terminal must really go away while output is queued: the test stops
reading the pty during a flood of text until the pty is full and the app's
output is backed up, then closes its side of the pty (or sends a signal).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.processes import PtyTui, describe, tui_command
from tests.waiting import came_true


def _writer_blocked(pid: int) -> bool:
    """Some thread of ``pid`` is blocked writing to its terminal."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            wchan = Path(f"/proc/{pid}/task/{tid}/wchan").read_text()
        except OSError:
            continue
        if wchan in ("wait_woken", "n_tty_write", "tty_write"):
            return True
    return False


def _flood_until_backed_up(tui: PtyTui) -> None:
    tui.wait_ready()
    assert len(tui.leftovers()) >= 2  # the TUI and its agent (and its supervisor)
    tui.type(b"flood 300000\r")
    # From now on nobody reads the pty: it fills, and the TUI's writes block.
    assert came_true(lambda: tui.pending_output() >= 4095, 30), "the pty never filled"
    assert came_true(lambda: _writer_blocked(tui.pid), 30), "the TUI's output never backed up"


@pytest.mark.parametrize("how", ["pty closed", "SIGTERM", "SIGHUP", "SIGINT"])
def test_the_tui_ends_when_its_terminal_goes_away_mid_output(tmp_path: Path, how: str) -> None:
    tui = PtyTui(tui_command("--cwd", str(tmp_path)), cwd=tmp_path)
    try:
        _flood_until_backed_up(tui)
        if how == "pty closed":
            tui.close_master()  # the kernel hangs the pty up: SIGHUP, then EIO on writes
        else:
            tui.signal(getattr(signal, how))  # the terminal stays, but nobody reads it
        assert came_true(lambda: not tui.proc.isalive(), 20), "acp-tui did not end"
        expected = {"pty closed": 129, "SIGTERM": 143, "SIGHUP": 129, "SIGINT": 130}[how]
        assert tui.proc.exitstatus == expected
        assert came_true(lambda: not tui.leftovers(), 10), describe(tui.leftovers())
    finally:
        tui.close()
