"""The sessions of the window, in the order of their tabs, and which one is current.

Events from the host are routed here to the tab whose session they are
about (no cross-talk: a tab applies only its own session's events). A
question asked before its session exists (during ``session/new``) goes to the
tab that is starting. The host's ``needs-you`` summary says which sessions
wait for the user, in the order they started waiting: that order is the one
the "next that needs you" key follows.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.ui.session_tab import SessionTab
from acp_tui.ui.widgets.session_bar import TabInfo

if TYPE_CHECKING:
    from acp_tui.core import Event


class Tabs:
    def __init__(self) -> None:
        self._tabs: list[SessionTab] = []
        self._current: SessionTab | None = None
        #: Session ids in the order they started waiting for the user.
        self._waiting_order: list[str] = []

    def __iter__(self) -> Iterator[SessionTab]:
        return iter(list(self._tabs))

    def __len__(self) -> int:
        return len(self._tabs)

    @property
    def current(self) -> SessionTab:
        assert self._current is not None, "the window always has a session tab"
        return self._current

    def add(self, tab: SessionTab) -> None:
        self._tabs.append(tab)
        if self._current is None:
            self._current = tab

    def remove(self, tab: SessionTab) -> None:
        """Take ``tab`` out (never the current one: select another first)."""
        assert tab is not self._current
        self._tabs.remove(tab)

    def neighbour(self, tab: SessionTab) -> SessionTab:
        """The tab to show when ``tab`` closes: the next one, else the one before."""
        index = self._tabs.index(tab)
        return self._tabs[index + 1] if index + 1 < len(self._tabs) else self._tabs[index - 1]

    def select(self, tab: SessionTab) -> None:
        self._current = tab

    def number(self, tab: SessionTab) -> int:
        return self._tabs.index(tab) + 1

    def by_number(self, number: int) -> SessionTab | None:
        return self._tabs[number - 1] if 1 <= number <= len(self._tabs) else None

    def by_key(self, key: str) -> SessionTab | None:
        return next((tab for tab in self._tabs if tab.key == key), None)

    # -- routing --------------------------------------------------------------------------

    def owner(self, event: Event, link: object = None) -> SessionTab | None:
        """The tab ``event`` belongs to (None: no tab's, or host-wide). Two
        hosts may name sessions alike: an event of ``link``'s host goes to a
        tab on that link (None: any link)."""
        tabs = [t for t in self._tabs if link is None or t.link is link]
        session_id = event.session_id
        if session_id:
            for tab in tabs:
                if tab.holds(session_id):
                    return tab
        if event.type.startswith("elicitation-"):
            starting = [tab for tab in tabs if tab.starter.starting]
            return starting[0] if starting else self._current
        return None

    def needs_you(self, data: Mapping[str, Any], link: object = None) -> None:
        """A host's ``needs-you`` summary: the count of what waits in each of
        its tabs (those on ``link``; None: every tab)."""
        counts: dict[str, int] = {}
        order: list[str] = []
        for item in data.get("sessions") or ():
            if isinstance(item, Mapping) and isinstance(item.get("sessionId"), str):
                waiting = int(item.get("permissions") or 0) + int(item.get("questions") or 0)
                counts[item["sessionId"]] = waiting
                order.append(item["sessionId"])
        tabs = [t for t in self._tabs if link is None or t.link is link]
        self._waiting_order = [
            *(sid for sid in self._waiting_order if not any(t.holds(sid) for t in tabs)),
            *order,
        ]
        for tab in tabs:
            tab.waiting = sum(n for sid, n in counts.items() if tab.holds(sid))

    def next_needing_you(self) -> SessionTab | None:
        """The tab that has waited for the user longest (the current one last)."""
        ordered: list[SessionTab] = []
        for session_id in self._waiting_order:
            tab = next((t for t in self._tabs if t.holds(session_id)), None)
            if tab is not None and tab not in ordered:
                ordered.append(tab)
        ordered += [tab for tab in self._tabs if tab.needs_you and tab not in ordered]
        others = [tab for tab in ordered if tab is not self._current]
        return others[0] if others else None

    # -- what the bar and the switcher show ---------------------------------------------

    def infos(self) -> tuple[TabInfo, ...]:
        return tuple(self.info(tab) for tab in self._tabs)

    def info(self, tab: SessionTab) -> TabInfo:
        view = tab.conversation.current
        usage = ""
        if view is not None and view.usage:
            used, size = view.usage.get("used"), view.usage.get("size")
            if isinstance(used, int) and isinstance(size, int) and size:
                usage = f"{_short_count(used)}/{_short_count(size)} tokens"
        return TabInfo(
            number=self.number(tab),
            agent=tab.agent_name,
            title=tab.title,
            state=tab.state,
            unread=tab.unread,
            current=tab is self._current,
            cwd=_shown_path(view.cwd if view is not None and view.cwd is not None else tab.cwd),
            usage=usage,
            background=tab.link.detachable,
        )


def _shown_path(path: Path) -> str:
    """``path`` with the home folder as ``~``."""
    home = Path.home()
    if path == home or home in path.parents:
        return "~/" + path.relative_to(home).as_posix() if path != home else "~"
    return str(path)


def _short_count(n: int) -> str:
    return f"{n / 1000:.0f}k" if n >= 1000 else str(n)
