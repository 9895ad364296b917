"""Does the entry log cost the same per frame at 100 and at 100,000 entries?

    python bench/log_scale.py [--sizes 100,10000,100000]

For each size: builds a thread of that many entries (user prompts, markdown
replies, tool calls with diffs) in the real core types, opens it in the real
EntryLog inside a headless Textual app (120x40), and measures

* open: taking all entries in (heights estimated, nothing rendered);
* frame: rendering one full screen of not-yet-rendered entries at several
  places in the log (median) — the figure the target is about;
* update: one entry changing (the streaming case) plus a frame;
* memory per entry: the core's entries plus the log's index (tracemalloc).

Target: the 100,000 frame <= 1.5x the 100 frame. Prints figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time
import tracemalloc
from typing import Any

from textual.app import App, ComposeResult

from acp_tui.core.model.thread import Thread
from acp_tui.ui.log_source import LogSource
from acp_tui.ui.widgets.entry_log import EntryLog

REPLY = (
    "## Step {n}\n\nI looked at `module_{n}.py` and found the problem:\n\n"
    "- the loop runs one time too many,\n- the result is never cached.\n\n"
    "```python\nfor item in items[:-1]:\n    handle(item)\n```\n"
)


def build(count: int) -> Thread:
    thread = Thread()
    n = 0
    while len(thread) < count:
        kind = n % 3
        if kind == 0:
            thread.append_user([{"type": "text", "text": f"Please fix issue {n}"}])
        elif kind == 1:
            thread.add_text("message", REPLY.format(n=n), f"m{n}")
        else:
            thread.upsert_tool_call(
                {
                    "toolCallId": f"t{n}",
                    "title": f"Edit module_{n}.py",
                    "kind": "edit",
                    "status": "completed",
                    "content": [
                        {
                            "type": "diff",
                            "path": f"/work/module_{n}.py",
                            "oldText": "a = 1\nb = 2\n",
                            "newText": "a = 1\nb = 3\n",
                        }
                    ],
                }
            )
        n += 1
    return thread


class LogApp(App[None]):
    def __init__(self, source: LogSource) -> None:
        super().__init__()
        self.source = source

    def compose(self) -> ComposeResult:
        yield EntryLog(self.source, id="log")


def render_screen(log: EntryLog) -> float:
    started = time.perf_counter()
    for y in range(log.size.height):
        log.render_line(y)
    return time.perf_counter() - started


async def memory_per_entry(count: int) -> float:
    """Bytes per entry: the core's entries plus the log's index and caches."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    thread = build(count)
    source = LogSource()
    app = LogApp(source)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        source.add(thread.entries)
        app.query_one(EntryLog).sync()
        await pilot.pause()
        memory = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return memory / count


async def measure(count: int) -> dict[str, Any]:
    thread = build(count)
    source = LogSource()
    app = LogApp(source)
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(EntryLog)
        await pilot.pause()
        started = time.perf_counter()
        source.add(thread.entries)
        log.sync()
        opened = time.perf_counter() - started
        await pilot.pause()
        frames = []
        total = log._index.total()
        for step in range(1, 40):
            fraction = (step * 0.618) % 1.0  # spread over the whole log
            log.following = False
            log.scroll_to(y=int(total * fraction), animate=False, force=True)
            await pilot.pause()
            log._cache.clear()  # not-yet-rendered entries: the cold case
            frames.append(render_screen(log))
        log.action_scroll_end()
        await pilot.pause()
        last = len(thread) - 1
        updates = []
        for _ in range(20):
            started = time.perf_counter()
            thread.entries[last].version += 1
            log.entry_changed(last)
            render_screen(log)
            updates.append(time.perf_counter() - started)
    return {
        "open": opened,
        "frame": statistics.median(frames),
        "update": statistics.median(updates),
        "memory": await memory_per_entry(count),
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,10000,100000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results = {size: await measure(size) for size in sizes}
    print(f"{'entries':>8}  {'open':>9}  {'frame':>9}  {'update':>9}  {'memory/entry':>12}")
    for size, r in results.items():
        print(
            f"{size:>8,}  {r['open'] * 1000:7.1f}ms  {r['frame'] * 1000:7.2f}ms"
            f"  {r['update'] * 1000:7.2f}ms  {r['memory']:10,.0f} B"
        )
    smallest, largest = results[sizes[0]], results[sizes[-1]]
    ratio = largest["frame"] / smallest["frame"]
    print(f"frame at {sizes[-1]:,} / frame at {sizes[0]:,}: {ratio:.2f}x  (target <= 1.5x)")


if __name__ == "__main__":
    asyncio.run(main())
