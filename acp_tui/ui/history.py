"""Prompt history: what the user sent, and a readline-style walk through it.

:class:`PromptHistory` is plain data (``entries``, newest last) so that it can
be persisted by someone else; :class:`HistoryBrowser` is the per-input state
of an Up/Down walk through one snapshot of it.
"""

from __future__ import annotations

from collections.abc import Iterable

DEFAULT_LIMIT = 500


class PromptHistory:
    """Sent prompts, newest last, bounded, de-duplicating consecutive repeats.

    Blank prompts are not recorded. ``entries`` is a plain list that may be
    read (and replaced) freely, e.g. to load or save it.
    """

    def __init__(self, entries: Iterable[str] = (), *, limit: int = DEFAULT_LIMIT) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self.entries: list[str] = []
        for entry in entries:
            self.add(entry)

    def add(self, text: str) -> None:
        """Record ``text`` as the newest entry (unless blank or equal to the newest)."""
        if not text.strip():
            return
        if self.entries and self.entries[-1] == text:
            return
        self.entries.append(text)
        overflow = len(self.entries) - self.limit
        if overflow > 0:
            del self.entries[:overflow]

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        return f"PromptHistory({len(self.entries)} entries, limit={self.limit})"


class HistoryBrowser:
    """One input's walk through a :class:`PromptHistory`, like readline.

    Positions ``0 .. n-1`` are history entries (oldest first) and ``n`` is the
    draft the user was typing before the first step back. Leaving a position
    remembers its current text, so edits to a recalled entry and the draft
    itself survive moving up and down; nothing the user typed is lost until
    :meth:`reset` (after a send or an explicit clear). The walk uses a
    snapshot of the entries taken when it starts, so entries added meanwhile
    (e.g. by another input sharing the history) do not shift it.
    """

    def __init__(self, history: PromptHistory) -> None:
        self.history = history
        self._snapshot: list[str] | None = None
        self._position = 0
        self._scratch: dict[int, str] = {}

    @property
    def browsing(self) -> bool:
        """True while a recalled entry (not the draft) is shown."""
        return self._snapshot is not None and self._position < len(self._snapshot)

    def older(self, current: str) -> str | None:
        """Step back from ``current``; return the text to show, or None at the oldest."""
        if self._snapshot is None or (not self.browsing and self._snapshot != self.history.entries):
            # Start (or restart, if the history changed while the draft was
            # shown) a walk; the draft is ``current`` and is remembered below.
            self._snapshot = list(self.history.entries)
            self._position = len(self._snapshot)
            self._scratch = {}
        if self._position == 0:
            return None
        self._scratch[self._position] = current
        self._position -= 1
        return self._text_at(self._position)

    def newer(self, current: str) -> str | None:
        """Step forward from ``current``; return the text to show, or None at the draft."""
        if not self.browsing:
            return None
        assert self._snapshot is not None
        self._scratch[self._position] = current
        self._position += 1
        return self._text_at(self._position)

    def reset(self) -> None:
        """Forget the walk and every remembered edit (after a send or a clear)."""
        self._snapshot = None
        self._position = 0
        self._scratch = {}

    def _text_at(self, position: int) -> str:
        assert self._snapshot is not None
        if position in self._scratch:
            return self._scratch[position]
        if position < len(self._snapshot):
            return self._snapshot[position]
        return ""
