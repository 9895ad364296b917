"""Above the prompt: the prompts waiting to be sent."""

from __future__ import annotations

from textual.widgets import Static

from acp_tui.core import one_line

SHOWN = 3


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
        shown = []
        if handing_over:
            first = one_line(handing_over)
            shown.append(f"⏳ waiting for the agent to settle: {first[:80]}")
        shown += [f"⏳ queued: {one_line(text)[:100]}" for text in queued[:SHOWN]]
        if len(queued) > SHOWN:
            shown.append(f"… and {len(queued) - SHOWN} more")
        self.update("\n".join(shown))
