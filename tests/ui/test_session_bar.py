"""The session bar and the session switcher, on a small app that mounts them
(the real app wires them in elsewhere): fitting, states, the spinner, clicks,
hostile titles, and the switcher's filter and keys."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from acp_tui.ui.render import SPINNER_FRAMES, ThemePalette
from acp_tui.ui.screens.session_switcher import SessionSwitcher, matches
from acp_tui.ui.themes import DEFAULT_THEME, register_themes
from acp_tui.ui.widgets.session_bar import SessionBar, TabInfo
from tests.ui.helpers import painted, until

#: Nine sessions, one or more in every state; the seventh is current.
NINE = (
    TabInfo(1, "Claude Code", "fix the login bug in the settings page", "running",
            cwd="~/src/app", usage="12k/200k tokens"),
    TabInfo(2, "demo", "write tests for the parser", "idle", unread=True, cwd="~/src/demo"),
    TabInfo(3, "Claude Code", "refactor the parser module", "needs-you",
            cwd="~/src/parser", usage="80k/200k tokens"),
    TabInfo(4, "Gemini", "", "starting", cwd="~/src/site"),
    TabInfo(5, "Codex", "deploy the release", "error", cwd="/srv/deploy"),
    TabInfo(6, "demo", "an old chat", "closed", cwd="~/notes"),
    TabInfo(7, "Claude Code", "explain the cache", "idle", current=True,
            cwd="~/src/app", usage="3k/200k tokens"),
    TabInfo(8, "demo", "summarise the logs", "running", unread=True, cwd="/var/log"),
    TabInfo(9, "Gemini", "translate the docs", "idle", cwd="~/src/site"),
)  # fmt: skip

#: A title an agent could send: colours, a window-title OSC, a bell, line
#: breaks, a bidi override.
HOSTILE = "\x1b[31mred\x1b[0m \x1b]0;pwned\x07title\r\nsecond\x07 line \u202egnp.exe"


class BarHost(App[None]):
    CSS = "#log { height: 1fr; overflow: hidden; }"

    def __init__(self, tabs: tuple[TabInfo, ...] = NINE, theme: str = DEFAULT_THEME) -> None:
        super().__init__()
        register_themes(self)
        self.theme = theme
        self.initial = tabs
        self.clicks: list[tuple[int, int]] = []
        self.answers: list[int | None] = []

    def compose(self) -> ComposeResult:
        yield SessionBar()
        lines = ["› explain the cache", "", "The cache keeps the last 100 entries."]
        yield Static("\n".join(lines * 8), id="log")

    def on_mount(self) -> None:
        self.bar.tabs = self.initial

    @property
    def bar(self) -> SessionBar:
        return self.query_one(SessionBar)

    def on_session_bar_clicked(self, message: SessionBar.Clicked) -> None:
        self.clicks.append((message.number, message.button))

    def open_switcher(self, tabs: tuple[TabInfo, ...] = NINE) -> None:
        self.push_screen(SessionSwitcher(tabs), self.answers.append)


def dialog_rows(app: App[Any]) -> str:
    """The rows of the painted screen inside the switcher's frame."""
    return "\n".join(row for row in painted(app).splitlines() if row.count("│") == 2)


def segments(bar: SessionBar) -> list[Segment]:
    return list(bar.render_line(0))


def shown(bar: SessionBar) -> tuple[list[int], str, str]:
    """The tab numbers drawn, and the left and right markers' text."""
    numbers: list[int] = []
    markers = {-1: "", 1: ""}
    for segment in segments(bar):
        meta = segment.style.meta if segment.style else {}
        if "tab" in meta and meta["tab"] not in numbers:
            numbers.append(meta["tab"])
        if "scroll" in meta:
            markers[meta["scroll"]] += segment.text
    return numbers, markers[-1], markers[1]


def tab_x(bar: SessionBar, number: int) -> int:
    """The column (in the bar) of tab ``number``'s first cell."""
    x = 0
    for segment in segments(bar):
        if segment.style and segment.style.meta.get("tab") == number:
            return x
        x += segment.cell_length
    raise AssertionError(f"tab {number} is not drawn")


