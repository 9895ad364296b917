"""The real `acp-tui` program on a real pty: signals and quitting reap the agent (AC-2)."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
from ptyprocess import PtyProcess

from acp_tui.core.transport.process import group_members
from tests.fake_agents import SCRIPTED_AGENT
from tests.test_lifecycle import alive
from tests.waiting import wait_until


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

        wait_until(agent_started, poll=0.05)
        time.sleep(1.0)  # let the session start
        _drain(tui)
        tui.write(b"grandchild\r")
        pgid = agent[0]

        def grandchild_running() -> bool:
            _drain(tui)
            return len(group_members(pgid)) >= 2

        wait_until(grandchild_running, poll=0.05)
        members = group_members(pgid)
        if how == "ctrl+q":
            tui.write(b"\x11")
        else:
            tui.kill(getattr(signal, how))

        def tui_gone() -> bool:
            _drain(tui)
            return not tui.isalive()

        wait_until(tui_gone, 10, poll=0.05)
        assert group_members(pgid) == []
        assert not any(alive(pid) for pid in members)
    finally:
        if tui.isalive():
            tui.kill(signal.SIGKILL)


def _spawn(tmp_path: Path, *args: str, **env: str) -> PtyProcess:
    return PtyProcess.spawn(
        [sys.executable, "-m", "acp_tui", "--cwd", str(tmp_path), *args],
        env={**os.environ, "TERM": "xterm-256color", **env},
        dimensions=(30, 100),
    )


def _screen_until(tui: PtyProcess, text: bytes, timeout: float = 20.0) -> bytes:
    """Read what the TUI draws until ``text`` has appeared in it."""
    import select

    seen = bytearray()

    def drawn() -> bool:
        if select.select([tui.fd], [], [], 0.1)[0]:
            try:
                seen.extend(tui.read(65536))
            except (EOFError, OSError):
                return True  # the TUI is gone: the check below says whether it drew it
        return text in seen

    wait_until(drawn, timeout, poll=0, what=f"{text!r} not drawn")
    if text not in seen:
        raise AssertionError(f"{text!r} not drawn")
    return bytes(seen)


def test_ctrl_g_edits_the_prompt_in_the_editor_and_quitting_says_how_to_resume(
    tmp_path: Path,
) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "echo written in the editor\\n" > "$1"\n')
    editor.chmod(0o755)
    tui = _spawn(tmp_path, "--", sys.executable, str(SCRIPTED_AGENT), EDITOR=str(editor))
    try:
        _screen_until(tui, b"ready")
        tui.write(b"draft")
        time.sleep(0.3)
        tui.write(b"\x07")  # Ctrl+G: the editor replaces the draft
        time.sleep(0.5)
        tui.write(b"\r")
        _screen_until(tui, b"written in the editor")
        time.sleep(0.5)
        tui.write(b"\x11")  # Ctrl+Q
        tail = b""
        while True:
            try:
                tail += tui.read(65536)
            except (EOFError, OSError):
                break
        wait_until(lambda: not tui.isalive(), 10, poll=0.05)
    finally:
        if tui.isalive():
            tui.kill(signal.SIGKILL)
    printed = tail.decode(errors="replace")
    assert "Resume this session with: acp-tui" in printed
    # The scripted agent cannot load sessions: the local transcript's key names it.
    assert f"--cwd {tmp_path} --resume s1-" in printed
