"""The link to a host in this process: :class:`HostLink` over :class:`Host`.

Like the headless server's methods (server/methods.py), it looks a session
or a connection up by id for the length of one command and answers with
wire data; nothing it returns is a live object of the core.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.core import PromptCapabilities, outside_paths
from acp_tui.ui.host_link import AgentInfo, NoticeLevel, Revival, StoredTranscript

if TYPE_CHECKING:
    from acp_tui.core import AgentConnection, AgentSpec, EventChannel, Host, ToolCallEntry


class LocalHost:
    """A :class:`~acp_tui.ui.host_link.HostLink` to ``host``."""

    detachable = False

    def __init__(self, host: Host) -> None:
        self.host = host
        #: Connections opened through this link, kept to tell why one failed
        #: (its stderr) after the host has let it go.
        self._opened: dict[str, AgentConnection] = {}

    @property
    def history_root(self) -> Path | None:
        history = self.host.history
        return history.root if history is not None else None

    def attach(self, capacity: int, text_budget: int) -> EventChannel:
        channel = self.host.attach(capacity)
        channel.text_budget = text_budget
        return channel

    def detach(self, channel: EventChannel) -> None:
        self.host.detach(channel)

    # -- connections ------------------------------------------------------------

    async def open(self, spec: AgentSpec, cwd: Path) -> AgentInfo:
        connection, _ = await self.host.open_connection(spec, cwd)
        return self._agent(connection)

    async def adopt(self, session_id: str) -> AgentInfo:
        connection_id = self.host.session(session_id).link.connection_id
        return self._agent(self.host.connection(connection_id))

    def _agent(self, connection: AgentConnection) -> AgentInfo:
        self._opened[connection.connection_id] = connection
        init = connection.init_result
        info = init.get("agentInfo")
        return AgentInfo(
            connection_id=connection.connection_id,
            name=connection.agent_name,
            info=dict(info) if isinstance(info, dict) else {},
            capabilities=dict(connection.capabilities),
            auth_methods=list(connection.auth_methods),
            prompt_capabilities=PromptCapabilities.from_init_result(init),
            log_path=connection.log_path,
        )

    def stderr_tail(self, connection_id: str) -> str:
        connection = self._opened.get(connection_id)
        return connection.stderr_tail() if connection is not None else ""

    async def authenticate(self, connection_id: str, method_id: str) -> None:
        await self.host.authenticate(connection_id, method_id)

    async def logout(self, connection_id: str) -> None:
        await self.host.logout(connection_id)

    # -- sessions -----------------------------------------------------------------

    async def create_session(self, connection_id: str, cwd: Path) -> str:
        return (await self.host.create_session(connection_id, cwd)).session_id

    async def list_sessions(self, connection_id: str, cwd: Path) -> list[dict[str, Any]]:
        return await self.host.list_sessions(connection_id, cwd)

    async def load_session(self, connection_id: str, session_id: str, cwd: Path) -> str:
        return (await self.host.load_session(connection_id, session_id, cwd)).session_id

    async def revive(self, connection_id: str, dead_session_id: str) -> tuple[str, Revival] | None:
        revived = await self.host.revive_session(connection_id, self.host.session(dead_session_id))
        if revived is None:
            return None
        session, how = revived
        return session.session_id, how

    async def restore_settings(self, session_id: str, settings: Mapping[str, Any]) -> None:
        await self.host.restore_settings(self.host.session(session_id), dict(settings))

    async def close_session(self, session_id: str) -> None:
        await self.host.close_session(session_id, reap=True)

    async def fork_session(self, session_id: str) -> str:
        return (await self.host.fork_session(session_id)).session_id

    async def delete_session(self, connection_id: str, session_id: str) -> None:
        await self.host.delete_session(connection_id, session_id)

    def snapshot(self, session_id: str) -> dict[str, Any]:
        return self.host.snapshot(session_id)

    def transcript(self, key: str) -> StoredTranscript:
        if self.host.history is None:
            raise KeyError(key)
        return self.host.history.read(key)

    def add_notice(self, session_id: str, level: NoticeLevel, text: str) -> None:
        self.host.add_notice(session_id, level, text)

    # -- turns --------------------------------------------------------------------

    def build_prompt(
        self,
        session_id: str,
        text: str,
        images: Mapping[str, Path],
    ) -> tuple[list[dict[str, Any]], list[str]]:
        built = self.host.build_prompt(session_id, text, images=images)
        return built.blocks, built.notes

    async def prompt(self, session_id: str, blocks: list[dict[str, Any]]) -> str:
        return await self.host.prompt(session_id, blocks)

    async def cancel(self, session_id: str) -> None:
        await self.host.cancel(session_id)

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        await self.host.set_mode(session_id, mode_id)

    async def set_config_option(
        self, session_id: str, config_id: str, value: Any
    ) -> list[dict[str, Any]]:
        return await self.host.set_config_option(session_id, config_id, value)

    def decide(
        self, request_id: str, option_id: str | None = None, *, cancelled: bool = False
    ) -> None:
        self.host.decide(request_id, option_id, cancelled=cancelled)

    def respond_elicitation(self, request_id: str, action: str, content: Any = None) -> None:
        self.host.respond_elicitation(request_id, action, content)

    def outside_paths(self, session_id: str, entry: ToolCallEntry) -> list[str]:
        session = self.host.sessions.get(session_id)
        return outside_paths(entry, session.tools.fence) if session is not None else []

    # -- checkpoints ----------------------------------------------------------------

    async def list_checkpoints(self, session_id: str) -> list[dict[str, Any]]:
        return await self.host.list_checkpoints(session_id)

    async def checkpoint_files(
        self, session_id: str, old_id: str, new_id: str | None, paths: list[str] | None = None
    ) -> list[dict[str, Any]]:
        return await self.host.checkpoint_files(session_id, old_id, new_id, paths)

    async def plan_restore(
        self, session_id: str, checkpoint_id: str, paths: list[str] | None = None
    ) -> list[dict[str, Any]]:
        return await self.host.plan_restore(session_id, checkpoint_id, paths)

    async def restore_checkpoint(
        self,
        session_id: str,
        checkpoint_id: str,
        paths: list[str] | None = None,
        *,
        tell_agent: bool = False,
    ) -> dict[str, Any]:
        return await self.host.restore_checkpoint(
            session_id, checkpoint_id, paths, tell_agent=tell_agent
        )

    # -- ``!`` commands ---------------------------------------------------------------

    async def run_shell(self, session_id: str, command: str) -> dict[str, Any]:
        return await self.host.run_shell(session_id, command)

    async def stop_shell(self, session_id: str) -> bool:
        return await self.host.stop_shell(session_id)

    def drop_shell_context(self, session_id: str, tool_call_id: str) -> bool:
        return self.host.drop_shell_context(session_id, tool_call_id)

    # -- the end ------------------------------------------------------------------

    async def shutdown(self) -> None:
        await self.host.shutdown()

    async def end_sessions(self) -> None:
        """(Shutting the host down ends them.)"""

    def kill_all_now(self) -> None:
        self.host.kill_all_now()

    def agents_gone(self) -> bool:
        return self.host.agents_gone()
