"""How soon does acp-tui start? Two ratios, each measured alternately in one run.

    python bench/startup.py [--runs 7]

* First frame: the real ``acp-tui demo`` on a real pty (80x24), from spawn
  until its first paint is on the terminal (the prompt's placeholder, which
  the first frame draws before any agent has answered), against a minimal
  Textual app (one Static) on the same pty size. Target: ratio <= 1.5.
* ``acp-tui --version`` (the installed console script) against
  ``python -c pass``, to exit. Target: ratio <= 3.

Both run as installed programs do: from bytecode (the runs may write
``__pycache__`` even where ``PYTHONDONTWRITEBYTECODE`` is set, as ``pip
install`` compiles an installed package). Runs alternate (ours, theirs,
ours, ...) so the machine's noise hits both; the figures are medians.
Prints figures only (timing is never a test).
"""

from __future__ import annotations

import argparse
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

# tests.processes -> tests.conftest points the config, data and state folders
# at a temporary directory: the runs read no user config and write no history.
from tests.processes import PtyTui  # noqa: E402

#: Drawn by acp-tui's first frame: the prompt's placeholder (its "M" is under
#: the cursor, styled apart).
ACP_TUI_MARK = b"essage the agent"
MINIMAL_MARK = b"minimal first frame"
MINIMAL_APP = """\
from textual.app import App, ComposeResult
from textual.widgets import Static


class Minimal(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("minimal first frame")


Minimal().run()
"""
ROWS, COLUMNS = 24, 80
#: An editable install compiled anew on every start would measure the compiler.
BYTECODE = {"PYTHONDONTWRITEBYTECODE": ""}
FIRST_FRAME_TARGET = 1.5
VERSION_TARGET = 3.0


def acp_tui_script() -> list[str]:
    """The installed ``acp-tui`` next to this Python (else ``python -m acp_tui``)."""
    script = Path(sys.executable).parent / "acp-tui"
    found = str(script) if script.exists() else shutil.which("acp-tui")
    return [found] if found else [sys.executable, "-m", "acp_tui"]


def first_frame(argv: list[str], mark: bytes, cwd: Path) -> float:
    """Seconds from spawning ``argv`` on a pty until ``mark`` is on it."""
    start = time.perf_counter()
    env = {"ACP_TUI_DEMO_DELAY": "0", **BYTECODE}
    tui = PtyTui(argv, cwd=cwd, env=env, dimensions=(ROWS, COLUMNS))
    try:
        deadline = start + 60
        while mark not in tui.output:
            if time.perf_counter() > deadline:
                raise RuntimeError(f"{mark!r} never shown: {bytes(tui.output[-500:])!r}")
            select.select([tui.proc.fd], [], [], 0.5)
            tui.drain()
            if not tui.proc.isalive():
                tui.drain()
                if mark not in tui.output:
                    raise RuntimeError(f"exited before {mark!r}: {bytes(tui.output[-500:])!r}")
        seen = time.perf_counter()
        tui.type(b"\x11")  # Ctrl+Q: quit the normal way
        tui.wait_exit(15)
    finally:
        tui.close()
    return seen - start


def to_exit(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env={**os.environ, **BYTECODE})
    return time.perf_counter() - start


def line(what: str, ours: list[float], theirs: list[float], target: float) -> str:
    a, b = statistics.median(ours), statistics.median(theirs)
    return f"{what}: {a * 1000:.0f} ms / {b * 1000:.0f} ms = {a / b:.2f}  (target <= {target:g})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    folder = Path(tempfile.mkdtemp(prefix="acp-tui-bench-start-"))
    acp_tui = [*acp_tui_script(), "--cwd", str(folder), "demo"]
    minimal = [sys.executable, "-c", MINIMAL_APP]
    ours, theirs = [], []
    first_frame(acp_tui, ACP_TUI_MARK, folder)  # warm the bytecode caches
    first_frame(minimal, MINIMAL_MARK, folder)
    for _ in range(runs):
        ours.append(first_frame(acp_tui, ACP_TUI_MARK, folder))
        theirs.append(first_frame(minimal, MINIMAL_MARK, folder))
    print(line("first frame, acp-tui demo / minimal Textual app", ours, theirs, FIRST_FRAME_TARGET))
    version = [*acp_tui_script(), "--version"]
    nothing = [sys.executable, "-c", "pass"]
    ours, theirs = [], []
    to_exit(version)
    to_exit(nothing)
    for _ in range(max(runs, 20)):
        ours.append(to_exit(version))
        theirs.append(to_exit(nothing))
    print(line("acp-tui --version / python -c pass", ours, theirs, VERSION_TARGET))


if __name__ == "__main__":
    main()
