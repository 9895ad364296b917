"""Line helpers shared by the renderers: one Rich console, lines of segments.

A *line* here is a ``list[Segment]`` exactly as wide as the width it was
made for; renderers stack lines, prefix them (indentation, borders, the
selection gutter) and turn them into Strips at the very end. A long plain
text is one :class:`~acp_tui.ui.render.long_text.LazyLines` among them
(``Rows``): its rows are made only when they are drawn.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from acp_tui.core import one_line
from acp_tui.ui.render.long_text import LazyLines

Line = list[Segment]

#: Lines, some of which may stand for many rows of a long text.
Rows = list[Line | LazyLines]
#: Texts longer than this (characters) are wrapped lazily, as plain text:
#: Rich's wrapping walks every character (a 1 MB line took 2 s).
LONG_TEXT = 20_000


def shorten_left(text: str, width: int) -> str:
    """``text`` fitted to ``width`` cells by cutting from the left with ``…``."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    kept: list[str] = []
    used = 1
    for char in reversed(text):
        size = cell_len(char)
        if used + size > width:
            break
        kept.append(char)
        used += size
    return "…" + "".join(reversed(kept))


def blank(width: int, style: Style | None = None) -> Line:
    return [Segment(" " * width, style)]


class Painter:
    """Renders Rich renderables to lines with one reused, off-screen console."""

    def __init__(self) -> None:
        self.console = Console(
            width=80,
            height=25,
            color_system="truecolor",
            force_terminal=True,
            legacy_windows=False,
            file=io.StringIO(),
            markup=False,
            emoji=False,
            highlight=False,
            _environ={},
        )
        self._base_options = self.console.options.update(height=None)
        self._options: dict[int, ConsoleOptions] = {}

    def options(self, width: int) -> ConsoleOptions:
        options = self._options.get(width)
        if options is None:
            if len(self._options) > 64:
                self._options.clear()
            options = self._options[width] = self._base_options.update_width(max(1, width))
        return options

    def lines(self, renderable: RenderableType, width: int, base: Style | None) -> list[Line]:
        """``renderable`` as lines exactly ``width`` cells wide, ``base`` beneath."""
        return self.console.render_lines(renderable, self.options(width), style=base, pad=True)

    def text(
        self,
        text: str | Text,
        width: int,
        base: Style | None,
        style: Style | None = None,
    ) -> Rows:
        """Text wrapped (long words folded) to ``width``; a text over
        :data:`LONG_TEXT` characters as lazy rows (plain: its styles dropped)."""
        if isinstance(text, str):
            text = Text(text, style=style or "")
        if not text.plain:
            return [blank(width, base)]
        if len(text.plain) > LONG_TEXT:
            own = (
                text.style
                if isinstance(text.style, Style)
                else self.console.get_style(text.style or "none", default="none")
            )
            combined = (base or Style()) + own + (style or Style())
            return [LazyLines(text.plain, width, combined)]
        rows: Rows = [*self.lines(text, width, base)]
        return rows

    def truncated(self, text: Text, width: int, base: Style | None) -> Line:
        """``text`` on exactly one line, cut with ``…`` when it is too wide."""
        text = text.copy()
        text.truncate(width, overflow="ellipsis", pad=False)
        line = text.render(self.console)
        return pad_line(list(Segment.apply_style(line, base) if base else line), width, base)


def pad_line(line: Line, width: int, style: Style | None) -> Line:
    """``line`` cropped or padded to exactly ``width`` cells."""
    return Segment.adjust_line_length(line, width, style=style)


def prefixed(
    lines: Sequence[Line | LazyLines],
    first: Line,
    rest: Line | None = None,
) -> Rows:
    """Each line behind a prefix: ``first`` for the first line, ``rest`` after."""
    if rest is None:
        rest = first
    out: Rows = []
    for index, line in enumerate(lines):
        prefix = first if index == 0 else rest
        if isinstance(line, LazyLines):
            out.append(line.with_prefix(prefix, rest))
        else:
            out.append([*prefix, *line])
    return out


def indent(lines: Iterable[Line | LazyLines], spaces: int, style: Style | None) -> Rows:
    pad = [Segment(" " * spaces, style)]
    return [
        line.with_prefix(pad) if isinstance(line, LazyLines) else [*pad, *line] for line in lines
    ]


def assemble(*parts: str | tuple[str, Style | None] | Text) -> Text:
    """Like ``Text.assemble`` but typed for our use, without an end newline."""
    text = Text(end="")
    for part in parts:
        if isinstance(part, Text):
            text.append_text(part)
        elif isinstance(part, tuple):
            text.append(part[0], part[1] or "")
        else:
            text.append(part)
    return text


def fit(text: str, width: int, style: Style | None, base: Style | None, painter: Painter) -> Rows:
    """One line of plain text: fast when it fits, wrapped (folded) when it does not."""
    text = text.expandtabs(4)
    size = cell_len(text)
    combined = base + style if base is not None and style is not None else (style or base)
    if size <= width:
        if size == width:
            return [[Segment(text, combined)]]
        return [[Segment(text, combined), Segment(" " * (width - size), base)]]
    return painter.text(Text(text, style=style or ""), width, base)


def block_label(block: dict[str, object]) -> str:
    """A non-text content block as a short chip: ``@name``, ``[image]``…"""
    block_type = str(block.get("type") or "content")
    if block_type == "resource_link":
        name = block.get("name") or _basename(str(block.get("uri") or ""))
        return f"@{one_line(str(name)) or 'link'}"
    if block_type == "resource":
        resource = block.get("resource")
        uri = str(resource.get("uri") or "") if isinstance(resource, dict) else ""
        return f"@{one_line(_basename(uri)) or 'resource'}"
    if block_type == "text":
        return one_line(str(block.get("text") or ""))
    return f"[{one_line(block_type)}]"


def _basename(uri: str) -> str:
    stripped = uri.rstrip("/")
    return stripped.rsplit("/", 1)[-1] or uri
