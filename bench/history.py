"""How long does a stored transcript take to write, read back and rebuild?

    python bench/history.py [--entries 100000]

Writes a session of N entries (user prompts and replies) through the real
SessionRecorder (one flush per turn, each fsync'ed), then reads it back with
read_transcript and rebuilds the entries as resuming does. Prints figures only;
opening the rebuilt entries in the log is bench/log_scale.py's "open".
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from acp_tui.core.model.entries import entry_from_wire
from acp_tui.core.model.thread import Thread
from acp_tui.core.storage.history_store import HistoryStore, read_transcript


class _Session:
    """What a recorder reads from a session: its thread and title."""

    def __init__(self) -> None:
        self.thread = Thread()
        self.title: str | None = "bench"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--flush-every", type=int, default=1000, help="entries per turn")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = HistoryStore(Path(folder))
        recorder = store.recorder("bench", agent="bench", cwd=Path(folder))
        session: Any = _Session()
        recorder.flush(session)  # the header; from here on only marked entries
        started = time.perf_counter()
        flushes = 0
        for n in range(args.entries // 2):
            session.thread.append_user([{"type": "text", "text": f"question {n}"}])
            session.thread.add_text("message", f"An answer to question {n}, in a few words.", None)
            recorder.changed(2 * n)  # as Session.commit marks them
            recorder.changed(2 * n + 1)
            if (2 * n + 2) % args.flush_every == 0:
                recorder.flush(session)
                flushes += 1
        recorder.flush(session)
        write = time.perf_counter() - started
        path = store.path_for("bench")
        size = path.stat().st_size
        started = time.perf_counter()
        transcript = read_transcript(path)
        read = time.perf_counter() - started
        started = time.perf_counter()
        entries = [entry_from_wire(wire) for wire in transcript.entries]
        rebuild = time.perf_counter() - started
    print(f"entries {len(entries):,}, file {size / 1e6:.1f} MB, {flushes + 1} fsync'ed flushes")
    print(f"write (all turns)  {write * 1000:8.1f} ms")
    print(f"read               {read * 1000:8.1f} ms")
    print(f"rebuild entries    {rebuild * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
