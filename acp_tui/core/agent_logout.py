"""``logout``: ending the signed-in state with an agent (a part of
:class:`~acp_tui.core.host.Host`).

Where the agent advertises ``agentCapabilities.auth.logout`` (``{}``), it is
asked to forget the user's sign-in; the connection and its sessions stay,
and what needs a sign-in from then on answers auth_required (front ends sign
in again with ``authenticate``, as at the start). Elsewhere: ``unsupported``
(ACP: clients must not call it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from acp_tui.core.errors import HostError

if TYPE_CHECKING:
    from acp_tui.core.connection import AgentConnection


def can_logout(capabilities: Mapping[str, Any]) -> bool:
    """Whether the agent offers ``logout`` (ACP's ``agentCapabilities.auth.logout``)."""
    auth = capabilities.get("auth")
    return isinstance(auth, Mapping) and auth.get("logout") is not None


class AgentLogout:
    def connection(self, connection_id: str) -> AgentConnection:
        raise NotImplementedError  # the host's

    #: The host's.
    _check_running: Callable[[], None]

    async def logout(self, connection_id: str) -> None:
        """Log out of the agent of ``connection_id`` (see the module)."""
        self._check_running()
        from acp_tui.core.transport import acp_protocol as acp  # (the SDK: loaded by now)

        connection = self.connection(connection_id)
        if not can_logout(connection.capabilities):
            raise HostError("unsupported", f"{connection.agent_name} offers no logout")
        await connection.call(acp.LOGOUT, {})
