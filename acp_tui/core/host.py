"""The host: the registry of agent connections and sessions, and the command
API every front end calls (open, create, prompt, cancel, decide, answer a
question, close, shutdown, and reporting an error of their own; forking,
deleting a session and logging out are in mixins of their own).

Front ends attach an :class:`~acp_tui.core.model.channel.EventChannel` and only
ever submit commands here and render the events they receive; the host
and its sessions are the single owner of every fact. A front end never
publishes into the hub and never writes into a session: what it has to say
goes through a command (:meth:`Host.report_error`, :meth:`Host.add_notice`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui import ACP_HOST_VERSION
from acp_tui.core.agent_logout import AgentLogout
from acp_tui.core.checkpoint_commands import CheckpointCommands
from acp_tui.core.errors import HostError
from acp_tui.core.model.agent_markup import readable_title
from acp_tui.core.model.budget import DEFAULT_BUDGET, Spill, TextBudget, default_spill_root
from acp_tui.core.model.channel import DEFAULT_CAPACITY, EventChannel, EventHub
from acp_tui.core.model.coalesce import Coalescer
from acp_tui.core.model.entries import Entry, NoticeLevel, ToolCallEntry
from acp_tui.core.model.events import Event
from acp_tui.core.session_delete import SessionDelete
from acp_tui.core.session_fork import SessionFork
from acp_tui.core.session_history import SessionHistory
from acp_tui.core.sessions import added_dirs
from acp_tui.core.sessions.agent_spec import AgentSpec
from acp_tui.core.sessions.closing import can_resume, close_session
from acp_tui.core.sessions.mcp_offer import mcp_offer
from acp_tui.core.sessions.needs_you import NeedsYou
from acp_tui.core.sessions.registry import SessionRegistry
from acp_tui.core.shell_commands import ShellCommands
from acp_tui.core.storage.history_recorder import Recordings
from acp_tui.core.storage.history_store import HistoryStore, file_name
from acp_tui.core.transport.json_frames import fix_surrogates
from acp_tui.core.transport.timeouts import CANCEL_GRACE_SECONDS, Timeouts

if TYPE_CHECKING:
    # Imported where a connection, a session or a prompt is made: a front end
    # paints before it loads the SDK's schema, JSON-RPC and processes.
    from acp_tui.core.checkpoints.settings import CheckpointSettings
    from acp_tui.core.connection import AgentConnection
    from acp_tui.core.prompting.mentions import BuiltPrompt
    from acp_tui.core.sessions.elicitations import ElicitationBook
    from acp_tui.core.sessions.session import Session

Identity = tuple[AgentSpec, str]
#: What the local history adds to an agent's session/list entry.
_KEPT = ("turns", "firstPrompt")

log = logging.getLogger(__name__)


def load_connection_modules() -> None:
    """Import what only connections and sessions need: the SDK's schema
    (~0.5 s of pydantic models), JSON-RPC, processes. :class:`Host` imports
    them when it first opens a connection; a front end may load them ahead,
    in a thread, once it has painted."""
    importlib.import_module("acp_tui.core.connection")
    importlib.import_module("acp_tui.core.sessions.session")


class Host(
    CheckpointCommands, ShellCommands, SessionHistory, SessionFork, SessionDelete, AgentLogout
):
    #: The front end runs an agent's ``terminal`` sign-in itself (the TUI does).
    terminal_auth = False

    def __init__(
        self,
        *,
        extra_roots: Iterable[str | Path] = (),
        add_dirs: Iterable[str | Path] = (),
        base_env: Mapping[str, str] | None = None,
        cancel_grace: float = CANCEL_GRACE_SECONDS,
        history: HistoryStore | None = None,
        text_budget: int = DEFAULT_BUDGET,
        spill_root: Path | None = None,
        timeouts: Timeouts | None = None,
        logs: Path | None = None,
        checkpoints: CheckpointSettings | None = None,
        mcp_servers: Iterable[Mapping[str, Any]] = (),
    ) -> None:
        self.hub = EventHub()
        #: The configured MCP servers (ACP wire shapes) for sessions not given their own.
        self.mcp_servers = [dict(server) for server in mcp_servers]
        #: Characters of text each session may hold; past it, large contents are
        #: cut and kept in full in files under ``spill_root`` (core/budget.py).
        self.text_budget = text_budget
        self.spill_root = spill_root if spill_root is not None else default_spill_root()
        self.timeouts = timeouts or Timeouts()
        #: Where each agent's log goes (agent_log.py; None: not kept).
        self.logs = logs
        #: Where sessions' transcripts are kept (None: nowhere).
        self.history = history
        #: The history recorder follows the event stream (it is called by nobody).
        self.recordings = Recordings()
        if history is not None:
            self.hub.subscribe(self.recordings.on_event)
        self._elicitations: ElicitationBook | None = None
        self.checkpoint_settings = checkpoints  # (None: no checkpoints)
        self.user_shells = {}  # (shell_commands.py)
        self.hub.subscribe(self._observe)
        #: Which sessions wait for the user: one ``needs-you`` event per change.
        self.needs_you = NeedsYou(self.hub.publish)
        self.hub.subscribe(self.needs_you.on_event)
        self.connections: dict[str, AgentConnection] = {}
        #: Every session, by its id (the one registry; connections route through it).
        self.sessions = SessionRegistry()
        #: Front ends' errors, a flood of them coalesced.
        self._errors = Coalescer(self.hub.publish)
        self.extra_roots = [Path(root).resolve() for root in extra_roots]
        #: Fence roots told to the agent too, in every session (sessions/added_dirs.py).
        self.add_dirs = [Path(root).resolve() for root in add_dirs]
        self.base_env = dict(os.environ if base_env is None else base_env)
        self.cancel_grace = cancel_grace
        self.shutting_down = False
        self._by_identity: dict[Identity, AgentConnection] = {}
        self._opening: dict[Identity, asyncio.Future[AgentConnection]] = {}

    # -- front ends ---------------------------------------------------------------

    @property
    def elicitations(self) -> ElicitationBook:
        """The agents' open questions (elicitation/create), answered with
        respond_elicitation; made with the first connection (it loads the SDK)."""
        if self._elicitations is None:
            from acp_tui.core.sessions.elicitations import ElicitationBook

            self._elicitations = ElicitationBook(self.hub.publish)
        return self._elicitations

    def attach(self, capacity: int = DEFAULT_CAPACITY, merge_at: int | None = None) -> EventChannel:
        return self.hub.attach(capacity, merge_at)

    def detach(self, channel: EventChannel) -> None:
        self.hub.detach(channel)

    # -- lookups ------------------------------------------------------------------

    def connection(self, connection_id: str) -> AgentConnection:
        connection = self.connections.get(connection_id)
        if connection is None:
            raise HostError("not_found", f"no connection {connection_id}")
        return connection

    def session(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise HostError("not_found", f"no session {session_id}")
        return session

    def _check_running(self) -> None:
        if self.shutting_down:
            raise HostError("shutting_down", "the host is shutting down")

    # -- connections --------------------------------------------------------------

    async def open_connection(
        self, spec: AgentSpec, cwd: str | Path | None = None, *, trace_frames: bool = False
    ) -> tuple[AgentConnection, bool]:
        """An initialized connection to ``spec`` in ``cwd``; reused when one is open.

        Returns (connection, reused)."""
        self._check_running()
        directory = _directory(cwd)
        identity: Identity = (spec, str(directory))
        existing = self._by_identity.get(identity)
        if existing is not None and not existing.closed:
            if trace_frames:
                existing.set_trace(True)
            return existing, True
        opening = self._opening.get(identity)
        if opening is not None:
            connection = await asyncio.shield(opening)
            if trace_frames:
                connection.set_trace(True)
            return connection, True
        from acp_tui.core.connection import AgentConnection, client_capabilities, next_connection_id

        future: asyncio.Future[AgentConnection] = asyncio.get_running_loop().create_future()
        self._opening[identity] = future
        connection = AgentConnection(
            next_connection_id(),
            spec,
            directory,
            hub=self.hub,
            sessions=self.sessions,
            elicitations=self.elicitations,
            base_env=self.base_env,
            on_gone=self._connection_gone,
            timeouts=self.timeouts,
            logs=self.logs,
        )
        connection.trace_frames = trace_frames
        connection.client_capabilities = client_capabilities(terminal_auth=self.terminal_auth)
        try:
            await connection.start()
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters re-raise it themselves
            raise
        else:
            future.set_result(connection)
            if not connection.closed:
                self.connections[connection.connection_id] = connection
                self._by_identity[identity] = connection
        finally:
            del self._opening[identity]
        return connection, False

    def _connection_gone(self, connection: AgentConnection) -> None:
        self.connections.pop(connection.connection_id, None)
        for identity, known in list(self._by_identity.items()):
            if known is connection:
                del self._by_identity[identity]

    async def authenticate(self, connection_id: str, method_id: str) -> None:
        self._check_running()
        await self.connection(connection_id).authenticate(method_id)

    async def close_connection(self, connection_id: str) -> None:
        await self.connection(connection_id).close()

    # -- sessions -----------------------------------------------------------------

    async def create_session(
        self,
        connection_id: str,
        cwd: str | Path | None = None,
        *,
        allow_roots: Iterable[str | Path] = (),
        mcp_servers: list[dict[str, Any]] | None = None,
        additional_directories: Iterable[str | Path] = (),
    ) -> Session:
        self._check_running()
        from acp_tui.core.transport import acp_protocol as acp

        connection = self.connection(connection_id)
        directory = _directory(cwd if cwd is not None else connection.cwd)
        dirs = added_dirs.merged(self.add_dirs, additional_directories)
        mcp_servers, left_out = mcp_offer(self.mcp_servers, mcp_servers, connection.capabilities)
        params = {"cwd": str(directory), "mcpServers": mcp_servers or []}
        try:
            result = await connection.call(
                acp.SESSION_NEW,
                added_dirs.request(params, dirs, connection.capabilities),
                timeout=self.timeouts.session_new,
            )
        except HostError as exc:
            if not acp.is_auth_required(exc):
                raise
            methods = ", ".join(m["id"] for m in connection.auth_methods) or "none offered"
            raise HostError(
                "agent_error",
                "the agent requires authentication: call connection.authenticate with one"
                f" of its authMethods ({methods})",
                exc.data,
            ) from None
        agent_session_id = result.get("sessionId") if isinstance(result, dict) else None
        if not isinstance(agent_session_id, str):
            raise HostError("agent_error", "the agent answered session/new without a sessionId")
        session = self._new_session(
            connection,
            agent_session_id,
            directory,
            [*allow_roots, *dirs],
            mcp_servers=mcp_servers,
            setup=result,
        )
        if left_out:
            session.add_notice("warning", left_out)
        return added_dirs.adopt(session, dirs, connection.capabilities)

    def _new_session(
        self,
        connection: AgentConnection,
        agent_session_id: str,
        directory: Path,
        allow_roots: Iterable[str | Path],
        *,
        resumed: bool = False,
        mcp_servers: list[dict[str, Any]] | None = None,
        setup: Mapping[str, Any] | None = None,
    ) -> Session:
        """A session with the agent's ``setup`` (its session/new answer: modes,
        config options), registered, and, unless ``resumed`` (recorded once its
        load succeeds), recorded in the history; then the agent's updates that
        came before the answer are applied to it."""
        session_id = agent_session_id
        earlier = self.sessions.get(session_id)
        if earlier is not None and earlier.status != "closed":
            # Two live sessions with one agent id (two agents reusing ids).
            # A closed one's id is taken over: resuming it keeps its id.
            session_id = f"{agent_session_id}@{connection.connection_id}"
        from acp_tui.core.sessions.session import Session

        roots = [*self.extra_roots, *(Path(r).resolve() for r in allow_roots)]
        session = Session(
            session_id=session_id,
            agent_session_id=agent_session_id,
            link=connection,
            hub=self.hub,
            cwd=directory,
            extra_roots=roots,
            base_env=self.base_env,
            cancel_grace=self.cancel_grace,
            budget=TextBudget(self.text_budget, Spill(self.spill_root / spill_name(session_id))),
            mcp_servers=mcp_servers,
            checkpoints=self._turn_checkpoints([directory, *roots], session_id),
        )
        if setup is not None:
            session.adopt_setup(setup)
        if not resumed:
            self._record(session, connection)
        self.sessions.add(session)
        connection.session_added(session)
        return session

    async def load_session(
        self,
        connection_id: str,
        agent_session_id: str,
        cwd: str | Path | None = None,
        *,
        allow_roots: Iterable[str | Path] = (),
        mcp_servers: list[dict[str, Any]] | None = None,
        resume: Sequence[Entry] | None = None,
        settings: dict[str, Any] | None = None,
        additional_directories: Iterable[str | Path] = (),
    ) -> Session:
        """Resume one of the agent's sessions: with ``session/load`` the agent
        replays its history as updates into the new session's thread; with
        ``resume`` (the entries the host still has) it is ``session/resume``,
        which replays nothing: the thread starts as a copy of those entries.
        ``settings`` (default: the local history's) are restored after."""
        self._check_running()
        from acp_tui.core.transport import acp_protocol as acp

        connection = self.connection(connection_id)
        method = acp.SESSION_LOAD if resume is None else acp.SESSION_RESUME
        if resume is None and not connection.capabilities.get("loadSession"):
            raise HostError("unsupported", f"{connection.agent_name} cannot load sessions")
        if resume is not None and not can_resume(connection.capabilities):
            raise HostError("unsupported", f"{connection.agent_name} cannot resume sessions")
        directory = _directory(cwd if cwd is not None else connection.cwd)
        dirs = added_dirs.merged(self.add_dirs, additional_directories)
        mcp_servers, left_out = mcp_offer(self.mcp_servers, mcp_servers, connection.capabilities)
        session = self._new_session(
            connection,
            agent_session_id,
            directory,
            [*allow_roots, *dirs],
            resumed=True,
            mcp_servers=mcp_servers,
        )
        session.carry_over(resume or ())
        try:
            params = {
                "sessionId": agent_session_id,
                "cwd": str(directory),
                "mcpServers": mcp_servers or [],
            }
            result = await connection.call(
                method, added_dirs.request(params, dirs, connection.capabilities)
            )
        except HostError:
            self.sessions.remove(session)
            self.elicitations.close_owner(session, "closed")
            session.close()
            raise
        session.adopt_setup(result if isinstance(result, dict) else {})
        added_dirs.adopt(session, dirs, connection.capabilities)
        if left_out:
            session.add_notice("warning", left_out)
        if settings is None:
            settings = self.kept_settings(agent_session_id)
        # Recorded only now: a failed load must not touch the stored transcript.
        # The first flush writes every entry, the replay included.
        self._record(session, connection, resumed=True)
        await self.restore_settings(session, settings)
        self.recordings.flush(session.session_id)
        return session

    async def list_sessions(
        self, connection_id: str, cwd: str | Path | None = None
    ) -> list[dict[str, Any]]:
        """Sessions to resume, newest first: the agent's own list when it
        offers ``session/list``, else the local history for this agent."""
        self._check_running()
        connection = self.connection(connection_id)
        directory = _directory(cwd) if cwd is not None else None
        sessions_caps = connection.capabilities.get("sessionCapabilities") or {}
        if isinstance(sessions_caps, dict) and sessions_caps.get("list") is not None:
            listed = await connection.list_sessions(directory)
            for info in listed:
                info["agent"] = connection.agent_name
                if isinstance(info.get("title"), str):
                    info["title"] = readable_title(info["title"])
                kept = self.history.stored(info["sessionId"]) if self.history else None
                if kept is not None:  # what acp-tui kept of it: turns, first prompt
                    info.update({k: v for k, v in kept.to_wire().items() if k in _KEPT})
            return listed
        if self.history is None:
            return []
        stored = self.history.sessions(agent=connection.history_key, cwd=directory)
        return [s.to_wire() for s in stored]

    def build_prompt(
        self,
        session_id: str,
        text: str,
        *,
        images: Mapping[str, str | os.PathLike[str]] | None = None,
    ) -> BuiltPrompt:
        """The content blocks of a prompt typed as ``text``: its ``@`` mentions
        attached (within the session's fence, as the agent's prompt
        capabilities allow) and ``images`` (label -> path) where their labels
        still are; with notes for the user about what was not attached.
        Synchronous: a front end builds and sends with nothing in between."""
        from acp_tui.core.prompting.mentions import PromptCapabilities, build_prompt

        session = self.session(session_id)
        capabilities = PromptCapabilities.from_init_result(
            {"agentCapabilities": session.link.capabilities}
        )
        return build_prompt(text, session.tools.fence, capabilities, images=images)

    async def prompt(self, session_id: str, blocks: list[dict[str, Any]]) -> str:
        self._check_running()
        from acp.schema import PromptRequest
        from pydantic import ValidationError

        from acp_tui.core.model.validation import describe

        session = self.session(session_id)
        try:
            request = PromptRequest.model_validate({"sessionId": session_id, "prompt": blocks})
        except ValidationError as exc:
            raise HostError("invalid_params", f"invalid prompt ({describe(exc)})") from None
        wire = request.model_dump(mode="json", by_alias=True, exclude_none=True)["prompt"]
        # Text from a front end (a paste, a file name) may hold lone surrogates.
        return await session.prompt(fix_surrogates(wire))

    async def close_session(self, session_id: str, *, reap: bool = False) -> None:
        """End one session (sessions/closing.py); its connection is kept,
        unless ``reap`` and no other session of it is open: then the agent
        process is ended too."""
        session = self.session(session_id)
        await close_session(session, self.elicitations)
        connection_id = session.link.connection_id
        if reap and not any(not s.closed for s in self.sessions.of_connection(connection_id)):
            connection = self.connections.get(connection_id)
            if connection is not None and not connection.closed:
                await connection.close("its last session was closed")

    async def cancel(self, session_id: str) -> None:
        session = self.session(session_id)
        if session.closed_by_client:
            session.require_open()  # session_closed (a dead agent's: a no-op)
        if session.turn is not None and not session.turn.cancel_requested:
            self.elicitations.close_owner(session, "turn_cancelled")
        await session.cancel()

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        await self.session(session_id).set_mode(mode_id)

    async def set_config_option(
        self, session_id: str, config_id: str, value: Any
    ) -> list[dict[str, Any]]:
        return await self.session(session_id).set_config_option(config_id, value)

    def snapshot(self, session_id: str) -> dict[str, Any]:
        session = self.session(session_id)
        state = {**session.snapshot(), "cwd": str(session.cwd), "mcpServers": session.mcp_servers}
        questions = [p.to_wire() for p in self.elicitations.pending(session)]
        if questions:
            state["elicitations"] = questions
        return state

    def decide(
        self, request_id: str, option_id: str | None = None, *, cancelled: bool = False
    ) -> None:
        if not cancelled and option_id is None:
            raise HostError("invalid_params", "give optionId or cancelled: true")
        session = self._request_owner(request_id)
        if option_id is None:
            session.cancel_request(request_id)
        else:
            session.decide(request_id, option_id)

    def _request_owner(self, request_id: str) -> Session:
        for session in self.sessions:
            if session.owns_request(request_id):
                return session
        raise HostError("not_found", f"no permission request {request_id}")

    def pending_permission(self, request_id: str) -> tuple[Session, ToolCallEntry] | None:
        """The session and tool call permission request ``request_id`` waits
        on (None once it is resolved)."""
        for session in self.sessions:
            found = session.thread.waiting(request_id)
            if found is not None:
                return session, found[1]
        return None

    def report_error(self, code: str, message: str) -> None:
        """A front end's own problem (a bad line, a failed key), as an
        ``error`` event every front end sees; a flood is coalesced."""
        self._errors.offer(code, Event("error", {"code": code, "message": message}))

    def add_notice(self, session_id: str, level: NoticeLevel, text: str) -> None:
        """A line of the host's own in a session's log (a front end's news)."""
        self.session(session_id).add_notice(level, text)

    def respond_elicitation(
        self,
        request_id: str,
        action: str,
        content: Any = None,
        *,
        session_id: str | None = None,
    ) -> None:
        """Answer an agent's question (``accept`` with the form's content,
        ``decline`` or ``cancel``): the first answer wins."""
        if content is not None:
            content = fix_surrogates(content)  # typed or pasted text
        self.elicitations.respond(request_id, action, content, session_id=session_id)

    # -- the end ------------------------------------------------------------------

    async def shutdown(self) -> None:
        """Close every connection (reaping each agent's process group)."""
        self.shutting_down = True
        connections = list(self.connections.values())
        await asyncio.gather(
            *(c.close("the host is shutting down") for c in connections), return_exceptions=True
        )
        self._errors.flush()
        self.hub.close()

    def kill_all_now(self) -> None:
        """Synchronous last resort at interpreter exit (safe from any thread)."""
        for connection in list(self.connections.values()):
            with contextlib.suppress(Exception):
                connection.kill_now()

    def agents_gone(self) -> bool:
        """Whether no agent's process group is left (safe from any thread)."""
        for connection in list(self.connections.values()):
            process = connection.process
            if process is not None and process.group_alive():
                return False
        return True

    @staticmethod
    def version() -> str:
        return ACP_HOST_VERSION


def spill_name(session_id: str) -> str:
    """The folder name of a session's spill files (safe, unique per id)."""
    return file_name(session_id).removesuffix(".jsonl")


def _directory(cwd: str | Path | None) -> Path:
    directory = Path(cwd) if cwd is not None else Path.cwd()
    if not directory.is_absolute():
        directory = Path.cwd() / directory
    if not directory.is_dir():
        raise HostError("invalid_params", "cwd is not an existing directory")
    return directory.resolve()
