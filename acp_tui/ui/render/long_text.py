"""Long text drawn in bounded pieces: rows folded on demand, only those on screen.

Rich wraps a text by walking it character by character, and the log used
to render every line of an entry: one 16 MB chunk without a line break took
minutes, the app frozen (issue 12, point 7). Here a long plain text is
wrapped at spaces (a word longer than a row is folded; text with wide or
zero-width characters is folded at cell boundaries), its row count is known
at once (a few C-speed steps per row; one step per run of wide characters),
and a row's segments are made only when the row is drawn.

* :class:`LazyLines` — the rows of one such text, with the prefixes (an
  indent, a marker) the renderers put in front of each row.
* :class:`LazyRows` — an entry's rendered rows (``Sequence[Strip]``), some
  made in advance and some by a :class:`LazyLines` when first asked for.
* :class:`StripRows` — rows made of parts (a growing reply's, streaming.py);
  here, apart from the Markdown renderer, so that the log can tell them
  without loading it.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from typing import overload

from rich.cells import cell_len, get_character_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from acp_tui.ui.lru import LRU

Line = list[Segment]

# Characters that are not exactly one cell wide (Rich's single-cell ranges
# are the complement); the line break is handled by the fold itself.
_NOT_SINGLE = re.compile(
    "[^\x20-\x7e\xa0-\xac\xae-\u02ff\u0370-\u0482\u2500-\u25fc\u2800-\u28ff\n]"
)
# Runs of East Asian wide characters (two cells each, folded by arithmetic),
# or one other character that is not a single cell.
_WIDE = (
    "\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf"
    "\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6"
)
_SPECIAL_RUN = re.compile(f"([{_WIDE}]+)|{_NOT_SINGLE.pattern}")
#: Rows of made strips kept per lazy part (a few screens).
ROW_CACHE = 512


def row_starts(text: str, width: int) -> array[int]:
    """Where each row of ``text`` folded to ``width`` cells starts (an index into it)."""
    width = max(1, width)
    starts: array[int] = array("q")
    simple = text.isascii()
    position = 0
    length = len(text)
    while True:
        end = text.find("\n", position)
        if end < 0:
            end = length
        if end == position:
            starts.append(position)
        elif simple or _NOT_SINGLE.search(text, position, end) is None:
            _wrap_words(text, position, end, width, starts)
        else:
            _fold_wide(text, position, end, width, starts)
        if end >= length:
            return starts
        position = end + 1


def _wrap_words(text: str, start: int, end: int, width: int, starts: array[int]) -> None:
    """Wrap single-cell ``text[start:end]`` at spaces; a word longer than a row is folded."""
    position = start
    while True:
        starts.append(position)
        if end - position <= width:
            return
        cut = position + width
        if text[cut] == " ":  # the row is full and a space follows: break there
            position = cut + 1
        else:
            space = text.rfind(" ", position + 1, cut)
            position = space + 1 if space > position else cut
        if position >= end:
            return


def _fold_wide(text: str, start: int, end: int, width: int, starts: array[int]) -> None:
    """Fold ``text[start:end]``, which holds characters wider or narrower than a cell."""
    starts.append(start)
    column = 0  # cells used in the current row
    position = start  # the next character not yet placed
    for match in _SPECIAL_RUN.finditer(text, start, end):
        at = match.start()
        column = _place_run(position, at, column, width, starts)
        position = match.end()
        if match.group(1) is not None and width >= 2:  # wide characters, two cells each
            if column + 2 > width:
                starts.append(at)
                column = 0
            room = (width - column) // 2
            count = position - at
            if count <= room:
                column += 2 * count
            else:
                starts.extend(range(at + room, position, width // 2))
                column = 2 * (position - starts[-1])
            continue
        size = get_character_cell_size(match.group()) if position - at == 1 else 2
        if size and column + size > width and column > 0:
            starts.append(at)
            column = 0
        column += size
        if position - at > 1:  # a wide run at width 1: a row each
            starts.extend(range(at + 1, position))
            column = size
    _place_run(position, end, column, width, starts)


def _place_run(position: int, end: int, column: int, width: int, starts: array[int]) -> int:
    """Place the single-cell characters ``position..end``; the row's cells after them."""
    run = end - position
    if column + run <= width:
        return column + run
    first = position + max(width - column, 0)
    starts.extend(range(first, end, width))
    return end - starts[-1]


