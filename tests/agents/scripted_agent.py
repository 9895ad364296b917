"""A scripted ACP agent on the SDK, for the host's corner cases.

Each prompt's first text line is a command; the agent does exactly that:

    echo WORDS...            stream WORDS back, one chunk per word
    flood N [EVERY K]        N chunks "0\\n", "1\\n", ...; with EVERY K, a
                             tool_call (structural) after every K chunks
    die [CODE]               send one chunk, then exit at once
    hang                     never answer (until cancelled)
    late-cancel DELAY        never answer until cancelled; then answer DELAY s late
    talk-after-cancel DELAY  never answer until cancelled; DELAY s later say "late
                             words", then answer
    ignore-cancel            never answer, not even after session/cancel
    grandchild               start `sleep 1000` (same process group), report
                             "pid=N", then hang until cancelled
    permission [ID]          announce tool call ID, ask permission, reply with
                             the outcome as JSON text
    permission-raw [ID]      ask permission for a tool call never announced
                             (no kind in toolCall)
    permission-then-replace  ask, then re-announce the same tool call id
    permission-twice         ask twice for the same tool call; reply both outcomes
    permission-abandon       ask, then end the turn without waiting
    permission-pair          ask for two tool calls at once; reply both outcomes
    permission-then-complete ask, then complete the tool call while the
                             request is pending; reply with the outcome
    cancel-permission        ask, then send $/cancel_request for it
    stderr N                 write N bytes to stderr, then reply "done"
    fs-read PATH [LINE [LIMIT]]   fs/read_text_file; reply JSON result/error
    fs-write PATH TEXT       fs/write_text_file; reply JSON result/error
    terminal CMD...          terminal/create (whole line) .. wait .. output
                             .. release; reply JSON
    call JSON                send one raw client request {method, params};
                             reply JSON result/error
    updates JSON             send each object of the JSON list as a raw
                             session/update, then end the turn
    mode                     (set via session/set_mode) reply current mode
    slow N DELAY             N numbered lines, one chunk each, DELAY seconds apart
    burst N WAIT             one chunk of N characters, then WAIT seconds, then end
    permission-when PATH     stream a few lines, wait until the file PATH exists,
                             then ask permission; reply with the outcome
    showcase                 a fixed, deterministic turn with every kind of entry
                             (thought, markdown, plan, a diff, terminal output)
    write PATH N [WIDTH]     ask permission to write a new file PATH (relative to
                             the cwd, or absolute) of N numbered lines (WIDTH
                             characters each, default short); reply the outcome
    run COMMAND...           ask permission to run COMMAND (an execute tool
                             call, rawInput {command}); reply the outcome
    fail DETAILS...          write "fatal: DETAILS" to stderr, then answer the
                             prompt with Internal error, data {"details": DETAILS}
    close-stdout             close stdout, stay alive until killed
    spawn-tree [PATH]        start three `sleep 1000`: one in the agent's group,
                             one in a session of its own, one orphaned at once
                             (double fork + setsid); reply "pids=A,B,C", end;
                             with PATH, also write {"agent", "group", "children"}
                             there as JSON
    steps JSON               a turn that writes, edits, deletes files and runs
                             terminal commands, step by step (scripted/files.py)
    deaf PATH                end the turn, then stop reading stdin (the whole
                             agent blocks; it creates PATH.deaf then) until the
                             file PATH exists
    lifecycle                reply (JSON) the session/new, session/load or
                             session/resume that made this session: {method,
                             cwd, additionalDirectories} as the agent received it
    mcp-servers              reply JSON {"method", "mcpServers"}: the mcpServers the
                             session was last given (session/new, /load or /resume)
    heard                    reply JSON: every prompt this session was sent before
                             this one (a fork's starts with its parent's)
    subagent                 a "Task" tool call and three tool calls of its
                             subagent (``_meta.claudeCode.parentToolUseId``), one
                             asking permission; reply the outcome (scripted/subagents.py)

ACP_FAKE_MCP=http,sse (or one of them) says it takes such MCP servers
(agentCapabilities.mcpCapabilities); without it, only stdio ones.
Counts every initialize it receives in the env file ACP_FAKE_COUNT_FILE.
With ACP_FAKE_STATE_DIR set it can load sessions: every prompt and every
``say`` is kept in DIR/<session>.jsonl, ``session/load`` replays them as
user/agent message chunks, ``session/list`` lists them (session ids are then
unique across processes). ACP_FAKE_NO_LIST=1 hides ``session/list``.
With ACP_FAKE_NEW_SESSION_FAILS=DETAILS, session/new fails with Internal
error, data {"details": DETAILS} (after "fatal: DETAILS" on stderr).
ACP_FAKE_HANG=initialize (or session/new) never answers that request; it
writes "will hang in METHOD" to stderr as it starts (before its slow imports).
With ACP_FAKE_REQUIRE_AUTH=1 it offers two auth methods and refuses
session/new (auth_required) until ``authenticate`` with "token".
With ACP_FAKE_TERMINAL_LOGIN=FILE it offers a ``terminal`` sign-in when the
client advertises ``auth.terminal``: the client runs this script again with
``--login`` (and FAKE_LOGIN_SAYS=hello in its env), which asks for a name on
the terminal and writes it to FILE; session/new is refused (auth_required)
until FILE exists. ACP_FAKE_PROMPT_AUTH=1 offers the two methods of
ACP_FAKE_REQUIRE_AUTH but refuses prompts (not session/new) until signed in.

With ACP_FAKE_LAG_AFTER_CANCEL=1 it behaves like claude-agent-acp 0.23 after a
cancel (agentclientprotocol/claude-agent-acp#551): the next prompt is answered
at once with ``end_turn``, zero usage and no content, and from then on each
prompt's reply comes during the prompt after it. ``session/close`` +
``session/resume`` (offered with ACP_FAKE_REOPEN=1) put it right; every
resume is counted in the env file ACP_FAKE_COUNT_FILE. ACP_FAKE_CLOSE=1 offers
``session/close`` alone; every close is written there too ("close <session>"),
and it cancels the session's running prompt. Every turn reports
usage (non-zero). ACP_FAKE_ADD_DIRS=1 advertises
``sessionCapabilities.additionalDirectories``. ACP_FAKE_FORK=1 offers
``session/fork``: the fork has heard what its parent heard. ACP_FAKE_DELETE=1
offers ``session/delete`` (the session is forgotten: no longer listed) and
ACP_FAKE_LOGOUT=1 ``logout`` (with the two auth methods of ACP_FAKE_REQUIRE_AUTH:
after it, session/new and prompts answer auth_required until ``authenticate``
with "token"); both are written to ACP_FAKE_COUNT_FILE (scripted/accounts.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

if os.environ.get("ACP_FAKE_HANG"):
    sys.stderr.write(f"will hang in {os.environ['ACP_FAKE_HANG']}\n")
    sys.stderr.flush()

if __package__ in (None, ""):  # run as a script: the commands are in tests/agents/scripted/
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import acp
from acp.schema import (
    AgentAuthCapabilities,
    AgentCapabilities,
    AuthenticateResponse,
    AuthMethodAgent,
    CloseSessionResponse,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    LogoutCapabilities,
    McpCapabilities,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SessionAdditionalDirectoriesCapabilities,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionDeleteCapabilities,
    SessionForkCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    TerminalAuthMethod,
    TextContentBlock,
    Usage,
    UserMessageChunk,
)

from tests.agents.scripted.accounts import AccountCommands, route_accounts
from tests.agents.scripted.base import chunk
from tests.agents.scripted.cancels import CancelCommands
from tests.agents.scripted.client_calls import ClientCallCommands
from tests.agents.scripted.files import FileCommands
from tests.agents.scripted.permissions import PermissionCommands
from tests.agents.scripted.processes import ProcessCommands
from tests.agents.scripted.streams import StreamCommands
from tests.agents.scripted.subagents import SubagentCommands

AUTH_METHODS = [
    AuthMethodAgent(id="token", name="API token", description="Use the token in $FAKE_TOKEN"),
    AuthMethodAgent(id="browser", name="Browser login", description="Sign in with a browser"),
]


class ScriptedAgent(
    StreamCommands,
    CancelCommands,
    PermissionCommands,
    ClientCallCommands,
    ProcessCommands,
    FileCommands,
    SubagentCommands,
    AccountCommands,
):
    """The session lifecycle; each prompt runs the ``do_<command>`` its first word names."""

    def __init__(self) -> None:
        super().__init__()
        self.sessions = 0
        #: Every prompt each session was sent, in order (``heard``; a fork's are copied).
        self.heard: dict[str, list[str]] = {}
        self.mode = "ask"
        self.model = "fast"
        #: ACP_FAKE_REQUIRE_AUTH=1: session/new fails with auth_required until
        #: ``authenticate`` succeeds with method "token" ("browser" always fails).
        self.require_auth = os.environ.get("ACP_FAKE_REQUIRE_AUTH") == "1"
        self.authenticated = False
        self.cwd = os.getcwd()
        #: ACP_FAKE_LAG_AFTER_CANCEL: per session, "stale" after a cancel, then
        #: the prompt whose reply is owed to the next prompt.
        self.lag = os.environ.get("ACP_FAKE_LAG_AFTER_CANCEL") == "1"
        self.stale: set[str] = set()
        #: Prompts running per session (a second one says so in its reply).
        self.running: dict[str, int] = {}
        self.owed: dict[str, list[Any]] = {}
        #: Per session, the lifecycle request that made it (the ``lifecycle`` command).
        self.lifecycles: dict[str, dict[str, Any]] = {}
        #: Per session: the method that last gave it mcpServers, and what they were.
        self.mcp: dict[str, tuple[str, list[Any]]] = {}

    def _lifecycle(self, method: str, session_id: str, cwd: str, kwargs: dict[str, Any]) -> None:
        dirs = kwargs.get("additional_directories")
        self.lifecycles[session_id] = {"method": method, "cwd": cwd, "additionalDirectories": dirs}

    async def do_lifecycle(self, sid: str, rest: str, text: str) -> None:
        await self.say(sid, json.dumps(self.lifecycles.get(sid)))

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def _maybe_hang(self, method: str) -> None:
        if os.environ.get("ACP_FAKE_HANG") == method:
            await asyncio.Event().wait()

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        await self._maybe_hang("initialize")
        count_file = os.environ.get("ACP_FAKE_COUNT_FILE")
        if count_file:
            with open(count_file, "a") as f:
                f.write("initialize\n")
        reopen = os.environ.get("ACP_FAKE_REOPEN") == "1"
        mcp = os.environ.get("ACP_FAKE_MCP", "").split(",")
        logout = os.environ.get("ACP_FAKE_LOGOUT") == "1"
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=bool(self.state_dir),
                auth=AgentAuthCapabilities(logout=LogoutCapabilities() if logout else None),
                mcp_capabilities=McpCapabilities(http="http" in mcp, sse="sse" in mcp),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities()
                    if self.state_dir and os.environ.get("ACP_FAKE_NO_LIST") != "1"
                    else None,
                    close=SessionCloseCapabilities()
                    if reopen or os.environ.get("ACP_FAKE_CLOSE") == "1"
                    else None,
                    resume=SessionResumeCapabilities() if reopen else None,
                    fork=SessionForkCapabilities()
                    if os.environ.get("ACP_FAKE_FORK") == "1"
                    else None,
                    delete=SessionDeleteCapabilities()
                    if os.environ.get("ACP_FAKE_DELETE") == "1"
                    else None,
                    additional_directories=SessionAdditionalDirectoriesCapabilities()
                    if os.environ.get("ACP_FAKE_ADD_DIRS") == "1"
                    else None,
                ),
            ),
            agent_info=Implementation(name="scripted", version="1"),
            auth_methods=AUTH_METHODS
            if self.require_auth or logout or os.environ.get("ACP_FAKE_PROMPT_AUTH") == "1"
            else self._terminal_login(kwargs),
        )

    def _terminal_login(self, kwargs: dict[str, Any]) -> list[Any]:
        self.login_file = os.environ.get("ACP_FAKE_TERMINAL_LOGIN")
        capabilities = kwargs.get("client_capabilities")
        auth = getattr(capabilities, "auth", None)
        if not self.login_file or not getattr(auth, "terminal", False):
            return []
        method = TerminalAuthMethod(
            type="terminal", id="login", name="Log in", args=["--login"],
            env={"FAKE_LOGIN_SAYS": "hello"},
        )  # fmt: skip
        return [method]

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        if method_id == "login":  # a terminal sign-in: done once its file is there
            if not (self.login_file and os.path.exists(self.login_file)):
                raise acp.RequestError.auth_required()
            return AuthenticateResponse()
        if method_id == "browser":
            raise acp.RequestError(-32603, "no browser on this machine")
        if method_id != "token":
            raise acp.RequestError.invalid_params({"methodId": method_id})
        self.authenticated = True
        return AuthenticateResponse()

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        await self._maybe_hang("session/new")
        if (self.require_auth or self.logged_out) and not self.authenticated:
            raise acp.RequestError.auth_required()
        login = getattr(self, "login_file", None)
        if login and not os.path.exists(login):
            raise acp.RequestError.auth_required()
        fails = os.environ.get("ACP_FAKE_NEW_SESSION_FAILS")
        if fails:
            sys.stderr.write(f"fatal: {fails}\n")
            sys.stderr.flush()
            raise acp.RequestError(-32603, "Internal error", {"details": fails})
        self.cwd = cwd
        self.sessions += 1
        session_id = f"s{self.sessions}"
        if self.state_dir:
            session_id = "s-" + uuid.uuid4().hex[:8]
            self._remember(session_id, {"cwd": cwd})
        self._lifecycle("session/new", session_id, cwd, kwargs)
        self._given_mcp(session_id, "session/new", kwargs)
        return NewSessionResponse(
            session_id=session_id,
            config_options=self.config_options(),
            modes=SessionModeState(
                current_mode_id="ask",
                available_modes=[
                    SessionMode(id="ask", name="Ask"),
                    SessionMode(id="auto", name="Auto"),
                ],
            ),
        )

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        if mode_id not in ("ask", "auto"):
            raise acp.RequestError.invalid_params({"modeId": mode_id})
        self.mode = mode_id
        return SetSessionModeResponse()

    def modes(self) -> SessionModeState:
        return SessionModeState(
            current_mode_id=self.mode,
            available_modes=[
                SessionMode(id="ask", name="Ask"),
                SessionMode(id="auto", name="Auto"),
            ],
        )

    def config_options(self) -> list[SessionConfigOptionSelect]:
        return [
            SessionConfigOptionSelect(
                type="select",
                id="model",
                name="Model",
                category="model",
                current_value=self.model,
                options=[
                    SessionConfigSelectOption(value="fast", name="Fast model"),
                    SessionConfigSelectOption(value="smart", name="Smart model"),
                ],
            )
        ]

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        if config_id != "model" or value not in ("fast", "smart"):
            raise acp.RequestError.invalid_params({"configId": config_id})
        self.model = str(value)
        return SetSessionConfigOptionResponse(config_options=self.config_options())

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancelled.setdefault(session_id, asyncio.Event()).set()

    async def load_session(
        self, cwd: str, session_id: str, **kwargs: Any
    ) -> LoadSessionResponse | None:
        path = os.path.join(self.state_dir or "", session_id + ".jsonl")
        if not self.state_dir or not os.path.exists(path):
            raise acp.RequestError.invalid_params({"sessionId": session_id})
        self._lifecycle("session/load", session_id, cwd, kwargs)
        self._given_mcp(session_id, "session/load", kwargs)
        with open(path) as f:
            for line in f:
                record = json.loads(line)
                if "user" in record:
                    update: Any = UserMessageChunk(
                        session_update="user_message_chunk",
                        content=TextContentBlock(type="text", text=record["user"]),
                    )
                    await self.conn.session_update(session_id, update)
                elif "agent" in record:
                    await self.conn.session_update(session_id, chunk(record["agent"]))
        return LoadSessionResponse(config_options=self.config_options(), modes=self.modes())

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        found = []
        for name in sorted(os.listdir(self.state_dir or ".")):
            if not name.endswith(".jsonl"):
                continue
            path = os.path.join(self.state_dir or ".", name)
            with open(path) as f:
                first = json.loads(f.readline())
                title = None
                for line in f:
                    record = json.loads(line)
                    title = title or record.get("user")
            if cwd is None or first.get("cwd") == cwd:
                found.append(
                    SessionInfo(
                        session_id=name[: -len(".jsonl")],
                        cwd=first.get("cwd", ""),
                        title=title,
                        updated_at=str(os.stat(path).st_mtime_ns),
                    )
                )
        return ListSessionsResponse(sessions=found)

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        count_file = os.environ.get("ACP_FAKE_COUNT_FILE")
        if count_file:
            with open(count_file, "a") as f:
                f.write(f"close {session_id}\n")
        self.cancelled.setdefault(session_id, asyncio.Event()).set()  # as ACP asks
        self.stale.discard(session_id)
        self.owed.pop(session_id, None)
        return CloseSessionResponse()

    async def fork_session(self, session_id: str, cwd: str, **kwargs: Any) -> ForkSessionResponse:
        self.sessions += 1
        fork_id = f"s{self.sessions}"
        self.heard[fork_id] = list(self.heard.get(session_id, []))
        self._lifecycle("session/fork", fork_id, cwd, kwargs)
        self._given_mcp(fork_id, "session/fork", kwargs)
        return ForkSessionResponse(
            session_id=fork_id, config_options=self.config_options(), modes=self.modes()
        )

    async def do_heard(self, sid: str, rest: str, text: str) -> None:
        await self.say(sid, json.dumps(self.heard.get(sid, [])[:-1]))

    async def resume_session(
        self, session_id: str, cwd: str, **kwargs: Any
    ) -> ResumeSessionResponse:
        count_file = os.environ.get("ACP_FAKE_COUNT_FILE")
        if count_file:
            with open(count_file, "a") as f:
                f.write("resume\n")
        self._lifecycle("session/resume", session_id, cwd, kwargs)
        self._given_mcp(session_id, "session/resume", kwargs)
        self.mode = "ask"  # a resumed session starts with the defaults
        self.model = "fast"
        return ResumeSessionResponse(config_options=self.config_options(), modes=self.modes())

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        prompt_auth = os.environ.get("ACP_FAKE_PROMPT_AUTH") == "1"
        if (prompt_auth or self.logged_out) and not self.authenticated:
            raise acp.RequestError.auth_required()
        if not self.lag:
            return await self._prompt(session_id, prompt)
        zero = Usage(total_tokens=0, input_tokens=0, output_tokens=0)
        used = Usage(total_tokens=12, input_tokens=10, output_tokens=2)
        if session_id in self.stale:  # the stale answer, right after a cancel
            self.stale.discard(session_id)
            self.owed[session_id] = prompt
            return PromptResponse(stop_reason="end_turn", usage=zero)
        owed = self.owed.pop(session_id, None)
        if owed is not None:  # the reply to the previous prompt, one behind
            await self._prompt(session_id, owed)
            self.owed[session_id] = prompt
            return PromptResponse(stop_reason="end_turn", usage=used)
        result = await self._prompt(session_id, prompt)
        if result.stop_reason == "cancelled":
            self.stale.add(session_id)
        return PromptResponse(stop_reason=result.stop_reason, usage=used)

    async def _prompt(self, session_id: str, prompt: list[Any]) -> PromptResponse:
        self.running[session_id] = self.running.get(session_id, 0) + 1
        try:
            if self.running[session_id] > 1:
                await self.say(session_id, "[a prompt arrived while another was running] ")
            return await self._run_prompt(session_id, prompt)
        finally:
            self.running[session_id] -= 1

    async def _run_prompt(self, session_id: str, prompt: list[Any]) -> PromptResponse:
        self.cancelled[session_id] = asyncio.Event()
        text = "".join(getattr(block, "text", "") for block in prompt)
        self._remember(session_id, {"user": text})
        self.heard.setdefault(session_id, []).append(text)
        line = text.splitlines()[0] if text else ""
        command, _, rest = line.partition(" ")
        handler = getattr(self, "do_" + command.replace("-", "_"), None)
        if handler is None:
            await self.say(session_id, f"unknown command {command!r}")
            return PromptResponse(stop_reason="end_turn")
        result: PromptResponse | None = await handler(session_id, rest, text)
        return result or PromptResponse(stop_reason="end_turn")

    async def do_mode(self, sid: str, rest: str, text: str) -> None:
        await self.say(sid, self.mode)

    def _given_mcp(self, session_id: str, method: str, kwargs: dict[str, Any]) -> None:
        servers = kwargs.get("mcp_servers") or []
        dumped = [s.model_dump(by_alias=True, exclude_none=True) for s in servers]
        self.mcp[session_id] = (method, dumped)

    async def do_mcp_servers(self, sid: str, rest: str, text: str) -> None:
        method, servers = self.mcp.get(sid, ("", []))
        await self.say(sid, json.dumps({"method": method, "mcpServers": servers}))


def main() -> None:
    if sys.argv[1:] == ["--login"]:  # the terminal sign-in (ACP_FAKE_TERMINAL_LOGIN)
        print(f"{os.environ.get('FAKE_LOGIN_SAYS')}! Your name: ", end="", flush=True)
        name = sys.stdin.readline().strip()
        Path(os.environ["ACP_FAKE_TERMINAL_LOGIN"]).write_text(name)
        return
    route_accounts()  # session/delete and logout, which the SDK does not route
    asyncio.run(acp.run_agent(ScriptedAgent(), use_unstable_protocol=True))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
