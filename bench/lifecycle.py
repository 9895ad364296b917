"""Nothing outlives acp-tui: how long until everything is gone (issue 12: < 2 s).

    python bench/lifecycle.py [--runs 5]

* SIGKILL of the headless host after the agent started three children (in
  its group, in a session of its own, orphaned): time until every process
  of the run is gone (the supervisor's doing: the host cannot clean up).
* The TUI on a real pty whose other side closes: idle, and while a turn
  streams output (the terminal backed up): time until acp-tui has exited,
  and until every process of the run is gone.
* The same with ``--detachable`` (the sessions in a background host, issue
  16: the TUI exits in under 2 s and the agent goes on): time until acp-tui
  has exited, and whether the turn was still running in the host then.
* What the supervisor costs at start: spawn to "the agent runs", through the
  supervisor and directly, for a trivial command.

Processes are found by a marker in their environment (tests/processes.py).
Prints figures only; the machine is noisy, so each line also gives the ratio
to the 2 s budget.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from acp_tui.core.transport import supervisor  # noqa: E402
from tests.processes import MARKER_VAR, PtyTui, marked, new_marker, tui_command  # noqa: E402

SCRIPTED = REPO / "tests" / "agents" / "scripted_agent.py"
BUDGET = 2.0


def _until(condition, timeout: float = 30.0) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    while not condition():
        if time.perf_counter() - start > timeout:
            raise RuntimeError("not reached")
        time.sleep(0.005)
    return time.perf_counter() - start


def headless_sigkill(folder: Path) -> float:
    marker = new_marker()
    host = subprocess.Popen(
        [sys.executable, "-m", "acp_tui", "--headless", "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, MARKER_VAR: marker},
        cwd=REPO,
    )
    assert host.stdin is not None and host.stdout is not None

    def call(rpc_id: int, method: str, params: dict[str, object]) -> dict[str, object]:
        assert host.stdin is not None and host.stdout is not None
        line = {"version": 1, "id": rpc_id, "method": method, "params": params}
        host.stdin.write(json.dumps(line).encode() + b"\n")
        host.stdin.flush()
        while True:
            frame = json.loads(host.stdout.readline())
            if frame.get("id") == rpc_id:
                return frame["result"]  # type: ignore[no-any-return]

    agent = {"command": sys.executable, "args": [str(SCRIPTED)]}
    opened = call(1, "connection.open", {"agent": agent, "cwd": str(folder)})
    created = call(2, "session.create", {"connectionId": opened["connectionId"]})
    report = folder / "tree.json"
    call(3, "session.prompt", {"sessionId": created["sessionId"], "text": f"spawn-tree {report}"})
    host.kill()
    start = time.perf_counter()
    host.wait()
    _until(lambda: not marked(marker))
    return time.perf_counter() - start


def tui_pty_closed(folder: Path, streaming: bool) -> tuple[float, float]:
    tui = PtyTui(tui_command("--cwd", str(folder)), cwd=folder)
    try:
        tui.wait_ready(60)
        if streaming:
            tui.type(b"flood 300000\r")
            _until(lambda: tui.pending_output() >= 4095)
            time.sleep(0.5)  # let the app's own queue fill behind the full pty
        tui.close_master()
        start = time.perf_counter()
        _until(lambda: not tui.proc.isalive())
        exited = time.perf_counter() - start
        _until(lambda: not tui.leftovers())
        return exited, time.perf_counter() - start
    finally:
        tui.close()


def detachable_pty_closed(folder: Path, env: dict[str, str]) -> tuple[float, bool]:
    tui = PtyTui(tui_command("--detachable", "--cwd", str(folder)), cwd=folder, env=env)
    try:
        tui.wait_ready(60)
        tui.type(b"slow 200 0.05\r")
        _until(lambda: tui.shows("line 3"))
        tui.close_master()
        start = time.perf_counter()
        _until(lambda: not tui.proc.isalive())
        exited = time.perf_counter() - start
    finally:
        tui.close()
    listed = subprocess.run(
        [sys.executable, "-m", "acp_tui", "ls", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    running = any(s["state"] == "running" for s in json.loads(listed.stdout))
    return exited, running


def start_cost(runs: int) -> tuple[float, float]:
    direct, supervised = [], []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(["true"], check=True)
        direct.append(time.perf_counter() - start)
        ours, theirs = socket.socketpair()
        start = time.perf_counter()
        proc = subprocess.Popen(
            [*supervisor.command("agent", str(theirs.fileno()), str(os.getpid())), "--", "true"],
            pass_fds=(theirs.fileno(),),
            start_new_session=True,
        )
        theirs.close()
        ours.recv(100)
        supervised.append(time.perf_counter() - start)
        proc.wait()
        ours.close()
    return statistics.median(direct), statistics.median(supervised)


def line(name: str, times: list[float]) -> str:
    median = statistics.median(times)
    return (
        f"{name:52} median {median:.3f} s, max {max(times):.3f} s"
        f"  ({max(times) / BUDGET:.2f} of the {BUDGET:g} s budget)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    root = Path(tempfile.mkdtemp(prefix="acp-tui-bench-"))
    folders = iter(root / str(n) for n in range(10_000))

    def fresh() -> Path:
        folder = next(folders)
        folder.mkdir()
        return folder

    print(line("headless SIGKILL -> all gone", [headless_sigkill(fresh()) for _ in range(runs)]))
    for streaming in (False, True):
        results = [tui_pty_closed(fresh(), streaming) for _ in range(runs)]
        what = "streaming" if streaming else "idle"
        print(line(f"TUI pty closed ({what}) -> acp-tui exited", [r[0] for r in results]))
        print(line(f"TUI pty closed ({what}) -> all gone", [r[1] for r in results]))
    runtime = Path(tempfile.mkdtemp(prefix="acpb-", dir="/tmp"))
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    # The host first, unmarked: one the TUI started would carry the TUI's
    # marker, and the TUI's leftovers are killed after each run.
    host = subprocess.Popen([sys.executable, "-m", "acp_tui", "host"], env=env, cwd=REPO)
    _until(lambda: (runtime / "acp-tui" / "host.sock").exists())
    try:
        results_d = [detachable_pty_closed(fresh(), env) for _ in range(runs)]
    finally:
        subprocess.run([sys.executable, "-m", "acp_tui", "host", "--stop"], env=env, check=False)
        host.wait()
    print(line("detachable TUI pty closed (streaming) -> exited", [r[0] for r in results_d]))
    still = sum(r[1] for r in results_d)
    print(f"{'  ... the turn still running in the host after it':52} {still} of {runs}")
    direct, supervised = start_cost(max(runs, 10))
    print(
        f"{'start `true`: direct / through the supervisor':52} {direct * 1000:.1f} ms /"
        f" {supervised * 1000:.1f} ms (x{supervised / direct:.1f})"
    )


if __name__ == "__main__":
    main()
