"""Reveal scheduling for the entry log: what each reply shows, from the text handled.

The log is told about every piece of assistant text the front end handles
(an appended entry's chunks, a text delta). From that alone it knows how
much of each chunk there is to show, without reading the core's live
entries, which may be ahead of the events handled so far (a turn that has
ended in the core still has deltas queued). A reply being revealed shows
less than that: one :class:`~acp_tui.ui.reveal.RevealState` per entry, one
step per animation frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from acp_tui.ui.reveal import RevealState

if TYPE_CHECKING:
    from acp_tui.core import Chunk


class LogReveal:
    """Text lengths handled per assistant entry, and the reveals running."""

    def __init__(self) -> None:
        #: Entry index -> each chunk's length in the text handled.
        self.handled: dict[int, list[int]] = {}
        #: Entry index -> its reveal (while it runs).
        self.reveals: dict[int, RevealState] = {}

    def clear(self) -> None:
        self.handled.clear()
        self.reveals.clear()

    def appended(self, index: int, texts: Sequence[str], *, reveal: bool) -> None:
        """Entry ``index`` arrived with these chunk texts."""
        self.handled[index] = [len(text) for text in texts]
        if reveal:
            state = self.reveals[index] = RevealState()
            for chunk, text in enumerate(texts):
                state.extend(chunk, text)

    def extended(self, index: int, chunk: int, text: str, *, reveal: bool) -> None:
        """Chunk ``chunk`` of entry ``index`` grew by ``text`` (a delta handled)."""
        lengths = self.handled.get(index)
        if lengths is None:
            return  # never seen whole (shown as the core has it)
        state = self.reveals.get(index)
        if state is None and reveal:
            state = self.reveals[index] = RevealState()
            for number, shown in enumerate(lengths):
                state.seed(number, shown)
        while len(lengths) <= chunk:
            lengths.append(0)
        lengths[chunk] += len(text)
        if state is not None:
            state.extend(chunk, text)

    def followed(self, index: int, chunks: Sequence[Chunk]) -> None:
        """Entry ``index`` is now ``chunks``, grown by text deltas: what they
        add is revealed. A reveal that had caught up (and ended) starts again
        from what the entry showed, never from nothing: starting from nothing
        would hide the reply for a frame, then draw it all again."""
        state = self.reveals.get(index)
        if state is None:
            state = self.reveals[index] = RevealState()
            for number, shown in enumerate(self.handled.get(index, ())):
                state.seed(number, shown)
        for number, chunk in enumerate(chunks):
            state.follow(number, chunk.length, chunk.text_from)
        self.handled[index] = state.targets

    def forget(self, index: int) -> None:
        """Entry ``index`` changed in a way no text event told (shown as the core has it)."""
        self.handled.pop(index, None)
        self.reveals.pop(index, None)

    def shown(self, index: int) -> dict[int, int] | None:
        """Chunk -> characters to show of entry ``index`` (None: all the core has)."""
        state = self.reveals.get(index)
        if state is not None:
            return state.shown()
        lengths = self.handled.get(index)
        return dict(enumerate(lengths)) if lengths is not None else None

    def key(self, index: int) -> tuple[int, ...] | None:
        """What :meth:`shown` depends on, for a cache key."""
        state = self.reveals.get(index)
        if state is not None:
            return tuple(state.revealed)
        lengths = self.handled.get(index)
        return tuple(lengths) if lengths is not None else None

    def step(self, frames: int = 1) -> tuple[list[int], list[int]]:
        """``frames`` frames' steps (the log skipped some): (entries that show
        more now, entries whose reveal ended)."""
        changed = [index for index, state in self.reveals.items() if _steps(state, frames)]
        done = [index for index, state in self.reveals.items() if state.done]
        for index in done:
            del self.reveals[index]
        return changed, done

    def finish(self) -> None:
        """The turn ended: every reveal ends within a few frames (still smoothly)."""
        for state in self.reveals.values():
            state.finish()

    def flush(self, index: int) -> bool:
        """Show all of entry ``index`` now; whether it was being revealed."""
        return self.reveals.pop(index, None) is not None

    def flush_all(self) -> list[int]:
        flushed = list(self.reveals)
        self.reveals.clear()
        return flushed


def _steps(state: RevealState, frames: int) -> bool:
    """``frames`` steps of ``state``: whether the first changed anything (the
    later ones do only if it did)."""
    changed = state.step()
    for _ in range(frames - 1 if changed else 0):
        state.step()
    return changed
