"""The acp-tui command line (AC-17 and friends), run as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from acp_tui import ACP_HOST_VERSION
from tests.test_list_agents import local_rows

#: No user config file: these tests see the presets only.
NO_CONFIG = str(Path(__file__).parent / "no-such-acp-tui-config.toml")


def run(*args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ACP_TUI_CONFIG": NO_CONFIG}
    if path is not None:
        env["PATH"] = path
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_version_prints_the_host_stamp() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert ACP_HOST_VERSION in result.stdout


def test_list_agents_shows_every_preset_and_availability(tmp_path: Path) -> None:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    codex = fake_bin / "codex-acp"
    codex.write_text("#!/bin/sh\n")
    codex.chmod(0o755)
    result = run("--list-agents", path=str(fake_bin))
    assert result.returncode == 0
    lines = local_rows(result.stdout)
    assert set(lines) == {"claude", "codex", "gemini", "qwen", "opencode", "goose", "demo"}
    assert "found" in lines["codex"] and str(codex) in lines["codex"]
    assert "missing" in lines["claude"]
    assert "@zed-industries/claude-agent-acp" in lines["claude"]
    assert "built in" in lines["demo"]


def test_ac17_missing_agent_is_a_short_friendly_error(tmp_path: Path) -> None:
    result = run("claude", path=str(tmp_path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "'claude'" in result.stderr
    assert "claude-agent-acp" in result.stderr and "claude-code-acp" in result.stderr
    assert "npm install -g @zed-industries/claude-agent-acp" in result.stderr
    assert len(result.stderr.splitlines()) <= 10


def test_ac17_missing_command_after_double_dash(tmp_path: Path) -> None:
    result = run("--", "no-such-agent-xyz", "--flag", path=str(tmp_path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "no-such-agent-xyz" in result.stderr


def test_ac17_headless_missing_preset(tmp_path: Path) -> None:
    result = run("--headless", "--stdio", "gemini", path=str(tmp_path))
    assert result.returncode == 2
    assert "npm install -g @google/gemini-cli" in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_preset_and_bad_flags() -> None:
    unknown = run("nonsense")
    assert unknown.returncode == 2 and "unknown agent 'nonsense'" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    both = run("demo", "--", "x")
    assert both.returncode == 2
    headless_only = run("--headless")
    assert headless_only.returncode == 2 and "--stdio" in headless_only.stderr


def test_bad_cwd_and_allow_root(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    for flag in ("--cwd", "--allow-root"):
        result = run("--headless", "--stdio", flag, str(missing))
        assert result.returncode == 2
        assert "Traceback" not in result.stderr


def test_preset_command_lines(tmp_path: Path) -> None:
    """What each preset runs (checked against the agents' own --help; see the README)."""
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    for name in ("claude-code-acp", "codex-acp", "gemini", "qwen", "opencode", "goose"):
        executable = fake_bin / name
        executable.write_text("#!/bin/sh\n")
        executable.chmod(0o755)
    result = run("--list-agents", path=str(fake_bin))
    assert result.returncode == 0
    lines = {
        name: line.split("  (registry: ")[0].split()[2:]
        for name, line in local_rows(result.stdout).items()
    }
    assert lines["claude"] == [str(fake_bin / "claude-code-acp")]  # the older adapter's name
    assert lines["codex"] == [str(fake_bin / "codex-acp")]
    assert lines["gemini"] == [str(fake_bin / "gemini"), "--acp"]
    assert lines["qwen"] == [str(fake_bin / "qwen"), "--acp"]
    assert lines["opencode"] == [str(fake_bin / "opencode"), "acp"]
    assert lines["goose"] == [str(fake_bin / "goose"), "acp"]
    assert lines["demo"][-1] == "(default)"


def test_resume_flags(tmp_path: Path) -> None:
    # `--resume claude` names the agent, not a session id.
    as_agent = run("--resume", "claude", path=str(tmp_path))
    assert as_agent.returncode == 2
    assert "'claude' agent is not installed" in as_agent.stderr
    headless = run("--headless", "--stdio", "--continue")
    assert headless.returncode == 2
    assert "--resume/--continue are for the TUI" in headless.stderr
    both = run("--resume", "--continue")
    assert both.returncode == 2 and "not allowed with" in both.stderr
