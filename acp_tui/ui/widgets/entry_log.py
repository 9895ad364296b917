"""The conversation: a virtualized log of the core's entries on the Line API.

One ``ScrollView``, no widget per entry. Each entry renders to ``Strip``s
cached per (entry version, width, theme, UI state); a Fenwick tree of
heights maps a screen row to (entry, line) in O(log n). Entries not yet
seen at the current width have an estimated height and are measured when
they scroll into view, so opening a 100,000-entry log renders one screen.
``entry_changed(i)`` re-renders entry i only (AC-19).

The log keeps presentation state only: which entries are expanded, the
cursor, how much of each reply's text was handled and how much of it is
revealed (log_reveal.py), whether it follows the tail (log_follow.py),
which tool calls are shown inside their parent's row (log_nesting.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.strip import Strip

from acp_tui.core import AssistantEntry, Entry, ToolCallEntry
from acp_tui.ui.height_index import HeightIndex
from acp_tui.ui.input_first import InputFirst
from acp_tui.ui.log_source import LogSource, estimate_height
from acp_tui.ui.lru import LRU
from acp_tui.ui.render import EntryRenderer, RenderOptions, RenderStyles
from acp_tui.ui.render.long_text import StripRows
from acp_tui.ui.reveal import RevealState
from acp_tui.ui.widgets.log_cursor import LogCursor
from acp_tui.ui.widgets.log_empty import empty_line
from acp_tui.ui.widgets.log_follow import FOLLOW_THRESHOLD
from acp_tui.ui.widgets.log_nesting import LogNesting
from acp_tui.ui.widgets.log_reveal import LogReveal

__all__ = ["FOLLOW_THRESHOLD", "EntryLog"]

#: Rendered entries kept (strips); heights of all entries are always kept.
CACHE_ENTRIES = 2048
FRAME_SECONDS = 1 / 60
#: Reveal frames skipped between two while the user types (20 fps instead of 60).
TYPING_SKIP = 2
#: While idle, entries this close to the view (in entries) are measured in the
#: background, a few milliseconds at a time, so the scrollbar is exact.
IDLE_MEASURE_SECONDS = 0.05
IDLE_MEASURE_REACH = 300
IDLE_MEASURE_BUDGET = 0.004
#: Seconds a streaming reply may take to render in one frame.
RENDER_BUDGET = 0.005
SPINNER_SECONDS = 0.1


class EntryLog(LogCursor, can_focus=True):
    """The virtualized entry log (its cursor and what its keys do: log_cursor.py)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "scroll_up", "Scroll up", show=False),
        Binding("down", "scroll_down", "Scroll down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "scroll_home", "Top", show=False),
        Binding("end", "scroll_end", "Bottom", show=False),
        Binding("k,shift+up", "cursor(-1)", "Previous entry", show=False),
        Binding("j,shift+down", "cursor(1)", "Next entry", show=False),
        Binding("enter,space,o", "toggle_expand", "Expand", show=False),
        Binding("c", "copy", "Copy", show=False),
        # A changes entry: rewind its turn, restore a file, edit one (ui/rewind_flow.py);
        # a rewind entry: undo it; a ! command: keep its output from the agent.
        Binding("r", "entry_action('rewind')", "Rewind", show=False),
        Binding("f", "entry_action('restore_file')", "Restore a file", show=False),
        Binding("e", "entry_action('edit')", "Edit", show=False),
        Binding("u", "entry_action('undo')", "Undo rewind", show=False),
        Binding("d", "entry_action('drop')", "Drop a ! command's output", show=False),
    ]

    DEFAULT_CSS = """
    EntryLog {
        height: 1fr;
        background: $background;
        scrollbar-gutter: stable;
        overflow-x: hidden;
    }
    """

    def __init__(self, source: LogSource, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.source = source
        self.renderer = EntryRenderer()
        self.styles_for_render = RenderStyles.default()
        #: Rendered entries (how many times each was rendered is what AC-19 counts).
        self.render_count = 0
        self.expanded: set[int] = set()
        #: Expanded changes entries: their files' diffs, once fetched.
        self.details: dict[int, list[dict[str, Any]]] = {}
        self.cursor: int | None = None
        self.reveal = LogReveal()
        self.nesting = LogNesting()
        #: The session's working directory (paths inside it are shown relative).
        self.cwd: str | None = None
        #: Shown in the middle of an empty log (what to do first).
        self.empty_message = ""
        self._theme_generation = 0
        self._applied_theme = ""
        self._index = HeightIndex()
        self._measured = bytearray()
        self._width = 0
        #: Rendered entries by index: (the key they were made for, their rows).
        self._cache: LRU[int, tuple[tuple[object, ...], Sequence[Strip]]] = LRU(CACHE_ENTRIES)
        self._running_tools: set[int] = set()
        self._spinner_frame = 0
        self._size_dirty = False
        self._dirty: set[int] = set()
        self._settle_scheduled = False
        #: Streaming replies whose rows are not all made yet (out of time).
        self._behind: set[int] = set()
        #: The core added or changed entries since the last settle (not only
        #: the user expanding one): what raises the "new output" hint.
        self._grew = False
        #: Whether the user is typing (the app tells; the log then yields frames).
        self.typing: Callable[[], bool] = lambda: False
        #: The user's input on its way to the screen (the log's frames wait for it).
        self.input_first = InputFirst()
        self._frames_skipped = 0

    @property
    def reveals(self) -> dict[int, RevealState]:
        """Entry index -> its reveal, while one runs."""
        return self.reveal.reveals

    # -- lifecycle ---------------------------------------------------------------

    def on_mount(self) -> None:
        self._ticker = self.set_interval(FRAME_SECONDS, self._reveal_frame, pause=True)
        self._spinner = self.set_interval(SPINNER_SECONDS, self._spin, pause=True)
        self.set_interval(IDLE_MEASURE_SECONDS, self._measure_nearby)
        self._apply_theme()

    def _apply_theme(self) -> None:
        self._applied_theme = self.app.theme
        variables = self.app.theme_variables
        dark = self.app.current_theme.dark
        self.styles_for_render = RenderStyles.from_theme_variables(variables, dark)
        self._theme_generation += 1
        self.renderer.clear()

    def notify_style_update(self) -> None:
        # Called once the new theme's variables are in place (a watcher on
        # app.theme would run before them).
        super().notify_style_update()
        if self.is_mounted and self._applied_theme != self.app.theme:
            self._apply_theme()
            self._invalidate_all()

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        if width != self._width:
            self._width = width
            self._remeasure_all()
        elif self.following:
            # Shorter (the plan or the prompt grew): keep the last line in view.
            self.scroll_to_tail()

    # -- the content ---------------------------------------------------------------

    def _content_width(self) -> int:
        return self._width or max(self.scrollable_content_region.width, 1)

    def _remeasure_all(self) -> None:
        width = self._content_width()
        self._cache.clear()
        self._measured = bytearray(len(self.source))
        self._index.reset(
            self._estimate(i, entry, width) for i, entry in self.source.entries_from(0)
        )
        self._content_changed()

    def _invalidate_all(self) -> None:
        self._cache.clear()
        self._measured = bytearray(len(self.source))
        self._content_changed()

    def sync(self) -> None:
        """Take in entries appended to the source since the last call."""
        width = self._content_width()
        heights = []
        for index, entry in self.source.entries_from(len(self._index)):
            heights.append(self._estimate(index, entry, width))
            self._track_running(index, entry)
        self._index.extend(heights)
        self._measured.extend(bytes(len(heights)))
        self._grew = self._grew or bool(heights)
        self._schedule_settle()

    def _estimate(self, index: int, entry: Entry, width: int) -> int:
        """A guess of entry ``index``'s height (0: shown in another's row)."""
        if self._place(index, entry):
            return 0
        return estimate_height(entry, width) + self.nesting.has_children(index)

    def _place(self, index: int, entry: Entry) -> bool:
        """Learn where entry ``index`` is shown; True: inside another row."""
        row = self.nesting.take(index, entry)
        if row != index:
            self._cache.discard(row)
            self._dirty.add(row)
        return row != index

    def entry_changed(self, index: int, *, new_output: bool = True) -> None:
        """Entry ``index`` changed (in the core, or only how it is shown when
        ``new_output`` is False): re-render it, and only it.

        Changes are collected and applied once per pass of the message loop
        (:meth:`_settle`): a burst of updates to one entry renders it once."""
        if index >= len(self._index):
            self.sync()
            return
        self._grew = self._grew or new_output
        self._track_running(index)
        self._cache.discard(index)
        self._dirty.add(index)
        self._place(index, self.source[index])
        self._schedule_settle()

    def _schedule_settle(self) -> None:
        if not self._settle_scheduled:
            self._settle_scheduled = True
            self.call_later(self._settle)

    def _settle(self) -> None:
        self._settle_scheduled = False
        dirty, self._dirty = self._dirty, set()
        first, last = self._visible_range()
        shown = []
        for index in dirty:
            if first <= index <= last:
                self._measure(index)
                shown.append(index)
            else:
                self._measured[index] = 0  # measured again when it scrolls into view
        grew, self._grew = self._grew, False
        self._content_changed(new_output=grew, only=shown)

    @property
    def measured(self) -> bool:
        """Whether every entry's height is a measured one (no estimates left)."""
        return self._measured.find(0) < 0

    def _measure_nearby(self) -> None:
        """Replace estimated heights near the view with real ones (see above)."""
        if not len(self._index) or not self.size.height or self.reveals:
            return
        first, last = self._visible_range()
        start = max(first - IDLE_MEASURE_REACH, 0)
        end = min(last + IDLE_MEASURE_REACH, len(self._index))
        deadline = time.perf_counter() + IDLE_MEASURE_BUDGET
        shift = 0
        changed = False
        while time.perf_counter() < deadline:
            index = self._measured.find(0, start, end)
            if index < 0:
                break
            before = self._index.height(index)
            self._measure(index)
            after = self._index.height(index)
            if after != before:
                changed = True
                if index < first:
                    shift += after - before
            start = index + 1
        if not changed:
            return
        self.apply_virtual_size()  # follows the tail when following
        if shift and not self.following:
            self.scroll_quietly(self.scroll_y + shift)  # what the user looks at stays put
        self.refresh()

    def _visible_range(self) -> tuple[int, int]:
        top = int(self.scroll_y)
        first, _ = self._index.locate(top)
        last, _ = self._index.locate(top + max(self.size.height, 1) - 1)
        return first, last

    def reset(self) -> None:
        """Everything changed (entries removed): start over."""
        self.reveal.clear()
        self._behind.clear()
        self.expanded.clear()
        self.details.clear()
        self.nesting.clear()
        self.cursor = None
        self._running_tools.clear()
        self._remeasure_all()

    def _track_running(self, index: int, entry: Entry | None = None) -> None:
        if entry is None:
            entry = self.source[index]
        if isinstance(entry, ToolCallEntry) and entry.shown_status == "in_progress":
            self._running_tools.add(index)
            self._spinner.resume()
        else:
            self._running_tools.discard(index)

    # -- rendering ---------------------------------------------------------------

    def _shown(self, index: int, entry: Entry) -> dict[int, int] | None:
        """How much of each chunk to show: what was handled, or revealed so far;
        chunks no event told of yet are not shown."""
        shown = self.reveal.shown(index)
        if shown is not None and isinstance(entry, AssistantEntry):
            for chunk in range(len(shown), len(entry.chunks)):
                shown[chunk] = 0
        return shown

    def _key(self, index: int, entry: Entry) -> tuple[object, ...]:
        handled = self.reveal.key(index)
        return (
            entry.version if handled is None else handled,
            len(entry.chunks) if isinstance(entry, AssistantEntry) else 0,
            self._content_width(),
            self._theme_generation,
            index in self.expanded,
            index in self.details,
            index == self.cursor,
            self._spinner_frame if self._spins(index) else 0,
            self.nesting.generation(index),
        )

    def _spins(self, index: int) -> bool:
        """Whether entry ``index`` shows a running tool call (or one under it)."""
        running = self._running_tools
        return index in running or (index in self.expanded and self.nesting.runs(index, running))

    def strips(self, index: int) -> Sequence[Strip]:
        """Entry ``index`` rendered at the current width (cached)."""
        if self.nesting.hidden(index):
            return self._hidden(index)
        entry = self.source[index]
        key = self._key(index, entry)
        cached = self._cache.get(index)
        if cached is not None and cached[0] == key:
            return cached[1]
        options = RenderOptions(
            width=self._content_width(),
            styles=self.styles_for_render,
            expanded=index in self.expanded,
            spinner_frame=self._spinner_frame,
            reveal=self._shown(index, entry),
            selected=index == self.cursor,
            cwd=self.cwd,
            details=self.details.get(index),
            children=self.nesting.tree(index, self.source.__getitem__),
        )
        # A streaming reply renders for a bounded time a frame (the rest of
        # the frame is the screen's and the keyboard's); what is left, later.
        streaming = index in self.reveals or index in self._behind
        deadline = time.perf_counter() + RENDER_BUDGET if streaming else None
        # The theme's background under unstyled cells.
        strips = self.renderer.render(entry, options, self.rich_style, deadline)
        self.render_count += 1
        if isinstance(strips, StripRows) and not strips.complete:
            self._behind.add(index)  # rendered on at the next frame
            self._ticker.resume()
        else:
            self._behind.discard(index)
        self._cache.set(index, (key, strips))
        if self._index.height(index) != len(strips) or not self._measured[index]:
            self._measured[index] = 1
            if self._index.height(index) != len(strips):
                self._index.set(index, len(strips))
                self._size_dirty = True
        return strips

    def _hidden(self, index: int) -> Sequence[Strip]:
        """Entry ``index`` is shown inside another one's row: none of its own."""
        self._measured[index] = 1
        if self._index.height(index):
            self._index.set(index, 0)
            self._size_dirty = True
        return ()

    def _measure(self, index: int) -> None:
        self.strips(index)

    def render_line(self, y: int) -> Strip:
        width = self._content_width()
        if self.hint_shown(y):
            return self.hint_strip(width, self.styles_for_render.status_waiting)
        if not len(self._index):
            message, height = self.empty_message, self.size.height
            return empty_line(message, y, width, height, self.styles_for_render).apply_style(
                self.rich_style
            )
        line = self.scroll_offset.y + y
        index, within = self._index.locate(line)
        if index >= len(self._index):
            return Strip.blank(width, self.rich_style)
        strips = self.strips(index)
        if self._size_dirty:
            self.call_after_refresh(self.apply_virtual_size)
        if within >= len(strips):
            return Strip.blank(width, self.rich_style)
        return strips[within]

    def set_empty_message(self, message: str) -> None:
        self.empty_message = message
        self.refresh()

    # -- size and following (log_follow.py) -------------------------------------

    def content_extent(self) -> Size:
        return Size(self._content_width(), self._index.total())

    def apply_virtual_size(self) -> None:
        self._size_dirty = False
        super().apply_virtual_size()

    def _content_changed(self, *, new_output: bool = False, only: Sequence[int] = ()) -> None:
        """Show the change; ``only``: just these entries' rows changed (if
        nothing else moved, only their lines are repainted)."""
        size, scroll = self.virtual_size, self.scroll_offset
        self.content_grew(new_output=new_output)
        if only and self.virtual_size == size and self.scroll_offset == scroll:
            for index in only:
                self.refresh_lines(self._index.offset(index), self._index.height(index))
        else:
            self.refresh()

    def measure_tail(self) -> None:
        """Measure the last entries, enough to fill the screen exactly."""
        height = self.size.height or 1
        covered = 0
        index = len(self._index) - 1
        while index >= 0 and covered < height:
            if not self._measured[index] or index in self.reveals:
                self._measure(index)
            covered += self._index.height(index)
            index -= 1

    def stopped_following(self) -> None:
        self.flush_reveals()

    # -- text and its reveal (log_reveal.py) -------------------------------------

    def stream(self, index: int, *, reveal: bool = True) -> None:
        """Entry ``index``'s text grew (text deltas grow only its end):
        revealed smoothly when ``reveal`` (a turn runs) and the log follows
        the tail, else shown whole as the view has it now."""
        entry = self.source[index]
        if not isinstance(entry, AssistantEntry):
            self.entry_changed(index)
        elif (reveal and self.following) or index in self.reveals:
            self._flush_others(index)
            self.reveal.followed(index, entry.chunks)
            self._ticker.resume()
        else:
            # What the reply showed when the user scrolled away (or when its
            # turn ended) is no bound: it shows all it has.
            self.reveal.forget(index)
            self.entry_changed(index)

    def _flush_others(self, index: int) -> None:
        for other in [i for i in self.reveals if i != index]:
            self._flush_one(other)

    def _reveal_frame(self) -> None:
        if self.input_first.pending or (self.typing() and self._frames_skipped < TYPING_SKIP):
            # A key is on its way to the screen (this frame is its), or the
            # user types: the prompt gets most frames (a log frame of a long
            # reply costs several of the prompt's), the log moves on every
            # (TYPING_SKIP + 1)th frame. The reveal keeps its pace: the
            # frame that comes makes up the steps of those skipped.
            self._frames_skipped += 1
            return
        steps, self._frames_skipped = 1 + self._frames_skipped, 0
        changed, done = self.reveal.step(steps)
        behind = [index for index in self._behind if index not in changed]
        for index in behind:
            self._cache.discard(index)
        touched = [*changed, *(i for i in (*done, *behind) if i not in changed)]
        for index in touched:
            self._measure(index)
        if touched:
            self._content_changed(new_output=True, only=touched)
        if not self.reveals and not self._behind:
            self._ticker.pause()

    def _flush_one(self, index: int) -> None:
        if self.reveal.flush(index):
            self._measure(index)

    def finish_reveals(self) -> None:
        """The turn ended: what is left to reveal is revealed within a few frames."""
        self.reveal.finish()

    def flush_reveals(self) -> None:
        """Show all streamed text at once (the user scrolled away, the agent is gone)."""
        flushed = self.reveal.flush_all()
        if not flushed:
            return
        for index in flushed:
            self._measure(index)
        self._ticker.pause()
        self._content_changed()

    @property
    def revealing(self) -> bool:
        """Whether a reply is still coming onto the screen (revealed or rendered)."""
        return bool(self.reveals or self._behind)

    def _spin(self) -> None:
        if not self._running_tools:
            self._spinner.pause()
            return
        self._spinner_frame += 1
        first, last = self._visible_range()
        rows = {self.nesting.row(index) for index in self._running_tools}
        visible = [i for i in rows if first <= i <= last]
        for index in visible:
            self._measure(index)
        if visible:
            self._content_changed()
