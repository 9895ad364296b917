"""How fast is ``@`` completion on a 50,000-file tree?

    python bench/file_index.py [--files 50000] [--no-git]

Generates a tree of that many files (nested folders named from a small word
list, so that most paths share letters: a hard case for a fuzzy prefilter) in
a temporary directory, then for a walked tree and for a git work tree (all
files committed, plus a .gitignore) measures

* build: listing the tree and preparing the index (what runs in a worker
  thread once per session and on lazy refreshes), with the number of paths;
* query: one keystroke's search, for queries typed one character at a time
  (each keystroke extends the previous query, as in the prompt), and the same
  queries asked cold (a fresh index, no previous keystroke to build on):
  median and worst per keystroke, in milliseconds.

Target: a keystroke's query well under a frame (16 ms). Prints figures only.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from acp_tui.core.prompting.file_index import FileIndex

WORDS = " ".join(
    [
        "app api auth cache client config core data db event file format handler http index io",
        "lib log main model net parse plugin render request schema server service session store",
        "stream sync task test thread token ui user util view widget worker",
    ]
).split()
EXTENSIONS = ["py", "ts", "js", "md", "json", "rs", "go", "txt", "tsx", "css"]
TYPED = [
    "greet",
    "renderwidget",
    "usrsvc",
    "srcmain",
    "src/app/",
    "tokenview",
    "zzz",
    "confighandler",
]


def generate(root: Path, count: int, seed: int = 1) -> None:
    """``count`` files in about ``count / 12`` nested folders (as in real repositories)."""
    rng = random.Random(seed)
    folders = ["src", "pkg", "tests", "docs"]
    while len(folders) < max(4, count // 12):
        parent = rng.choice(folders)
        if parent.count("/") < 6:
            name = rng.choice(WORDS) + rng.choice(["", "s", "_" + rng.choice(WORDS)])
            folders.append(f"{parent}/{name}")
    folders = sorted(set(folders))
    made: set[str] = set()
    while len(made) < count:
        stem = rng.choice(WORDS) + rng.choice(
            ["", "_" + rng.choice(WORDS), rng.choice(WORDS).title()]
        )
        rel = f"{rng.choice(folders)}/{stem}.{rng.choice(EXTENSIONS)}"
        if rel not in made:
            made.add(rel)
    for folder in folders:
        (root / folder).mkdir(parents=True, exist_ok=True)
    for rel in made:
        (root / rel).touch()
    (root / "greet.py").touch()
    (root / ".gitignore").write_text("*.log\nbuild/\n")


def git_commit(root: Path) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "tree"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def measure(root: Path, label: str) -> None:
    builds = []
    index = FileIndex(root)
    for _ in range(3):
        started = time.perf_counter()
        index.build()
        builds.append(time.perf_counter() - started)
    print(
        f"{label:5} build: {statistics.median(builds) * 1000:7.1f} ms median of 3 "
        f"({len(index):,} paths, source={index.source}, truncated={index.truncated})"
    )
    typed: list[float] = []
    cold: list[float] = []
    for word in TYPED:
        for end in range(1, len(word) + 1):
            started = time.perf_counter()
            index.search(word[:end])
            typed.append(time.perf_counter() - started)
    for word in TYPED:
        for end in range(1, len(word) + 1):
            fresh = FileIndex(root)
            fresh._snapshot = index._snapshot  # the same listing, no scan to resume
            if fresh._snapshot is not None:
                fresh._snapshot._progress.clear()
            started = time.perf_counter()
            fresh.search(word[:end])
            cold.append(time.perf_counter() - started)
    for name, times in (("typed", typed), ("cold", cold)):
        ms = sorted(t * 1000 for t in times)
        median, p90, worst = statistics.median(ms), ms[int(len(ms) * 0.9)], ms[-1]
        print(
            f"{label:5} query ({name}, {len(ms)} keystrokes): median {median:5.2f} ms,"
            f" p90 {p90:5.2f} ms, worst {worst:5.2f} ms"
        )
    best = [m.path for m in index.search("renderwidget", 3)]
    print(f"{label:5} top 3 for 'renderwidget': {best}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--no-git", action="store_true", help="skip the git work tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="acp-tui-bench-") as tmp:
        root = Path(tmp) / "tree"
        started = time.perf_counter()
        generate(root, args.files)
        print(f"generated {args.files:,} files in {time.perf_counter() - started:.1f} s")
        measure(root, "walk")
        if not args.no_git and shutil.which("git"):
            started = time.perf_counter()
            git_commit(root)
            print(f"git add/commit took {time.perf_counter() - started:.1f} s")
            measure(root, "git")


if __name__ == "__main__":
    main()
