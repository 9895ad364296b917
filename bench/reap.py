"""How long closing a connection takes until the agent's whole group is gone (AC-2: < 2 s).

    python bench/reap.py [--runs 5]

Two agents: the scripted test agent with a grandchild (goes on SIGTERM), and
one that ignores SIGTERM with a grandchild that does too (needs SIGKILL after
the grace). Prints the median time of `connection.close` for each.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from acp_tui.core.connection import AgentSpec
from acp_tui.core.host import Host
from acp_tui.core.transport.process import group_members

REPO = Path(__file__).resolve().parents[1]
SCRIPTED = REPO / "tests" / "agents" / "scripted_agent.py"
STUBBORN = """
import runpy, signal, subprocess, sys
signal.signal(signal.SIGTERM, signal.SIG_IGN)
subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 1000"])
sys.argv = [{agent!r}]
runpy.run_path({agent!r}, run_name="__main__")
"""


async def close_time(spec: AgentSpec, cwd: Path) -> float:
    host = Host()
    connection, _ = await host.open_connection(spec, cwd)
    assert connection.process is not None
    pgid = connection.process.pgid
    await asyncio.sleep(0.3)
    started = time.perf_counter()
    await host.close_connection(connection.connection_id)
    elapsed = time.perf_counter() - started
    assert group_members(pgid) == [], "the group must be gone when close returns"
    await host.shutdown()
    return elapsed


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    cwd = Path(tempfile.mkdtemp())
    stubborn = cwd / "stubborn.py"
    stubborn.write_text(STUBBORN.format(agent=str(SCRIPTED)))
    specs = {
        "agent that stops on SIGTERM": AgentSpec.of(sys.executable, [str(SCRIPTED)]),
        "agent + grandchild ignoring SIGTERM": AgentSpec.of(sys.executable, [str(stubborn)]),
    }
    for name, spec in specs.items():
        times = [await close_time(spec, cwd) for _ in range(runs)]
        print(
            f"{name:38} median {statistics.median(times):.3f} s, max {max(times):.3f} s"
            "  (target < 2 s)"
        )


if __name__ == "__main__":
    asyncio.run(main())