def marker_x(bar: SessionBar, side: int) -> int:
    """The column of the marker on the left (``side`` -1) or right (1)."""
    x = 0
    for segment in segments(bar):
        if segment.style and segment.style.meta.get("scroll") == side:
            return x
        x += segment.cell_length
    raise AssertionError(f"no marker on side {side}")


def tab_text(bar: SessionBar, number: int) -> str:
    return "".join(s.text for s in segments(bar) if s.style and s.style.meta.get("tab") == number)


def bar_text(bar: SessionBar) -> str:
    return "".join(s.text for s in segments(bar))


def hidden_marker(tabs: tuple[TabInfo, ...]) -> str:
    """What a marker for ``tabs`` should say: their count, and "!" when one needs you."""
    if not tabs:
        return ""
    return str(len(tabs)) + ("!" if any(t.state == "needs-you" for t in tabs) else "")


def with_current(tabs: tuple[TabInfo, ...], number: int) -> tuple[TabInfo, ...]:
    return tuple(replace(t, current=t.number == number) for t in tabs)


async def test_nine_tabs_fit_80_columns_with_every_tab_shown() -> None:
    """At 80 columns nine sessions fit without scrolling: one row, no marker."""
    app = BarHost()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        bar = app.bar
        assert bar.size.height == 1 and bar.region.y == 0
        numbers, left, right = shown(bar)
        assert numbers == list(range(1, 10))
        assert (left, right) == ("", "")
        assert bar.size.width == 80 and bar.render().cell_len <= 80


async def test_nine_tabs_at_40_columns_and_narrower_scroll_around_the_current() -> None:
    """At every width from 40 down to 16 and with every tab current: one row
    that fits, the current tab drawn, the drawn tabs contiguous, and each
    marker counts the tabs hidden on its side ("!" when one needs you)."""
    app = BarHost()
    async with app.run_test(size=(40, 10)) as pilot:
        for width in range(40, 9, -3):
            await pilot.resize_terminal(width, 10)
            for current in range(1, 10):
                tabs = with_current(NINE, current)
                app.bar.tabs = tabs
                await pilot.pause()
                numbers, left, right = shown(app.bar)
                where = f"width {width}, current {current}: {bar_text(app.bar)!r}"
                assert app.bar.size.height == 1, where
                assert app.bar.size.width == width, where
                assert app.bar.render().cell_len <= width, f"cropped at {where}"
                assert current in numbers, where
                assert numbers == list(range(numbers[0], numbers[-1] + 1)), where
                assert left.strip("‹") == hidden_marker(tabs[: numbers[0] - 1]), where
                assert right.strip("›")[::-1] == hidden_marker(tabs[numbers[-1] :]), where
            if width == 40:
                assert numbers == list(range(1, 10)), "nine tabs fit 40 columns, tightened"


async def test_titles_shorten_then_drop_then_agents() -> None:
    """Wide: agent and title; narrower: shorter titles, then none, then no
    agent (the numbers and marks stay)."""
    tabs = NINE[:4]
    app = BarHost(tabs)
    async with app.run_test(size=(160, 10)) as pilot:
        await pilot.pause()
        assert "fix the login bug in the settings page" in tab_text(app.bar, 1)
        await pilot.resize_terminal(90, 10)
        await pilot.pause()
        assert "Claude Code fix the" in tab_text(app.bar, 1)
        assert "settings page" not in tab_text(app.bar, 1)
        await pilot.resize_terminal(60, 10)
        await pilot.pause()
        assert tab_text(app.bar, 1).endswith("Claude Code ")
        await pilot.resize_terminal(24, 10)
        await pilot.pause()
        assert "Claude" not in bar_text(app.bar)
        assert shown(app.bar)[0] == [1, 2, 3, 4]


