"""What the TUI needs from a host: commands by id, answers as wire data.

The screen and its flows depend on :class:`HostLink`, never on the host's
objects: they hold ids (a connection's, a session's) and render the events
of the link's channel through their own :class:`~acp_tui.core.SessionView`.
:class:`~acp_tui.ui.local_host.LocalHost` is the link to a host in this
process (what ``acp-tui`` runs); a recording can stand in for it (the replay
test) and a host in another process could.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from acp_tui.core import PromptCapabilities

if TYPE_CHECKING:
    from acp_tui.core import AgentSpec, EventChannel, ToolCallEntry

NoticeLevel = Literal["info", "warning", "error"]
#: How a session that lost its agent carries on in a new agent process.
Revival = Literal["resumed", "loaded"]


@dataclass(frozen=True)
class AgentInfo:
    """An open agent connection, as ``connection.open`` describes it."""

    connection_id: str
    #: What to call the agent (its own name once it gave one).
    name: str
    #: ACP's ``agentInfo`` (name, title, version), when the agent sent one.
    info: dict[str, Any] = field(default_factory=dict)
    capabilities: dict[str, Any] = field(default_factory=dict)
    auth_methods: list[dict[str, Any]] = field(default_factory=list)
    prompt_capabilities: PromptCapabilities = field(
        default_factory=lambda: PromptCapabilities.from_init_result(None)
    )
    #: Where the agent's log is kept (None: not kept).
    log_path: Path | None = None

    @property
    def can_load(self) -> bool:
        return bool(self.capabilities.get("loadSession"))

    def title(self, fallback: str) -> str:
        return str(self.info.get("title") or self.info.get("name") or fallback)


class StoredTranscript(Protocol):
    """A session kept in the local history, read back."""

    title: str | None
    entries: list[dict[str, Any]]
    warnings: list[str]
    settings: dict[str, Any]


class HostLink(Protocol):
    """The host's command API by id (acp-host-jsonl-v1's methods, and the few
    the TUI adds), plus its event channel."""

    #: Whether the sessions outlive this link (a background host's): quitting
    #: then offers to detach.
    detachable: bool

    @property
    def history_root(self) -> Path | None:
        """Where sessions are kept (None: nowhere)."""

    def attach(self, capacity: int, text_budget: int) -> EventChannel:
        """A channel of every session's events, holding at most ``capacity``
        events and ``text_budget`` characters of text before the host waits."""

    def detach(self, channel: EventChannel) -> None: ...

    # -- connections ------------------------------------------------------------

    async def open(self, spec: AgentSpec, cwd: Path) -> AgentInfo: ...

    def stderr_tail(self, connection_id: str) -> str:
        """The agent's last lines on stderr ("" once it is gone)."""

    async def authenticate(self, connection_id: str, method_id: str) -> None: ...

    async def logout(self, connection_id: str) -> None:
        """``connection.logout`` (``unsupported`` unless the agent offers it)."""

    async def adopt(self, session_id: str) -> AgentInfo:
        """Follow a session the host already holds; its agent."""
        ...

    # -- sessions -----------------------------------------------------------------

    async def create_session(self, connection_id: str, cwd: Path) -> str: ...

    async def list_sessions(self, connection_id: str, cwd: Path) -> list[dict[str, Any]]: ...

    async def load_session(self, connection_id: str, session_id: str, cwd: Path) -> str: ...

    async def revive(self, connection_id: str, dead_session_id: str) -> tuple[str, Revival] | None:
        """The dead session in the new agent process (its new id and how), or
        None when the agent can neither resume nor load it."""

    async def restore_settings(self, session_id: str, settings: Mapping[str, Any]) -> None: ...

    async def close_session(self, session_id: str) -> None:
        """``session.close``; the agent is ended when no other session uses it."""

    async def fork_session(self, session_id: str) -> str:
        """``session.fork``: the new session's id."""

    async def delete_session(self, connection_id: str, session_id: str) -> None:
        """``session.delete``: a session as ``list_sessions`` named it (the
        agent's, or a transcript only)."""

    def snapshot(self, session_id: str) -> dict[str, Any]:
        """``session.snapshot`` (with the session's ``cwd``)."""

    def transcript(self, key: str) -> StoredTranscript:
        """A kept transcript; KeyError or OSError when there is none."""

    def add_notice(self, session_id: str, level: NoticeLevel, text: str) -> None: ...

    # -- turns --------------------------------------------------------------------

    def build_prompt(
        self,
        session_id: str,
        text: str,
        images: Mapping[str, Path],
    ) -> tuple[list[dict[str, Any]], list[str]]:
        """The content blocks for ``text`` (its ``@`` mentions read within the
        session's roots, as the agent's prompt capabilities allow) and notes
        on what was left out."""

    async def prompt(self, session_id: str, blocks: list[dict[str, Any]]) -> str: ...

    async def cancel(self, session_id: str) -> None: ...

    async def set_mode(self, session_id: str, mode_id: str) -> None: ...

    async def set_config_option(
        self, session_id: str, config_id: str, value: Any
    ) -> list[dict[str, Any]]: ...

    def decide(
        self, request_id: str, option_id: str | None = None, *, cancelled: bool = False
    ) -> None: ...

    def respond_elicitation(self, request_id: str, action: str, content: Any = None) -> None:
        """Answer an agent's question (``elicitation.respond``): ``accept`` (with
        a form's content), ``decline`` or ``cancel``; the first answer wins."""

    def outside_paths(self, session_id: str, entry: ToolCallEntry) -> list[str]:
        """The paths ``entry`` touches outside the session's roots."""

    # -- checkpoints (``checkpoint.*``) ------------------------------------------

    async def list_checkpoints(self, session_id: str) -> list[dict[str, Any]]:
        """``checkpoint.list``: the session's checkpoints, newest first."""

    async def checkpoint_files(
        self, session_id: str, old_id: str, new_id: str | None, paths: list[str] | None = None
    ) -> list[dict[str, Any]]:
        """Each file that differs from ``old_id`` to ``new_id`` (None: the tree
        now), as an ACP ``diff`` content item with ``change`` and ``display``."""

    async def plan_restore(
        self, session_id: str, checkpoint_id: str, paths: list[str] | None = None
    ) -> list[dict[str, Any]]:
        """``checkpoint.restore`` with ``dryRun``: what a restore would do."""

    async def restore_checkpoint(
        self,
        session_id: str,
        checkpoint_id: str,
        paths: list[str] | None = None,
        *,
        tell_agent: bool = False,
    ) -> dict[str, Any]:
        """``checkpoint.restore``: ``{restored, checkpointId (to undo it), files}``."""

    # -- ``!`` commands ---------------------------------------------------------

    async def run_shell(self, session_id: str, command: str) -> dict[str, Any]:
        """Run the user's ``command`` in the session's folder, until it ends."""

    async def stop_shell(self, session_id: str) -> bool: ...

    def drop_shell_context(self, session_id: str, tool_call_id: str) -> bool:
        """Keep a ``!`` command's output from the agent (False: too late)."""

    # -- the end ------------------------------------------------------------------

    async def shutdown(self) -> None: ...

    async def end_sessions(self) -> None:
        """End this window's sessions (a detachable link's: shutdown leaves them)."""
        ...

    def kill_all_now(self) -> None:
        """Reap every agent now (safe from any thread)."""

    def agents_gone(self) -> bool:
        """Whether no agent's process group is left (safe from any thread)."""
