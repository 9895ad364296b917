"""The question before a restore: which files will change, and how.

Lists what the host's dry run planned (``checkpoint.restore`` with
``dryRun``): each file and what the restore does to it, flagging a file
edited outside the turns since the checkpoint (someone's work a restore
would overwrite) and content no checkpoint holds. Dismisses with ``"tell"``
(restore, and the next prompt tells the agent), ``"files"`` (restore only)
or None (Esc: nothing is written).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import OptionList, Static

from acp_tui.core import one_line
from acp_tui.ui.screens.choice import Choice, ChoiceScreen

__all__ = ["RESTORE_CHOICES", "RestoreScreen", "plan_text"]

ACTIONS = {
    "restore": "put back",
    "recreate": "brought back (deleted since)",
    "remove": "removed (created since)",
}
RESTORE_CHOICES = [
    Choice("tell", "Restore, and tell the agent with my next prompt"),
    Choice("files", "Restore the files only"),
]


def plan_text(files: list[dict[str, Any]]) -> Text:
    """The planned files, one per line, warnings marked."""
    text = Text()
    width = min(max((len(str(f.get("display", ""))) for f in files), default=0), 40)
    for item in files:
        name = one_line(str(item.get("display") or item.get("path") or ""))
        action = ACTIONS.get(str(item.get("action")), one_line(str(item.get("action"))))
        warn = bool(item.get("editedOutside") or item.get("unsaved"))
        text.append("⚠ " if warn else "  ", "bold yellow" if warn else "")
        text.append(name.ljust(width), "bold")
        text.append(f"  {action}", "dim")
        if item.get("editedOutside"):
            text.append("  — edited outside the turns since: that edit is lost", "yellow")
        elif item.get("unsaved"):
            text.append("  — holds changes no checkpoint has: they are lost", "yellow")
        text.append("\n")
    text.rstrip()
    return text


class RestoreScreen(ChoiceScreen):
    DEFAULT_CSS = """
    RestoreScreen > #choice-dialog {
        width: 90;
    }
    RestoreScreen #restore-files {
        height: auto;
        max-height: 14;
    }
    RestoreScreen #restore-memo {
        color: $foreground-muted;
        padding: 1 0;
    }
    """

    def __init__(self, title: str, files: list[dict[str, Any]]) -> None:
        super().__init__(title, RESTORE_CHOICES, current=None)
        self.files = files

    def compose(self) -> ComposeResult:
        options = list(self._options())
        with Vertical(id="choice-dialog"):
            yield Static(one_line(self.title_text), id="choice-title", markup=False)
            with VerticalScroll(id="restore-files", can_focus=False):
                yield Static(plan_text(self.files))
            memo = (
                "The conversation stays as it is: ACP cannot rewind what the agent remembers."
                " This restore is a checkpoint too: /rewind can undo it."
            )
            yield Static(memo, id="restore-memo", markup=False)
            yield OptionList(*options)
            yield Static("↑↓ move · Enter choose · 1-2 pick · Esc cancel", id="choice-help")
