"""Which sessions wait for the user, over all sessions: one ``needs-you`` event
per change.

A listener of the event hub (it is called by nobody): it follows every
session's permission requests and questions (``permission-requested`` /
``-resolved``, ``elicitation-requested`` / ``-resolved`` / ``-completed``)
and a session closing, and whenever the set of what waits changes it
publishes one host-wide event (no ``sessionId``)::

    {"type": "needs-you",
     "sessions": [{"sessionId", "permissions": n, "questions": n}, ...],
     "total": n}

``sessions`` lists only sessions with something waiting, in the order they
first started waiting; ``total`` counts every permission and question in
them. Nothing is published when an event changes nothing (a second
resolution, a question accepted twice). A url question the user accepted no
longer waits for the user (it waits for the agent). A question asked before
its session existed (during ``session/new``) belongs to no session and is not
counted. The hub delivers the summary right after the event that caused it
(channel.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp_tui.core.model.events import Event

_PERMISSIONS = "permissions"
_QUESTIONS = "questions"


class NeedsYou:
    def __init__(self, publish: Callable[[Event], None]) -> None:
        self._publish = publish
        #: Per session (in the order they started waiting): kind -> request ids.
        self._waiting: dict[str, dict[str, set[str]]] = {}
        self._last: list[dict[str, Any]] = []

    def summary(self) -> dict[str, Any]:
        """The last summary: ``sessions`` and ``total``, as in the event."""
        return {
            "sessions": [dict(s) for s in self._last],
            "total": sum(s[_PERMISSIONS] + s[_QUESTIONS] for s in self._last),
        }

    def on_event(self, event: Event) -> None:
        session_id = event.session_id
        if session_id is None:
            return  # host-wide (this summary among them), or a question of no session
        request_id = event.data.get("requestId")
        kind = event.type
        if kind == "permission-requested" and isinstance(request_id, str):
            self._add(session_id, _PERMISSIONS, request_id)
        elif kind == "permission-resolved" and isinstance(request_id, str):
            self._drop(session_id, _PERMISSIONS, request_id)
        elif kind == "elicitation-requested" and isinstance(request_id, str):
            self._add(session_id, _QUESTIONS, request_id)
        elif kind in ("elicitation-resolved", "elicitation-completed") and isinstance(
            request_id, str
        ):
            self._drop(session_id, _QUESTIONS, request_id)
        elif kind == "status-changed" and event.data.get("status") == "closed":
            self._waiting.pop(session_id, None)
        else:
            return
        self._changed()

    def _add(self, session_id: str, kind: str, request_id: str) -> None:
        waiting = self._waiting.setdefault(session_id, {_PERMISSIONS: set(), _QUESTIONS: set()})
        waiting[kind].add(request_id)

    def _drop(self, session_id: str, kind: str, request_id: str) -> None:
        waiting = self._waiting.get(session_id)
        if waiting is None:
            return
        waiting[kind].discard(request_id)
        if not waiting[_PERMISSIONS] and not waiting[_QUESTIONS]:
            del self._waiting[session_id]

    def _changed(self) -> None:
        now = [
            {
                "sessionId": session_id,
                _PERMISSIONS: len(waiting[_PERMISSIONS]),
                _QUESTIONS: len(waiting[_QUESTIONS]),
            }
            for session_id, waiting in self._waiting.items()
        ]
        if now == self._last:
            return
        self._last = now
        self._publish(Event("needs-you", self.summary()))
