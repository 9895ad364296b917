"""The channel of a surface attached to a background host: it never slows anyone.

An in-process front end's :class:`~acp_tui.core.model.channel.EventChannel`
holds the agent back while it is behind (the hub waits for its room). A
surface on the background host's socket must not: one slow terminal (an
ssh link on a train) would slow the agent and every other surface. A
:class:`SurfaceChannel` therefore always has room. It takes only the events
of the sessions its surface attached to (and host-wide ones), merges text
deltas like any channel near its limit, and when it is still over its limit
it *lags*: what it holds of those sessions is dropped, and the surface is
told, per session, the last cursor it was given (a ``resync`` event); the
channel takes no more of that session's events until the surface attaches
again after that cursor (a replay from the retained log, or a snapshot when
the log no longer reaches back that far). Host-wide events and barriers are
kept.
"""

from __future__ import annotations

from collections import deque

from acp_tui.core.model.channel import EventChannel, _Barrier
from acp_tui.core.model.events import Event

#: Events a surface may be behind before it lags (half of it is merged first).
SURFACE_CAPACITY = 8192
#: Characters of text a surface may be behind before it lags.
SURFACE_TEXT_BUDGET = 8 * 1024 * 1024


class SurfaceChannel(EventChannel):
    def __init__(
        self, capacity: int = SURFACE_CAPACITY, text_budget: int = SURFACE_TEXT_BUDGET
    ) -> None:
        super().__init__(capacity)
        self.text_budget = text_budget
        #: The sessions whose events this channel takes.
        self.sessions: set[str] = set()
        #: Per session, the cursor of the newest event the surface was handed.
        self.delivered: dict[str, int] = {}
        #: How many times the surface fell too far behind.
        self.lags = 0

    def has_room(self) -> bool:
        return True  # never holds the agent back (it lags instead)

    def over_limit(self) -> bool:
        return len(self._queue) >= self.capacity or self._text >= self.text_budget

    def follow(self, session_id: str, cursor: int) -> None:
        """Take ``session_id``'s events from now on; the surface holds it up
        to ``cursor`` (what was queued for it by a replay included)."""
        self.sessions.add(session_id)
        self.delivered[session_id] = cursor

    def unfollow(self, session_id: str) -> None:
        self.sessions.discard(session_id)
        self.delivered.pop(session_id, None)
        kept = [
            item
            for item in self._queue
            if isinstance(item, _Barrier) or item.session_id != session_id
        ]
        self._replace(kept)

    def offer(self, event: Event) -> None:
        if event.session_id is not None and event.session_id not in self.sessions:
            return
        super().offer(event)
        if self.over_limit():
            self._lag()

    def too_much(self, events: list[Event]) -> bool:
        """Whether replaying ``events`` would put the surface past half its
        limits (it would lag at once, and again after each resync): a
        snapshot is the cheaper way to catch up then."""
        text = sum(event.text_size for event in events)
        return len(events) > self.capacity // 2 or text > self.text_budget // 2

    def replay(self, events: list[Event]) -> None:
        """Queue retained events for a session being attached (never merged)."""
        for event in events:
            self._queue.append(event)
            self._text += event.text_size
        if events:
            self._readable.set()

    def _take(self) -> Event | _Barrier:
        item = super()._take()
        if isinstance(item, Event) and item.session_id in self.sessions:
            self.delivered[item.session_id] = item.cursor
        return item

    def _lag(self) -> None:
        """Too far behind: drop the sessions' events, say where each stopped."""
        self.lags += 1
        lost: list[str] = []
        kept: list[Event | _Barrier] = []
        for item in self._queue:
            if isinstance(item, Event) and item.session_id is not None:
                if item.session_id not in lost:
                    lost.append(item.session_id)
                continue
            kept.append(item)
        for session_id in lost:
            # Not followed until the surface attaches again: no event after a gap.
            self.sessions.discard(session_id)
            after = self.delivered.pop(session_id, 0)
            kept.append(
                Event("resync", {"sessionId": session_id, "afterCursor": after, "reason": "lagged"})
            )
        self._replace(kept)

    def _replace(self, items: list[Event | _Barrier]) -> None:
        self._queue = deque(items)
        self._text = sum(item.text_size for item in items if isinstance(item, Event))
        if items:
            self._readable.set()
