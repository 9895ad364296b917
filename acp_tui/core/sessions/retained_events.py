"""The events a background host keeps of each session, for surfaces that come back.

A listener of the event hub (called by nobody). For every session it keeps
the newest events (up to ``max_events`` and ``max_text`` characters of
text), so a surface that detached, or lagged, attaches again after the
last cursor it holds and is sent exactly the events after it: no gap, no
duplicate. When that cursor is older than what is kept, :meth:`after`
says so (None) and the surface takes a snapshot instead. It also notes
when each session last had an event (``host.sessions``'s last activity).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

from acp_tui.core.model.events import Event

#: Events kept per session.
MAX_EVENTS = 20_000
#: Characters of text kept per session.
MAX_TEXT = 16 * 1024 * 1024


@dataclass
class _Kept:
    events: deque[Event] = field(default_factory=deque)
    text: int = 0
    #: The cursor of the newest event that is no longer kept (0: none dropped).
    dropped_through: int = 0
    #: When the session's last event was committed (wall clock).
    last_activity: float = 0.0


class RetainedEvents:
    def __init__(self, max_events: int = MAX_EVENTS, max_text: int = MAX_TEXT) -> None:
        self.max_events = max_events
        self.max_text = max_text
        self._kept: dict[str, _Kept] = {}

    def on_event(self, event: Event) -> None:
        session_id = event.session_id
        if session_id is None or not event.cursor:
            return
        kept = self._kept.setdefault(session_id, _Kept())
        kept.events.append(event)
        kept.text += event.text_size
        kept.last_activity = time.time()
        while kept.events and (len(kept.events) > self.max_events or kept.text > self.max_text):
            old = kept.events.popleft()
            kept.text -= old.text_size
            kept.dropped_through = old.cursor

    def after(self, session_id: str, cursor: int) -> list[Event] | None:
        """The kept events of ``session_id`` after ``cursor``, in order; None
        when some of them are no longer kept (take a snapshot)."""
        kept = self._kept.get(session_id)
        if kept is None:
            return []
        if cursor < kept.dropped_through:
            return None
        return [event for event in kept.events if event.cursor > cursor]

    def last_activity(self, session_id: str) -> float | None:
        kept = self._kept.get(session_id)
        return kept.last_activity if kept is not None else None

    def forget(self, session_id: str) -> None:
        self._kept.pop(session_id, None)