async def test_every_state_is_drawn() -> None:
    """Running spins, idle ○, starting ◌, error ✗, closed ■, needs-you a "!"
    on the warning colour with the tab's text in it too; unread ends in •;
    the current tab has its own background."""
    app = BarHost()
    async with app.run_test(size=(200, 10)) as pilot:
        await pilot.pause()
        bar = app.bar
        assert tab_text(bar, 1)[3] in SPINNER_FRAMES
        assert tab_text(bar, 2).startswith(" 2 ○ demo")
        assert tab_text(bar, 2).rstrip().endswith("•")
        assert tab_text(bar, 3).startswith(" 3 ! Claude Code")
        assert tab_text(bar, 4).startswith(" 4 ◌ Gemini")
        assert tab_text(bar, 5).startswith(" 5 ✗ Codex")
        assert tab_text(bar, 6).startswith(" 6 ■ demo")
        assert "•" not in tab_text(bar, 7)
        palette = ThemePalette(app.theme_variables, dark=True)
        warning, warning_text = palette.hex("warning").lower(), palette.hex("text-warning").lower()
        badge = next(s for s in segments(bar) if s.text == "!")
        assert badge.style and badge.style.bgcolor and badge.style.bgcolor.name == warning
        assert badge.style.color and badge.style.color.name != warning
        needs_you = [s for s in segments(bar) if s.style and s.style.meta.get("tab") == 3]
        assert any(s.style and s.style.color and s.style.color.name == warning_text
                   for s in needs_you if "Claude" in s.text)  # fmt: skip

        def background(number: int) -> set[str | None]:
            return {
                s.style.bgcolor.name if s.style and s.style.bgcolor else None
                for s in segments(bar)
                if s.style and s.style.meta.get("tab") == number and s.text.strip() == ""
            }

        assert background(7) and background(7).isdisjoint(background(2) | background(9))


async def test_spinner_runs_only_while_a_session_runs() -> None:
    app = BarHost(NINE[1:2])
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        assert not app.bar.spinning
        app.bar.tabs = (replace(NINE[1], state="running"),)
        await pilot.pause()
        assert app.bar.spinning
        first = tab_text(app.bar, 2)
        await until(pilot, lambda: tab_text(app.bar, 2) != first, what="the spinner never moved")
        app.bar.tabs = (replace(NINE[1], state="idle"),)
        await pilot.pause()
        assert not app.bar.spinning
        assert not any(timer._active.is_set() for timer in app.bar._timers)
        assert tab_text(app.bar, 2).startswith(" 2 ○")


async def test_left_and_middle_clicks_post_the_tab_number() -> None:
    app = BarHost()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        await pilot.click(SessionBar, offset=(tab_x(app.bar, 3) + 1, 0))
        await pilot.click(SessionBar, offset=(tab_x(app.bar, 5) + 2, 0), button=2)
        await pilot.click(SessionBar, offset=(tab_x(app.bar, 8) + 1, 0), button=3)
        await pilot.pause()
        assert app.clicks == [(3, 1), (5, 2)]


async def test_a_click_on_a_marker_scrolls_until_the_current_tab_changes() -> None:
    app = BarHost(with_current(NINE, 1))
    async with app.run_test(size=(16, 10)) as pilot:
        await pilot.pause()
        numbers, left, right = shown(app.bar)
        assert numbers[0] == 1 and left == "" and right
        assert marker_x(app.bar, 1) + len(right) == 16, "the marker is at the right edge"
        await pilot.click(SessionBar, offset=(marker_x(app.bar, 1), 0))
        await pilot.pause()
        after, left, _ = shown(app.bar)
        assert after[0] == numbers[-1] + 1 and 1 not in after
        assert left.strip("‹") == hidden_marker(NINE[: after[0] - 1])
        await pilot.click(SessionBar, offset=(marker_x(app.bar, -1), 0))
        await pilot.pause()
        assert shown(app.bar)[0] == numbers
        await pilot.click(SessionBar, offset=(marker_x(app.bar, 1) + 1, 0))
        await pilot.pause()
        assert 1 not in shown(app.bar)[0]
        assert app.clicks == []
        app.bar.tabs = with_current(NINE, 9)
        await pilot.pause()
        assert 9 in shown(app.bar)[0]


async def test_escape_codes_in_a_title_never_reach_the_screen() -> None:
    tabs = (replace(NINE[0], title=HOSTILE, agent="\x1b[2Jagent\x07"), *NINE[1:3])
    app = BarHost(tabs)
    async with app.run_test(size=(200, 30)) as pilot:
        await pilot.pause()
        text = bar_text(app.bar)
        # Controls are shown as pictures (␇), never sent; the bidi override too.
        assert "red title second␇ line \ufffdgnp.exe" in text and " agent␇ " in text
        assert "pwned" not in text
        assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c == "\u202e" for c in text)
        app.open_switcher(tabs)
        await pilot.pause()
        app.screen.query_one(Input).insert_text_at_cursor("red")
        await pilot.pause()
        screen = dialog_rows(app)
        assert "red title second␇ line" in screen
        assert "pwned" not in screen
        assert not any((ord(c) < 0x20 and c != "\n") or c == "\x1b" for c in screen)


