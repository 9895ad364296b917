"""The tool calls a subagent made, inside the row of the tool call that started it
(claude-agent-acp's "Task"): folded to one summary line ("▸ 7 tool calls, 2
running"), or unfolded below it, each as its own tool call's rows (its content
folded as usual), behind a guide line."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from acp_tui.core import ToolCallEntry
from acp_tui.ui.render.layout import Painter, Rows, prefixed
from acp_tui.ui.render.options import NestedCall, RenderOptions
from acp_tui.ui.render.styles import RenderStyles

GUIDE = "│ "
#: Statuses the summary counts, in its order, as it names them.
_COUNTED = (
    ("running", "running"),
    ("waiting_for_confirmation", "waiting for you"),
    ("failed", "failed"),
    ("rejected", "rejected"),
    ("canceled", "canceled"),
)

RenderCall = Callable[[ToolCallEntry, RenderOptions, int], Rows]


def every_call(calls: Sequence[NestedCall]) -> Iterator[ToolCallEntry]:
    """Each tool call of ``calls`` and of theirs, in order."""
    for call in calls:
        yield call.entry
        yield from every_call(call.children)


def _shown(entry: ToolCallEntry) -> str:
    status = entry.shown_status
    return "running" if status in ("pending", "in_progress") else status


def summary(calls: Sequence[NestedCall], styles: RenderStyles, *, unfolded: bool) -> Text:
    """``▸ 3 tool calls, 1 running, 1 waiting for you``: every call made under
    this one (theirs included), and how many of them are in each unfinished or
    unhappy state."""
    counts = Counter(_shown(entry) for entry in every_call(calls))
    total = sum(counts.values())
    text = Text("▾ " if unfolded else "▸ ", styles.muted, end="")
    text.append(f"{total} tool call{'s' if total != 1 else ''}", styles.muted)
    colours: dict[str, Style] = {
        "running": styles.status_running,
        "waiting_for_confirmation": styles.status_waiting,
        "failed": styles.status_failed,
        "rejected": styles.status_rejected,
        "canceled": styles.status_canceled,
    }
    for status, label in _COUNTED:
        if counts[status]:
            text.append(", ", styles.muted)
            text.append(f"{counts[status]} {label}", colours[status])
    return text


def nested_rows(
    calls: Sequence[NestedCall],
    options: RenderOptions,
    width: int,
    painter: Painter,
    render: RenderCall,
) -> Rows:
    """The summary line, then (unfolded: the parent is expanded, or is itself
    shown unfolded inside its own parent) every call's rows behind a guide."""
    styles = options.styles
    unfolded = options.expanded or options.unfold_children
    line = summary(calls, styles, unfolded=unfolded)
    rows: Rows = [painter.truncated(line, width, styles.text)]
    if not unfolded:
        return rows
    inner = max(1, width - len(GUIDE))
    body: Rows = []
    for call in calls:
        shown = replace(
            options, expanded=False, selected=False, children=call.children, unfold_children=True
        )
        body += render(call.entry, shown, inner)
    guide = [Segment(GUIDE, styles.text + styles.faint)]
    return rows + prefixed(body, guide)
