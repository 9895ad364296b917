"""Which tool calls of the entry log are shown inside another one's row.

A tool call that names a parent (``parentToolCallId``: a subagent's tool
call, under the "Task" that started the subagent) is shown inside the row of
that parent, when the parent is an earlier entry of the log; it has no row
of its own (height 0). One whose parent is not in the log above it is shown
as a top-level row, as any other. So a child always comes after its parent
and there can be no cycle.

The log keeps entry indexes, so this keeps indexes too: tool call id ->
its latest index, child -> parent, parent -> children. Each parent has a
generation, bumped whenever a call below it changes, that the log puts in
the parent's cache key.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection

from acp_tui.core import Entry, ToolCallEntry
from acp_tui.ui.render.options import NestedCall


class LogNesting:
    def __init__(self) -> None:
        #: Tool call id -> the latest index it was seen at.
        self._ids: dict[str, int] = {}
        self._parent: dict[int, int] = {}
        self._children: dict[int, list[int]] = {}
        self._generation: dict[int, int] = {}

    def clear(self) -> None:
        self._ids.clear()
        self._parent.clear()
        self._children.clear()
        self._generation.clear()

    def take(self, index: int, entry: Entry) -> int:
        """Learn entry ``index`` (appended, or changed): its place, and that
        what it is in changed. Returns the row it is shown in (its own index
        when it is shown top-level)."""
        parent = None
        if isinstance(entry, ToolCallEntry):
            if self._ids.get(entry.tool_call_id, -1) < index:
                self._ids[entry.tool_call_id] = index
            if entry.parent_tool_call_id is not None:
                parent = self._ids.get(entry.parent_tool_call_id)
                if parent is not None and parent >= index:
                    parent = None
        old = self._parent.get(index)
        if old != parent:
            if old is not None:
                self._bump(old)
                self._children[old].remove(index)
                del self._parent[index]
            if parent is not None:
                self._parent[index] = parent
                bisect.insort(self._children.setdefault(parent, []), index)
        if parent is not None:
            self._bump(parent)
        return self.row(index)

    def _bump(self, index: int) -> None:
        """A call below ``index`` changed: it and each row above it show it."""
        at: int | None = index
        while at is not None:
            self._generation[at] = self._generation.get(at, 0) + 1
            at = self._parent.get(at)

    def hidden(self, index: int) -> bool:
        """Whether entry ``index`` is shown inside another one's row."""
        return index in self._parent

    def row(self, index: int) -> int:
        """The top-level row entry ``index`` is shown in."""
        while index in self._parent:
            index = self._parent[index]
        return index

    def has_children(self, index: int) -> bool:
        return bool(self._children.get(index))

    def generation(self, index: int) -> int:
        return self._generation.get(index, 0)

    def tree(self, index: int, entry_at: Callable[[int], Entry]) -> tuple[NestedCall, ...]:
        """The calls under entry ``index``, theirs under each, in order."""
        calls = []
        for child in self._children.get(index, ()):
            entry = entry_at(child)
            if isinstance(entry, ToolCallEntry):
                calls.append(NestedCall(entry, self.tree(child, entry_at)))
        return tuple(calls)

    def runs(self, index: int, indexes: Collection[int]) -> bool:
        """Whether a call below entry ``index`` is one of ``indexes`` (running)."""
        return any(
            child in indexes or self.runs(child, indexes) for child in self._children.get(index, ())
        )

    def shown_near(self, index: int, step: int, count: int) -> int:
        """The nearest top-level row from ``index`` on in the direction of
        ``step`` (the other way when there is none that way)."""
        direction = 1 if step > 0 else -1
        for way in (direction, -direction):
            at = index
            while 0 <= at < count and self.hidden(at):
                at += way
            if 0 <= at < count:
                return at
        return index
