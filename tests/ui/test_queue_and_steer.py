"""Issue 15, queue and steer: Up takes the last queued prompt back, Alt+Enter
cancels the running turn and sends its prompt before the queue.

The real app on the real host core against the scripted agent (a subprocess);
the last test is the real program on a real pty, where Alt+Enter is ESC CR.
"""

from __future__ import annotations

from pathlib import Path

from acp_tui.core.model.entries import AssistantEntry, UserEntry
from acp_tui.ui.app import AcpApp
from acp_tui.ui.widgets.queue_line import HINT
from tests.fake_agents import SCRIPTED_AGENT, agent_spec
from tests.ui.helpers import PtyApp, idle, make_app, painted, ready, send, until


def users(app: AcpApp) -> list[str]:
    assert app.session is not None
    return [e.text for e in app.session.thread.entries if isinstance(e, UserEntry)]


def replies(app: AcpApp) -> list[str]:
    assert app.session is not None
    return [
        "".join(c.text for c in e.chunks if c.type == "message")
        for e in app.session.thread.entries
        if isinstance(e, AssistantEntry)
    ]


def queue_rows(app: AcpApp) -> list[str]:
    """The rows the queue line paints (none while it is hidden)."""
    line = app.queue_line
    if not line.display or line.size.height == 0:
        return []
    rows = painted(app).splitlines()
    return rows[line.region.y : line.region.y + line.region.height]


async def test_up_on_an_empty_prompt_takes_the_last_queued_prompt_back(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "hang")
        await until(pilot, lambda: app.session is not None and app.session.status == "running")
        await send(pilot, "echo first queued")
        await send(pilot, "echo second queued")
        await pilot.pause()
        assert app.queued == ["echo first queued", "echo second queued"]
        rows = queue_rows(app)
        assert len(rows) == 2 and "queued: echo first queued" in rows[0]
        # The hint is on the last one's row, whole, at 80 columns.
        assert "queued: echo second queued" in rows[1] and rows[1].rstrip().endswith(HINT)
        assert HINT not in rows[0]

        await pilot.press("up")
        assert app.prompt.text == "echo second queued"
        assert app.queued == ["echo first queued"]
        await pilot.pause()
        rows = queue_rows(app)
        assert len(rows) == 1 and "queued: echo first queued" in rows[0] and HINT in rows[0]
        assert "1 queued" in str(app.query_one("#status").render())

        # With a draft, Up is the cursor and the history again, not the queue.
        await pilot.press("up")
        assert app.queued == ["echo first queued"]
        assert app.prompt.text != "echo first queued"

        # Edited and sent again: it goes back at the end of the queue.
        await pilot.press("ctrl+c")  # clears the draft
        await pilot.press("up")
        assert app.prompt.text == "echo first queued"
        assert not app.queued
        await pilot.pause()
        assert queue_rows(app) == []
        await pilot.press("end", *" again", "enter")
        assert app.queued == ["echo first queued again"]

        await pilot.press("escape")
        await until(pilot, lambda: idle(app))
        assert users(app) == ["hang", "echo first queued again"]
        assert replies(app)[-1] == "first queued again "


async def test_up_with_nothing_queued_is_the_prompt_history(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "hang")
        await until(pilot, lambda: app.session is not None and app.session.status == "running")
        assert not app.queued
        await pilot.press("up")
        assert app.prompt.text == "hang"
        await pilot.press("ctrl+c", "escape")
        await until(pilot, lambda: idle(app))


async def test_alt_enter_cancels_the_turn_and_goes_before_the_queue(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "hang")  # ends only when cancelled
        await until(pilot, lambda: app.session is not None and app.session.status == "running")
        await send(pilot, "echo queued before")
        await send(pilot, "echo queued too")
        app.prompt.insert("echo steered")
        await pilot.press("alt+enter")
        assert app.prompt.text == ""  # sent, not a new line
        await until(pilot, lambda: len(users(app)) == 4 and idle(app))
        assert users(app) == ["hang", "echo steered", "echo queued before", "echo queued too"]
        assert replies(app) == ["steered ", "queued before ", "queued too "]


async def test_alt_enter_while_idle_sends(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.prompt.insert("echo at once")
        await pilot.press("alt+enter")
        assert app.prompt.text == ""
        await until(pilot, lambda: bool(replies(app)) and idle(app))
        assert users(app) == ["echo at once"]
        assert replies(app) == ["at once "]
        assert app.session is not None and app.session.last_stop_reason == "end_turn"


def test_esc_cr_from_a_real_terminal_steers(tmp_path: Path) -> None:
    """Without the kitty keyboard protocol a terminal sends Alt+Enter as ESC CR."""
    term = PtyApp(SCRIPTED_AGENT, tmp_path, rows=24, columns=80)
    try:
        term.wait_for(b"is ready")
        term.type(b"hang\r")
        term.wait_for(b"running")
        # Plain Enter would queue it behind a turn that never ends by itself.
        term.type(b"steps []\x1b\r")
        term.wait_for(b"steps done")
        term.type(b"\x11")  # Ctrl+Q
        assert term.wait_gone()
    finally:
        term.kill()


async def test_a_steer_before_the_prompt_runs_cancels_its_turn_once_it_runs(
    tmp_path: Path,
) -> None:
    """Alt+Enter right after Enter: the first prompt is on its way to the host,
    its turn not running yet; it is cancelled once it runs."""
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.turns.submit("hang")  # handed over, no status from the host yet
        assert app.session is not None and app.session.status == "idle"
        await app.turns.steer("echo steered")
        await until(pilot, lambda: len(users(app)) == 2 and idle(app))
        assert users(app) == ["hang", "echo steered"]
        assert replies(app) == ["steered "]
