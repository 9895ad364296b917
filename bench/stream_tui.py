"""Does a long reply cost the TUI in proportion to its length?

    python bench/stream_tui.py [--sizes 5000,50000] [--size 20]

For each size N: starts the installed ``acp-tui`` on a real pty (120x40)
against bench/flood_agent.py and sends ``stream N 20``: N chunks of 20
characters, a paragraph every 10 chunks, the last one ending in
``end-of-stream.``. Measured: the TUI process's CPU time (user + system,
from /proc) between sending the prompt and the last chunk's end written to
the terminal (so fully revealed), divided by N; and the time between the
agent writing its last chunk and that end on screen.

Target: CPU per chunk at the largest size <= 1.5x that at the smallest
(issue 14). Prints figures only.
"""

from __future__ import annotations

import argparse
import time

from tui_pty import Tui


def measure(chunks: int, size: int) -> tuple[float, float, float]:
    """(CPU seconds per chunk, seconds from the agent's last chunk to the end
    on screen, seconds of the whole turn)."""
    tui = Tui()
    try:
        tui.ready()
        end = tui.expect("end-of-stream.")
        before = tui.cpu()
        sent = time.time()
        tui.type(f"stream {chunks} {size}\r")
        tui.wait(end, timeout=1200)
        cpu = tui.cpu() - before
        agent_last = tui.agent_done()
        assert agent_last is not None
        return cpu / chunks, end.wall - agent_last, end.wall - sent
    finally:
        tui.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="5000,50000")
    parser.add_argument("--size", type=int, default=20, help="characters per chunk")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    per_chunk = []
    for chunks in sizes:
        cpu, lag, whole = measure(chunks, args.size)
        per_chunk.append(cpu)
        print(
            f"{chunks:>7,} chunks: {cpu * 1e6:8.1f} µs CPU per chunk ({cpu * chunks:.2f} s),"
            f" end on screen {lag:.3f} s after the agent's last chunk, turn {whole:.2f} s",
            flush=True,
        )
    ratio = per_chunk[-1] / per_chunk[0]
    print(f"CPU per chunk, {sizes[-1]:,} / {sizes[0]:,}: {ratio:.2f}  (target <= 1.5)")


if __name__ == "__main__":
    main()
