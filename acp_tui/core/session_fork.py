"""``session/fork``: a new session that starts from another's conversation
(a part of :class:`~acp_tui.core.host.Host`).

Where the agent advertises ``sessionCapabilities.fork`` (claude-agent-acp
0.23 does), the agent copies its side of the conversation into a new session;
the host's new session starts as a copy of the parent's entries (as a resumed
one does: nothing is replayed), on the same connection, in the same folder,
with the parent's fence, MCP servers and added folders. The fork gets a
transcript of its own. The parent is untouched and stays open.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from acp_tui.core.errors import HostError
from acp_tui.core.sessions import added_dirs

if TYPE_CHECKING:
    from acp_tui.core.connection import AgentConnection
    from acp_tui.core.sessions.session import Session


def can_fork(capabilities: Mapping[str, Any]) -> bool:
    """Whether the agent offers ``session/fork`` (ACP's unstable sessionCapabilities)."""
    caps = capabilities.get("sessionCapabilities")
    return isinstance(caps, Mapping) and caps.get("fork") is not None


class SessionFork:
    def session(self, session_id: str) -> Session:
        raise NotImplementedError  # the host's

    def connection(self, connection_id: str) -> AgentConnection:
        raise NotImplementedError  # the host's

    #: The host's (their signatures are there, and in session_history.py).
    _check_running: Callable[[], None]
    _new_session: Callable[..., Session]
    _record: Callable[..., None]

    async def fork_session(self, session_id: str) -> Session:
        """A fork of ``session_id`` (see the module). Raises HostError
        ``unsupported`` when the agent cannot fork, and whatever the agent
        answers when it refuses."""
        self._check_running()
        from acp_tui.core.transport import acp_protocol as acp  # (the SDK: loaded by now)

        parent = self.session(session_id)
        parent.require_open()
        connection = self.connection(parent.link.connection_id)
        if not can_fork(connection.capabilities):
            raise HostError("unsupported", f"{connection.agent_name} cannot fork sessions")
        params = {
            "sessionId": parent.agent_session_id,
            "cwd": str(parent.cwd),
            "mcpServers": parent.mcp_servers or [],
        }
        request = added_dirs.request(params, parent.added_dirs, connection.capabilities)
        result = await connection.call(acp.SESSION_FORK, request)
        fork_id = result.get("sessionId") if isinstance(result, dict) else None
        if not isinstance(fork_id, str):
            raise HostError("agent_error", "the agent answered session/fork without a sessionId")
        session = self._new_session(
            connection,
            fork_id,
            parent.cwd,
            parent.tools.fence.roots[1:],
            resumed=True,  # recorded below, with the parent's entries
            mcp_servers=parent.mcp_servers,
            setup=result,
        )
        session.carry_over(parent.thread.entries)
        session.added_dirs = list(parent.added_dirs)  # (the parent's log said if untold)
        self._record(session, connection)
        return session
