"""The look of the session bar and the session switcher, pinned as SVG
snapshots in snapshots/test_session_bar_snapshots/ (review a changed SVG before
accepting it with ``pytest --snapshot-update``).

They stand alone on the small app of test_session_bar (the real app wires
them in elsewhere), in the shipped themes; the spinner's clock is frozen.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from acp_tui.ui.widgets import session_bar
from tests.ui.test_session_bar import NINE, BarHost, with_current

#: One session in every state (two idle: one unread, one current).
EVERY_STATE = NINE[:7]


@pytest.fixture(autouse=True)
def frozen_spinner(monkeypatch: pytest.MonkeyPatch) -> None:
    """The running tabs show the spinner's first frame in every picture."""
    monkeypatch.setattr(session_bar, "now", lambda: 1000.0)


async def settle(pilot: Pilot[Any]) -> None:
    """Let it lay out; a steady cursor (a blinking one is on or off by timing)."""
    await pilot.pause()
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause(0.2)


def test_bar_80_columns(snap_compare: Any) -> None:
    """80 columns, seven sessions, numbers and marks only: "1 ⠋" (running),
    "2 ○ •" (idle, unread dot), "3 !" in the warning colour with "!" on a
    warning badge, "4 ◌" (starting), "5 ✗" (red), "6 ■" (closed, dimmed),
    "7 ○" on the highlighted background (current)."""
    assert snap_compare(BarHost(EVERY_STATE), terminal_size=(80, 5), run_before=settle)


def test_bar_160_columns(snap_compare: Any) -> None:
    """160 columns: the same tabs with the agents' names (dimmed; the
    needs-you tab's in the warning colour, the current one's bold) and
    their titles cut with "…" ("fix the…", "refactor…")."""
    assert snap_compare(BarHost(EVERY_STATE), terminal_size=(160, 5), run_before=settle)


def test_bar_scrolled_at_30_columns(snap_compare: Any) -> None:
    """30 columns, nine sessions, the last current: tight tabs "4◌ … 9○" (9
    highlighted), and on the left "‹3!" in the warning colour: three hidden,
    one of them (3) needs you."""
    app = BarHost(with_current(NINE, 9))
    assert snap_compare(app, terminal_size=(30, 5), run_before=settle)


def test_bar_high_contrast(snap_compare: Any) -> None:
    """acp-high-contrast at 100 columns, where primary and warning are both
    yellow: the needs-you tab still stands out by its black-on-yellow "!"."""
    app = BarHost(EVERY_STATE, theme="acp-high-contrast")
    assert snap_compare(app, terminal_size=(100, 5), run_before=settle)


def test_switcher_80x24(snap_compare: Any) -> None:
    """80x24: "Sessions" framed, the filter's placeholder, then the nine
    sessions — number, mark, state, agent (a column), title, and under it the
    folder · usage — the seventh marked ● and highlighted; the third's
    "needs you" in the warning colour with the "!" badge; the key hint last."""

    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, BarHost)
        app.open_switcher()
        await settle(pilot)

    assert snap_compare(BarHost(NINE), terminal_size=(80, 24), run_before=run_before)


def test_switcher_filtered(snap_compare: Any) -> None:
    """80x24 after typing "demo t": the demo sessions with a "t" in the
    title, best first: 2 (highlighted, "write tests…"), 8 ("…the logs"),
    6 ("an old chat"); the matched letters ("demo", the "t") bold,
    underlined, in the accent colour."""

    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, BarHost)
        app.open_switcher()
        await settle(pilot)
        await pilot.press(*"demo t")
        await settle(pilot)

    assert snap_compare(BarHost(NINE), terminal_size=(80, 24), run_before=run_before)
