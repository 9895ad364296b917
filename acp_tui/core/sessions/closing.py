"""A front end closes one session (``session.close``), its connection kept.

The session ends here at once: its questions close (``closed``), its
permissions resolve as cancelled (the first answer wins: a later decision is
``already_decided``), a running turn ends for its caller (``cancelled``), and
``status-changed: closed`` is committed; later commands on it answer
``session_closed``. The agent is then told: with ACP's ``session/close``
when it advertises ``sessionCapabilities.close`` (it cancels any work in the
session and frees it), else with ``session/cancel`` when a turn was running
(ACP has nothing else to forget a session by). The agent's process is not
reaped: a connection is opened and closed by its front end, and may hold
other sessions or be reused for new ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from acp_tui.core.errors import HostError

if TYPE_CHECKING:
    from acp_tui.core.sessions.elicitations import ElicitationBook
    from acp_tui.core.sessions.session import Session

log = logging.getLogger(__name__)

#: How long ``session.close`` waits for the agent's answer to ``session/close``.
CLOSE_SECONDS = 10.0


def can_close(capabilities: Mapping[str, Any]) -> bool:
    """Whether the agent offers ``session/close`` (ACP's ``sessionCapabilities.close``)."""
    caps = capabilities.get("sessionCapabilities")
    return isinstance(caps, Mapping) and caps.get("close") is not None


def can_resume(capabilities: Mapping[str, Any]) -> bool:
    """Whether the agent offers ``session/resume`` (ACP's unstable sessionCapabilities)."""
    caps = capabilities.get("sessionCapabilities")
    return isinstance(caps, Mapping) and caps.get("resume") is not None


async def close_session(
    session: Session, elicitations: ElicitationBook, *, seconds: float = CLOSE_SECONDS
) -> bool:
    """Close ``session`` (see the module); True when the agent was sent
    ``session/close``. Raises HostError when the session is closed already."""
    from acp_tui.core.transport import acp_protocol as acp  # (the SDK: loaded by now)

    session.require_open()
    running = session.turn is not None and not session.turn.cancel_requested
    tell_close = can_close(session.link.capabilities)
    elicitations.close_owner(session, "closed")
    session.closed_by_client = True
    session.close()
    params = {"sessionId": session.agent_session_id}
    try:
        if tell_close:
            async with asyncio.timeout(seconds):  # (not wait_for: see AgentConnection.call)
                await session.link.call(acp.SESSION_CLOSE, params)
        elif running:
            await session.link.notify(acp.SESSION_CANCEL, params)
    except (TimeoutError, HostError) as exc:
        # The session is closed here whatever the agent says; its log tells.
        text = exc.message if isinstance(exc, HostError) else f"no answer within {seconds:g} s"
        with contextlib.suppress(Exception):
            session.link.note(f"closing session {session.agent_session_id}: {text}")
        log.info("the agent did not close session %s: %s", session.agent_session_id, text)
    await session.wait_closed()
    return tell_close
