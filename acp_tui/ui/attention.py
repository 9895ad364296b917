"""Being told when a session needs you, or a turn is done, while you look
elsewhere.

While the terminal does not have focus (it reports focus with ``CSI I`` /
``CSI O`` once the app asks, ``CSI ? 1004 h``; a terminal that never
reports counts as focused), or when the event is in a session of the window
other than the one shown (a background tab), these happen:

- a permission request or an agent's question ("needs you"), and a turn that
  ended ("done"), ring the bell and send a desktop notification through the
  terminal (OSC 9, and OSC 777 ``notify`` for the terminals that take that);
- the window title counts what waits for you: ``(2) acp-tui``; it goes back
  to ``acp-tui`` when the terminal has focus again (in the window, the
  session bar shows which tabs wait).

At most one notification a second per session; none for a turn that was not
started here (a replay), and no "done" when a queued prompt starts at once.
The ``[notifications]`` table of the config turns each kind and each channel
on or off (agents/config_notifications.py). Text from the agent (a tool's
title) is made one line, without controls, before it goes into a sequence.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from acp_tui.agents.config_notifications import NotificationSettings
from acp_tui.core import one_line

if TYPE_CHECKING:
    from acp_tui.core import Event

APP_TITLE = "acp-tui"
#: Seconds between two notifications of one session.
MIN_GAP = 1.0
TEXT_LIMIT = 160


def safe(text: str) -> str:
    """``text`` fit for an OSC payload: one line, printable, no ``;``."""
    flat = "".join(ch for ch in one_line(text) if ch.isprintable()).replace(";", ",")
    return flat if len(flat) <= TEXT_LIMIT else flat[: TEXT_LIMIT - 1] + "…"


#: The events :meth:`Attention.on_event` acts on (the others it is not given).
EVENTS = frozenset(
    {
        "permission-requested",
        "permission-resolved",
        "elicitation-requested",
        "elicitation-resolved",
        "status-changed",
    }
)


class Attention:
    def __init__(
        self,
        write: Callable[[str], None],
        bell: Callable[[], None],
        *,
        queued: Callable[[str], bool],
        settings: NotificationSettings | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._write = write
        self._bell = bell
        self._queued = queued
        self.settings = settings or NotificationSettings()
        self._clock = clock
        self.focused = True
        #: What waits for the user: request ids of permissions and questions.
        self.waiting: set[str] = set()
        self._status: dict[str, str] = {}
        self._last: dict[str, float] = {}
        self._titled = False

    # -- what the app tells it -------------------------------------------------------

    def focus_changed(self, focused: bool) -> None:
        self.focused = focused
        if focused and self._titled:
            self._titled = False
            self._write(f"\x1b]0;{APP_TITLE}\x07")
        elif not focused:
            self._title()

    def on_event(self, event: Event, agent: str, *, background: bool = False) -> None:
        """Every event of the core (before the screen handles it);
        ``background``: its session is not the one on screen."""
        data = event.data
        session = event.session_id or ""
        if event.type in ("permission-requested", "elicitation-requested"):
            self.waiting.add(str(data.get("requestId")))
            what = "wants your permission" if event.type[0] == "p" else "has a question"
            title = data.get("title") if event.type[0] == "p" else data.get("message")
            detail = f": {title}" if isinstance(title, str) and title else ""
            if self.settings.needs_you:
                self._alert(session, f"{agent} {what}{detail}", background)
            self._title()
        elif event.type in ("permission-resolved", "elicitation-resolved"):
            self.waiting.discard(str(data.get("requestId")))
            self._title()
        elif event.type == "status-changed":
            status = str(data.get("status"))
            before = self._status.get(session)
            self._status[session] = status
            ended = before == "running" and status in ("idle", "error")
            if ended and self.settings.turn_done and not self._queued(session):
                word = "needs you: the turn failed" if status == "error" else "is done"
                self._alert(session, f"{agent} {word}", background)

    # -- what it writes ----------------------------------------------------------------

    def _alert(self, session: str, text: str, background: bool) -> None:
        if self.focused and not background:
            return
        now = self._clock()
        if now - self._last.get(session, -MIN_GAP) < MIN_GAP:
            return
        self._last[session] = now
        if self.settings.bell:
            self._bell()
        if self.settings.desktop:
            body = safe(text)
            self._write(f"\x1b]9;{body}\x07\x1b]777;notify;{APP_TITLE};{body}\x07")

    def _title(self) -> None:
        if self.focused or not self.settings.title:
            return
        count = len(self.waiting)
        if count or self._titled:
            self._titled = bool(count)
            self._write(f"\x1b]0;({count}) {APP_TITLE}\x07" if count else f"\x1b]0;{APP_TITLE}\x07")
