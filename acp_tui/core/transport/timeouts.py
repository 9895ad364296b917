"""How long the host waits for an agent before it says so.

``initialize`` and ``session/new`` fail with a ``timeout`` error naming the
agent (its last stderr lines in the error's data) when the agent does not
answer within these many seconds. ``stuck_input`` is not a timeout: an agent
that has left its stdin unread that long is reported (an ``error`` event,
code ``agent_not_reading``), and what is addressed to it keeps waiting.
Set in the config file's ``[timeouts]`` table (agents/config.py).
"""

from __future__ import annotations

from dataclasses import dataclass

#: How long a cancelled turn may take to end before it ends for the user anyway.
CANCEL_GRACE_SECONDS = 5.0


@dataclass(frozen=True)
class Timeouts:
    initialize: float = 60.0
    session_new: float = 60.0
    stuck_input: float = 10.0
