"""The host's ``!`` commands: the user's own shell line in a session's folder
(a part of :class:`~acp_tui.core.host.Host`; sessions/user_shell.py does the work)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp_tui.core.sessions import user_shell

if TYPE_CHECKING:
    from acp_tui.core.sessions.session import Session


class ShellCommands:
    """``run_shell``, ``stop_shell``, ``drop_shell_context`` by session id."""

    def session(self, session_id: str) -> Session:
        raise NotImplementedError  # the host's registry

    #: Each session's ``!`` commands (the host makes it empty).
    user_shells: dict[str, user_shell.UserShells]

    def _shells(self, session_id: str) -> user_shell.UserShells:
        return self.user_shells.setdefault(session_id, user_shell.UserShells())

    async def run_shell(self, session_id: str, command: str) -> dict[str, Any]:
        """Run ``command`` in the session's folder (no agent turn); its output
        goes to the agent with the next prompt."""
        session = self.session(session_id)
        return await user_shell.run(session, self._shells(session_id), command)

    async def stop_shell(self, session_id: str) -> bool:
        """Stop the session's running ``!`` commands (whether one ran)."""
        return await user_shell.stop(self.session(session_id), self._shells(session_id))

    def drop_shell_context(self, session_id: str, tool_call_id: str) -> bool:
        """Keep a ``!`` command's output from the agent."""
        return user_shell.drop(self.session(session_id), self._shells(session_id), tool_call_id)
