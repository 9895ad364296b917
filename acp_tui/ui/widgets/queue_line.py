"""Above the prompt: the prompts waiting to be sent.

Each prompt gets one row, cut with an ellipsis to the width; the last row
ends with a hint that Up (on an empty prompt) takes the last one back.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from acp_tui.core import one_line

SHOWN = 3
#: At the end of the last row: what Up on an empty prompt does.
HINT = "Up: edit the last"


class QueueLine(Static):
    DEFAULT_CSS = """
    QueueLine {
        height: auto;
        max-height: 4;
        color: $warning;
        background: $surface;
        padding: 0 1;
        display: none;
    }
    QueueLine.-queued { display: block; }
    """

    def show(self, queued: list[str], handing_over: str | None = None) -> None:
        """``queued`` prompts, and the one handed to a session that is still
        waiting for its agent to settle (after a cancel)."""
        self.set_class(bool(queued or handing_over), "-queued")
        if not (queued or handing_over):
            return
        rows = []
        if handing_over:
            rows.append(f"⏳ waiting for the agent to settle: {one_line(handing_over)}")
        rows += [f"⏳ queued: {one_line(text)}" for text in queued[:SHOWN]]
        if len(queued) > SHOWN:
            rows.append(f"… and {len(queued) - SHOWN} more")
        table = Table.grid(expand=True, padding=(0, 1))
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column(no_wrap=True, justify="right", style="dim")
        for number, row in enumerate(rows, 1):
            hint = HINT if queued and number == len(rows) else ""
            table.add_row(Text(row), Text(hint))
        self.update(table)
