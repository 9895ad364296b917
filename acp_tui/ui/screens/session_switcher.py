"""The session switcher: every session in a list, filtered as you type.

A filter on top (fuzzy, with Textual's :class:`~textual.fuzzy.Matcher`, the
command palette's, in the number, agent, title or folder, or the agent and
title together), the sessions below, each with its number, state, agent and
title, and under them its folder and usage. The current session is marked
"●" and highlighted when the switcher opens; a session that needs the user
carries the bar's "!" badge. Up/Down move, Enter (or a click) answers the
highlighted session's number, Esc None.

Not the command palette: its hits come back sorted by score (the current
session could not be highlighted at the open), without columns or a second
line, and it cannot answer a value; its ``Matcher.highlight`` also reads the
candidate as markup, which titles from agents must never be.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.fuzzy import Matcher
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.core import one_line
from acp_tui.ui.render import ThemePalette
from acp_tui.ui.screens.filter_picker import FilterPicker
from acp_tui.ui.widgets.session_bar import TabInfo, state_label, state_mark

__all__ = ["SessionSwitcher", "matches"]

#: Characters of a field the fuzzy search looks at when the query is not
#: in it as it is (a substring is found anywhere, at once): it tries every
#: way the query's letters fall in the field, which grows exponentially with
#: letters that repeat ("abab…" holds "aaaab" millions of ways past ~48).
FUZZY_CHARS = 32
#: The width of the state column ("needs you", "starting").
STATE_WIDTH = 9
#: The agent column's widest (a longer name makes its row's title start later).
AGENT_WIDTH = 14


def _fields(tab: TabInfo) -> list[str]:
    """What the filter matches, as shown: number, agent, title, folder."""
    return [str(tab.number), one_line(tab.agent), one_line(tab.title), one_line(tab.cwd)]


def _match(matcher: Matcher, field: str) -> tuple[float, Sequence[int]]:
    """``matcher``'s score and offsets in ``field`` (see :data:`FUZZY_CHARS`)."""
    query = matcher.query
    if query.lower() not in field.lower():
        field = field[:FUZZY_CHARS]
    return matcher.fuzzy_search.match(query, field)


def matches(tabs: tuple[TabInfo, ...], query: str) -> list[tuple[TabInfo, list[set[int]]]]:
    """The tabs ``query`` matches, best first (the number typed alone first,
    then by the best score in one of :func:`_fields` or in the agent and
    title together, ties in tab order), each with the offsets of the matched
    letters in each field (in the best match only). An empty query matches all, in order."""
    query = " ".join(query.split())
    if not query:
        return [(tab, [set() for _ in range(4)]) for tab in tabs]
    matcher = Matcher(query)
    found: list[tuple[float, int, TabInfo, list[set[int]]]] = []
    for index, tab in enumerate(tabs):
        fields = _fields(tab)
        _, agent, title, _ = fields
        # Each field, and the agent with the title ("claude login").
        scores = [_match(matcher, field) for field in [*fields, f"{agent} {title}"]]
        best = max(range(len(scores)), key=lambda i: scores[i][0])
        score = float("inf") if query == fields[0] else scores[best][0]
        if score <= 0:
            continue
        per_field: list[set[int]] = [set() for _ in fields]
        if best < len(fields):
            per_field[best] = set(scores[best][1])
        else:
            per_field[1] = {o for o in scores[best][1] if o < len(agent)}
            per_field[2] = {o - len(agent) - 1 for o in scores[best][1] if o > len(agent)}
        found.append((score, index, tab, per_field))
    found.sort(key=lambda item: (-item[0], item[1]))
    return [(tab, per_field) for _, _, tab, per_field in found]


def _marked(text: str, offsets: set[int], style: str, match: str) -> Content:
    """``text`` (never markup) in ``style``, the letters at ``offsets`` in ``match``."""
    content = Content.styled(text, style) if style else Content(text)
    for offset in sorted(offsets):
        # (An offset past the end: lower() made the text longer, "İ" → "i̇".)
        if offset < len(text) and not text[offset].isspace():
            content = content.stylize(match, offset, offset + 1)
    return content


