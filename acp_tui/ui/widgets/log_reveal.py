"""Reveal scheduling for the entry log: what each reply shows while it streams.

The log shows the front end's own view of the session (built from the
events it handled). A reply that streams while the log follows the tail is
revealed smoothly: one :class:`~acp_tui.ui.reveal.RevealState` per entry,
its targets the lengths of the reply's chunks in the view, one step per
animation frame. ``handled`` keeps those lengths after the reveal ends; a
reply that changes with no reveal (the log scrolled away, no turn running)
is forgotten here and shown whole, as the view has it.
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
