"""The Textual front end (placeholder until the TUI lands)."""

from __future__ import annotations

from pathlib import Path

from acp_tui.core.connection import AgentSpec


def run_tui(spec: AgentSpec, *, cwd: Path, extra_roots: list[Path], theme: str | None) -> int:
    raise SystemExit("the TUI is not built yet")
