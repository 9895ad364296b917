"""`acp-tui --list-agents [QUERY]`: the presets, the config file's agents and the
ACP registry's, whether each is installed here and how to get it. The real CLI
in a subprocess, fake programs on PATH."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from acp_tui.agents import presets
from acp_tui.agents.registry import load_registry
from tests.conftest import REPO

NO_CONFIG = str(Path(__file__).parent / "no-such-acp-tui-config.toml")


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "ACP_TUI_CONFIG": NO_CONFIG, **env},
        cwd=REPO,
        timeout=60,
    )


def rows(stdout: str) -> dict[str, str]:
    """``{name: its row}`` of a --list-agents listing (rows start with two spaces
    and a name; the lines under a row are indented further)."""
    found = {}
    for line in stdout.splitlines():
        if line.startswith("  ") and not line.startswith("   "):
            found[line.split()[0]] = line
    return found


def local_rows(stdout: str) -> dict[str, str]:
    """The rows of the first section: the presets and the config file's agents."""
    return rows(stdout.split("\n\nACP agent registry", 1)[0])


def registry_rows(stdout: str) -> dict[str, str]:
    """The rows of the registry section."""
    tail = stdout.partition("ACP agent registry")[2]
    return rows(tail)


def details(stdout: str, name: str) -> list[str]:
    """The indented lines under ``name``'s row."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == [name])
    more = []
    for line in lines[start + 1 :]:
        if not line.startswith("   "):
            break
        more.append(line.strip())
    return more


def fake_bin(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        program = folder / name
        program.write_text("#!/bin/sh\nexit 0\n")
        program.chmod(0o755)
    return folder


def write_registry(path: Path, agents: list[Any], **snapshot: str) -> Path:
    path.write_text(json.dumps({"version": "1.0.0", "snapshot": snapshot, "agents": agents}))
    return path


# -- --list-agents ------------------------------------------------------------------------------


def test_list_agents_shows_every_registry_agent_with_its_status(tmp_path: Path) -> None:
    """Every agent of the shipped snapshot is listed with whether it is installed
    here and how to get it; presets and config agents come first."""
    bin_dir = fake_bin(tmp_path / "bin", "npx", "cline", "cursor-agent")
    result = run("--list-agents", PATH=str(bin_dir))
    assert result.returncode == 0, result.stderr
    registry = load_registry({})
    assert set(local_rows(result.stdout)) == set(presets.PRESETS)
    listed = registry_rows(result.stdout)
    assert set(listed) == set(registry.ids())
    header = next(line for line in result.stdout.splitlines() if "ACP agent registry" in line)
    assert f"snapshot of {registry.date}, {len(registry.agents)} agents" in header
    # Installed: its own program on PATH (an npx package's name, a binary's cmd).
    assert listed["cline"].split()[1] == "found"
    assert details(result.stdout, "cline")[0].startswith(f"runs: {bin_dir / 'cline'} --acp")
    assert listed["cursor"].split()[1] == "found"
    # Not installed, npx on PATH: acp-tui can run it after asking.
    auggie = registry.get("auggie")
    assert auggie is not None
    assert listed["auggie"].split()[1] == "npx"
    assert details(result.stdout, "auggie") == [
        "runs: AUGMENT_DISABLE_AUTO_UPDATE=1 npx --yes "
        f"{auggie.packages[0].package} --acp  (asks first) · {auggie.website}"
    ]
    assert f"{auggie.name}: {auggie.description}" in listed["auggie"]
    # A download only: the archive for this platform.
    kimi = registry.get("kimi")
    assert kimi is not None and kimi.binary("linux-x86_64") is not None
    if sys.platform == "linux" and os.uname().machine == "x86_64":
        assert listed["kimi"].split()[1] == "missing"
        assert kimi.binary("linux-x86_64").archive in details(result.stdout, "kimi")[0]  # type: ignore[union-attr]
    # uvx missing here: it says what is needed.
    assert listed["fast-agent"].split()[1] == "missing"
    assert details(result.stdout, "fast-agent")[0].startswith("needs uvx (uv): ")
    # A preset that is also in the registry: the registry fills in its hints.
    assert "(registry: claude-acp)" in local_rows(result.stdout)["claude"]
    assert details(result.stdout, "claude")[0].startswith(
        "or without installing it: acp-tui claude-acp  (runs npx --yes @agentclientprotocol/"
    )
    assert "(also the preset `claude`)" in listed["claude-acp"]
    assert details(result.stdout, "goose")[0].startswith("or download the registry's build: ")


def test_list_agents_query_searches_ids_names_and_descriptions(tmp_path: Path) -> None:
    registry = write_registry(
        tmp_path / "registry.json",
        [
            {"id": "alpha", "name": "Alpha", "description": "Writes Rust code",
             "distribution": {"npx": {"package": "alpha@1"}}},
            {"id": "beta-acp", "name": "Beta Agent", "description": "A helper",
             "distribution": {"uvx": {"package": "beta==2"}}},
            {"id": "gamma", "name": "Gamma", "description": "Rust, but slowly",
             "distribution": {"npx": {"package": "gamma@3"}}},
        ],
        date="2026-01-02",
    )  # fmt: skip
    env = {"ACP_TUI_REGISTRY": str(registry), "PATH": str(fake_bin(tmp_path / "bin", "npx"))}
    by_description = run("--list-agents", "rust", **env)
    assert by_description.returncode == 0
    assert set(rows(by_description.stdout)) == {"alpha", "gamma"}
    assert "2 of 3 agents, matching 'rust'" in by_description.stdout
    assert set(rows(run("--list-agents", "BETA AGENT", **env).stdout)) == {"beta-acp"}
    assert set(rows(run("--list-agents", "gamma", **env).stdout)) == {"gamma"}
    # Presets are searched too (name, title, install hint).
    assert set(local_rows(run("--list-agents", "claude", **env).stdout)) == {"claude"}
    assert "ACP agent registry" not in run("--list-agents", "claude", **env).stdout
    nothing = run("--list-agents", "no-such-thing", **env)
    assert nothing.returncode == 1
    assert nothing.stdout == "" and "no agent matches 'no-such-thing'" in nothing.stderr


def test_list_agents_imports_neither_textual_nor_the_sdk_schema() -> None:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "acp_tui", "--list-agents"],
        capture_output=True,
        text=True,
        env={**os.environ, "ACP_TUI_CONFIG": NO_CONFIG},
        cwd=REPO,
        timeout=60,
    )
    assert result.returncode == 0
    modules = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    assert "acp_tui.agents.registry" in modules  # the measurement saw the listing's imports
    heavy = {m for m in modules if m.split(".")[0] in ("textual", "rich", "pydantic", "acp")}
    assert heavy == set()


def test_on_a_terminal_the_listing_wraps_under_its_columns() -> None:
    """On a tty the rows wrap under the detail column to the terminal's width
    (piped, each row stays one line for grep)."""
    from acp_tui.agents.config import Config
    from acp_tui.agents.listing import list_agents

    registry = load_registry({})
    wrapped = list_agents(Config(), registry, ["vtcode"], columns=80)
    lines = wrapped.splitlines()
    assert all(len(line) <= 80 or "://" in line for line in lines), wrapped
    row = next(i for i, line in enumerate(lines) if line.startswith("  vtcode"))
    column = lines[row].index("VT Code")
    assert lines[row + 1].startswith(" " * column) and lines[row + 1][column] != " "
    flat = list_agents(Config(), registry, ["vtcode"])
    assert len([line for line in flat.splitlines() if line.startswith("   ")]) == 1
