"""The last burst of a turn is revealed like the rest of it.

The screen is behind the core (a gate holds the app's events back while the
agent sends its reply and the core ends the turn): when the events come,
"running" is what the app has handled, not what the core says now, so the
reply is revealed a little more every frame, also after the turn's end has
been handled, instead of popping in at once; once that end is handled, the
rest comes within FINISH_FRAMES frames.
"""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path

from acp_tui.core.host import Host
from acp_tui.core.model.channel import EventChannel
from acp_tui.core.model.entries import AssistantEntry
from acp_tui.core.model.events import Event
from acp_tui.ui.app import AcpApp
from acp_tui.ui.local_host import LocalHost
from acp_tui.ui.reveal import FINISH_FRAMES
from tests.fake_agents import agent_spec
from tests.ui.helpers import ready, screen_text, submit, until

REPLY = 3000


class GatedChannel:
    """The app's end of a real channel, with a gate the test opens."""

    def __init__(self, channel: EventChannel) -> None:
        self.channel = channel
        self.open = asyncio.Event()
        self.open.set()

    async def get(self) -> Event:
        await self.open.wait()
        return await self.channel.get()

    def get_nowait(self) -> Event | None:
        return self.channel.get_nowait() if self.open.is_set() else None


class GatedHost(LocalHost):
    def attach(self, capacity: int, text_budget: int) -> EventChannel:
        self.gate = GatedChannel(super().attach(capacity, text_budget))
        return self.gate  # type: ignore[return-value]

    def detach(self, channel: EventChannel) -> None:
        super().detach(self.gate.channel)


async def test_a_reply_that_arrives_after_the_turn_ended_is_still_revealed(
    tmp_path: Path,
) -> None:
    host = Host(cancel_grace=2.0)
    link = GatedHost(host)
    app = AcpApp(agent_spec(), cwd=tmp_path, host=host, link=link)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        link.gate.open.clear()  # the screen falls behind
        submit(app, f"burst {REPLY} 0")
        # The core has the whole reply and has ended the turn; the app has
        # handled none of the reply yet (at most the event it was waiting for).
        await until(
            pilot, lambda: app.session is not None and app.session.last_stop_reason == "end_turn"
        )
        assert app.view is not None
        assert not any(isinstance(e, AssistantEntry) for e in app.view.entries)
        log = app.log_view
        link.gate.open.set()
        core = app.session
        # Every event of the turn handled, its end included.
        await until(pilot, lambda: app.view is not None and app.view.cursor == core.cursor)
        assert app.view.status == "idle"
        index = next(i for i, e in enumerate(app.view.entries) if isinstance(e, AssistantEntry))
        assert index in log.reveals, "the reply skipped the reveal"
        shown = [log.reveals[index].revealed[0]]
        assert shown[0] < REPLY, "the reply popped in at once"
        # …and, its turn over, within a few frames rather than at its own pace.
        rest = copy.deepcopy(log.reveals[index])
        frames = 0
        while rest.step():
            frames += 1
        assert frames <= FINISH_FRAMES
        while index in log.reveals:
            await pilot.pause(0.01)
            if index in log.reveals:
                shown.append(log.reveals[index].revealed[0])
        assert shown == sorted(shown)
        assert len(set(shown)) >= 5, f"revealed in a few jumps only: {sorted(set(shown))}"
        await pilot.pause()
        assert "lorem ipsum" in screen_text(app)
