"""What starting acp-tui imports, read from the real program's ``-X importtime``.

``--version``, ``--help`` and ``--list-agents`` load neither Textual nor the
SDK's schema (acp, pydantic). The TUI paints its first frame before it loads
what only an agent connection needs: the SDK, JSON-RPC, the agent process.
(How long these take is bench/startup.py's business, not a test's.)
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_agents import SCRIPTED_AGENT
from tests.processes import PtyTui

#: Top-level packages a command-line answer must not load.
UI_AND_SDK = ("textual", "rich", "acp", "pydantic", "pydantic_core")
#: What only a connection to an agent needs.
CONNECTION_ONLY = re.compile(
    rb"\|\s+(acp|acp\.schema|pydantic|pydantic_core"
    rb"|acp_tui\.core\.(connection|transport\.acp_protocol|transport\.jsonrpc"
    rb"|transport\.process|sessions\.session))\s*$",
    re.MULTILINE,
)
#: The prompt's placeholder, drawn by the first frame (its "M" sits under the cursor).
FIRST_FRAME = b"essage the agent"


def imported(args: list[str]) -> list[str]:
    """The modules ``acp-tui ARGS`` imports, in order (its ``-X importtime``)."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "acp_tui", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    names = [
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and "self [us]" not in line
    ]
    assert "acp_tui.cli" in names, result.stderr[-2000:]
    return names


@pytest.mark.parametrize(
    ("args", "shows"),
    [
        (["--version"], "acp-tui "),
        (["--help"], "usage: acp-tui"),
        (["--list-agents"], "claude"),
        (["--list-agents", "gemini"], "gemini"),
    ],
)
def test_command_line_answers_load_no_ui_and_no_sdk(args: list[str], shows: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "acp_tui", *args], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert shows in result.stdout
    loaded = sorted({n for n in imported(args) if n.split(".")[0] in UI_AND_SDK})
    assert loaded == [], f"acp-tui {' '.join(args)} imported {loaded}"


def test_version_imports_nothing_but_the_command() -> None:
    names = imported(["--version"])
    assert sorted(n for n in names if n.startswith("acp_tui")) == ["acp_tui", "acp_tui.cli"]
    assert "argparse" not in names  # (it is not even parsed: the answer is known)


def test_help_imports_no_more_than_the_parser_needs() -> None:
    ours = sorted(n for n in imported(["--help"]) if n.startswith("acp_tui"))
    assert ours == ["acp_tui", "acp_tui.agents", "acp_tui.agents.presets", "acp_tui.cli"]


def test_the_tui_paints_before_it_loads_the_connection(tmp_path: Path) -> None:
    # -X importtime writes each import statement's module to stderr, which is
    # the pty the TUI draws on: the output is the order in which things
    # happened. (importlib.import_module is not logged, what it imports is.)
    argv = [sys.executable, "-X", "importtime", "-m", "acp_tui", "--cwd", str(tmp_path)]
    tui = PtyTui([*argv, "--", sys.executable, str(SCRIPTED_AGENT)], cwd=tmp_path)
    try:
        tui.wait_ready()  # the agent is connected: the SDK was loaded after all
        output = bytes(tui.output)
        painted = output.find(FIRST_FRAME)
        assert painted >= 0, output[-2000:]
        before = [m.group(1).decode() for m in CONNECTION_ONLY.finditer(output[:painted])]
        assert before == [], f"imported before the first frame: {before}"
        after = {m.group(1).decode() for m in CONNECTION_ONLY.finditer(output[painted:])}
        assert {"acp.schema", "pydantic", "acp_tui.core.transport.jsonrpc"} <= after, sorted(after)
        tui.type(b"\x11")  # Ctrl+Q
        assert tui.wait_exit(), "acp-tui did not quit"
    finally:
        tui.close()
