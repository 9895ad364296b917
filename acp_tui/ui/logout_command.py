"""``/logout``: log out of the current session's agent (ACP's ``logout``,
where the agent advertises ``agentCapabilities.auth.logout``), said in the
session's log; an agent that offers none is said to. The session stays: the
agent asks for a sign-in again when it next needs one (the sign-in picker).

A local command: handled by acp-tui, never sent to the agent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.core import HostError, can_logout

if TYPE_CHECKING:
    from acp_tui.ui.conversation import Conversation
    from acp_tui.ui.host_link import HostLink, NoticeLevel
    from acp_tui.ui.surface import Surface

__all__ = ["LOGOUT_COMMAND", "is_logout_command", "log_out"]

#: How /logout shows up in slash completion, beside the agent's own commands.
LOGOUT_COMMAND = {"name": "logout", "description": "acp-tui: log out of this agent"}


def is_logout_command(text: str) -> bool:
    return text.strip() == "/logout"


async def log_out(surface: Surface, link: HostLink, conversation: Conversation) -> None:
    agent, view = conversation.agent, conversation.current
    if agent is None or view is None:
        surface.toast("/logout: no agent yet", severity="warning", timeout=4)
        return

    def say(level: NoticeLevel, text: str) -> None:
        link.add_notice(view.session_id, level, text)

    if not can_logout(agent.capabilities):
        say("warning", f"{agent.name} offers no logout: /logout is for agents that do.")
        return
    try:
        await link.logout(agent.connection_id)
    except HostError as exc:
        say("error", f"Could not log out of {agent.name}: {exc.message}")
        return
    say("info", f"Logged out of {agent.name}. It asks you to sign in again when it needs to.")
