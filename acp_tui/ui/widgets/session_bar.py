"""The session bar: one row at the top of the screen, one tab per session.

A tab shows the session's number (what Alt+N jumps to), a state mark, the
agent and the title. Running sessions spin (only while one runs); a session
that needs the user is drawn in the warning colour with a "!" badge; an
unread one ends with a dot; the current one is highlighted.

The row never wraps: titles are shortened, then dropped, then the agent
names, then the marks tighten; when even that does not fit, the row scrolls
so the current tab stays in view, with a marker ("‹3", "2›") on each side
where tabs are hidden, which a "!" joins when a hidden one needs the user.
A click on a tab posts :class:`SessionBar.Clicked`; a click on a marker
scrolls a page that way (the current tab may leave the view then, until a
new one is current).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from acp_tui.core import one_line
from acp_tui.ui.render import SPINNER_FRAMES, ThemePalette

__all__ = [
    "FPS",
    "STATES",
    "BarLayout",
    "SessionBar",
    "TabForm",
    "TabInfo",
    "now",
    "state_label",
    "state_mark",
]

STATES = ("starting", "running", "idle", "needs-you", "error", "closed")
#: Spinner frames a second while a session runs.
FPS = 8
#: The unread mark.
UNREAD = "•"


#: After the state of a session that runs in the background host.
BACKGROUND = "∞"


@dataclass(frozen=True)
class TabInfo:
    number: int  # 1-based: what Alt+N jumps to
    agent: str  # the agent's display name ("Claude Code", "demo")
    title: str  # the session's title, else its first prompt ("" when none yet)
    state: str  # one of STATES
    unread: bool = False  # output arrived since the user last looked
    current: bool = False
    cwd: str = ""
    usage: str = ""  # e.g. "12k/200k tokens", "" when unknown
    background: bool = False  # on the background host: it outlives the terminal


@dataclass(frozen=True)
class TabForm:
    """How the tabs are drawn: titles and agents' names cut to so many cells
    (None: whole, 0: dropped), and ``tight`` (no space after the number)."""

    title: int | None
    agent: int | None
    tight: bool = False


#: The longest and the shortest a title is cut to before titles are dropped.
TITLE_CELLS = (48, 6)
#: Without titles: the forms tried in order; the last one scrolls when the
#: tabs still do not fit.
TITLELESS = (
    TabForm(0, None),
    TabForm(0, 8),
    TabForm(0, 0),
    TabForm(0, 0, tight=True),
)


def now() -> float:
    """The spinner's clock (a seam tests replace to pin snapshots)."""
    return time.monotonic()


def spinner_frame() -> str:
    return SPINNER_FRAMES[int(now() * FPS) % len(SPINNER_FRAMES)]


def state_label(state: str) -> str:
    """The state in words ("needs you")."""
    return state.replace("-", " ") if state in STATES else "unknown"


def state_mark(state: str, palette: ThemePalette, frame: str = SPINNER_FRAMES[0]) -> Text:
    """The one-cell mark of ``state`` in its colour (``frame``: the spinner's)."""
    muted = palette.hex("foreground-muted", "foreground")
    if state == "running":
        return Text(frame, style=palette.hex("text-secondary", "secondary"))
    if state == "needs-you":
        warning = palette.get("warning")
        return Text(
            "!", style=Style(color=palette.background.hex6, bgcolor=warning.hex6, bold=True)
        )
    if state == "error":
        return Text("✗", style=Style(color=palette.hex("text-error", "error"), bold=True))
    if state == "closed":
        return Text("■", style=muted)
    if state == "starting":
        return Text("◌", style=muted)
    return Text("○", style=muted)  # idle (and anything unknown)


def _cut(text: str, limit: int | None) -> str:
    """``text`` cut to ``limit`` cells with an ellipsis (None: whole)."""
    if limit is None or cell_len(text) <= limit:
        return text
    cut = Text(text)
    cut.truncate(limit - 1)
    return cut.plain.rstrip() + "…"