class LazyLines:
    """A plain text's rows at ``width`` cells, behind per-row prefixes."""

    def __init__(
        self,
        text: str,
        width: int,
        style: Style | None,
        *,
        first: Line | None = None,
        rest: Line | None = None,
    ) -> None:
        self.text = text.expandtabs(4).rstrip("\n")
        self.width = max(1, width)
        self.style = style
        self.first: Line = first or []
        self.rest: Line = rest if rest is not None else self.first
        self._starts = row_starts(self.text, self.width)

    def __len__(self) -> int:
        return len(self._starts)

    def with_prefix(self, first: Line, rest: Line | None = None) -> LazyLines:
        """The same rows behind ``first`` (the first row) and ``rest`` (the others)."""
        view = object.__new__(LazyLines)
        view.text, view.width, view.style = self.text, self.width, self.style
        view.first = [*first, *self.first]
        view.rest = [*(first if rest is None else rest), *self.rest]
        view._starts = self._starts
        return view

    def line(self, index: int) -> Line:
        """Row ``index``: its prefix and exactly ``width`` cells of text."""
        starts = self._starts
        start = starts[index]
        end = starts[index + 1] if index + 1 < len(starts) else len(self.text)
        row = self.text[start:end]
        if row.endswith("\n"):
            row = row[:-1]
        size = cell_len(row)
        body = [Segment(row, self.style)]
        if size != self.width:
            body = Segment.adjust_line_length(body, self.width, style=self.style)
        return [*(self.first if index == 0 else self.rest), *body]


MakeStrip = Callable[[Line], Strip]


class _LazyPart:
    """Strips made from a LazyLines when first asked for (a bounded cache)."""

    def __init__(self, lines: LazyLines, make: MakeStrip) -> None:
        self.lines = lines
        self.make = make
        self._made: LRU[int, Strip] = LRU(ROW_CACHE)

    def __len__(self) -> int:
        return len(self.lines)

    def strip(self, index: int) -> Strip:
        made = self._made.get(index)
        if made is None:
            made = self.make(self.lines.line(index))
            self._made.set(index, made)
        return made


class LazyRows(Sequence[Strip]):
    """An entry's rows: lists of strips made already, and lazy parts."""

    def __init__(self, parts: list[list[Strip] | _LazyPart]) -> None:
        self._parts = parts
        self._offsets: list[int] = []
        total = 0
        for part in parts:
            self._offsets.append(total)
            total += len(part)
        self._length = total

    @classmethod
    def build(
        cls, items: Sequence[Line | LazyLines], make: MakeStrip, tail: list[Strip]
    ) -> Sequence[Strip]:
        """Strips for ``items``, then ``tail``: a plain list when none is lazy."""
        if not any(isinstance(item, LazyLines) for item in items):
            return [*(make(item) for item in items if not isinstance(item, LazyLines)), *tail]
        parts: list[list[Strip] | _LazyPart] = []
        eager: list[Strip] = []
        for item in items:
            if isinstance(item, LazyLines):
                if eager:
                    parts.append(eager)
                    eager = []
                parts.append(_LazyPart(item, make))
            else:
                eager.append(make(item))
        eager += tail
        if eager:
            parts.append(eager)
        return cls(parts)

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Strip: ...

    @overload
    def __getitem__(self, index: slice) -> list[Strip]: ...

    def __getitem__(self, index: int | slice) -> Strip | list[Strip]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        at = bisect_right(self._offsets, index) - 1
        part = self._parts[at]
        within = index - self._offsets[at]
        return part[within] if isinstance(part, list) else part.strip(within)

    def __iter__(self) -> Iterator[Strip]:
        for index in range(self._length):
            yield self[index]

    @property
    def made(self) -> int:
        """Rows of the lazy parts made so far (what tests count: only what was shown)."""
        return sum(len(p._made) for p in self._parts if isinstance(p, _LazyPart))

    def styled(self, style: Style) -> LazyRows:
        """The same rows with ``style`` applied beneath (made as they are asked for)."""
        parts: list[list[Strip] | _LazyPart] = []
        for part in self._parts:
            if isinstance(part, list):
                parts.append([strip.apply_style(style) for strip in part])
            else:
                parts.append(_LazyPart(part.lines, _styled(part.make, style)))
        return LazyRows(parts)


def _styled(make: MakeStrip, style: Style) -> MakeStrip:
    def styled(line: Line) -> Strip:
        return make(line).apply_style(style)

    return styled


class StripRows(Sequence[Strip]):
    """Rows made of parts, each a list and how many of its rows count: O(1) to
    build over a long, growing list of finished rows."""

    def __init__(self, parts: list[tuple[Sequence[Strip], int]], *, complete: bool = True) -> None:
        self._parts = [(rows, count) for rows, count in parts if count]
        self._length = sum(count for _, count in self._parts)
        #: False: the text is not all in yet (rendering ran out of time).
        self.complete = complete

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Strip: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Strip]: ...

    def __getitem__(self, index: int | slice) -> Strip | Sequence[Strip]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        for rows, count in self._parts:
            if index < count:
                return rows[index]
            index -= count
        raise IndexError(index)
