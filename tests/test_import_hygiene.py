"""The host core and the headless server never load Textual or Rich."""

from __future__ import annotations

import subprocess
import sys

HEADLESS_MODULES = [
    "acp_tui",
    "acp_tui.core.host",
    "acp_tui.core.connection",
    "acp_tui.core.session",
    "acp_tui.core.thread",
    "acp_tui.core.channel",
    "acp_tui.core.permissions",
    "acp_tui.core.fs",
    "acp_tui.core.terminals",
    "acp_tui.core.elicitation_form",
    "acp_tui.server.server",
    "acp_tui.server.methods",
    "acp_tui.agents.presets",
    "acp_tui.agents.registry",
    "acp_tui.agents.listing",
    "acp_tui.agents.registry_consent",
    "acp_tui.agents.demo",
    "acp_tui.cli",
]
FORBIDDEN = ("textual", "rich", "acp_tui.ui")


def test_headless_modules_import_no_ui() -> None:
    script = (
        "import importlib, sys\n"
        f"for name in {HEADLESS_MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}"
        f" or m.startswith('acp_tui.ui'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "", f"UI modules loaded: {result.stdout.strip()}"