def _tab(tab: TabInfo, form: TabForm, palette: ThemePalette, frame: str) -> Text:
    """One tab, padded by a space each side, clickable (meta ``tab``)."""
    muted = palette.hex("foreground-muted", "foreground")
    needs_you = tab.state == "needs-you"
    base = Style(color=palette.hex("text-warning", "warning")) if needs_you else Style()
    if tab.state == "closed":
        base = Style(color=muted)
    if tab.current:
        base += Style(bgcolor=palette.tint(palette.get("primary"), 0.35).hex6, bold=True)
    text = Text(" ", no_wrap=True)
    text.append(str(tab.number), style=Style(bold=True))
    if not form.tight:
        text.append(" ")
    text.append_text(state_mark(tab.state, palette, frame))
    if tab.background and not form.tight:
        text.append(BACKGROUND, style=muted)
    # The agent's name and the title come from the agent: one line, cleaned.
    agent = _cut(one_line(tab.agent), form.agent) if form.agent != 0 else ""
    if agent:
        text.append(" " + agent, style=None if needs_you or tab.current else muted)
    title = _cut(one_line(tab.title), form.title) if form.title != 0 else ""
    if title:
        text.append(" " + title)
    if tab.unread:
        text.append(
            ("" if form.tight else " ") + UNREAD, style=palette.hex("text-accent", "accent")
        )
    text.append(" ")
    # Under the parts' own styles: the badge keeps its colours on the current tab.
    text.stylize_before(base + Style.from_meta({"tab": tab.number}))
    return text


def _marker(hidden: tuple[TabInfo, ...], side: int, palette: ThemePalette) -> Text:
    """The marker "‹3" / "3›" for ``hidden`` tabs on the left (-1) or right (+1), with a
    "!" in the warning colour when one of them needs the user."""
    if not hidden:
        return Text()
    needs_you = any(t.state == "needs-you" for t in hidden)
    count = f"{len(hidden)}{'!' if needs_you else ''}"
    label = f"‹{count}" if side < 0 else f"{count[::-1]}›"
    color = (
        palette.hex("text-warning", "warning")
        if needs_you
        else palette.hex("foreground-muted", "foreground")
    )
    return Text(label, style=Style(color=color, bold=needs_you) + Style.from_meta({"scroll": side}))


@dataclass(frozen=True)
class BarLayout:
    """What the bar shows: the tabs ``first``…``end - 1`` (indices) in ``form``."""

    form: TabForm
    first: int
    end: int


