"""Deleting an earlier session: the agent's (``session/delete``) and the
transcript acp-tui kept of it (a part of :class:`~acp_tui.core.host.Host`).

What a session list names is deleted (``Host.list_sessions``): an agent's
session (``source: agent``; where the agent advertises
``sessionCapabilities.delete``, else ``unsupported``) goes from the agent's
``session/list`` and its transcript from the local history; a transcript
only (``source: local``, named by the history's own key) goes from the local
history alone, the agent is not asked. A session open in this host is not
deleted (close it first): its agent may still be working in it, and its
transcript is still being written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from acp_tui.core.errors import HostError

if TYPE_CHECKING:
    from acp_tui.core.connection import AgentConnection
    from acp_tui.core.sessions.registry import SessionRegistry
    from acp_tui.core.storage.history_recorder import Recordings
    from acp_tui.core.storage.history_store import HistoryStore


def can_delete(capabilities: Mapping[str, Any]) -> bool:
    """Whether the agent offers ``session/delete`` (ACP's ``sessionCapabilities.delete``)."""
    caps = capabilities.get("sessionCapabilities")
    return isinstance(caps, Mapping) and caps.get("delete") is not None


class SessionDelete:
    history: HistoryStore | None
    recordings: Recordings
    sessions: SessionRegistry

    def connection(self, connection_id: str) -> AgentConnection:
        raise NotImplementedError  # the host's

    #: The host's.
    _check_running: Callable[[], None]

    async def delete_session(self, connection_id: str, session_id: str) -> None:
        """Delete ``session_id`` as a session list named it (see the module).
        Raises HostError ``unsupported`` when the agent cannot delete its
        sessions, ``invalid_params`` when the session is open, and whatever
        the agent answers when it refuses (the transcript is kept then)."""
        self._check_running()
        from acp_tui.core.transport import acp_protocol as acp  # (the SDK: loaded by now)

        connection = self.connection(connection_id)
        history = self.history
        if history is not None and history.is_key(session_id):  # a transcript only
            self._check_unused(history, session_id)
            _remove(history, session_id)
            return
        if not can_delete(connection.capabilities):
            raise HostError("unsupported", f"{connection.agent_name} cannot delete sessions")
        for session in self.sessions.of_connection(connection_id):
            if session.agent_session_id == session_id and not session.closed:
                raise _open(session_id)
        if history is not None:
            self._check_unused(history, session_id)
        await connection.call(acp.SESSION_DELETE, {"sessionId": session_id})
        if history is not None:
            _remove(history, session_id)

    def _check_unused(self, history: HistoryStore, key: str) -> None:
        path = history.find(key)
        if path is not None and self.recordings.writes_to(path):
            raise _open(key)


def _open(session_id: str) -> HostError:
    return HostError("invalid_params", f"session {session_id} is open: close it first")


def _remove(history: HistoryStore, key: str) -> None:
    try:
        history.remove(key)
    except OSError as exc:
        raise HostError(
            "internal", f"the transcript could not be deleted ({exc.strerror})"
        ) from None
