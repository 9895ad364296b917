"""The ACP agent registry: the shipped snapshot, its parser, the refresh script.
Real files, the real CLI in a subprocess, a loopback HTTP server; no network."""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tui.agents import presets
from acp_tui.agents.registry import SNAPSHOT, Package, load_registry, parse_registry
from tests.conftest import REPO
from tests.test_list_agents import rows, run, write_registry

# -- the shipped snapshot -----------------------------------------------------------------------


def test_the_shipped_snapshot_is_dated_sourced_and_complete() -> None:
    data = json.loads(SNAPSHOT.read_text())
    assert data["snapshot"]["date"] and data["snapshot"]["source"]
    assert data["snapshot"]["published"] == (
        "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"
    )
    registry = parse_registry(SNAPSHOT)
    assert registry.problems == []
    assert len(registry.agents) == len(data["agents"]) >= 30
    for agent in registry.agents:
        assert agent.id and agent.name and agent.description and agent.version, agent
        assert agent.packages or agent.binaries, agent
        assert agent.homepage == "" or agent.homepage.startswith("https://"), agent
    # The registry's data as published: one agent (qoder) gives no website or repository.
    assert sum(1 for agent in registry.agents if not agent.homepage) <= 1
    kinds = {p.runner for a in registry.agents for p in a.packages}
    assert kinds == {"npx", "uvx"} and any(a.binaries for a in registry.agents)
    # Every preset that names a registry twin names one the snapshot has.
    for preset in presets.PRESETS.values():
        assert preset.registry_id is None or registry.get(preset.registry_id), preset


def test_a_package_runs_as_format_md_says() -> None:
    """`npx <package> [args]`, or `npx --package <package> <cmd> [args]` with cmd;
    the same for uvx with --from (FORMAT.md of agentclientprotocol/registry)."""
    assert Package("npx", "@a/b@1.2.3", None, ("--acp",)).command() == [
        "npx",
        "--yes",
        "@a/b@1.2.3",
        "--acp",
    ]
    assert Package("npx", "@a/b@1.2.3", "b-acp", ()).command() == [
        "npx",
        "--yes",
        "--package",
        "@a/b@1.2.3",
        "b-acp",
    ]
    assert Package("uvx", "tool==0.1", None, ("acp",)).command() == ["uvx", "tool==0.1", "acp"]
    assert Package("uvx", "tool==0.1", "tool-acp", ()).command() == [
        "uvx",
        "--from",
        "tool==0.1",
        "tool-acp",
    ]
    assert Package("npx", "@a/b@1.2.3").name == "@a/b"
    assert Package("npx", "cline@3").name == "cline"
    assert Package("uvx", "fast-agent-acp==0.10.1").name == "fast-agent-acp"
    assert Package("uvx", "minion-code@0.1.8").name == "minion-code"


def test_bad_entries_are_skipped_with_a_reason_and_text_is_made_safe(tmp_path: Path) -> None:
    path = write_registry(
        tmp_path / "registry.json",
        [
            "not an object",
            {"id": "Bad Id", "name": "x", "distribution": {"npx": {"package": "x"}}},
            {"id": "no-dist", "name": "x"},
            {"id": "inject", "name": "x", "distribution": {"npx": {"package": "x\n[agents.evil]"}}},
            {"id": "option", "name": "x", "distribution": {"npx": {"package": "--registry=evil"}}},
            {"id": "binary-only-junk", "name": "x", "distribution": {"binary": {"linux": 3}}},
            {
                "id": "good",
                "name": "Good\x1b[31m agent",
                "description": "does\x07 things\nwell",
                "distribution": {
                    "npx": {
                        "package": "good@1.0.0",
                        "args": ["--acp"],
                        "env": {"GOOD_MODE": "1", "PATH": "/evil", "LD_PRELOAD": "/evil.so"},
                    }
                },
            },
            {"id": "good", "name": "again", "distribution": {"npx": {"package": "other"}}},
        ],
    )
    registry = parse_registry(path)
    assert registry.ids() == ["good"]
    good = registry.agents[0]
    assert good.name == "Good [31m agent" and good.description == "does things well"
    assert good.packages[0].env == (("GOOD_MODE", "1"),)
    assert len(registry.problems) == 7
    assert all(p.startswith(f"acp-tui: agent registry {path}: ") for p in registry.problems)
    assert "listed twice" in registry.problems[-1]

    broken = tmp_path / "broken.json"
    broken.write_text('{"agents": [')
    assert parse_registry(broken).agents == ()
    assert "not valid JSON" in parse_registry(broken).problems[0]
    assert "cannot read it" in parse_registry(tmp_path / "missing.json").problems[0]


def test_a_broken_registry_file_is_reported_and_the_presets_still_list(tmp_path: Path) -> None:
    broken = tmp_path / "registry.json"
    broken.write_bytes(b"\xff\xfe not json")
    result = run("--list-agents", ACP_TUI_REGISTRY=str(broken))
    assert result.returncode == 0
    assert f"acp-tui: agent registry {broken}: not valid JSON" in result.stderr
    assert "Traceback" not in result.stderr
    assert set(rows(result.stdout)) == set(presets.PRESETS)
    assert "ACP agent registry" not in result.stdout


# -- the refresh script -------------------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A loopback HTTP server for tmp_path; yields (base URL, folder)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(tmp_path), **kwargs)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", tmp_path
    finally:
        server.shutdown()
        server.server_close()


def refresh(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "scripts" / "refresh_registry.py"), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_refresh_script_downloads_checks_and_stamps_the_snapshot(
    served: tuple[str, Path], tmp_path: Path
) -> None:
    base, folder = served
    published = json.loads(SNAPSHOT.read_text())
    del published["snapshot"]
    published["agents"].append({"id": "Broken", "distribution": {}})
    (folder / "registry.json").write_text(json.dumps(published))
    output = tmp_path / "out.json"
    result = refresh("--url", f"{base}/registry.json", "--output", str(output))
    assert result.returncode == 0, result.stderr
    written = json.loads(output.read_text())
    assert written["snapshot"]["source"] == f"{base}/registry.json"
    assert written["snapshot"]["date"]
    assert "lastModified" in written["snapshot"]
    assert len(written["agents"]) == len(published["agents"])
    assert "will be skipped by acp-tui" in result.stderr
    assert parse_registry(output).ids() == load_registry({}).ids()

    # A bad download or a too-small registry leaves the old file alone.
    before = output.read_bytes()
    (folder / "small.json").write_text(json.dumps({"agents": published["agents"][:2]}))
    assert refresh("--url", f"{base}/small.json", "--output", str(output)).returncode == 1
    assert refresh("--url", f"{base}/missing.json", "--output", str(output)).returncode == 1
    (folder / "bad.json").write_text("<html>")
    bad = refresh("--url", f"{base}/bad.json", "--output", str(output))
    assert bad.returncode == 1 and "cannot use" in bad.stderr
    assert output.read_bytes() == before


def test_the_package_ships_the_snapshot_and_not_the_scripts() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert not any(p == "scripts" or p.startswith("scripts.") for p in config["packages"])
    patterns = config["package-data"]["acp_tui"]
    shipped = {p for pattern in patterns for p in (REPO / "acp_tui").glob(pattern)}
    assert SNAPSHOT in shipped
