"""The built-in demo agent: an offline, deterministic ACP agent.

Run it with ``python -m acp_tui.agents.demo``: it speaks ACP (JSON-RPC, one JSON
object per line) on stdin/stdout and logs to stderr only. It is the default agent of
``acp-tui``, so a new user sees every kind of ACP update working without an account
or a network, and it is a test fixture for the rest of the project.

What it shows:

* ``initialize`` with agent info and capabilities; two session modes, ``ask``
  ("Ask before edits") and ``auto`` ("Auto-accept edits"), switchable with
  ``session/set_mode`` (answered with a ``current_mode_update``);
* ``available_commands_update`` right after ``session/new``: ``/tour``, ``/read``,
  ``/edit``, ``/run``, ``/plan``, ``/help``;
* on every prompt, a streamed ``agent_thought_chunk`` and a streamed markdown
  ``agent_message_chunk`` reply (heading, list, fenced code) that remembers the
  previous prompt of the session;
* tool calls that use the client: ``read`` (``fs/read_text_file``), ``edit`` (a diff,
  ``session/request_permission`` in ``ask`` mode, ``fs/write_text_file``) and ``execute``
  (``terminal/create``, ``wait_for_exit``, ``output``, ``release``), with fallbacks (its
  own file access, its own subprocess) when the client lacks a capability;
* ``plan`` updates whose entries move from pending to completed;
* ``session/cancel``, and failed tool calls when the client refuses something.

Prompt routing (case-insensitive; slash commands force a route): ``tour`` (and a bare
greeting as the first prompt of a session), ``read``, ``edit``/``write``,
``run``/``shell``/``terminal`` (``run: <command>`` picks the command), ``plan``;
anything else gets the help text. The pace is ``ACP_TUI_DEMO_DELAY`` seconds between
chunks (default 0.03; 0 never sleeps).

This module is the ACP ``Agent`` itself: ``initialize``, sessions and their modes,
each prompt's turn (thought, reply, routing) and its cancellation, the streaming of
messages, and ``main()``. The tool calls and plans live in ``demo_steps``, their
fallbacks in ``demo_workspace``, and the words and the routing in ``demo_script``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp import RequestError
from acp.interfaces import Client
from acp.schema import (
    AcpMcpServer,
    AgentCapabilities,
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AuthenticateResponse,
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    ClientCapabilities,
    CloseSessionResponse,
    CurrentModeUpdate,
    ForkSessionResponse,
    HttpMcpServer,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpServerStdio,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionMode,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    SseMcpServer,
    StopReason,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    UnstructuredCommandInput,
)

from acp_tui import __version__
from acp_tui.agents import demo_script as script
from acp_tui.agents import demo_steps as steps
from acp_tui.agents.demo_script import PromptBlock
from acp_tui.agents.demo_steps import TurnCancelled

log = logging.getLogger("acp_tui.agents.demo")

DELAY_ENV = "ACP_TUI_DEMO_DELAY"
DEFAULT_DELAY = 0.03
MODE_ASK = "ask"
MODE_AUTO = "auto"
MODES = (
    SessionMode(id=MODE_ASK, name="Ask before edits", description="Ask permission before writing"),
    SessionMode(id=MODE_AUTO, name="Auto-accept edits", description="Write files without asking"),
)

_Update = (
    AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | AvailableCommandsUpdate
    | CurrentModeUpdate
)
_McpServers = list[HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio] | None


@dataclass
class _Turn:
    """One running ``session/prompt``, and what to clean up if it is cancelled."""

    task: asyncio.Task[StopReason] | None = None
    cancel_requested: bool = False
    open_tools: list[str] = field(default_factory=list)
    terminals: list[str] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)  # client requests used, in order

    def used(self, method: str) -> None:
        if method not in self.methods:
            self.methods.append(method)


@dataclass
class _Session:
    id: str
    cwd: Path
    mode: str = MODE_ASK
    always_allow_edits: bool = False
    previous_prompt: str | None = None
    turn: _Turn | None = None
    announcement: asyncio.Task[None] | None = None

    @property
    def asks_before_edits(self) -> bool:
        """Whether an edit needs the user's permission first."""
        return self.mode == MODE_ASK and not self.always_allow_edits


