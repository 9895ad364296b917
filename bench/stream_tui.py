"""How soon after an agent's last chunk does the TUI show the last character?

    python bench/stream_tui.py [--chunks 5000]

Runs the real app headless (App.run_test) on the real host core against
bench/flood_agent.py, which floods CHUNKS chunks of 20 characters and
notes the wall-clock time it wrote the last one. The app is polled until
the last line is on screen and nothing is left to reveal; the figure is the
time between the two (target <= 1 s). Prints figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from acp_tui.core.connection import AgentSpec
from acp_tui.core.host import Host
from acp_tui.ui.app import AcpApp

BENCH = Path(__file__).resolve().parent


async def run(chunks: int) -> None:
    stamp = Path(tempfile.mkdtemp()) / "last-chunk"
    spec = AgentSpec.of(
        sys.executable, [str(BENCH / "flood_agent.py")], {"FLOOD_STAMP_FILE": str(stamp)}
    )
    app = AcpApp(spec, cwd=Path.cwd(), host=Host())
    last_line = f"{chunks - 1:>19}"
    async with app.run_test(size=(120, 40)) as pilot:
        while app.session is None:
            await pilot.pause(0.01)
        app.prompt.insert(f"flood {chunks}")
        sent = time.time()
        app.prompt.action_submit()
        log = app.log_view
        while True:
            await asyncio.sleep(0.001)
            session = app.session
            if session is None or session.status != "idle" or log.revealing:
                continue
            screen = "\n".join(log.render_line(y).text for y in range(log.size.height))
            if last_line in screen:
                shown = time.time()
                break
        agent_last = float(stamp.read_text())
    print(f"{chunks:,} chunks of 20 characters through the TUI")
    print(f"agent wrote its last chunk {agent_last - sent:.3f} s after the prompt was sent")
    print(
        f"last character on screen {shown - agent_last:.3f} s after the agent's last chunk"
        "  (target <= 1 s)"
    )
    print(f"whole turn as the user saw it: {shown - sent:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=5000)
    args = parser.parse_args()
    os.environ.setdefault("ACP_TUI_LOG_LEVEL", "WARNING")
    asyncio.run(run(args.chunks))


if __name__ == "__main__":
    main()
