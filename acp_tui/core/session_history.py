"""The host's sessions and the local history: a session brought back in a
new agent process, the settings kept for it, its transcript recorded (a part
of :class:`~acp_tui.core.host.Host`)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from acp_tui.core.model.session_state import kept_settings
from acp_tui.core.sessions import settings as session_settings
from acp_tui.core.sessions.closing import can_resume

if TYPE_CHECKING:
    from acp_tui.core.connection import AgentConnection
    from acp_tui.core.sessions.session import Session
    from acp_tui.core.storage.history_recorder import Recordings
    from acp_tui.core.storage.history_store import HistoryStore

log = logging.getLogger("acp_tui.core.host")


class SessionHistory:
    history: HistoryStore | None
    recordings: Recordings

    def connection(self, connection_id: str) -> AgentConnection:
        raise NotImplementedError  # the host's

    #: The host's (its signature is there).
    load_session: Callable[..., Awaitable[Session]]

    async def revive_session(
        self, connection_id: str, dead: Session
    ) -> tuple[Session, Literal["resumed", "loaded"]] | None:
        """``dead`` (its agent went away) in a new agent process: resumed
        (``session/resume``, the thread carried over) or loaded (``session/load``,
        replayed) when the agent can, with its mode and model; None when it
        can do neither. Raises HostError when the agent refuses."""
        connection = self.connection(connection_id)
        resume = can_resume(connection.capabilities)
        if not resume and not connection.capabilities.get("loadSession"):
            return None
        session = await self.load_session(
            connection_id,
            dead.agent_session_id,
            dead.cwd,
            allow_roots=dead.tools.fence.roots[1:],
            mcp_servers=dead.mcp_servers,
            additional_directories=dead.added_dirs,
            resume=dead.thread.entries if resume else None,
            settings=kept_settings(dead.modes, dead.config_options, dead.usage),
        )
        return session, "resumed" if resume else "loaded"

    def kept_settings(self, agent_session_id: str) -> dict[str, Any]:
        """The mode, config values and usage the local history kept for a session."""
        if self.history is None:
            return {}
        try:
            return self.history.read(agent_session_id).settings
        except (KeyError, OSError):
            return {}

    async def restore_settings(self, session: Session, settings: dict[str, Any]) -> None:
        """Put back the mode and model chosen before (where the agent allows
        it), with a note in the log saying so."""
        restored = await session_settings.restore(session, settings)
        if restored:
            session.add_notice("info", "Restored from before: " + " · ".join(restored))

    def _record(
        self, session: Session, connection: AgentConnection, *, resumed: bool = False
    ) -> None:
        if self.history is None:
            return
        try:
            recorder = self.history.recorder(
                session.agent_session_id,
                agent=connection.history_key,
                cwd=session.cwd,
                resumed=resumed,
            )
        except OSError as exc:
            log.warning("no history for this session: %s", exc)
            return
        recorder.spill = session.budget.spill
        self.recordings.add(session.session_id, recorder, session.snapshot())

    def transcript_key(self, session_id: str) -> str | None:
        """The local history's key of a session's transcript (None: not kept)."""
        path = self.recordings.path(session_id)
        return path.stem if path is not None else None
