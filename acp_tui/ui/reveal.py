"""Smooth reveal of streamed text (AC-18, AC-21): pure functions and state.

Each animation frame reveals ``ceil(8% of the backlog)`` characters, at
least one, and never cuts inside a grapheme cluster (combining marks, emoji
ZWJ sequences, variation selectors, skin-tone modifiers, flag pairs, CRLF):
the cut moves forward to the next cluster boundary. A backlog of n
characters shrinks geometrically, so what arrives in one burst is drawn
within a few hundred milliseconds and a steady stream keeps up with its
source. The state is per entry, one target per chunk; a new target that
starts with the old one only adds its suffix to the backlog, an unrelated
one replaces the text outright, an identical one does nothing.

Once the turn has ended (:meth:`RevealState.finish`), what is left is
revealed within :data:`FINISH_FRAMES` frames: smoothly, like the rest,
but without outlasting the turn by more than a moment.

A backlog over :data:`FLUSH_BACKLOG` characters (one huge chunk) is shown
at once: drawn 8% a frame, 16 MB would take some 200 frames, each of them
re-rendering a text of megabytes.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable

REVEAL_FRACTION = 0.08
FLUSH_BACKLOG = 256 * 1024
FINISH_FRAMES = 8
#: Characters of revealed text kept before the cut (the rest is not needed again).
KEEP_BEHIND = 4096

_ZWJ = "\u200d"


def reveal_count(backlog: int) -> int:
    """Characters to reveal this frame for a backlog of ``backlog`` characters."""
    if backlog <= 0:
        return 0
    return min(backlog, max(1, math.ceil(backlog * REVEAL_FRACTION)))


def _extends(char: str) -> bool:
    """Whether ``char`` continues the grapheme cluster before it."""
    code = ord(char)
    if char == _ZWJ:
        return True
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:  # variation selectors
        return True
    if 0x1F3FB <= code <= 0x1F3FF:  # emoji skin-tone modifiers
        return True
    if 0xE0020 <= code <= 0xE007F:  # emoji tag sequences (subdivision flags)
        return True
    return unicodedata.category(char) in ("Mn", "Me", "Mc")


def _regional(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


def is_boundary(text: str, index: int) -> bool:
    """Whether a cut before ``text[index]`` keeps every grapheme cluster whole."""
    if index <= 0 or index >= len(text):
        return True
    before, char = text[index - 1], text[index]
    if before == "\r" and char == "\n":
        return False
    if before == _ZWJ or _extends(char):
        return False
    if _regional(before) and _regional(char):
        # Flags pair regional indicators from the start of their run.
        run = 0
        position = index - 1
        while position >= 0 and _regional(text[position]):
            run += 1
            position -= 1
        return run % 2 == 0
    return True


def safe_cut(text: str, index: int) -> int:
    """The first cluster boundary at or after ``index``."""
    index = min(max(index, 0), len(text))
    while not is_boundary(text, index):
        index += 1
    return index


def common_prefix(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    index = 0
    while index < limit and a[index] == b[index]:
        index += 1
    return index


class RevealState:
    """How much of each chunk of one streaming entry is shown.

    Fed by the text the front end has handled (:meth:`extend` for a delta,
    :meth:`set_target` for a whole text), never by reading live state. A
    chunk's text is kept from ``base`` on: what was already shown when the
    reveal started is not needed again (the cut there is a boundary).
    """

    def __init__(self) -> None:
        self._base: list[int] = []
        self._kept: list[str] = []
        self._parts: list[list[str]] = []
        self._sizes: list[int] = []
        self.revealed: list[int] = []
        #: Characters a frame reveals at least (set when the turn ended).
        self._floor = 0

    @property
    def targets(self) -> list[int]:
        """Each chunk's full length."""
        return list(self._sizes)

    @property
    def backlog(self) -> int:
        return sum(size - shown for size, shown in zip(self._sizes, self.revealed, strict=True))

    @property
    def done(self) -> bool:
        return self.backlog == 0

    def shown(self) -> dict[int, int]:
        """Chunk index -> characters shown (the renderer's ``reveal`` map)."""
        return dict(enumerate(self.revealed))

    def _open(self, chunk: int) -> None:
        while len(self._sizes) <= chunk:
            # A chunk starting now ends the ones before it: show them whole.
            self.revealed = list(self._sizes)
            self._base.append(0)
            self._kept.append("")
            self._parts.append([])
            self._sizes.append(0)
            self.revealed.append(0)

    def seed(self, chunk: int, shown: int) -> None:
        """Chunk ``chunk`` already shows ``shown`` characters (before this reveal)."""
        self._open(chunk)
        self._base[chunk] = self._sizes[chunk] = self.revealed[chunk] = shown
        self._kept[chunk] = ""
        self._parts[chunk].clear()

    def extend(self, chunk: int, text: str) -> None:
        """Chunk ``chunk`` grew by ``text`` (a text delta)."""
        self._open(chunk)
        self._parts[chunk].append(text)
        self._sizes[chunk] += len(text)

    def _text(self, chunk: int) -> str:
        """The chunk's kept text (from its base on), with what was appended."""
        parts = self._parts[chunk]
        if parts:
            self._kept[chunk] = "".join([self._kept[chunk], *parts])
            parts.clear()
        return self._kept[chunk]

    def follow(self, chunk: int, length: int, tail: Callable[[int], str]) -> None:
        """The chunk's text is now ``length`` long; ``tail(n)`` reads it from
        ``n`` on. Text that only grew (deltas) costs its new end, not its whole;
        a shorter one is a new text (:meth:`set_target`)."""
        self._open(chunk)
        size = self._sizes[chunk]
        if length > size:
            self.extend(chunk, tail(size))
        elif length < size:
            self.set_target(chunk, tail(0))

    def set_target(self, chunk: int, text: str) -> None:
        """The chunk's full text is now ``text`` (AC-21's prefix rule)."""
        self._open(chunk)
        base = self._base[chunk]
        old = self._text(chunk)
        if len(text) == self._sizes[chunk] and text[base:] == old:
            return
        self._kept[chunk] = text[base:]
        self._sizes[chunk] = len(text)
        if not text.startswith(old, base):
            self.revealed[chunk] = len(text)  # an unrelated text replaces at once

    def step(self) -> bool:
        """Reveal one frame's worth; returns whether anything changed."""
        backlog = self.backlog
        if backlog > FLUSH_BACKLOG:
            return self.flush()
        budget = min(backlog, max(reveal_count(backlog), self._floor))
        if not budget:
            return False
        for index, size in enumerate(self._sizes):
            if budget <= 0:
                break
            shown = self.revealed[index]
            missing = size - shown
            if missing <= 0:
                continue
            take = min(missing, budget)
            base = self._base[index]
            cut = base + safe_cut(self._text(index), shown - base + take)
            budget -= cut - shown
            self.revealed[index] = cut
            if cut - base > KEEP_BEHIND * 2:
                self._forget_before(index, cut - KEEP_BEHIND)
        return True

    def _forget_before(self, chunk: int, position: int) -> None:
        """Keep the chunk's text from about ``position`` on only (a cut looks
        back one character, or along a run of regional indicators: the text
        kept starts after a character that is not one)."""
        base = self._base[chunk]
        kept = self._kept[chunk]
        offset = position - base
        while offset > 0 and _regional(kept[offset - 1]):
            offset -= 1
        if offset > 0:
            self._kept[chunk] = kept[offset:]
            self._base[chunk] = base + offset

    def finish(self, frames: int = FINISH_FRAMES) -> None:
        """No more text will come: reveal the rest within ``frames`` frames."""
        self._floor = max(self._floor, math.ceil(self.backlog / max(frames, 1)))

    def flush(self) -> bool:
        """Show everything now; returns whether anything changed."""
        changed = self.backlog > 0
        self.revealed = list(self._sizes)
        return changed
