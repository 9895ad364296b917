"""Open and close the real TUI many times, each way it can end, and count what is left.

Each run starts ``acp-tui`` on a real pty with the scripted agent, has the agent
start three children (one in its group, one in a session of its own, one
orphaned at once), then ends the TUI one of six ways: Ctrl+Q; Ctrl+C twice on
the idle, empty prompt; SIGTERM, SIGHUP, closing the pty, SIGKILL — the last
four while a turn streams output. Then it counts the live processes that carry
the run's marker (tests/processes.py): the TUI, supervisors, the agent, its
children, wherever they were re-parented. That count must be zero.

``ACP_TUI_STRESS_RUNS`` runs in all (default 50, spread over the six ways),
``ACP_TUI_STRESS_PARALLEL`` at a time (default 3).
"""

from __future__ import annotations

import os
import signal
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.processes import PtyTui, describe, tui_command
from tests.waiting import came_true

WAYS = ("ctrl+q", "ctrl+c twice", "SIGTERM", "SIGHUP", "pty closed", "SIGKILL")
RUNS = int(os.environ.get("ACP_TUI_STRESS_RUNS", "50"))
PARALLEL = int(os.environ.get("ACP_TUI_STRESS_PARALLEL", "3"))


@dataclass
class Run:
    way: str
    ended: bool
    leftovers: list[str]
    problem: str = ""


def _end(tui: PtyTui, way: str) -> None:
    if way == "ctrl+q":
        tui.type(b"\x11")
    elif way == "ctrl+c twice":
        tui.type(b"\x03")
        # The second press well within the double-press window: after the
        # first one's hint ("… again to quit"), or a second at most.
        came_true(lambda: tui.shows("again"), 1)
        tui.type(b"\x03")
    elif way == "pty closed":
        tui.close_master()
    else:
        tui.signal(getattr(signal, way))


def _run(way: str, folder: Path) -> Run:
    folder.mkdir()
    tui = PtyTui(tui_command("--cwd", str(folder)), cwd=folder)
    try:
        tui.wait_ready(60)
        report = folder / "tree.json"
        typed = len(tui.output)
        tui.type(f"spawn-tree {report}\r".encode())
        if not tui.wait_for(report.exists, 60):
            return Run(way, False, [], "the agent never started its children")
        if way in ("ctrl+q", "ctrl+c twice"):
            # Idle and empty: the reply is on screen and the status line last
            # said "ready" (the turn's end checkpoint has been taken).
            def idle() -> bool:
                out = tui.output
                return b"pids=" in out[typed:] and out.rfind(b"ready") > out.rfind(b"running")

            if not tui.wait_for(idle, 30):
                return Run(way, False, [], "the turn never ended")
        else:
            tui.type(b"slow 100000 0.002\r")  # output streams while it ends
        _end(tui, way)
        ended = tui.wait_exit(30)
        came_true(lambda: not tui.leftovers(), 10)
        return Run(way, ended, describe(tui.leftovers()))
    finally:
        tui.close()


@pytest.mark.timeout(900)
def test_open_and_close_the_tui_many_times_nothing_is_left(tmp_path: Path) -> None:
    ways = [WAYS[n % len(WAYS)] for n in range(RUNS)]
    with ThreadPoolExecutor(PARALLEL) as pool:
        runs = list(pool.map(lambda n: _run(ways[n], tmp_path / f"run-{n}"), range(len(ways))))
    failed = [run for run in runs if not run.ended or run.leftovers or run.problem]
    left = sum(len(run.leftovers) for run in runs)
    print(f"\n{len(runs)} runs ({', '.join(WAYS)}): {left} processes left behind")
    assert not failed, failed
