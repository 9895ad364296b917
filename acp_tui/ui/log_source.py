"""What the entry log shows: the entries of the sessions' views, one after another.

Also the two things the log needs to know about an entry without
rendering it: a cheap guess of its height, and its text for the clipboard.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

from acp_tui.core import (
    AssistantEntry,
    ChangesEntry,
    Entry,
    NoticeEntry,
    RewindEntry,
    ToolCallEntry,
    UserEntry,
)


class LogSource:
    """The entries shown: lists of entries one after another (each session's
    view, the app's own notices, a transcript read back).

    A session that ended (the agent died) stays visible above the session
    that replaced it; only the last segment still grows. A segment may leave
    out its first entries (``skip``: a reloaded session whose replay repeats
    what the log shows above it).
    """

    def __init__(self) -> None:
        self._segments: list[Sequence[Entry]] = []
        self._starts: list[int] = []

    def add(self, entries: Sequence[Entry], skip: int = 0) -> int:
        """Show ``entries`` (from ``skip`` on) after everything else; returns
        the global index of the first one shown."""
        start = len(self)
        self._segments.append(Tail(entries, skip) if skip else entries)
        self._starts.append(start)
        return start

    def __len__(self) -> int:
        if not self._segments:
            return 0
        return self._starts[-1] + len(self._segments[-1])

    def last_reply(self) -> int | None:
        """The index of the last assistant entry (None: there is none)."""
        return next(
            (i for i in range(len(self) - 1, -1, -1) if isinstance(self[i], AssistantEntry)), None
        )

    def __getitem__(self, index: int) -> Entry:
        for start, segment in zip(reversed(self._starts), reversed(self._segments), strict=True):
            if index >= start:
                return segment[index - start]
        raise IndexError(index)

    def entries_from(self, start: int) -> Iterator[tuple[int, Entry]]:
        """(index, entry) for every entry from ``start`` on."""
        for segment_start, segment in zip(self._starts, self._segments, strict=True):
            first = max(start - segment_start, 0)
            for offset in range(first, len(segment)):
                yield segment_start + offset, segment[offset]

    def remove(self, entries: Sequence[Entry]) -> None:
        """Stop showing ``entries`` (a session that another one carries on)."""
        kept = [segment for segment in self._segments if _inner(segment) is not entries]
        self._segments, self._starts = [], []
        for segment in kept:
            self._starts.append(len(self))
            self._segments.append(segment)

    def start_of(self, entries: Sequence[Entry]) -> int:
        for start, segment in zip(self._starts, self._segments, strict=True):
            if _inner(segment) is entries:
                return start
        raise KeyError("not shown in this log")

    def position(self, entries: Sequence[Entry], index: int) -> int | None:
        """The global index of ``entries[index]``; None when it is not shown
        (left out at the start of its segment, or the segment is not shown)."""
        for start, segment in zip(self._starts, self._segments, strict=True):
            if _inner(segment) is entries:
                skip = segment.skip if isinstance(segment, Tail) else 0
                return start + index - skip if index >= skip else None
        return None


def _inner(segment: Sequence[Entry]) -> Sequence[Entry]:
    return segment.entries if isinstance(segment, Tail) else segment


class Tail(Sequence[Entry]):
    """A thread shown from entry ``skip`` on (a reloaded session whose replay
    repeats what the log already shows above it)."""

    def __init__(self, entries: Sequence[Entry], skip: int) -> None:
        self.entries = entries
        self.skip = skip

    def __len__(self) -> int:
        return max(len(self.entries) - self.skip, 0)

    @overload
    def __getitem__(self, index: int) -> Entry: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Entry]: ...

    def __getitem__(self, index: int | slice) -> Entry | Sequence[Entry]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self.entries[self.skip + index]


def estimate_height(entry: Entry, width: int) -> int:
    """A cheap guess of an entry's rendered height (corrected when it is shown)."""
    width = max(width - 4, 10)

    def lines(text: str) -> int:
        return text.count("\n") + len(text) // width + 1

    if isinstance(entry, AssistantEntry):
        return 1 + sum(lines(c.text) if c.type == "message" else 1 for c in entry.chunks)
    if isinstance(entry, ToolCallEntry):
        return 2 + min(len(entry.content) * 4, 16) + (1 if entry.locations else 0)
    if isinstance(entry, ChangesEntry):
        return 2 + min(len(entry.files), 12) + len(entry.skipped)
    if isinstance(entry, RewindEntry):
        return 3 + min(len(entry.files), 12)
    return 1 + lines(entry.text)


def entry_text(entry: Entry) -> str:
    """An entry as plain text, for the clipboard (Markdown kept as written)."""
    if isinstance(entry, UserEntry | NoticeEntry):
        return entry.text
    if isinstance(entry, AssistantEntry):
        return "".join(c.text for c in entry.chunks if c.type == "message")
    if isinstance(entry, ChangesEntry):
        return "\n".join(f"{f.get('change')} {f.get('display')}" for f in entry.files)
    if isinstance(entry, RewindEntry):
        return "\n".join(f"{f.get('action')} {f.get('display')}" for f in entry.files)
    parts = [entry.title]
    for item in entry.content:
        if item.get("type") == "content":
            block = item.get("content") or {}
            parts.append(str(block.get("text", "")))
        elif item.get("type") == "diff":
            parts.append(f"--- {item.get('path')}\n{item.get('newText', '')}")
        elif item.get("type") == "terminal":
            parts.append(str(item.get("output", "")))
    return "\n\n".join(p for p in parts if p)
