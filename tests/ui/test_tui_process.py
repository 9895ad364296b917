"""The real `acp-tui` program on a real pty: signals and quitting reap the agent (AC-2)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
from ptyprocess import PtyProcess

from acp_tui.core.process import group_members
from tests.conftest import SCRIPTED_AGENT
from tests.test_lifecycle import alive


def _children(pid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            if int(stat[stat.rfind(b")") + 2 :].split()[1]) == pid:
                found.append(int(name))
    return found


def _wait(condition, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.05)


def _drain(tui: PtyProcess) -> None:
    """Read what the TUI drew so far (a full pty would block it)."""
    while True:
        try:
            if not tui.read(65536):
                return
        except (EOFError, OSError):
            return
        import select

        if not select.select([tui.fd], [], [], 0)[0]:
            return


@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "ctrl+q"])
def test_the_tui_reaps_the_agent_group(tmp_path: Path, how: str) -> None:
    env = {**os.environ, "TERM": "xterm-256color"}
    tui = PtyProcess.spawn(
        [
            sys.executable,
            "-m",
            "acp_tui",
            "--cwd",
            str(tmp_path),
            "--",
            sys.executable,
            str(SCRIPTED_AGENT),
        ],
        env=env,
        dimensions=(30, 100),
    )
    try:
        agent: list[int] = []

        def agent_started() -> bool:
            _drain(tui)
            agent[:] = [p for p in _children(tui.pid) if alive(p)]
            return bool(agent)

        _wait(agent_started)
        time.sleep(1.0)  # let the session start
        _drain(tui)
        tui.write(b"grandchild\r")
        pgid = agent[0]

        def grandchild_running() -> bool:
            _drain(tui)
            return len(group_members(pgid)) >= 2

        _wait(grandchild_running)
        members = group_members(pgid)
        if how == "ctrl+q":
            tui.write(b"\x11")
        else:
            tui.kill(getattr(signal, how))

        def tui_gone() -> bool:
            _drain(tui)
            return not tui.isalive()

        _wait(tui_gone, timeout=10)
        assert group_members(pgid) == []
        assert not any(alive(pid) for pid in members)
    finally:
        if tui.isalive():
            tui.kill(signal.SIGKILL)
