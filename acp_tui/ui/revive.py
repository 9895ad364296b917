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

from acp_tui.core import HostError
from acp_tui.ui.host_link import AgentInfo, HostLink


@dataclass(frozen=True)
class Revived:
    session_id: str
    #: The dead session's id when the new one carries its entries (not shown twice).
    replaces: str = ""
    #: Entries at the start of the thread the log already shows (a replay).
    skip: int = 0


async def revive(
    link: HostLink,
    agent: AgentInfo,
    dead_session_id: str,
    create: Callable[[AgentInfo], Awaitable[str]],
) -> Revived:
    """The dead session's successor on ``agent``'s connection (``create``
    makes a new session)."""
    name = agent.name
    try:
        revived = await link.revive(agent.connection_id, dead_session_id)
    except HostError as exc:
        revived, why = None, f"reloading the session failed ({exc.message})"
    else:
        why = "it cannot reload sessions"
    if revived is None:
        fresh = await create(agent)
        text = (
            f"{name} restarted in a new session: {why}, so it does not remember"
            " the conversation above."
        )
        link.add_notice(fresh, "warning", text)
        return Revived(fresh)
    session_id, how = revived
    skip = 0 if how == "resumed" else len(link.snapshot(session_id)["entries"])
    verb = "resumed" if how == "resumed" else "reloaded"
    text = f"{name} restarted and {verb} this session: it remembers the conversation above."
    link.add_notice(session_id, "info", text)
    return Revived(session_id, replaces=dead_session_id if how == "resumed" else "", skip=skip)
