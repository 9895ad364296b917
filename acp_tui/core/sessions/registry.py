"""The one registry of a host's sessions.

By the host's session id (what front ends name), and by the agent's own
session id on its connection (what the agent names in its traffic): the
second is an index of the first, kept by the same object, so a session is
registered, found and removed in one place. The host and its connections
share one registry.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_tui.core.sessions.session import Session


class SessionRegistry:
    def __init__(self) -> None:
        self._by_id: dict[str, Session] = {}
        self._by_agent_id: dict[tuple[str, str], Session] = {}

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._by_id

    def __iter__(self) -> Iterator[Session]:
        return iter(list(self._by_id.values()))

    def __len__(self) -> int:
        return len(self._by_id)

    def get(self, session_id: str) -> Session | None:
        return self._by_id.get(session_id)

    def add(self, session: Session) -> None:
        self._by_id[session.session_id] = session
        self._by_agent_id[(session.link.connection_id, session.agent_session_id)] = session

    def remove(self, session: Session) -> None:
        if self._by_id.get(session.session_id) is session:
            del self._by_id[session.session_id]
        key = (session.link.connection_id, session.agent_session_id)
        if self._by_agent_id.get(key) is session:
            del self._by_agent_id[key]

    def routed(self, connection_id: str, agent_session_id: str) -> Session | None:
        """The session the agent on ``connection_id`` means by ``agent_session_id``."""
        return self._by_agent_id.get((connection_id, agent_session_id))

    def of_connection(self, connection_id: str) -> list[Session]:
        return [s for (c, _), s in self._by_agent_id.items() if c == connection_id]
