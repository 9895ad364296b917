"""What the entry log shows while it has no entry: a message in its middle
(what to do first), its first line as a heading."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from acp_tui.ui.render import RenderStyles


def empty_line(message: str, y: int, width: int, height: int, styles: RenderStyles) -> Strip:
    """Row ``y`` of a log ``height`` rows high showing only ``message``."""
    lines = message.splitlines()
    top = max((height - len(lines)) // 2, 0)
    if not top <= y < top + len(lines):
        return Strip.blank(width)
    text = lines[y - top][:width]
    style: Style = styles.heading if y == top else styles.muted
    left = max((width - len(text)) // 2, 0)
    segments = [
        Segment(" " * left),
        Segment(text, style),
        Segment(" " * (width - left - len(text))),
    ]
    return Strip(segments, width)