class SessionBar(Widget):
    DEFAULT_CSS = """
    SessionBar {
        dock: top;
        height: 1;
        background: $panel;
        color: $foreground;
    }
    """

    #: A click means a tab, not the start of a text selection.
    ALLOW_SELECT = False

    tabs: reactive[tuple[TabInfo, ...]] = reactive(tuple, layout=False)

    class Clicked(Message):
        """A tab was clicked: ``button`` 1 is the left button, 2 the middle one."""

        def __init__(self, number: int, button: int) -> None:
            super().__init__()
            self.number = number
            self.button = button

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._spin: Timer | None = None
        #: The first tab shown when scrolling, and whether it follows the
        #: current tab (a click on a marker stops that until the current
        #: tab changes).
        self._first = 0
        self._follow = True

    @property
    def spinning(self) -> bool:
        """Whether the spinner's timer runs (only while a session runs)."""
        return self._spin is not None

    def watch_tabs(self, old: tuple[TabInfo, ...], new: tuple[TabInfo, ...]) -> None:
        if _current(old) != _current(new):
            self._follow = True
        running = any(t.state == "running" for t in new)
        if running and self._spin is None:
            self._spin = self.set_interval(1 / FPS, self.refresh)
        elif not running and self._spin is not None:
            self._spin.stop()
            self._spin = None

    def on_unmount(self) -> None:
        if self._spin is not None:
            self._spin.stop()
            self._spin = None

    def _palette(self) -> ThemePalette:
        return ThemePalette(self.app.theme_variables, self.app.current_theme.dark)

    def _width(self) -> int:
        return self.content_region.width or 1000

    def _parts(self, form: TabForm, palette: ThemePalette) -> list[Text]:
        frame = spinner_frame()
        return [_tab(tab, form, palette, frame) for tab in self.tabs]

    def _title_cells(self, width: int, palette: ThemePalette) -> int:
        """The most cells (within :data:`TITLE_CELLS`) the titles may keep
        with every tab in ``width``, or 0 when titles do not fit."""
        bare = sum(part.cell_len for part in self._parts(TITLELESS[0], palette))
        titles = [cell_len(one_line(tab.title)) for tab in self.tabs]
        longest, shortest = TITLE_CELLS
        for cells in range(longest, shortest - 1, -1):
            if bare + sum(1 + min(n, cells) for n in titles if n) <= width:
                return cells
        return 0

    def _end(self, widths: list[int], first: int, width: int, palette: ThemePalette) -> int:
        """Past the last tab shown from ``first`` with its markers in ``width``
        (at least one tab is shown)."""
        tabs = self.tabs
        used = _marker(tabs[:first], -1, palette).cell_len
        end = first + 1
        for stop in range(first + 1, len(tabs) + 1):
            used += widths[stop - 1]
            if used + _marker(tabs[stop:], 1, palette).cell_len <= width:
                end = stop
        return end

    def layout_at(self, width: int) -> BarLayout:
        """Which tabs the bar shows at ``width`` cells, and how."""
        palette = self._palette()
        count = len(self.tabs)
        cells = self._title_cells(width, palette)
        if cells:
            return BarLayout(TabForm(cells, None), 0, count)
        for form in TITLELESS:
            widths = [part.cell_len for part in self._parts(form, palette)]
            if sum(widths) <= width:
                return BarLayout(form, 0, count)
        # The tightest form, scrolled (``widths`` are its tabs').
        first = max(0, min(self._first, count - 1))
        current = _current_index(self.tabs)
        if self._follow and current is not None:
            first = min(first, current)
            while current >= self._end(widths, first, width, palette):
                first += 1
        # No room left empty at the end: show as many as fit.
        while first > 0 and self._end(widths, first - 1, width, palette) == count:
            first -= 1
        return BarLayout(form, first, self._end(widths, first, width, palette))

    def render(self) -> Text:
        if not self.tabs:
            return Text()
        palette = self._palette()
        layout = self.layout_at(self._width())
        self._first = layout.first
        parts = self._parts(layout.form, palette)
        line = Text(no_wrap=True, overflow="crop")
        line.append_text(_marker(self.tabs[: layout.first], -1, palette))
        for part in parts[layout.first : layout.end]:
            line.append_text(part)
        right = _marker(self.tabs[layout.end :], 1, palette)
        if right:  # at the right edge
            line.append(" " * max(0, self._width() - line.cell_len - right.cell_len))
        line.append_text(right)
        return line

    def scroll_page(self, side: int) -> None:
        """Show the tabs hidden on the left (``side`` -1) or right (+1)."""
        width = self._width()
        layout = self.layout_at(width)
        if layout.first == 0 and layout.end == len(self.tabs):
            return
        palette = self._palette()
        widths = [p.cell_len for p in self._parts(layout.form, palette)]
        if side > 0:
            first = min(layout.end, len(self.tabs) - 1)
        else:
            first = layout.first
            while first > 0 and self._end(widths, first - 1, width, palette) >= layout.first:
                first -= 1
        self._first = first
        self._follow = False
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        meta = event.style.meta
        if "tab" in meta and event.button in (1, 2):
            event.stop()
            self.post_message(self.Clicked(int(meta["tab"]), event.button))
        elif "scroll" in meta and event.button == 1:
            event.stop()
            self.scroll_page(int(meta["scroll"]))


def _current_index(tabs: tuple[TabInfo, ...]) -> int | None:
    return next((i for i, tab in enumerate(tabs) if tab.current), None)


def _current(tabs: tuple[TabInfo, ...]) -> int | None:
    """The current tab's number."""
    index = _current_index(tabs)
    return tabs[index].number if index is not None else None
