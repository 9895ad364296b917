"""The TUI's own state of the conversation, built only from the event stream.

One :class:`~acp_tui.core.SessionView` per attached session (a snapshot plus
the events after it), which of them is current, the agent it talks to, and
the segments of the log: the views' entries, the app's own notices, a
transcript read back. The entry log reads these and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_tui.core import Entry, Event, NoticeEntry, SessionView
from acp_tui.ui.host_link import AgentInfo, NoticeLevel
from acp_tui.ui.log_source import LogSource


@dataclass(frozen=True)
class Applied:
    """An event applied to its session's view."""

    event: Event
    view: SessionView
    #: The log's index of the entry the event is about (None: not about one
    #: entry, or the entry is not shown).
    position: int | None


class Conversation:
    def __init__(self) -> None:
        #: What the entry log shows.
        self.source = LogSource()
        #: The views the events are applied to, by session id.
        self.views: dict[str, SessionView] = {}
        #: The session prompts go to (None while an agent starts).
        self.current: SessionView | None = None
        #: The agent of the current session.
        self.agent: AgentInfo | None = None
        #: The app's own notices shown since the last session started.
        self.notices: list[Entry] | None = None
        #: Every view the log shows, in order (a dead session's included).
        self._shown: list[SessionView] = []

    def attach(
        self, snapshot: Mapping[str, Any], agent: AgentInfo, *, skip: int = 0, replaces: str = ""
    ) -> SessionView:
        """Follow the session of ``snapshot`` from now on (it becomes current).

        ``skip``: its first entries are not shown (the log already shows them
        above); ``replaces``: the id of a session it carries on, whose entries
        it starts with (not shown twice)."""
        view = SessionView.from_snapshot(snapshot)
        for shown in [v for v in self._shown if replaces and v.session_id == replaces]:
            self.source.remove(shown.entries)
            self._shown.remove(shown)
        self.source.add(view.entries, skip)
        self._shown.append(view)
        self.views[view.session_id] = view
        self.current, self.agent, self.notices = view, agent, None
        return view

    def let_go(self) -> SessionView | None:
        """The current session is over (its agent died): it stays shown and
        its events are no longer applied (a session that carries it on may
        take over its id)."""
        view, self.current, self.agent = self.current, None, None
        if view is not None and self.views.get(view.session_id) is view:
            del self.views[view.session_id]
        return view

    def notice(self, level: NoticeLevel, text: str) -> None:
        """A message from the app itself (no session to own it)."""
        if self.notices is None:
            self.notices = []
            self.source.add(self.notices)
        self.notices.append(NoticeEntry(level=level, text=text))

    def show(self, entries: list[Entry]) -> None:
        """Show ``entries`` (a transcript read back), after everything else."""
        self.source.add(entries)

    def apply(self, event: Event) -> Applied | None:
        """Apply ``event`` to its session's view; None when it concerns no
        view or the view already holds it."""
        view = self.views.get(event.session_id or "")
        if view is None or not view.apply(event.type, event.cursor, event.data):
            return None
        index = event.data.get("index")
        position = self.source.position(view.entries, index) if isinstance(index, int) else None
        return Applied(event, view, position)

    @property
    def cwd(self) -> Path | None:
        return self.current.cwd if self.current is not None else None
