"""A growing Markdown text rendered in proportion to what was added.

A reply streams in: each frame it is longer, and re-rendering all of it
(splitting it into blocks, building a Strip per line, styling each) costs
O(length) a frame, O(length²) a reply. :class:`MarkdownStream` keeps what
can no longer change: it takes the text's complete lines once, splits them
into blocks and pieces exactly as :func:`~acp_tui.ui.render.markdown.split_blocks`
and :func:`~acp_tui.ui.render.markdown.split_long` would (same rules, kept
as state), renders each finished piece once and hands its lines on, and
re-renders only the open piece (the reply's last block, or the last piece
of a long one) each time it is asked.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from acp_tui.core import clean
from acp_tui.ui.render.layout import Line, Rows, blank
from acp_tui.ui.render.long_text import LazyLines
from acp_tui.ui.render.markdown import (
    HUGE_TEXT,
    LONG_BLOCK,
    MarkdownRenderer,
    _fence_closes,
    _fence_open,
    _is_padding,
)
from acp_tui.ui.render.styles import RenderStyles

#: Raw characters taken in between two looks at the clock.
BATCH = 2048


class _Block:
    """The open block: its lines, and :func:`split_long`'s greedy pieces so far.

    A piece is closed by the line that no longer fits; that decision is final
    unless the line turns out to be the block's last and closes its fence
    (split_long drops it then), so such a line waits for the next one.
    """

    def __init__(self, first: str) -> None:
        self.lines = [first]
        self.length = len(first)
        self.fence = _fence_open(first)
        self.group: list[str] = []
        self.size = 0
        self.deferred: str | None = None
        #: Pieces closed (their text without the fence around them).
        self.closed: list[str] = []
        #: Closed pieces already handed on as finished.
        self.published = 0
        if self.fence is None:
            self._greedy(first, self.closed)

    def add(self, line: str) -> None:
        self.lines.append(line)
        self.length += len(line) + 1
        self.group, self.size, self.deferred = self._take(
            line, self.group, self.size, self.deferred, self.closed
        )

    def _take(
        self, line: str, group: list[str], size: int, deferred: str | None, closed: list[str]
    ) -> tuple[list[str], int, str | None]:
        if deferred is not None:
            group, size = self._fit(deferred, group, size, closed)
            deferred = None
        if self.fence is not None and _fence_closes(line, self.fence):
            return group, size, line
        group, size = self._fit(line, group, size, closed)
        return group, size, deferred

    @staticmethod
    def _fit(line: str, group: list[str], size: int, closed: list[str]) -> tuple[list[str], int]:
        if group and size + len(line) > LONG_BLOCK:
            closed.append("\n".join(group))
            group, size = [], 0
        group.append(line)
        return group, size + len(line) + 1

    def _greedy(self, line: str, closed: list[str]) -> None:
        self.group, self.size = self._fit(line, self.group, self.size, closed)

    def wrap(self, piece: str, closing: str | None = None) -> str:
        if self.fence is None:
            return piece
        if closing is None:
            closing = self.fence[0] * self.fence[1]
        return f"{self.lines[0]}\n{piece}\n{closing}"

    def is_long(self) -> bool:
        return self.length > LONG_BLOCK

    def pieces(self, extra: Sequence[str] = ()) -> list[str]:
        """The pieces not handed on yet, were the block to end after ``extra``."""
        length = self.length + sum(len(line) + 1 for line in extra)
        if length <= LONG_BLOCK:
            return ["\n".join([*self.lines, *extra])]
        closed = self.closed[self.published :]
        fresh: list[str] = []
        group, size, deferred = list(self.group), self.size, self.deferred
        for line in extra:
            group, size, deferred = self._take(line, group, size, deferred, fresh)
        # split_long: a last line that closes the fence closes every piece.
        pieces = [*closed, *fresh, *(["\n".join(group)] if group else [])]
        return [self.wrap(piece, deferred) for piece in pieces]


@dataclass
class _Unit:
    lines: Rows
    number: int


@dataclass
class _Joined:
    """Lines joined as MarkdownRenderer.render joins its pieces (the last line held
    back: the next piece of a cut block may drop it)."""

    done: Rows = field(default_factory=list)
    held: Line | LazyLines | None = None
    #: Lines pushed to ``done`` so far (it may have been taken away since).
    pushed: int = 0

    def add(self, unit: _Unit, width: int, styles: RenderStyles) -> None:
        lines = unit.lines
        if not lines:
            return
        if unit.number:
            if self.held is not None and _is_padding(self.held) and _is_padding(lines[0]):
                self.held = None
                lines = lines[1:]
                if not lines:
                    return
        elif self.held is not None or self.pushed:
            self._push(blank(width, styles.text))
        for line in lines:
            self._push(line)

    def _push(self, line: Line | LazyLines) -> None:
        if self.held is not None:
            self.done.append(self.held)
            self.pushed += 1
        self.held = line


class MarkdownStream:
    """One growing Markdown text (a reply's message chunk) at one width."""

    def __init__(self, markdown: MarkdownRenderer, width: int, styles: RenderStyles) -> None:
        self._markdown = markdown
        self.width = width
        self.styles = styles
        #: Raw characters taken in as complete lines.
        self.taken = 0
        self._cleaned = 0
        self._blank_run = 0
        self._fence: tuple[str, int] | None = None
        self._block: _Block | None = None
        self._joined = _Joined()
        #: Some piece needs lazy rows (a line over LONG_TEXT), or the text is
        #: HUGE_TEXT: this stream cannot render it (the caller renders it whole).
        self.lazy = False
        #: The last update ran out of time: complete lines are left to take in.
        self.behind = False

    def take_done(self) -> Rows:
        """The lines finished since the last call (they will not change)."""
        done = self._joined.done
        self._joined.done = []
        return done

    def update(self, raw: str, count: int, deadline: float | None = None) -> Rows:
        """Take ``raw[:count]`` in; returns the lines after :attr:`done`.

        With a ``deadline`` (a :func:`time.perf_counter` time), complete lines
        are taken in only until then: the lines returned then show a prefix
        of the text (up to a line end), and :attr:`behind` says so."""
        segment = raw[self.taken : count]
        end = segment.rfind("\n") + 1
        position = 0
        while position < end:
            cut = end if deadline is None else segment.find("\n", position + BATCH) + 1 or end
            complete = clean(segment[position:cut])
            self._cleaned += len(complete)
            for line in complete.split("\n")[:-1]:
                self._line(line)
            position = cut
            if deadline is not None and time.perf_counter() > deadline:
                break
        self.taken += position
        self.behind = position < end
        block = self._block
        if block is not None and block.is_long():
            while block.published < len(block.closed):
                self._finished(block.wrap(block.closed[block.published]), block.published)
                block.published += 1
        partial = "" if self.behind else clean(segment[end:])
        if self._cleaned + len(partial) > HUGE_TEXT:
            self.lazy = True
        if self.lazy:
            return []
        if "\n" in partial:  # a CR or a line separator not followed by more yet
            return self._open_copy(partial)
        return self._open(partial)

    def _open_copy(self, partial: str) -> Rows:
        """:meth:`_open` for a partial text of several lines: taken in by a copy
        (O(what is open and done), only while such a text is last)."""
        other = copy.copy(self)
        other._joined = _Joined(list(self._joined.done), self._joined.held, self._joined.pushed)
        if self._block is not None:
            block = other._block = copy.copy(self._block)
            block.lines = list(block.lines)
            block.group = list(block.group)
            block.closed = list(block.closed)
        *lines, last = partial.split("\n")
        for line in lines:
            other._line(line)
        rows = other._open(last)
        self.lazy = other.lazy
        return [*other._joined.done[len(self._joined.done) :], *rows]

    def _line(self, line: str) -> None:
        """split_blocks, one complete line at a time."""
        block = self._block
        if self._fence is not None:
            assert block is not None
            block.add(line)
            if _fence_closes(line, self._fence):
                self._fence = None
            return
        if not line.strip():
            if block is not None:
                self._blank_run += 1
            return
        if self._blank_run:
            assert block is not None
            if line[0] in " \t":
                for _ in range(self._blank_run):
                    block.add("")
            else:
                self._end_block()
                block = None
            self._blank_run = 0
        if block is None:
            self._block = _Block(line)
        else:
            block.add(line)
        self._fence = _fence_open(line)

    def _end_block(self) -> None:
        block = self._block
        assert block is not None
        for number, piece in enumerate(block.pieces(), start=block.published):
            self._finished(piece, number)
        self._block = None

    def _finished(self, piece: str, number: int) -> None:
        lines = self._markdown.block(piece, self.width, self.styles, tail=False)
        if any(isinstance(line, LazyLines) for line in lines):
            self.lazy = True
        self._joined.add(_Unit(lines, number), self.width, self.styles)

    def _open(self, partial: str) -> Rows:
        """The lines of what is still open, were the text to end here."""
        block = self._block
        units: list[tuple[str, int]] = []
        # split_blocks on the partial last line (text.split always ends with one).
        if block is None:
            if partial.strip():
                units.append((partial, 0))
        elif self._fence is not None:
            units += self._pieces(block, [partial])
        elif not partial.strip():
            units += self._pieces(block, [])
        elif self._blank_run and partial[0] not in " \t":
            units += self._pieces(block, [])
            units.append((partial, 0))
        elif self._blank_run:
            units += self._pieces(block, [*([""] * self._blank_run), partial])
        else:
            units += self._pieces(block, [partial])
        joined = _Joined(held=self._joined.held, pushed=self._joined.pushed)
        for number, (piece, piece_number) in enumerate(units):
            tail = number == len(units) - 1
            lines = self._markdown.block(piece, self.width, self.styles, tail=tail)
            if any(isinstance(line, LazyLines) for line in lines):
                self.lazy = True
                return []
            joined.add(_Unit(lines, piece_number), self.width, self.styles)
        out = joined.done
        if joined.held is not None:
            out.append(joined.held)
        return out

    @staticmethod
    def _pieces(block: _Block, extra: list[str]) -> list[tuple[str, int]]:
        return [
            (piece, number)
            for number, piece in enumerate(block.pieces(extra), start=block.published)
        ]
