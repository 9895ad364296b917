"""Scrolling for the entry log: follow-tail as a state (AC-20).

At the bottom the view follows new output; scrolling up by more than
:data:`FOLLOW_THRESHOLD` lines stops following (a "new output" hint then
shows on the last row when more arrives); reaching the bottom again, or
End, resumes. Scrolls the view makes itself (to keep the tail in view)
never count as the user's.

Textual's ``Widget.anchor()`` is not used: the compositor re-anchors from
the arranged children's extent, which a Line-API view has none of, and it
lets go at the first line scrolled (no threshold).
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

#: Lines the user must scroll up (away from the bottom) before following stops.
FOLLOW_THRESHOLD = 2


class FollowingScrollView(ScrollView):
    """A Line-API scroll view whose content grows at the bottom."""

    following: reactive[bool] = reactive(True)
    """Whether new output scrolls into view."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.new_output_below = False
        #: The key the hint names: End works from the log and an empty prompt.
        self.follow_key = "End"
        self._programmatic_scroll = False

    # -- what the subclass provides ------------------------------------------------

    def content_extent(self) -> Size:
        """The whole content's size (width, lines)."""
        raise NotImplementedError

    def measure_tail(self) -> None:
        """Make the last screenful's heights exact (before scrolling to the end)."""

    def stopped_following(self) -> None:
        """The user scrolled away from the tail."""

    # -- size and following ----------------------------------------------------------

    def apply_virtual_size(self) -> None:
        size = self.content_extent()
        if size != self.virtual_size:
            self.virtual_size = size
        if self.following:
            self.scroll_to_tail()

    def content_grew(self, *, new_output: bool) -> None:
        """The content changed (``new_output``: it has more to read)."""
        if self.following:
            self.measure_tail()
        elif new_output and self.content_extent().height:
            self.new_output_below = True
        self.apply_virtual_size()

    def scroll_to_tail(self) -> None:
        target = self.max_scroll_y
        if self.scroll_y != target:
            # force: the scrollbar (and so "allow_vertical_scroll") appears
            # only at the next layout, after the content has already grown.
            self.scroll_quietly(target)

    def scroll_quietly(self, y: float) -> None:
        """Scroll to ``y`` without it counting as the user's scroll."""
        self._programmatic_scroll = True
        try:
            self.scroll_to(y=y, animate=False, force=True)
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

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        # Textual moves the thumb only when scroll_y changes while the bar is
        # shown; the tail is scrolled to before the bar appears (at the next
        # layout), which left the thumb at the top under a view at the bottom.
        if shown:
            self.vertical_scrollbar.position = self.scroll_y

    def watch_scroll_target_y(self, old_value: float, new_value: float) -> None:
        # An animated scroll (Page Up) sets its target first: the user has left
        # the tail already, before the view gets there (the tail, growing
        # meanwhile, would otherwise pull the view back down).
        if not self._programmatic_scroll and self.max_scroll_y - new_value > FOLLOW_THRESHOLD:
            self.following = False

    def watch_following(self, following: bool) -> None:
        if following:
            self.new_output_below = False
        else:
            self.stopped_following()
        self.refresh()

    def action_scroll_end(self) -> None:
        self.following = True
        self.measure_tail()
        self.apply_virtual_size()
        self.scroll_to_tail()

    def action_scroll_home(self) -> None:
        self.following = False
        self.scroll_to(y=0, animate=False)

    # -- the hint --------------------------------------------------------------------

    def hint_shown(self, y: int) -> bool:
        """Whether row ``y`` shows the "new output" hint."""
        return self.new_output_below and not self.following and y == self.size.height - 1

    def hint_strip(self, width: int, style: Style) -> Strip:
        text = f" ↓ new output — {self.follow_key} to follow "
        pad = max(width - len(text), 0)
        segments = [
            Segment(" " * (pad // 2)),
            Segment(text, style + Style(reverse=True)),
            Segment(" " * (pad - pad // 2)),
        ]
        return Strip(segments, width).apply_style(self.rich_style)
