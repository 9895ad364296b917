"""The entry log's cursor: moving it over the rows shown (j/k), expanding the
entry under it (Enter, a click), and the keys that act on that entry (copy,
rewind…), which the app answers (the messages here)."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.message import Message

from acp_tui.core import ChangesEntry, Entry
from acp_tui.ui.height_index import HeightIndex
from acp_tui.ui.log_source import LogSource, entry_text
from acp_tui.ui.widgets.log_follow import FollowingScrollView
from acp_tui.ui.widgets.log_nesting import LogNesting


class LogCursor(FollowingScrollView):
    """The cursor part of :class:`~acp_tui.ui.widgets.entry_log.EntryLog`."""

    # The log's own, declared here (entry_log.py sets them).
    source: LogSource
    nesting: LogNesting
    cursor: int | None
    expanded: set[int]
    #: Expanded changes entries: their files' diffs, once fetched.
    details: dict[int, list[dict[str, Any]]]
    _index: HeightIndex

    def entry_changed(self, index: int, *, new_output: bool = True) -> None:
        """Entry ``index`` is to be shown again (entry_log.py)."""
        raise NotImplementedError

    class CopyRequested(Message, namespace="entry_log"):
        def __init__(self, text: str, what: str) -> None:
            super().__init__()
            self.text = text
            self.what = what

    class EntryAction(Message, namespace="entry_log"):
        """A key on an entry (``expanded``: a changes entry wants its diffs)."""

        def __init__(self, index: int, entry: Entry, action: str) -> None:
            super().__init__()
            self.index = index
            self.entry = entry
            self.action = action

    def action_cursor(self, step: int) -> None:
        if not len(self._index):
            return
        if self.cursor is None:
            first, _ = self._index.locate(self.scroll_offset.y)
            last, _ = self._index.locate(self.scroll_offset.y + self.size.height - 1)
            new = min(last, len(self._index) - 1) if step < 0 else first
        else:
            new = min(max(self.cursor + step, 0), len(self._index) - 1)
        new = self.nesting.shown_near(new, step, len(self._index))
        old, self.cursor = self.cursor, new
        for index in (old, new):
            if index is not None:
                self.entry_changed(index, new_output=False)
        self._scroll_to_entry(new)

    def _scroll_to_entry(self, index: int) -> None:
        top = self._index.offset(index)
        bottom = top + self._index.height(index)
        view_top = self.scroll_offset.y
        if top < view_top:
            self.following = False
            self.scroll_to(y=top, animate=False)
        elif bottom > view_top + self.size.height:
            self.scroll_to(y=max(bottom - self.size.height, 0), animate=False)

    def action_toggle_expand(self) -> None:
        if self.cursor is None:
            return
        self.expanded ^= {self.cursor}
        self.entry_changed(self.cursor, new_output=False)
        entry = self.source[self.cursor]
        wanted = self.cursor in self.expanded and self.cursor not in self.details
        if wanted and isinstance(entry, ChangesEntry):
            self.post_message(self.EntryAction(self.cursor, entry, "expanded"))

    def select(self, index: int, *, expand: bool = False) -> None:
        """Put the cursor on entry ``index`` (and expand it) and show it."""
        old, self.cursor = self.cursor, index
        if old is not None:
            self.entry_changed(old, new_output=False)
        if expand and index not in self.expanded:
            self.action_toggle_expand()
        self.entry_changed(index, new_output=False)
        self._scroll_to_entry(index)

    def action_entry_action(self, action: str) -> None:
        if self.cursor is not None:
            self.post_message(self.EntryAction(self.cursor, self.source[self.cursor], action))

    def set_details(self, index: int, entry: Entry, details: list[dict[str, Any]]) -> None:
        """The diffs of the changes entry at ``index`` (shown while expanded)."""
        if index < len(self.source) and self.source[index] is entry:
            self.details[index] = details
            self.entry_changed(index, new_output=False)

    def on_click(self, event: events.Click) -> None:
        index, _ = self._index.locate(self.scroll_offset.y + event.y)
        if index >= len(self._index):
            return
        if self.cursor == index:
            self.action_toggle_expand()
            return
        old, self.cursor = self.cursor, index
        for changed in (old, index):
            if changed is not None:
                self.entry_changed(changed, new_output=False)

    def action_copy(self) -> None:
        target = self.cursor if self.cursor is not None else self.source.last_reply()
        if target is None:
            self.notify("Nothing to copy yet", severity="warning")
            return
        what = "the selected entry" if self.cursor is not None else "the last reply"
        self.post_message(self.CopyRequested(entry_text(self.source[target]), what))
