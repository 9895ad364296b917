"""When the agent died: the same session in the new agent process.

With an agent that can resume sessions (``session/resume``) the thread is
carried over and the agent remembers it; one that can load sessions
(``session/load``) replays it (the log shows only what comes after the
replay: the conversation is already above). Either way a notice says so.
An agent that can do neither, or refuses, gets a new session, and the notice
says plainly that it does not remember the conversation above.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from acp_tui.core.errors import HostError

if TYPE_CHECKING:
    from acp_tui.core.connection import AgentConnection
    from acp_tui.core.host import Host
    from acp_tui.core.session import Session


@dataclass
class Revived:
    session: Session
    #: The dead session's entries, now carried by ``session`` (not shown twice).
    replaces: Session | None = None
    #: Entries at the start of the thread the log already shows (a replay).
    skip: int = 0


async def revive(
    host: Host,
    connection: AgentConnection,
    dead: Session,
    create: Callable[[AgentConnection], Awaitable[Session]],
) -> Revived:
    """``dead``'s successor on ``connection`` (``create`` makes a new session)."""
    name = connection.agent_name
    try:
        revived = await host.revive_session(connection.connection_id, dead)
    except HostError as exc:
        revived, why = None, f"reloading the session failed ({exc.message})"
    else:
        why = "it cannot reload sessions"
    if revived is None:
        fresh = await create(connection)
        text = (
            f"{name} restarted in a new session: {why}, so it does not remember"
            " the conversation above."
        )
        fresh.commit(fresh.thread.append_notice("warning", text))
        return Revived(fresh)
    session, how = revived
    skip = 0 if how == "resumed" else len(session.thread)
    verb = "resumed" if how == "resumed" else "reloaded"
    text = f"{name} restarted and {verb} this session: it remembers the conversation above."
    session.commit(session.thread.append_notice("info", text))
    return Revived(session, replaces=dead if how == "resumed" else None, skip=skip)
