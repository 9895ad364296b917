"""Does switching sessions cost one frame, however long they are?

    python bench/sessions.py [--sessions 8] [--entries 10000] [--rounds 15]

Opens the app (in-process, headless, 120x40) on bench/flood_agent.py and
fills S sessions, one tab each, with ``entries N/2``: N entries apiece (a
tool call and a line of text, N/2 times). Then, in the same run, alternately:

* switch: what Alt+N runs, to the next tab, until the frame after it is drawn;
* page: a page up in the current tab (not animated: one frame), until the
  frame after it is drawn.

Prints the medians and switch ÷ page (target: about one, i.e. a switch costs
what a frame of scrolling costs), and the resident memory each session adds
(VmRSS after filling the sessions, minus before, divided by S).
Prints figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from acp_tui.core import AgentSpec, Host
from acp_tui.ui.app import AcpApp

HERE = Path(__file__).resolve().parent


def rss_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


async def run(sessions: int, entries: int, rounds: int) -> None:
    spec = AgentSpec.of(sys.executable, [str(HERE / "flood_agent.py")], {}, name="flood")
    app = AcpApp(spec, cwd=HERE, host=Host())
    async with app.run_test(size=(120, 40)) as pilot:

        async def until(condition: object, timeout: float = 600) -> None:
            deadline = time.monotonic() + timeout
            while not condition():  # type: ignore[operator]
                if time.monotonic() > deadline:
                    raise TimeoutError("the sessions did not fill")
                await pilot.pause(0.05)

        def filled() -> bool:
            view = app.tab.conversation.current
            return (
                view is not None
                and view.status == "idle"
                and len(view.entries) >= entries
                and not app.tab.log.revealing
            )

        await until(lambda: app.tab.conversation.current is not None)
        base = rss_bytes()
        for n in range(sessions):
            if n:
                app.open_tab(spec)
                await until(lambda: app.tab.conversation.current is not None)
            app.tab.turns.submit(f"entries {entries // 2}")
            await until(filled)
        await pilot.pause(0.5)
        per_session = (rss_bytes() - base) / sessions

        switch, page = [], []
        for r in range(rounds):
            start = time.perf_counter()
            app.action_switch_tab((r % sessions) + 1)  # what Alt+N runs
            await pilot.pause()
            switch.append(time.perf_counter() - start)
            log = app.tab.log
            start = time.perf_counter()
            log.scroll_relative(y=-log.size.height, animate=False)  # Page Up, unanimated
            await pilot.pause()
            page.append(time.perf_counter() - start)
        await app.action_quit()  # (no question: nothing runs)
    s, p = statistics.median(switch), statistics.median(page)
    print(f"{sessions} sessions x {entries} entries, {rounds} rounds (medians)")
    print(f"switch        {s * 1000:8.1f} ms")
    print(f"page up       {p * 1000:8.1f} ms")
    print(f"switch / page {s / p:8.2f}")
    print(f"RSS per session {per_session / 1e6:6.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--entries", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    asyncio.run(run(args.sessions, args.entries, args.rounds))


if __name__ == "__main__":
    main()
