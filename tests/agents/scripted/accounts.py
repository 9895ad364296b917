"""``session/delete`` (ACP_FAKE_DELETE=1) and ``logout`` (ACP_FAKE_LOGOUT=1).

The SDK (0.12.1) has the schema of both but its agent-side router does not
route them: :func:`route_accounts` adds the two routes to the router
``acp.run_agent`` builds. A deleted session is forgotten (its state file
goes, so ``session/list`` no longer lists it); after ``logout`` every
``session/new`` and prompt answers auth_required until ``authenticate``.
Both are written to the env file ACP_FAKE_COUNT_FILE ("delete <session>",
"logout").
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

import acp.agent.connection
from acp.meta import AGENT_METHODS
from acp.schema import DeleteSessionRequest, DeleteSessionResponse, LogoutRequest, LogoutResponse

from tests.agents.scripted.base import AgentBase


def _count(line: str) -> None:
    count_file = os.environ.get("ACP_FAKE_COUNT_FILE")
    if count_file:
        with open(count_file, "a") as f:
            f.write(line + "\n")


class AccountCommands(AgentBase):
    #: The agent's (scripted_agent.py): what each session heard, and whether
    #: ``authenticate`` succeeded (since the last ``logout``).
    heard: dict[str, list[str]]
    authenticated: bool

    def __init__(self) -> None:
        super().__init__()
        #: Set by ``logout``: sign-in is required from then on.
        self.logged_out = False

    async def delete_session(self, session_id: str, **kwargs: Any) -> DeleteSessionResponse:
        _count(f"delete {session_id}")
        self.heard.pop(session_id, None)
        if self.state_dir:
            with contextlib.suppress(FileNotFoundError):  # (ACP: deleting twice succeeds)
                os.remove(os.path.join(self.state_dir, session_id + ".jsonl"))
        return DeleteSessionResponse()

    async def logout(self, **kwargs: Any) -> LogoutResponse:
        _count("logout")
        self.logged_out = True
        self.authenticated = False
        return LogoutResponse()


def route_accounts() -> None:
    """Make ``acp.run_agent``'s router route ``session/delete`` (with
    ACP_FAKE_DELETE=1) and ``logout`` (with ACP_FAKE_LOGOUT=1); without them
    the agent answers method_not_found, as one that does not offer them."""
    build = acp.agent.connection.build_agent_router

    def build_with_accounts(agent: Any, use_unstable_protocol: bool = False) -> Any:
        router = build(agent, use_unstable_protocol=use_unstable_protocol)
        if os.environ.get("ACP_FAKE_DELETE") == "1":
            delete = AGENT_METHODS["session_delete"]
            router.route_request(delete, DeleteSessionRequest, agent, "delete_session")
        if os.environ.get("ACP_FAKE_LOGOUT") == "1":
            router.route_request(AGENT_METHODS["logout"], LogoutRequest, agent, "logout")
        return router

    acp.agent.connection.build_agent_router = build_with_accounts  # type: ignore[assignment]
