"""Where acp-tui keeps its state, and paths as a user would type them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """acp-tui's state directory: ``$XDG_STATE_HOME/acp-tui`` (default
    ``~/.local/state/acp-tui``). Each kind of state has a folder of its own."""
    env = os.environ if env is None else env
    home = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(home) / "acp-tui"


def shown_path(path: Path | str) -> str:
    """``path`` with the home directory written as ``~``."""
    text = str(path)
    home = os.path.expanduser("~")
    if home not in ("~", "", os.sep) and (text == home or text.startswith(home + os.sep)):
        return "~" + text[len(home) :]
    return text
