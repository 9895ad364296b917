"""Copying text: the system clipboard, or the terminal's (OSC 52) when there is none.

Over SSH the system clipboard is the remote machine's, so OSC 52 (which the
user's own terminal turns into a local copy) comes first there.
"""

from __future__ import annotations

import os
from typing import Any

from textual.app import App


def over_ssh() -> bool:
    """Whether this runs in an SSH session (the system clipboard, the browser: the remote's)."""
    return bool(os.environ.get("SSH_TTY") or os.environ.get("SSH_CONNECTION"))


def copy_text(app: App[Any], text: str) -> str:
    """Copy ``text``; returns where it went, for the user's notification."""
    if not over_ssh():
        import pyperclip  # (on the first copy: it loads ctypes, not needed to start)

        try:
            pyperclip.copy(text)
        except Exception:  # pyperclip.PyperclipException, or a broken helper tool
            pass
        else:
            return "the clipboard"
    app.copy_to_clipboard(text)  # OSC 52
    return "the terminal's clipboard"
