"""How long does the TUI take to show one huge single-line chunk?

    python bench/huge_chunk.py [--sizes 1,16] [--mode words|solid]

Runs the real app headless (App.run_test, 120x40) on the real host core
against tests/agents/hostile_agent.py, which answers ``huge N`` with one
message chunk of N characters and no line break (ending in END-OF-CHUNK).
The figure for each size is the time from sending the prompt until the
turn has ended, nothing is left to reveal and the chunk's end is on
screen; then a key typed into the prompt is timed until it shows. Sizes
are in MiB and measured in one run, so the ratio to the first is the
figure to compare (issue 12, point 7). Prints figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import time
from pathlib import Path

from acp_tui.core.connection import AgentSpec
from acp_tui.core.host import Host
from acp_tui.ui.app import AcpApp

REPO = Path(__file__).resolve().parent.parent
AGENT = REPO / "tests" / "agents" / "hostile_agent.py"


async def shown_after(size: int, mode: str) -> tuple[float, float]:
    """(seconds until the chunk's end is on screen, seconds until a typed key is)."""
    spec = AgentSpec.of(sys.executable, [str(AGENT)], name="hostile")
    app = AcpApp(spec, cwd=REPO, host=Host())
    async with app.run_test(size=(120, 40)) as pilot:
        while app.session is None:
            await pilot.pause(0.01)
        log = app.log_view
        app.prompt.insert(f"huge {size} {mode}")
        start = time.perf_counter()
        app.prompt.action_submit()
        while True:
            await asyncio.sleep(0.005)
            session = app.session
            if session is None or session.status != "idle" or log.revealing:
                continue
            # The chunk's rows joined again (a row may end inside the marker).
            rows = (log.render_line(y).text.strip() for y in range(log.size.height))
            if "END-OF-CHUNK" in "".join(rows):
                break
        shown = time.perf_counter() - start
        start = time.perf_counter()
        await pilot.press("z")
        while "z" not in app.prompt.text:
            await asyncio.sleep(0.001)
        key = time.perf_counter() - start
        await app.host.shutdown()
    return shown, key


async def run(sizes: list[float], mode: str) -> None:
    results = []
    for mib in sizes:
        size = int(mib * 1024 * 1024)
        shown, key = await shown_after(size, mode)
        results.append((mib, shown, key))
    base = results[0][1]
    print(f"one message chunk without a line break ({mode}), TUI at 120x40")
    for mib, shown, key in results:
        print(
            f"{mib:>6g} MiB: on screen after {shown:6.2f} s"
            f"  ({shown / base:5.1f}x the {results[0][0]:g} MiB chunk);"
            f" a key typed then shows after {key * 1000:.0f} ms"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the TUI process over the run: {peak:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,16", help="chunk sizes in MiB, comma-separated")
    parser.add_argument("--mode", default="words", choices=["words", "solid"])
    args = parser.parse_args()
    os.environ.setdefault("ACP_TUI_LOG_LEVEL", "WARNING")
    asyncio.run(run([float(s) for s in args.sizes.split(",")], args.mode))


if __name__ == "__main__":
    main()