class SessionSwitcher(FilterPicker[int]):
    DEFAULT_CSS = """
    SessionSwitcher {
        align: center middle;
    }
    SessionSwitcher > #switcher-dialog {
        width: 76;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: round $accent;
        border-title-color: $foreground;
        background: $surface;
        padding: 0 1;
    }
    SessionSwitcher Input, SessionSwitcher Input:focus {
        border: none;
        height: 1;
        padding: 0;
        background: $surface;
    }
    SessionSwitcher OptionList, SessionSwitcher OptionList:focus {
        height: auto;
        max-height: 18;
        border: none;
        padding: 0;
        background: $surface;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    SessionSwitcher #switcher-empty {
        color: $foreground-muted;
        display: none;
    }
    SessionSwitcher #switcher-help {
        color: $foreground-muted;
    }
    """

    def __init__(self, tabs: tuple[TabInfo, ...]) -> None:
        super().__init__()
        self.tabs = tabs
        #: The numbers of the tabs listed, in the list's order.
        self.shown: list[int] = []
        #: The agent column's width: the longest name, up to AGENT_WIDTH.
        self.agent_width = min(AGENT_WIDTH, max((len(one_line(t.agent)) for t in tabs), default=0))

    def compose(self) -> ComposeResult:
        with Vertical(id="switcher-dialog") as dialog:
            dialog.border_title = "Sessions"
            yield Input(placeholder="filter: number, agent, title, folder", id="switcher-filter")
            yield OptionList(id="switcher-sessions")
            yield Static("no session matches", id="switcher-empty")
            yield Static("↑↓ move · Enter switch · Esc close", id="switcher-help")

    def on_mount(self) -> None:
        self._filter("")
        self.query_one(Input).focus()

    def _filter(self, query: str) -> None:
        found = matches(self.tabs, query)
        self.shown = [tab.number for tab, _ in found]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(self._prompt(t, o), id=str(t.number)) for t, o in found])
        self.query_one("#switcher-empty").display = not found
        options.display = bool(found)
        if not found:
            return
        current = next((i for i, (tab, _) in enumerate(found) if tab.current), 0)
        options.highlighted = 0 if query.strip() else current

    def _prompt(self, tab: TabInfo, offsets: list[set[int]]) -> Content:
        palette = ThemePalette(self.app.theme_variables, self.app.current_theme.dark)
        muted = palette.hex("foreground-muted", "foreground")
        hit = f"bold underline {palette.hex('text-accent', 'accent')}"
        number, agent, title, cwd = _fields(tab)
        label = state_label(tab.state).ljust(STATE_WIDTH)
        if tab.state == "needs-you":
            state = Content.styled(label, f"bold {palette.hex('text-warning', 'warning')}")
        else:
            state = Content.styled(label, muted)
        first = Content.assemble(
            ("● " if tab.current else "  ", palette.hex("text-accent", "accent")),
            _marked(number.rjust(2), {o + 2 - len(number) for o in offsets[0]}, "bold", hit),
            " ",
            Content.from_rich_text(state_mark(tab.state, palette)),
            " ",
            state,
            "  ",
            _marked(agent, offsets[1], "bold", hit),
            " " * max(0, self.agent_width - len(agent)),
        )
        if title:
            first = Content.assemble(first, "  ", _marked(title, offsets[2], "", hit))
        if tab.unread:
            first = Content.assemble(first, (" •", palette.hex("text-accent", "accent")))
        details = []
        if cwd:
            details.append(_marked(cwd, offsets[3], muted, hit))
        if tab.usage:
            details.append(Content.styled(one_line(tab.usage), muted))
        if not details:
            return first
        return Content.assemble(first, "\n", " " * 7, Content(" · ").join(details))

    def _listed(self) -> list[int]:
        return self.shown
