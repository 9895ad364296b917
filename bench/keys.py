"""Does typing lag while a long reply streams?

    python bench/keys.py [--chunks 50000] [--keys 10] [--size 120x40]

Starts the installed ``acp-tui`` on a real pty against bench/flood_agent.py
and measures key-to-screen latency: the time from writing a key (``Ω``) to
the pty until the prompt line showing it is written back. First KEYS keys
on an idle TUI, then KEYS keys while ``stream CHUNKS 20`` floods it (one
key every 0.2 s after the previous one showed). Prints both medians and
their ratio (target <= 3, and the flood median ~50 ms; issue 14), and how
far the stream was drawn when the last key showed. Prints figures only.
"""

from __future__ import annotations

import argparse
import statistics
import time

from tui_pty import Tui

KEY = "Ω"
GAP = 0.2


def latencies(tui: Tui, keys: int, typed: int = 0) -> list[float]:
    found = []
    for n in range(typed + 1, typed + keys + 1):
        waiter = tui.expect(KEY * n)
        at = tui.type(KEY)
        found.append(tui.wait(waiter, timeout=60) - at)
        time.sleep(GAP)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=50000)
    parser.add_argument("--keys", type=int, default=10)
    parser.add_argument("--size", default="120x40")
    args = parser.parse_args()
    columns, rows = (int(n) for n in args.size.split("x"))
    tui = Tui(columns, rows)
    try:
        tui.ready()
        idle = latencies(tui, args.keys)
        tui.type("\x03")  # Ctrl+C: clear the draft
        time.sleep(0.3)
        tui.type(f"stream {args.chunks} 20\r")
        deadline = time.monotonic() + 60
        while tui.drawn < 100:  # the stream is on screen
            if time.monotonic() > deadline:
                raise TimeoutError("the stream never showed")
            time.sleep(0.01)
        flood = latencies(tui, args.keys)
        drawn = tui.drawn + 1
        finished = tui.agent_done() is not None
    finally:
        tui.close()
    print(
        f"key to screen, idle:  median {statistics.median(idle) * 1000:6.1f} ms"
        f"  (max {max(idle) * 1000:.1f})"
    )
    print(
        f"key to screen, flood: median {statistics.median(flood) * 1000:6.1f} ms"
        f"  (max {max(flood) * 1000:.1f}; each: " + " ".join(f"{x * 1000:.0f}" for x in flood) + ")"
    )
    print(f"flood / idle: {statistics.median(flood) / statistics.median(idle):.2f}  (target <= 3)")
    late = "  (the agent had finished: not every key was typed under the flood)"
    print(
        f"chunks drawn when the last key showed: {drawn:,} of {args.chunks:,}"
        + (late if finished else "")
    )


if __name__ == "__main__":
    main()
