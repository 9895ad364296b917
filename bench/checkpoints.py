"""What does a checkpoint cost, against the floor of ``git add -A && git write-tree``?

    python bench/checkpoints.py [--files 10000] [--rounds 15]

Builds a tree of N small text files (nested folders, a ``.gitignore``, some
ignored files) in a temporary directory, then for three cases

* no change: nothing changed since the last checkpoint;
* one changed file;
* 100 changed files;

measures :meth:`Checkpoints.take` and the floor — ``git add -A && git
write-tree`` on the same tree with a plain shadow index of its own (no
untracked cache, no user config) — alternately within one run (engine first
in even rounds, floor first in odd ones), both seeing the same change. Prints
each case's medians and the ratio engine / floor (the machine is noisy: the
ratio is the figure), then the first checkpoint of the tree against the
floor's first ``add``; then restores of a turn that changed one file and 100
files, each against the floor run just after it (which sees the files the
restore wrote); then listing the checkpoints.
Prints figures only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from acp_tui.core.checkpoints.engine.engine import Checkpoints


def build_tree(root: Path, files: int) -> list[Path]:
    paths: list[Path] = []
    for n in range(files):
        folder = root / f"pkg{n % 40:02d}" / f"mod{(n // 40) % 25:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"file{n:05d}.py"
        path.write_text("".join(f"line {n} {k}\n" for k in range(30)))
        paths.append(path)
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    for n in range(50):
        (root / f"pkg{n % 40:02d}" / f"run{n}.log").write_text("ignored\n")
    return paths


class Floor:
    """``git add -A && git write-tree`` with an index of its own."""

    def __init__(self, root: Path, git_dir: Path) -> None:
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            "GIT_DIR": str(git_dir),
            "GIT_WORK_TREE": str(root),
            "GIT_INDEX_FILE": str(git_dir / "index"),
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        self.root = root
        subprocess.run(["git", "init", "-q", str(git_dir)], env=self.env, check=True)

    def run(self) -> None:
        for args in (["add", "-A"], ["write-tree"]):
            subprocess.run(
                ["git", *args], env=self.env, cwd=self.root, check=True, stdout=subprocess.DEVNULL
            )


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="acp-tui-bench-") as folder:
        base = Path(folder)
        root = base / "tree"
        paths = build_tree(root, args.files)
        checkpoints = Checkpoints([root], "bench", state_dir=base / "state")
        if not checkpoints.available:
            raise SystemExit(checkpoints.reason)
        floor = Floor(root, base / "floor")
        first_engine = timed(lambda: checkpoints.take("before-turn", turn=0))
        first_floor = timed(floor.run)
        print(f"tree: {args.files:,} files, {args.rounds} rounds per case, medians in ms")
        print(
            f"{'first checkpoint':18} engine {first_engine * 1000:8.1f}  floor "
            f"{first_floor * 1000:8.1f}  ratio {first_engine / first_floor:5.2f}"
        )
        edit = 0
        for case, count in (("no change", 0), ("1 changed file", 1), ("100 changed files", 100)):
            engine_times: list[float] = []
            floor_times: list[float] = []
            for round_number in range(args.rounds):
                for offset in range(count):
                    path = paths[(edit + offset * 97) % len(paths)]
                    path.write_text(path.read_text() + f"edit {edit}\n")
                edit += 1
                steps: list[tuple[list[float], Callable[[], object]]] = [
                    (engine_times, partial(checkpoints.take, "after-turn", turn=edit)),
                    (floor_times, floor.run),
                ]
                if round_number % 2:
                    steps.reverse()
                for times, call in steps:
                    times.append(timed(call))
            engine = statistics.median(engine_times)
            floor_median = statistics.median(floor_times)
            print(
                f"{case:18} engine {engine * 1000:8.1f}  floor {floor_median * 1000:8.1f}"
                f"  ratio {engine / floor_median:5.2f}"
            )
        for case, count in (("restore 1 file", 1), ("restore 100 files", 100)):
            restore_times: list[float] = []
            floor_times = []
            for _round in range(max(3, args.rounds // 2)):
                start = checkpoints.take("before-turn", turn=edit)
                for offset in range(count):
                    path = paths[(edit + offset * 89) % len(paths)]
                    path.write_text(path.read_text() + "turn\n")
                edit += 1
                checkpoints.take("after-turn", turn=edit)
                floor.run()  # the floor's index sees the turn too
                restore_times.append(timed(partial(checkpoints.restore, start.checkpoint_id)))
                floor_times.append(timed(floor.run))  # it sees the files the restore wrote
            restore = statistics.median(restore_times)
            floor_median = statistics.median(floor_times)
            print(
                f"{case:18} engine {restore * 1000:8.1f}  floor {floor_median * 1000:8.1f}"
                f"  ratio {restore / floor_median:5.2f}"
            )
        listed = len(checkpoints.list_checkpoints())
        listing = timed(checkpoints.list_checkpoints)
        print(f"{'list':18} engine {listing * 1000:8.1f}  ({listed} checkpoints, files of each)")


if __name__ == "__main__":
    main()