def delay_from_env() -> float:
    """Seconds between streamed chunks, from ``ACP_TUI_DEMO_DELAY`` (default 0.03)."""
    raw = os.environ.get(DELAY_ENV, "").strip()
    try:
        return max(0.0, float(raw)) if raw else DEFAULT_DELAY
    except ValueError:
        log.warning("ignoring %s=%r: not a number", DELAY_ENV, raw)
        return DEFAULT_DELAY


class DemoAgent:
    """The demo agent; ``acp.run_agent(DemoAgent())`` serves it over stdio."""

    def __init__(self, delay: float | None = None) -> None:
        self._delay = delay_from_env() if delay is None else delay
        self._conn: Client | None = None
        self._caps = ClientCapabilities()
        self._sessions: dict[str, _Session] = {}

    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    @property
    def client(self) -> Client:
        if self._conn is None:
            raise RuntimeError("the demo agent is not connected")
        return self._conn

    @property
    def caps(self) -> ClientCapabilities:
        """What the client said it can do, in ``initialize``."""
        return self._caps

    # -- ACP methods ------------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self._caps = client_capabilities or ClientCapabilities()
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=False,
                prompt_capabilities=PromptCapabilities(embedded_context=True, image=False),
            ),
            auth_methods=[],
            agent_info=Implementation(
                name="acp-tui-demo", title="acp-tui demo agent", version=__version__
            ),
        )

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: _McpServers = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        session = _Session(id=f"demo-{len(self._sessions) + 1}", cwd=Path(cwd).expanduser())
        self._sessions[session.id] = session
        # The task first runs after this handler has returned and its response is queued,
        # so the update follows the response on the wire.
        session.announcement = asyncio.create_task(self._announce_commands(session))
        modes = SessionModeState(current_mode_id=session.mode, available_modes=list(MODES))
        return NewSessionResponse(session_id=session.id, modes=modes)

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse | None:
        session = self._session(session_id)
        if session.announcement is not None:
            await session.announcement
        if mode_id not in {mode.id for mode in MODES}:
            raise RequestError.invalid_params({"modeId": mode_id, "details": "unknown mode"})
        session.mode = mode_id
        update = CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode_id)
        await self.send(session.id, update)
        return SetSessionModeResponse()

    async def prompt(
        self, session_id: str, prompt: list[PromptBlock], **kwargs: Any
    ) -> PromptResponse:
        session = self._session(session_id)
        if session.turn is not None:
            raise RequestError.invalid_request({"details": "a prompt is already running"})
        if session.announcement is not None:
            await session.announcement  # keep the commands ahead of the first reply
        turn = _Turn()
        session.turn = turn
        turn.task = asyncio.create_task(self._run_turn(session, turn, prompt))
        try:
            stop_reason = await turn.task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # the connection is going away, not a session/cancel
            stop_reason = "cancelled"
        finally:
            session.turn = None
        return PromptResponse(stop_reason=stop_reason)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self._sessions.get(session_id)
        turn = session.turn if session is not None else None
        if turn is None or turn.cancel_requested:
            return
        turn.cancel_requested = True
        if turn.task is not None:
            turn.task.cancel()

    # Not supported (and not advertised): answered with "method not found".

    async def load_session(self, *args: Any, **kwargs: Any) -> LoadSessionResponse | None:
        raise RequestError.method_not_found("session/load")

    async def list_sessions(self, *args: Any, **kwargs: Any) -> ListSessionsResponse:
        raise RequestError.method_not_found("session/list")

    async def set_config_option(
        self, *args: Any, **kwargs: Any
    ) -> SetSessionConfigOptionResponse | None:
        raise RequestError.method_not_found("session/set_config_option")

    async def authenticate(self, *args: Any, **kwargs: Any) -> AuthenticateResponse | None:
        raise RequestError.method_not_found("authenticate")

    async def fork_session(self, *args: Any, **kwargs: Any) -> ForkSessionResponse:
        raise RequestError.method_not_found("session/fork")

    async def resume_session(self, *args: Any, **kwargs: Any) -> ResumeSessionResponse:
        raise RequestError.method_not_found("session/resume")

    async def close_session(self, *args: Any, **kwargs: Any) -> CloseSessionResponse | None:
        raise RequestError.method_not_found("session/close")

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        log.debug("ignoring extension notification _%s", method)

    # -- the turn ---------------------------------------------------------------------------

    async def _run_turn(
        self, session: _Session, turn: _Turn, blocks: Sequence[PromptBlock]
    ) -> StopReason:
        try:
            await self._respond(session, turn, blocks)
        except asyncio.CancelledError:
            if not turn.cancel_requested:
                raise
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()
            await self._wind_down(session, turn)
            return "cancelled"
        except TurnCancelled:
            turn.cancel_requested = True  # a session/cancel arriving now changes nothing
            await self._wind_down(session, turn)
            return "cancelled"
        return "end_turn"

    async def _wind_down(self, session: _Session, turn: _Turn) -> None:
        """After a cancel: fail the open tool calls and free the client's terminals."""
        for tool_call_id in list(turn.open_tools):
            update = steps.update_tool(
                self, session, turn, tool_call_id, "failed", text="Cancelled by the user."
            )
            await steps.quietly(update)
        for terminal_id in turn.terminals:
            client, ids = self.client, {"session_id": session.id, "terminal_id": terminal_id}
            await steps.quietly(client.kill_terminal(**ids))
            await steps.quietly(client.release_terminal(**ids))
        turn.terminals.clear()

    async def _respond(self, session: _Session, turn: _Turn, blocks: Sequence[PromptBlock]) -> None:
        text, attachments = script.prompt_text(blocks)
        previous, session.previous_prompt = session.previous_prompt, text
        route = script.route(text, first_turn=previous is None)
        context = script.context_line(previous, attachments)
        await self._stream(session.id, script.thought(route), thought=True)
        if route.kind == "help":
            mode = next(mode.name for mode in MODES if mode.id == session.mode)
            await self.say(session.id, script.help_text(text, context, mode, route.unknown_command))
        elif route.kind == "plan":
            await steps.plan_only(self, session, context)
        else:
            await steps.tool_steps(self, session, turn, route, text, context)

    # -- sending ----------------------------------------------------------------------------

    async def send(self, session_id: str, update: _Update) -> None:
        await self.client.session_update(session_id=session_id, update=update)

    async def pause(self) -> None:
        if self._delay > 0:
            await asyncio.sleep(self._delay)

    async def _stream(self, session_id: str, parts: Sequence[str], thought: bool = False) -> None:
        """Stream one message (or thought), one chunk per part, all with one message id."""
        message_id = str(uuid.uuid4())
        for part in parts:
            await self.pause()
            block = TextContentBlock(type="text", text=part)
            update: _Update
            if thought:
                update = AgentThoughtChunk(
                    session_update="agent_thought_chunk", content=block, message_id=message_id
                )
            else:
                update = AgentMessageChunk(
                    session_update="agent_message_chunk", content=block, message_id=message_id
                )
            await self.send(session_id, update)

    async def say(self, session_id: str, text: str) -> None:
        """Stream one markdown message, a few words per chunk."""
        await self._stream(session_id, script.pieces(text))

    async def _announce_commands(self, session: _Session) -> None:
        commands = [
            AvailableCommand(
                name=name,
                description=description,
                input=AvailableCommandInput(UnstructuredCommandInput(hint=hint)) if hint else None,
            )
            for name, description, hint in script.COMMANDS
        ]
        update = AvailableCommandsUpdate(
            session_update="available_commands_update", available_commands=commands
        )
        try:
            await self.send(session.id, update)
        except Exception as exc:
            log.warning("could not send the slash commands: %s", exc)

    def _session(self, session_id: str) -> _Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params(
                {"sessionId": session_id, "details": "unknown session"}
            )
        return session


def main() -> None:
    level = logging.getLevelName(os.environ.get("ACP_TUI_DEMO_LOG", "WARNING").upper())
    logging.basicConfig(
        stream=sys.stderr,
        level=level if isinstance(level, int) else logging.WARNING,
        format="%(name)s %(levelname)s %(message)s",
    )
    if os.name == "posix" and not _is_stream(sys.stdout):
        # The SDK's stdio transport needs a pipe, socket or terminal on POSIX.
        sys.exit("acp-tui demo agent: stdout must be a pipe or a terminal (it speaks ACP there)")
    asyncio.run(acp.run_agent(DemoAgent()))


def _is_stream(file: Any) -> bool:
    try:
        mode = os.fstat(file.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


if __name__ == "__main__":
    main()
