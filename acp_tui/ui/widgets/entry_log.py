"""The conversation: a virtualized log of the core's entries on the Line API.

One ``ScrollView``, no widget per entry. Each entry renders to ``Strip``s
cached per (entry version, width, theme, UI state); a Fenwick tree of
heights maps a screen row to (entry, line) in O(log n). Entries not yet
seen at the current width have an estimated height and are measured when
they scroll into view, so opening a 100,000-entry log renders one screen.
``entry_changed(i)`` re-renders entry i only (AC-19).

The log reads entries from the host core (never a copy of them) and keeps
only presentation state: which entries are expanded, the cursor, how much
of a streaming reply is revealed, whether it follows the tail.

Follow-tail (AC-20) is a state: at the bottom the log follows new output;
scrolling up by more than :data:`FOLLOW_THRESHOLD` lines stops following
(a "new output" hint appears on the last row when more arrives); reaching
the bottom again, or End, resumes.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from acp_tui.core import AssistantEntry, Entry, ToolCallEntry
from acp_tui.ui.height_index import HeightIndex
from acp_tui.ui.log_source import LogSource, entry_text, estimate_height
from acp_tui.ui.render import EntryRenderer, RenderOptions, RenderStyles
from acp_tui.ui.render.long_text import LazyRows
from acp_tui.ui.reveal import RevealState

#: Lines the user must scroll up (away from the bottom) before following stops.
FOLLOW_THRESHOLD = 2
#: Rendered entries kept (strips); heights of all entries are always kept.
CACHE_ENTRIES = 2048
FRAME_SECONDS = 1 / 60
#: While idle, entries this close to the view (in entries) are measured in the
#: background, a few milliseconds at a time, so the scrollbar is exact.
IDLE_MEASURE_SECONDS = 0.05
IDLE_MEASURE_REACH = 300
IDLE_MEASURE_BUDGET = 0.004
SPINNER_SECONDS = 0.1


class EntryLog(ScrollView, can_focus=True):
    """The virtualized entry log."""

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
    ]

    DEFAULT_CSS = """
    EntryLog {
        height: 1fr;
        background: $background;
        scrollbar-gutter: stable;
        overflow-x: hidden;
    }
    """

    following: reactive[bool] = reactive(True)
    """Whether new output scrolls into view."""

    class CopyRequested(Message):
        def __init__(self, text: str, what: str) -> None:
            super().__init__()
            self.text = text
            self.what = what

    def __init__(self, source: LogSource, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.source = source
        self.renderer = EntryRenderer()
        self.styles_for_render = RenderStyles.default()
        #: Rendered entries (how many times each was rendered is what AC-19 counts).
        self.render_count = 0
        self.expanded: set[int] = set()
        self.cursor: int | None = None
        self.reveals: dict[int, RevealState] = {}
        self.new_output_below = False
        #: The session's working directory (paths inside it are shown relative).
        self.cwd: str | None = None
        #: Shown in the middle of an empty log (what to do first).
        self.empty_message = ""
        self._theme_generation = 0
        self._applied_theme = ""
        self._index = HeightIndex()
        self._measured = bytearray()
        self._width = 0
        self._cache: OrderedDict[int, tuple[tuple[object, ...], Sequence[Strip]]] = OrderedDict()
        self._running_tools: set[int] = set()
        self._spinner_frame = 0
        self._programmatic_scroll = False
        self._size_dirty = False
        self._dirty: set[int] = set()
        self._settle_scheduled = False
        self._stale_reveals: set[int] = set()
        #: The core added or changed entries since the last settle (not only
        #: the user expanding one): what raises the "new output" hint.
        self._grew = False
        #: The key the hint names: End works from the log and an empty prompt.
        self.follow_key = "End"

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
            self._scroll_to_end()

    # -- the content ---------------------------------------------------------------

    def _content_width(self) -> int:
        return self._width or max(self.scrollable_content_region.width, 1)

    def _remeasure_all(self) -> None:
        width = self._content_width()
        self._cache.clear()
        self._measured = bytearray(len(self.source))
        self._index.reset(estimate_height(entry, width) for _, entry in self.source.entries_from(0))
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
            heights.append(estimate_height(entry, width))
            self._track_running(index, entry)
        self._index.extend(heights)
        self._measured.extend(bytes(len(heights)))
        self._grew = self._grew or bool(heights)
        self._schedule_settle()

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
        self._cache.pop(index, None)
        self._dirty.add(index)
        self._schedule_settle()

    def _schedule_settle(self) -> None:
        if not self._settle_scheduled:
            self._settle_scheduled = True
            self.call_later(self._settle)

    def _settle(self) -> None:
        self._settle_scheduled = False
        dirty, self._dirty = self._dirty, set()
        first, last = self._visible_range()
        for index in dirty:
            if first <= index <= last:
                self._measure(index)
            else:
                self._measured[index] = 0  # measured again when it scrolls into view
        grew, self._grew = self._grew, False
        self._content_changed(new_output=grew)

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
        self._apply_virtual_size()  # follows the tail when following
        if shift and not self.following:
            # Keep what the user is looking at in place.
            self._programmatic_scroll = True
            try:
                self.scroll_to(y=self.scroll_y + shift, animate=False, force=True)
            finally:
                self._programmatic_scroll = False
        self.refresh()

    def _visible_range(self) -> tuple[int, int]:
        top = int(self.scroll_y)
        first, _ = self._index.locate(top)
        last, _ = self._index.locate(top + max(self.size.height, 1) - 1)
        return first, last

    def reset(self) -> None:
        """Everything changed (entries removed): start over."""
        self.reveals.clear()
        self.expanded.clear()
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

    def _key(self, index: int, entry: Entry) -> tuple[object, ...]:
        reveal = self.reveals.get(index)
        return (
            entry.version,
            self._content_width(),
            self._theme_generation,
            index in self.expanded,
            index == self.cursor,
            tuple(reveal.revealed) if reveal is not None else None,
            self._spinner_frame if index in self._running_tools else 0,
        )

    def strips(self, index: int) -> Sequence[Strip]:
        """Entry ``index`` rendered at the current width (cached)."""
        entry = self.source[index]
        key = self._key(index, entry)
        cached = self._cache.get(index)
        if cached is not None and cached[0] == key:
            self._cache.move_to_end(index)
            return cached[1]
        reveal = self.reveals.get(index)
        options = RenderOptions(
            width=self._content_width(),
            styles=self.styles_for_render,
            expanded=index in self.expanded,
            spinner_frame=self._spinner_frame,
            reveal=reveal.shown() if reveal is not None else None,
            selected=index == self.cursor,
            cwd=self.cwd,
        )
        base = self.rich_style  # the theme's background under unstyled cells
        rendered = self.renderer.render(entry, options)
        strips: Sequence[Strip]
        if isinstance(rendered, LazyRows):  # a long text: rows made as they are drawn
            strips = rendered.styled(base)
        else:
            strips = [strip.apply_style(base) for strip in rendered]
        self.render_count += 1
        self._cache[index] = (key, strips)
        if len(self._cache) > CACHE_ENTRIES:
            self._cache.popitem(last=False)
        if self._index.height(index) != len(strips) or not self._measured[index]:
            self._measured[index] = 1
            if self._index.height(index) != len(strips):
                self._index.set(index, len(strips))
                self._size_dirty = True
        return strips

    def _measure(self, index: int) -> None:
        self.strips(index)

    def render_line(self, y: int) -> Strip:
        width = self._content_width()
        if self.new_output_below and not self.following and y == self.size.height - 1:
            return self._hint_strip(width)
        if not len(self._index):
            return self._empty_line(y, width)
        line = self.scroll_offset.y + y
        index, within = self._index.locate(line)
        if index >= len(self._index):
            return Strip.blank(width, self.rich_style)
        strips = self.strips(index)
        if self._size_dirty:
            self.call_after_refresh(self._apply_virtual_size)
        if within >= len(strips):
            return Strip.blank(width, self.rich_style)
        return strips[within]

    def _empty_line(self, y: int, width: int) -> Strip:
        lines = self.empty_message.splitlines()
        top = max((self.size.height - len(lines)) // 2, 0)
        if not top <= y < top + len(lines):
            return Strip.blank(width, self.rich_style)
        text = lines[y - top][:width]
        style = self.styles_for_render.heading if y == top else self.styles_for_render.muted
        left = max((width - len(text)) // 2, 0)
        segments = [
            Segment(" " * left),
            Segment(text, style),
            Segment(" " * (width - left - len(text))),
        ]
        return Strip(segments, width).apply_style(self.rich_style)

    def set_empty_message(self, message: str) -> None:
        self.empty_message = message
        self.refresh()

    def _hint_strip(self, width: int) -> Strip:
        text = f" ↓ new output — {self.follow_key} to follow "
        style = self.styles_for_render.status_waiting
        pad = max(width - len(text), 0)
        segments = [
            Segment(" " * (pad // 2)),
            Segment(text, style + Style(reverse=True)),
            Segment(" " * (pad - pad // 2)),
        ]
        return Strip(segments, width).apply_style(self.rich_style)

    # -- size, scrolling and following -------------------------------------------

    def _apply_virtual_size(self) -> None:
        self._size_dirty = False
        size = Size(self._content_width(), self._index.total())
        if size != self.virtual_size:
            self.virtual_size = size
        if self.following:
            self._scroll_to_end()

    def _content_changed(self, *, new_output: bool = False) -> None:
        if self.following:
            self._measure_tail()
        elif new_output and len(self._index):
            self.new_output_below = True
        self._apply_virtual_size()
        self.refresh()

    def _measure_tail(self) -> None:
        """Measure the last entries, enough to fill the screen exactly."""
        height = self.size.height or 1
        covered = 0
        index = len(self._index) - 1
        while index >= 0 and covered < height:
            if not self._measured[index] or index in self.reveals:
                self._measure(index)
            covered += self._index.height(index)
            index -= 1

    def _scroll_to_end(self) -> None:
        target = self.max_scroll_y

        if self.scroll_y != target:
            self._programmatic_scroll = True
            try:
                # force: the scrollbar (and so "allow_vertical_scroll") appears
                # only at the next layout, after the content has already grown.
                self.scroll_to(y=target, animate=False, force=True)
            finally:
                self._programmatic_scroll = False

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._programmatic_scroll:
            return
        distance = self.max_scroll_y - new_value
        if distance <= 0:
            self.following = True
        elif distance > FOLLOW_THRESHOLD:
            self.following = False

    def watch_following(self, following: bool) -> None:
        if following:
            self.new_output_below = False
        else:
            self.flush_reveals()
        self.refresh()

    def action_scroll_end(self) -> None:
        self.following = True
        self._measure_tail()
        self._apply_virtual_size()
        self._scroll_to_end()

    def action_scroll_home(self) -> None:
        self.following = False
        self.scroll_to(y=0, animate=False)

    # -- reveal ------------------------------------------------------------------

    def stream(self, index: int) -> None:
        """Entry ``index`` (an assistant entry) received text: reveal it smoothly."""
        entry = self.source[index]
        if not isinstance(entry, AssistantEntry) or not self.following:
            self.entry_changed(index)
            return
        for other in [i for i in self.reveals if i != index]:
            self._flush_one(other)
        if index not in self.reveals:
            self.reveals[index] = RevealState()
        # The new text is read once per frame (in _reveal_frame), not per delta.
        self._stale_reveals.add(index)
        self._ticker.resume()

    def _refresh_targets(self) -> None:
        for index in self._stale_reveals:
            state = self.reveals.get(index)
            entry = self.source[index]
            if state is not None and isinstance(entry, AssistantEntry):
                for chunk_index, chunk in enumerate(entry.chunks):
                    state.set_target(chunk_index, chunk.text)
        self._stale_reveals.clear()

    def _reveal_frame(self) -> None:
        self._refresh_targets()
        changed = [index for index, state in self.reveals.items() if state.step()]
        for index in changed:
            self._cache.pop(index, None)
            self._measure(index)
        done = [index for index, state in self.reveals.items() if state.done]
        for index in done:
            del self.reveals[index]
            self._cache.pop(index, None)
            self._measure(index)
        if changed or done:
            self._content_changed(new_output=True)
        if not self.reveals:
            self._ticker.pause()

    def _flush_one(self, index: int) -> None:
        self._stale_reveals.discard(index)
        state = self.reveals.pop(index, None)
        if state is not None:
            self._cache.pop(index, None)
            self._measure(index)

    def flush_reveals(self) -> None:
        """Show all streamed text at once (turn ended, user scrolled away)."""
        if not self.reveals:
            return
        for index in list(self.reveals):
            self._flush_one(index)
        self._ticker.pause()
        self._content_changed()

    @property
    def revealing(self) -> bool:
        return bool(self.reveals)

    def _spin(self) -> None:
        if not self._running_tools:
            self._spinner.pause()
            return
        self._spinner_frame += 1
        first, last = self._visible_range()
        visible = [i for i in self._running_tools if first <= i <= last]
        for index in visible:
            self._cache.pop(index, None)
            self._measure(index)
        if visible:
            self._content_changed()

    # -- cursor, expansion, copy -------------------------------------------------

    def action_cursor(self, step: int) -> None:
        if not len(self._index):
            return
        if self.cursor is None:
            first, _ = self._index.locate(self.scroll_offset.y)
            last, _ = self._index.locate(self.scroll_offset.y + self.size.height - 1)
            new = min(last, len(self._index) - 1) if step < 0 else first
        else:
            new = min(max(self.cursor + step, 0), len(self._index) - 1)
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
        target = self.cursor
        if target is None:
            target = next(
                (
                    i
                    for i in range(len(self.source) - 1, -1, -1)
                    if isinstance(self.source[i], AssistantEntry)
                ),
                None,
            )
        if target is None:
            self.notify("Nothing to copy yet", severity="warning")
            return
        what = "the selected entry" if self.cursor is not None else "the last reply"
        self.post_message(self.CopyRequested(entry_text(self.source[target]), what))
