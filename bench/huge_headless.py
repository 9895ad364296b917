"""What huge chunks cost the headless host: memory, lines, history, answers.

    python bench/huge_headless.py [--runs "1x60,8x40"]

For each run ("COUNTxMIB": COUNT message chunks of MIB MiB in one turn,
from tests/agents/hostile_agent.py) a fresh ``acp-tui --headless --stdio``
(default budget, history on, in a temporary XDG home) runs the turn while a
cheap request (a snapshot of an unknown session) is sent every 100 ms.
Printed: the host's peak RSS (VmHWM), the longest event line it wrote, the
history file's size, how many of those requests were answered during the
turn and the slowest answer, how long the turn took, and the size of one
snapshot of the session afterwards (a snapshot is the whole state: it is
bounded by the session's budget, not by the line limit of events).
Issue 12, point 8 measured 404 MB and one 63 MB line for one 60 MB chunk,
and 1.24 GB, a 323 MB history file and over 10 s without an answer for
eight 40 MB chunks. Prints figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
AGENT = REPO / "tests" / "agents" / "hostile_agent.py"
MIB = 1024 * 1024


class Client:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.answers: dict[int, asyncio.Future[dict[str, object]]] = {}
        self.longest = 0
        self.sizes: dict[int, int] = {}
        self.next_id = 1
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while line := await self.proc.stdout.readline():
            frame = json.loads(line)
            if "event" in frame:
                self.longest = max(self.longest, len(line))
            else:
                self.sizes[frame["id"]] = len(line)
            future = self.answers.pop(frame.get("id", -1), None)
            if future is not None:
                future.set_result(frame)

    def send(self, method: str, params: dict[str, object]) -> asyncio.Future[dict[str, object]]:
        rpc_id, self.next_id = self.next_id, self.next_id + 1
        future: asyncio.Future[dict[str, object]] = asyncio.get_running_loop().create_future()
        self.answers[rpc_id] = future
        assert self.proc.stdin is not None
        message = {"version": 1, "id": rpc_id, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        return future


def peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


async def run(count: int, size_mib: float) -> None:
    home = Path(tempfile.mkdtemp(prefix="acp-tui-bench-"))
    env = {
        **os.environ,
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "ACP_TUI_CONFIG": str(home / "none.toml"),
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "acp_tui",
        "--headless",
        "--stdio",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=env,
        cwd=str(home),
        limit=256 * MIB,
    )
    client = Client(proc)
    agent = {"command": sys.executable, "args": [str(AGENT)]}
    opened = await client.send("connection.open", {"agent": agent, "cwd": str(home)})
    connection_id = opened["result"]["connectionId"]  # type: ignore[index]
    created = await client.send("session.create", {"connectionId": connection_id})
    session_id = created["result"]["sessionId"]  # type: ignore[index]
    size = int(size_mib * MIB)
    start = time.perf_counter()
    prompt = {"sessionId": session_id, "text": f"chunks {count} {size}"}
    turn = client.send("session.prompt", prompt)
    answered, slowest = 0, 0.0
    while not turn.done():
        asked = time.perf_counter()
        snapshot = client.send("session.snapshot", {"sessionId": "none"})
        await asyncio.wait({snapshot, turn}, return_when=asyncio.FIRST_COMPLETED)
        if snapshot.done():
            answered += 1
            slowest = max(slowest, time.perf_counter() - asked)
            await asyncio.sleep(0.1)
        else:
            await snapshot
    took = time.perf_counter() - start
    rss = peak_rss(proc.pid)
    await client.send("session.snapshot", {"sessionId": session_id})
    snapshot_size = client.sizes[client.next_id - 1]
    proc.stdin.close()  # type: ignore[union-attr]
    await proc.wait()
    history = sum(p.stat().st_size for p in (home / "data").rglob("*.jsonl"))
    spilled = sum(p.stat().st_size for p in (home / "state").rglob("*.txt"))
    print(
        f"{count} x {size_mib:g} MiB: peak RSS {rss / MIB:.0f} MiB, longest event line"
        f" {client.longest / MIB:.2f} MiB, history {history / MIB:.1f} MiB (spill files"
        f" {spilled / MIB:.0f} MiB), turn {took:.1f} s, {answered} requests answered"
        f" meanwhile (slowest {slowest:.2f} s), a snapshot after it {snapshot_size / MIB:.1f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", default="1x60,8x40")
    args = parser.parse_args()
    for spec in args.runs.split(","):
        count, _, size = spec.partition("x")
        asyncio.run(run(int(count), float(size)))


if __name__ == "__main__":
    main()