async def test_markup_in_a_title_is_shown_as_it_is() -> None:
    """Titles are never read as markup, also while the filter highlights them."""
    tabs = (replace(NINE[0], title="[bold red]loud[/] [@click=app.quit]x[/]"),)
    app = BarHost(tabs)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert "[bold red]loud[/] [@click=app.quit]x[/]" in bar_text(app.bar)
        app.open_switcher(tabs)
        await pilot.pause()
        app.screen.query_one(Input).insert_text_at_cursor("loud")
        await pilot.pause()
        assert "[bold red]loud[/] [@click=app.quit]x[/]" in dialog_rows(app)


async def answer(pilot: Pilot[Any], *keys: str, query: str = "") -> int | None:
    app = pilot.app
    assert isinstance(app, BarHost)
    app.open_switcher()
    await pilot.pause()
    if query:
        await pilot.press(*query)
    await pilot.press(*keys)
    await pilot.pause()
    assert not isinstance(app.screen, SessionSwitcher), "the switcher is still open"
    return app.answers.pop()


async def test_switcher_opens_on_the_current_session_and_moves() -> None:
    app = BarHost()
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_switcher()
        await pilot.pause()
        switcher = app.screen
        assert isinstance(switcher, SessionSwitcher)
        assert switcher.shown == list(range(1, 10))
        highlighted = switcher.query_one(OptionList).highlighted
        assert highlighted is not None and switcher.shown[highlighted] == 7
        assert "! needs you" in dialog_rows(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.answers == [None]
        assert await answer(pilot, "enter") == 7
        assert await answer(pilot, "down", "down", "enter") == 9
        assert await answer(pilot, "up", "enter") == 6


async def test_switcher_filters_as_you_type() -> None:
    app = BarHost()
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_switcher()
        await pilot.pause()
        switcher = app.screen
        assert isinstance(switcher, SessionSwitcher)
        await pilot.press(*"gemini")
        await pilot.pause()
        assert switcher.shown == [4, 9]
        assert switcher.query_one(OptionList).highlighted == 0
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.answers == [9]
        # The folder matches too; a number alone picks that session first.
        assert await answer(pilot, "enter", query="srv") == 5
        assert await answer(pilot, "enter", query="3") == 3
        app.open_switcher((replace(NINE[0], title="port 2 to python 3"), *NINE[1:3]))
        await pilot.press("3", "enter")
        await pilot.pause()
        assert app.answers.pop() == 3, "the number typed alone goes first"
        assert await answer(pilot, "enter", query="login") == 1
        assert await answer(pilot, "enter", query="demo logs") == 8  # agent and title


async def test_switcher_with_no_match_stays_open_on_enter() -> None:
    app = BarHost()
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_switcher()
        await pilot.pause()
        await pilot.press(*"zzzq", "enter")
        await pilot.pause()
        assert isinstance(app.screen, SessionSwitcher)
        assert "no session matches" in dialog_rows(app)
        assert app.answers == []
        await pilot.press("escape")
        await pilot.pause()
        assert app.answers == [None]


def test_a_title_built_against_the_fuzzy_search_is_filtered_at_once() -> None:
    """The fuzzy search tries every way the query's letters fall in a title:
    for "aaaaaab" in "abab…" (200 letters) that is billions of ways; it looks
    at a short start of a field unless the query is in it as it is (without
    that cut this test runs into the suite's timeout)."""
    tabs = (replace(NINE[0], title="ab" * 100), replace(NINE[1], title="x" + "ab" * 100 + "c"))
    assert [tab.number for tab, _ in matches(tabs, "aaaaaab")] == [1, 2]
    assert [tab.number for tab, _ in matches(tabs, "bc")] == [2]
    assert [tab.number for tab, _ in matches(tabs, "abc")] == [2]
