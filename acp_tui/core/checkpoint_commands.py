"""The host's checkpoint commands: list a session's checkpoints, compare one
with the tree now, and restore one (a part of :class:`~acp_tui.core.host.Host`).

Every result is in the headless protocol's wire form (``checkpoint.list``,
``checkpoint.diff``, ``checkpoint.restore``), so the TUI and the headless
server show the same facts. A restore is refused while a turn runs (the
agent is editing the same files): cancel the turn first.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.core.errors import HostError

if TYPE_CHECKING:
    from acp_tui.core.checkpoints.settings import CheckpointSettings
    from acp_tui.core.model.events import Event
    from acp_tui.core.sessions.registry import SessionRegistry
    from acp_tui.core.sessions.session import Session
    from acp_tui.core.sessions.turn_checkpoints import TurnCheckpoints


class CheckpointCommands:
    """Checkpoint commands over the host's sessions."""

    sessions: SessionRegistry
    #: How sessions record their folders around turns (None: they do not).
    checkpoint_settings: CheckpointSettings | None

    def session(self, session_id: str) -> Session:
        raise NotImplementedError  # the host's registry

    def _turn_checkpoints(self, roots: Sequence[Path], session_id: str) -> TurnCheckpoints | None:
        """A new session's checkpoints of its folders (``roots[0]``: its cwd);
        None when the host was made without checkpoint settings (an embedding
        program's choice; the command line passes the config file's)."""
        settings = self.checkpoint_settings
        if settings is None:
            return None
        # (The engine is loaded with the first session, not at start-up.)
        from acp_tui.core.sessions.turn_checkpoints import TurnCheckpoints

        return TurnCheckpoints(roots, session_id, settings)

    def _observe(self, event: Event) -> None:
        """Every committed event (a hub listener): the tool calls' running
        windows, for each session's changes entries."""
        if event.type in ("entry-appended", "entry-updated") and event.session_id is not None:
            session = self.sessions.get(event.session_id)
            if session is not None and session.checkpoints is not None:
                session.checkpoints.observe(event)

    def _checkpoints(self, session_id: str) -> tuple[Session, TurnCheckpoints]:
        session = self.session(session_id)
        if session.checkpoints is None:
            raise HostError("unsupported", "checkpoints are off for this session")
        return session, session.checkpoints

    async def list_checkpoints(self, session_id: str) -> list[dict[str, Any]]:
        """The session's checkpoints, newest first: ``checkpointId``,
        ``createdAt``, ``label``, ``turn``, ``prompt``, ``files`` (changed
        since the one before it)."""
        return await self._checkpoints(session_id)[1].listed()

    async def checkpoint_diff(
        self, session_id: str, checkpoint_id: str, path: str | None = None
    ) -> str:
        """A unified diff from the checkpoint to the tree now (one file or all)."""
        return await self._checkpoints(session_id)[1].diff(checkpoint_id, path)

    async def checkpoint_files(
        self,
        session_id: str,
        old_id: str,
        new_id: str | None = None,
        paths: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Each file that differs from ``old_id`` to ``new_id`` (None: the tree
        now) as an ACP ``diff`` content item with ``change`` and ``display``."""
        return await self._checkpoints(session_id)[1].file_diffs(old_id, new_id, paths)

    async def plan_restore(
        self, session_id: str, checkpoint_id: str, paths: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """What :meth:`restore_checkpoint` would do, nothing written: each file's
        ``action`` and whether it was ``editedOutside`` the turns since, or
        holds ``unsaved`` content no checkpoint has."""
        return await self._checkpoints(session_id)[1].plan(checkpoint_id, paths)

    async def restore_checkpoint(
        self,
        session_id: str,
        checkpoint_id: str,
        paths: Sequence[str] | None = None,
        *,
        tell_agent: bool = False,
    ) -> dict[str, Any]:
        """Put the files back as they were at ``checkpoint_id``; a ``rewind``
        entry records it. ``checkpointId`` in the result is the checkpoint
        taken just before: restoring it undoes this one. With ``tell_agent``
        the next prompt starts with a line saying what was restored."""
        session, checkpoints = self._checkpoints(session_id)
        if session.turn is not None:
            raise HostError("turn_running", "a turn is running: cancel it before a restore")
        entry, result, note = await checkpoints.restore(checkpoint_id, paths, tell_agent=tell_agent)
        session.commit(session.thread.append_record(entry))
        if note is not None:
            session.agent_notes.append(note)
        return {
            "restored": [str(path) for path in result.restored],
            "checkpointId": result.checkpoint_id,
            "files": entry.files,
        }
