"""The reveal follows the events the TUI has handled, not the core's live state."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp_tui.ui.reveal import FINISH_FRAMES, RevealState
from tests.fake_agents import agent_spec
from tests.ui.helpers import idle, make_app, ready, screen_text, submit


async def test_the_last_burst_of_a_turn_is_revealed_like_the_rest(tmp_path: Path) -> None:
    """One chunk of 3,000 characters, and the turn ends at once: by the time
    the TUI handles the chunk the core's turn is over. It is revealed over
    several frames all the same, never popped in."""
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        log = app.log_view
        submit(app, "burst 3000 0")
        shown: list[int] = []

        def sample() -> bool:
            for state in log.reveals.values():
                shown.append(state.revealed[0])
            return bool(shown) and idle(app)

        deadline = asyncio.get_running_loop().time() + 20
        while not sample():
            assert asyncio.get_running_loop().time() < deadline, "the turn never ended"
            await pilot.pause(0.002)
        assert app.session is not None and app.session.status == "idle"
        partial = sorted({count for count in shown if 0 < count < 3000})
        assert len(partial) >= 3, f"revealed in {partial}: popped in rather than revealed"
        assert shown == sorted(shown)
        assert "lorem ipsum" in screen_text(app)


def test_once_the_turn_ended_the_rest_is_revealed_within_a_few_frames() -> None:
    state = RevealState()
    state.extend(0, "x" * 2000)
    state.step()
    first = state.revealed[0]
    state.finish()
    counts = []
    while state.step():
        counts.append(state.revealed[0])
    assert first < counts[0] < counts[-1] == 2000, "revealed step by step, not at once"
    assert len(counts) <= FINISH_FRAMES
    # Without the end of the turn, the same backlog takes many more frames.
    slow = RevealState()
    slow.extend(0, "x" * 2000)
    frames = 0
    while slow.step():
        frames += 1
    assert frames > 4 * FINISH_FRAMES
