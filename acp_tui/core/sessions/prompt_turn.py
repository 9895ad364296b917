"""One prompt turn of a session: what is known of it, and its ``session/prompt``.

A :class:`Turn` is the session's (session.py) exactly while it is
``running``. Its prompt goes to the agent through :func:`send_prompt`, which
waits for the agent's answer or for the turn to be abandoned: after a cancel
the agent has the cancel grace to end the turn, and past it the turn ends
here (:data:`ABANDONED`) while the request stays outstanding
(:attr:`Turn.outstanding`). The session waits for that late answer before
it sends the next prompt (cancel_recovery.py).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from acp_tui.core.sessions.cancel_recovery import Caller
from acp_tui.core.transport import acp_protocol as acp


@dataclass(eq=False)
class Turn:
    first_index: int
    cancel_requested: bool = False
    abandoned: asyncio.Event = field(default_factory=asyncio.Event)
    grace: asyncio.TimerHandle | None = None
    #: session/prompt has been sent (it waits while the agent settles).
    sent: bool = False
    #: The agent sent text or a tool call in this turn.
    content_seen: bool = False
    #: The prompt request, when the turn ended without its answer (abandoned).
    outstanding: asyncio.Future[Any] | None = None
    #: The turn's number in the session (its user entry's) and its prompt text.
    number: int = 0
    text: str = ""


#: What send_prompt returns for a prompt whose answer did not come within the grace.
ABANDONED = object()


async def send_prompt(
    link: Caller, agent_session_id: str, turn: Turn, blocks: list[dict[str, Any]]
) -> Any:
    """``session/prompt``: its answer, or :data:`ABANDONED` when the agent
    did not answer within the cancel grace (the request stays outstanding)."""
    if turn.cancel_requested:
        return {"stopReason": "cancelled"}  # cancelled before it was sent
    turn.sent = True
    request = asyncio.ensure_future(
        link.call(acp.SESSION_PROMPT, {"sessionId": agent_session_id, "prompt": blocks})
    )
    abandoned = asyncio.ensure_future(turn.abandoned.wait())
    try:
        await asyncio.wait({request, abandoned}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        request.cancel()
        raise
    finally:
        abandoned.cancel()
    if not request.done():
        request.add_done_callback(_ignore_result)
        turn.outstanding = request
        return ABANDONED
    return request.result()


def _ignore_result(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
