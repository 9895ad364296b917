"""After a cancel: the agent's stale ``end_turn``, and putting its session right.

claude-agent-acp 0.23 (agentclientprotocol/claude-agent-acp issue #551, open;
the cause is described in its PR #480): a cancelled prompt returns as soon as
Claude Code reports the interrupted result, and leaves Claude Code's "idle"
message unread. The next ``session/prompt`` reads that message and answers at
once with ``end_turn``, no content and zero usage; the prompt itself is
answered in the background and its reply is handed to the prompt after it.
Every reply then lags one prompt behind, for the rest of the session.

What we measured against the real adapter (tests/e2e, mock API):

* waiting does not help: the adapter forwards Claude Code's output only while
  a ``session/prompt`` is running, so after the stale answer nothing arrives
  until another prompt is sent;
* re-sending the prompt as it is realigns the adapter, but Claude Code then
  has the prompt twice and answers it twice;
* ``session/close`` + ``session/resume`` gives the session a fresh Claude Code
  query (about 1.2 s) with the conversation intact and nothing stale in it.

So the session (session.py) waits for the cancelled prompt's answer before it
sends anything else; when it sees the stale answer (:func:`is_stale_end_turn`)
it reopens the agent's session (:func:`reopen`) and sends the prompt once
more. From then on the connection is known to need it, and the session is
reopened right after each cancel, before the user's next prompt. An agent
that cannot close and resume sessions gets the prompt re-sent as it is (the
reply then at least belongs to the prompt it answers).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from acp_tui.core.model.session_state import SessionState, config_values
from acp_tui.core.transport import acp_protocol as acp

log = logging.getLogger(__name__)

#: How long the next prompt waits for a cancelled prompt's answer that is still
#: outstanding (the turn ended for the user after the cancel grace).
SETTLE_SECONDS = 10.0


def is_stale_end_turn(result: Any, content_seen: bool) -> bool:
    """Whether a ``session/prompt`` answer is the stale one of issue #551: an
    ``end_turn`` with usage reported as all zero, and no content in the turn.

    A real model turn always uses tokens; an agent that reports no usage at
    all is never taken for stale (we could not tell)."""
    if content_seen or not isinstance(result, Mapping):
        return False
    if result.get("stopReason") != "end_turn":
        return False
    usage = result.get("usage")
    if not isinstance(usage, Mapping) or not usage:
        return False
    counts = [v for v in usage.values() if isinstance(v, int | float)]
    return bool(counts) and all(v == 0 for v in counts)


def can_reopen(capabilities: Mapping[str, Any]) -> bool:
    """Whether the agent can close a session and resume it (ACP's unstable
    ``sessionCapabilities.close`` and ``.resume``)."""
    caps = capabilities.get("sessionCapabilities")
    return (
        isinstance(caps, Mapping)
        and caps.get("close") is not None
        and caps.get("resume") is not None
    )


class Caller(Protocol):
    async def call(self, method: str, params: dict[str, Any]) -> Any: ...


class Reopenable(Protocol):
    """What reopening needs of a session."""

    @property
    def link(self) -> Caller: ...

    @property
    def agent_session_id(self) -> str: ...

    @property
    def cwd(self) -> Path: ...

    @property
    def mcp_servers(self) -> list[dict[str, Any]]: ...

    @property
    def state(self) -> SessionState: ...


async def reopen(session: Reopenable) -> None:
    """Close the agent's session and resume it, keeping the mode and config
    values the user chose (a resumed claude-agent-acp session starts with its
    defaults). Raises HostError when the agent refuses."""
    link = session.link
    agent_id = session.agent_session_id
    mode = session.state.current_mode
    values = config_values(session.state.config_options)
    log.info("reopening the agent's session %s after a cancel (claude-agent-acp#551)", agent_id)
    await link.call(acp.SESSION_CLOSE, {"sessionId": agent_id})
    result = await link.call(
        acp.SESSION_RESUME,
        {"sessionId": agent_id, "cwd": str(session.cwd), "mcpServers": session.mcp_servers},
    )
    result = result if isinstance(result, dict) else {}
    resumed_modes = result.get("modes")
    resumed_mode = resumed_modes.get("currentModeId") if isinstance(resumed_modes, dict) else None
    if isinstance(mode, str) and resumed_mode is not None and resumed_mode != mode:
        await link.call(acp.SESSION_SET_MODE, {"sessionId": agent_id, "modeId": mode})
    for option in result.get("configOptions") or []:
        if not isinstance(option, dict) or option.get("category") == "mode":
            continue
        wanted = values.get(str(option.get("id")))
        if wanted is not None and option.get("currentValue") != wanted:
            params: dict[str, Any] = {
                "sessionId": agent_id,
                "configId": option["id"],
                "value": wanted,
            }
            if isinstance(wanted, bool):
                params["type"] = "boolean"
            await link.call(acp.SESSION_SET_CONFIG_OPTION, params)
