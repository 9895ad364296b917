"""Throughput and memory of the host under a flood of text chunks.

    python bench/throughput.py [--chunks 200000] [--rss-chunks 1000000]

1. chunks/s through `acp-tui --headless --stdio` to a reader that keeps up,
   beside a bare SDK client (acp.spawn_agent_process) that only counts the
   same notifications: the ratio is the figure (target >= 0.7).
2. The host's resident memory during a 1,000,000-chunk flood read by a slow
   reader (it stalls between reads): baseline, peak, growth (target < 50 MB).

The agent is bench/flood_agent.py, which writes pre-serialized chunks so it
is never the bottleneck. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import acp
from acp.schema import TextContentBlock

BENCH = Path(__file__).resolve().parent
FLOOD_AGENT = [sys.executable, str(BENCH / "flood_agent.py")]


class CountingClient:
    def __init__(self) -> None:
        self.chunks = 0

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.chunks += 1

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def on_connect(self, conn: Any) -> None:
        pass


async def bare_sdk(chunks: int) -> float:
    client = CountingClient()
    async with acp.spawn_agent_process(client, *FLOOD_AGENT) as (conn, _proc):  # type: ignore[arg-type]
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=os.getcwd(), mcp_servers=[])
        started = time.perf_counter()
        await conn.prompt(
            session_id=session.session_id,
            prompt=[TextContentBlock(type="text", text=f"flood {chunks}")],
        )
        # prompt() returns when the agent answers; updates may still be queued.
        while client.chunks < chunks:
            await asyncio.sleep(0.001)
        elapsed = time.perf_counter() - started
    return chunks / elapsed


class Headless:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.next_id = 1

    @classmethod
    async def start(cls, buffer: int = 64 * 1024 * 1024) -> Headless:
        """``buffer``: the reader's line limit; asyncio stops reading the pipe
        once twice that is buffered, so a small one makes a stall a real one."""
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "acp_tui",
            "--headless",
            "--stdio",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=buffer,
        )
        return cls(proc)

    def send(self, method: str, params: dict[str, Any]) -> int:
        rpc_id = self.next_id
        self.next_id += 1
        frame = {"version": 1, "id": rpc_id, "method": method, "params": params}
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(frame).encode() + b"\n")
        return rpc_id

    async def until_response(self, rpc_id: int, stall: float = 0.0) -> tuple[dict[str, Any], int]:
        """Read frames until the response to ``rpc_id``; count text deltas on the way."""
        assert self.proc.stdout is not None
        deltas = 0
        lines = 0
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the host ended")
            lines += 1
            if stall and lines % 1000 == 0:
                await asyncio.sleep(stall)
            if b'"textDelta"' in line:
                deltas += 1
                continue
            frame = json.loads(line)
            if frame.get("id") == rpc_id:
                return frame, deltas

    async def open_session(self) -> str:
        agent = {"command": FLOOD_AGENT[0], "args": FLOOD_AGENT[1:]}
        frame, _ = await self.until_response(self.send("connection.open", {"agent": agent}))
        connection = frame["result"]["connectionId"]
        frame, _ = await self.until_response(
            self.send("session.create", {"connectionId": connection})
        )
        return str(frame["result"]["sessionId"])

    async def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        await self.proc.wait()


async def headless(chunks: int) -> tuple[float, int]:
    host = await Headless.start()
    session = await host.open_session()
    started = time.perf_counter()
    rpc_id = host.send("session.prompt", {"sessionId": session, "text": f"flood {chunks}"})
    frame, deltas = await host.until_response(rpc_id)
    elapsed = time.perf_counter() - started
    assert frame["result"]["stopReason"] == "end_turn", frame
    await host.close()
    return chunks / elapsed, deltas


def rss_kib(pid: int) -> tuple[int, int]:
    """(current, peak) resident set size of ``pid`` in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


async def rss_under_flood(chunks: int, stall: float) -> tuple[int, int, int, float]:
    host = await Headless.start(buffer=4 * 1024 * 1024)
    session = await host.open_session()
    baseline, _ = rss_kib(host.proc.pid)
    started = time.perf_counter()
    rpc_id = host.send("session.prompt", {"sessionId": session, "text": f"flood {chunks}"})
    sampled_peak = 0

    async def sample() -> None:
        nonlocal sampled_peak
        while True:
            current, _ = rss_kib(host.proc.pid)
            sampled_peak = max(sampled_peak, current)
            await asyncio.sleep(0.05)

    sampler = asyncio.ensure_future(sample())
    _, deltas = await host.until_response(rpc_id, stall=stall)
    elapsed = time.perf_counter() - started
    sampler.cancel()
    _, peak = rss_kib(host.proc.pid)
    await host.close()
    return baseline, max(peak, sampled_peak), deltas, elapsed


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=200_000)
    parser.add_argument("--rss-chunks", type=int, default=1_000_000)
    parser.add_argument("--stall", type=float, default=0.2, help="seconds per 1000 lines")
    args = parser.parse_args()

    sdk_rate = await bare_sdk(args.chunks)
    host_rate, deltas = await headless(args.chunks)
    print(f"chunks: {args.chunks} of 20 characters (bench/flood_agent.py)")
    print(f"bare SDK client (counts only):   {sdk_rate:10,.0f} chunks/s")
    print(
        f"acp-tui --headless to a reader:  {host_rate:10,.0f} chunks/s  ({deltas:,} delta events)"
    )
    print(f"ratio headless / bare SDK:       {host_rate / sdk_rate:10.2f}  (target >= 0.7)")

    baseline, peak, deltas, elapsed = await rss_under_flood(args.rss_chunks, args.stall)
    print(
        f"\nRSS during a {args.rss_chunks:,}-chunk flood, slow reader "
        f"({args.stall * 1000:g} ms stall per 1000 lines, {elapsed:.1f} s):"
    )
    print(
        f"host baseline {baseline / 1024:.1f} MB, peak {peak / 1024:.1f} MB, "
        f"growth {(peak - baseline) / 1024:.1f} MB  (target < 50 MB)"
    )
    content = args.rss_chunks * 20 / 1024 / 1024
    print(f"(the session's own text, which the core keeps, is {content:.1f} MB of that)")
    print(
        f"the reader received {deltas:,} delta events for {args.rss_chunks:,} chunks "
        f"(merged under back-pressure)"
    )


if __name__ == "__main__":
    asyncio.run(main())
