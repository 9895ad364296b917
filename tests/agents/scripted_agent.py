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
    deaf PATH                end the turn, then stop reading stdin (the whole
                             agent blocks; it creates PATH.deaf then) until the
                             file PATH exists

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

With ACP_FAKE_LAG_AFTER_CANCEL=1 it behaves like claude-agent-acp 0.23 after a
cancel (agentclientprotocol/claude-agent-acp#551): the next prompt is answered
at once with ``end_turn``, zero usage and no content, and from then on each
prompt's reply comes during the prompt after it. ``session/close`` +
``session/resume`` (offered with ACP_FAKE_REOPEN=1) put it right; every
resume is counted in the env file ACP_FAKE_COUNT_FILE. Every turn reports
usage (non-zero).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from typing import Any

if os.environ.get("ACP_FAKE_HANG"):
    sys.stderr.write(f"will hang in {os.environ['ACP_FAKE_HANG']}\n")
    sys.stderr.flush()

import acp
from acp.schema import (
    AgentCapabilities,
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AuthenticateResponse,
    AuthMethodAgent,
    CloseSessionResponse,
    FileEditToolCallContent,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PermissionOption,
    PlanEntry,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    TextContentBlock,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    Usage,
    UserMessageChunk,
)


def chunk(text: str) -> AgentMessageChunk:
    return AgentMessageChunk(
        session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
    )


OPTIONS = [
    PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
    PermissionOption(option_id="always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
]

AUTH_METHODS = [
    AuthMethodAgent(id="token", name="API token", description="Use the token in $FAKE_TOKEN"),
    AuthMethodAgent(id="browser", name="Browser login", description="Sign in with a browser"),
]


class ScriptedAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.sessions = 0
        self.mode = "ask"
        self.model = "fast"
        self.cancelled: dict[str, asyncio.Event] = {}
        #: ACP_FAKE_REQUIRE_AUTH=1: session/new fails with auth_required until
        #: ``authenticate`` succeeds with method "token" ("browser" always fails).
        self.require_auth = os.environ.get("ACP_FAKE_REQUIRE_AUTH") == "1"
        self.state_dir = os.environ.get("ACP_FAKE_STATE_DIR")
        self.authenticated = False
        self.cwd = os.getcwd()
        #: ACP_FAKE_LAG_AFTER_CANCEL: per session, "stale" after a cancel, then
        #: the prompt whose reply is owed to the next prompt.
        self.lag = os.environ.get("ACP_FAKE_LAG_AFTER_CANCEL") == "1"
        self.stale: set[str] = set()
        #: Prompts running per session (a second one says so in its reply).
        self.running: dict[str, int] = {}
        self.owed: dict[str, list[Any]] = {}

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
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=bool(self.state_dir),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities()
                    if self.state_dir and os.environ.get("ACP_FAKE_NO_LIST") != "1"
                    else None,
                    close=SessionCloseCapabilities() if reopen else None,
                    resume=SessionResumeCapabilities() if reopen else None,
                ),
            ),
            agent_info=Implementation(name="scripted", version="1"),
            auth_methods=AUTH_METHODS if self.require_auth else [],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        if method_id == "browser":
            raise acp.RequestError(-32603, "no browser on this machine")
        if method_id != "token":
            raise acp.RequestError.invalid_params({"methodId": method_id})
        self.authenticated = True
        return AuthenticateResponse()

    def _remember(self, session_id: str, record: dict[str, Any]) -> None:
        if self.state_dir:
            with open(os.path.join(self.state_dir, session_id + ".jsonl"), "a") as f:
                f.write(json.dumps(record) + "\n")

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        await self._maybe_hang("session/new")
        if self.require_auth and not self.authenticated:
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

    async def say(self, session_id: str, text: str) -> None:
        self._remember(session_id, {"agent": text})
        await self.conn.session_update(session_id, chunk(text))

    async def load_session(
        self, cwd: str, session_id: str, **kwargs: Any
    ) -> LoadSessionResponse | None:
        path = os.path.join(self.state_dir or "", session_id + ".jsonl")
        if not self.state_dir or not os.path.exists(path):
            raise acp.RequestError.invalid_params({"sessionId": session_id})
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

    async def wait_cancel(self, session_id: str) -> PromptResponse:
        await self.cancelled.setdefault(session_id, asyncio.Event()).wait()
        return PromptResponse(stop_reason="cancelled")

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        self.stale.discard(session_id)
        self.owed.pop(session_id, None)
        return CloseSessionResponse()

    async def resume_session(
        self, session_id: str, cwd: str, **kwargs: Any
    ) -> ResumeSessionResponse:
        count_file = os.environ.get("ACP_FAKE_COUNT_FILE")
        if count_file:
            with open(count_file, "a") as f:
                f.write("resume\n")
        self.mode = "ask"  # a resumed session starts with the defaults
        self.model = "fast"
        return ResumeSessionResponse(config_options=self.config_options(), modes=self.modes())

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
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
        line = text.splitlines()[0] if text else ""
        command, _, rest = line.partition(" ")
        handler = getattr(self, "do_" + command.replace("-", "_"), None)
        if handler is None:
            await self.say(session_id, f"unknown command {command!r}")
            return PromptResponse(stop_reason="end_turn")
        result: PromptResponse | None = await handler(session_id, rest, text)
        return result or PromptResponse(stop_reason="end_turn")

    # -- commands ------------------------------------------------------------

    async def do_echo(self, sid: str, rest: str, text: str) -> None:
        for word in rest.split(" "):
            await self.say(sid, word + " ")

    async def do_flood(self, sid: str, rest: str, text: str) -> None:
        parts = rest.split()
        count = int(parts[0])
        every = int(parts[2]) if len(parts) > 2 and parts[1] == "EVERY" else 0
        for n in range(count):
            await self.say(sid, f"{n}\n")
            if every and (n + 1) % every == 0:
                await self.conn.session_update(
                    sid,
                    ToolCallStart(
                        session_update="tool_call",
                        tool_call_id=f"mark-{n + 1}",
                        title=f"mark {n + 1}",
                        kind="other",
                        status="completed",
                    ),
                )

    async def do_die(self, sid: str, rest: str, text: str) -> None:
        await self.say(sid, "about to die")
        await asyncio.sleep(0.05)
        sys.stderr.write("fatal: scripted death\n")
        sys.stderr.flush()
        os._exit(int(rest or "3"))

    async def do_hang(self, sid: str, rest: str, text: str) -> PromptResponse:
        return await self.wait_cancel(sid)

    async def do_talk_after_cancel(self, sid: str, rest: str, text: str) -> PromptResponse:
        await self.wait_cancel(sid)
        await asyncio.sleep(float(rest))
        await self.conn.session_update(sid, chunk("late words"))
        await asyncio.sleep(0.2)
        return PromptResponse(stop_reason="cancelled")

    async def do_late_cancel(self, sid: str, rest: str, text: str) -> PromptResponse:
        await self.wait_cancel(sid)
        await asyncio.sleep(float(rest))
        return PromptResponse(stop_reason="cancelled")

    async def do_ignore_cancel(self, sid: str, rest: str, text: str) -> PromptResponse:
        await asyncio.Event().wait()
        raise AssertionError

    async def do_grandchild(self, sid: str, rest: str, text: str) -> PromptResponse:
        # "grandchild own-session": the child leaves the agent's process group,
        # as Claude Code's Bash commands do.
        child = subprocess.Popen(
            ["sleep", "1000"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            start_new_session=rest.strip() == "own-session",
        )
        await self.say(sid, f"pid={child.pid}")
        return await self.wait_cancel(sid)

    async def do_spawn_tree(self, sid: str, rest: str, text: str) -> None:
        quiet: Any = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL}
        in_group = subprocess.Popen(["sleep", "1000"], **quiet)
        own_session = subprocess.Popen(["sleep", "1000"], start_new_session=True, **quiet)
        # The middle process prints the orphan's pid and exits at once.
        orphan_line = "import subprocess; print(subprocess.Popen(['sleep', '1000'],"
        orphan_line += " start_new_session=True, stdin=subprocess.DEVNULL,"
        orphan_line += " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).pid)"
        middle = subprocess.run(
            [sys.executable, "-c", orphan_line], capture_output=True, text=True, check=True
        )
        pids = [in_group.pid, own_session.pid, int(middle.stdout)]
        if rest.strip():
            tree = {"agent": os.getpid(), "group": os.getpgrp(), "children": pids}
            with open(rest.strip() + ".tmp", "w") as f:
                json.dump(tree, f)
            os.replace(rest.strip() + ".tmp", rest.strip())
        await self.say(sid, "pids=" + ",".join(map(str, pids)))

    async def do_deaf(self, sid: str, rest: str, text: str) -> None:
        def block() -> None:
            with open(rest.strip() + ".deaf", "w"):
                pass
            while not os.path.exists(rest.strip()):
                time.sleep(0.02)

        asyncio.get_running_loop().call_later(0.05, block)

    async def _ask(self, sid: str, tool_call_id: str, announce: bool) -> Any:
        if announce:
            await self.conn.session_update(
                sid,
                ToolCallStart(
                    session_update="tool_call",
                    tool_call_id=tool_call_id,
                    title=f"Edit {tool_call_id}",
                    kind="edit",
                    status="pending",
                ),
            )
        return await self.conn.request_permission(
            session_id=sid,
            tool_call=ToolCallUpdate(tool_call_id=tool_call_id, title=f"Edit {tool_call_id}"),
            options=OPTIONS,
        )

    async def do_write(self, sid: str, rest: str, text: str) -> None:
        path, count, *width = rest.split()
        target = os.path.join(self.cwd, path)
        filler = "x" * int(width[0]) if width else ""
        body = "".join(f"line {n} {filler}\n" for n in range(1, int(count) + 1))
        call = ToolCallStart(
            session_update="tool_call",
            tool_call_id="tc-write",
            title=f"Write {path}",
            kind="edit",
            status="pending",
            locations=[ToolCallLocation(path=target)],
            content=[
                FileEditToolCallContent(type="diff", path=target, old_text=None, new_text=body)
            ],
            raw_input={"file_path": target, "content": body},
        )
        await self.conn.session_update(sid, call)
        response = await self.conn.request_permission(
            session_id=sid,
            tool_call=ToolCallUpdate(tool_call_id="tc-write", title=f"Write {path}"),
            options=OPTIONS,
        )
        await self.say(sid, json.dumps(response.outcome.model_dump(by_alias=True)))

    async def do_run(self, sid: str, rest: str, text: str) -> None:
        call = ToolCallStart(
            session_update="tool_call",
            tool_call_id="tc-run",
            title=rest,
            kind="execute",
            status="pending",
            raw_input={"command": rest, "description": "a command"},
        )
        await self.conn.session_update(sid, call)
        response = await self.conn.request_permission(
            session_id=sid,
            tool_call=ToolCallUpdate(tool_call_id="tc-run", title=rest),
            options=OPTIONS,
        )
        await self.say(sid, json.dumps(response.outcome.model_dump(by_alias=True)))

    async def do_fail(self, sid: str, rest: str, text: str) -> None:
        sys.stderr.write(f"fatal: {rest}\n")
        sys.stderr.flush()
        raise acp.RequestError(-32603, "Internal error", {"details": rest})

    async def do_close_stdout(self, sid: str, rest: str, text: str) -> None:
        os.close(1)
        await asyncio.sleep(3600)

    async def do_permission(self, sid: str, rest: str, text: str) -> None:
        response = await self._ask(sid, rest or "tc-1", announce=True)
        await self.say(sid, json.dumps(response.outcome.model_dump(by_alias=True)))

    async def do_permission_raw(self, sid: str, rest: str, text: str) -> None:
        response = await self._ask(sid, rest or "tc-raw", announce=False)
        await self.say(sid, json.dumps(response.outcome.model_dump(by_alias=True)))

    async def do_permission_then_complete(self, sid: str, rest: str, text: str) -> None:
        asking = asyncio.ensure_future(self._ask(sid, "tc-c", announce=True))
        await asyncio.sleep(0.2)
        await self.conn.session_update(
            sid,
            ToolCallProgress(
                session_update="tool_call_update", tool_call_id="tc-c", status="completed"
            ),
        )
        response = await asyncio.wait_for(asking, 10)
        await self.say(sid, json.dumps(response.outcome.model_dump(by_alias=True)))

    async def do_permission_then_replace(self, sid: str, rest: str, text: str) -> None:
        asking = asyncio.ensure_future(self._ask(sid, "tc-r", announce=True))
        await asyncio.sleep(0.2)
        await self.conn.session_update(
            sid,
            ToolCallStart(
                session_update="tool_call", tool_call_id="tc-r", title="Edit again", kind="edit"
            ),
        )
        response = await asyncio.wait_for(asking, 10)
        await self.say(sid, json.dumps(response.outcome.model_dump(by_alias=True)))

    async def do_permission_twice(self, sid: str, rest: str, text: str) -> None:
        first = asyncio.ensure_future(self._ask(sid, "tc-2", announce=True))
        await asyncio.sleep(0.2)
        second = asyncio.ensure_future(self._ask(sid, "tc-2", announce=False))
        outcomes = [
            (await asyncio.wait_for(first, 10)).outcome.model_dump(by_alias=True),
            (await asyncio.wait_for(second, 30)).outcome.model_dump(by_alias=True),
        ]
        await self.say(sid, json.dumps(outcomes))

    async def do_permission_pair(self, sid: str, rest: str, text: str) -> None:
        first = asyncio.ensure_future(self._ask(sid, "tc-p1", announce=True))
        second = asyncio.ensure_future(self._ask(sid, "tc-p2", announce=True))
        outcomes = [
            (await asyncio.wait_for(first, 30)).outcome.model_dump(by_alias=True),
            (await asyncio.wait_for(second, 30)).outcome.model_dump(by_alias=True),
        ]
        await self.say(sid, json.dumps(outcomes))

    async def do_permission_abandon(self, sid: str, rest: str, text: str) -> None:
        self.abandoned = asyncio.ensure_future(self._ask(sid, "tc-a", announce=True))
        await asyncio.sleep(0.2)

    async def do_cancel_permission(self, sid: str, rest: str, text: str) -> None:
        raw = self.conn._conn  # the SDK's Connection: send the request by hand
        await self.conn.session_update(
            sid,
            ToolCallStart(
                session_update="tool_call", tool_call_id="tc-x", title="Edit x", kind="edit"
            ),
        )
        request_id = raw._next_request_id
        asking = asyncio.ensure_future(
            raw.send_request(
                "session/request_permission",
                {
                    "sessionId": sid,
                    "toolCall": {"toolCallId": "tc-x"},
                    "options": [o.model_dump(by_alias=True) for o in OPTIONS],
                },
            )
        )
        await asyncio.sleep(0.2)
        await raw.send_notification("$/cancel_request", {"requestId": request_id})
        result = await asyncio.wait_for(asking, 10)
        await self.say(sid, json.dumps(result))

    async def do_stderr(self, sid: str, rest: str, text: str) -> None:
        remaining = int(rest)
        block = ("x" * 1023 + "\n").encode()
        while remaining > 0:
            piece = block[: min(len(block), remaining)]
            sys.stderr.buffer.write(piece)
            remaining -= len(piece)
        sys.stderr.flush()
        await self.say(sid, "done")

    async def _reply_call(self, sid: str, call: Any) -> None:
        try:
            result = await call
            payload: Any = {"result": _dump(result)}
        except acp.RequestError as exc:
            payload = {"error": {"code": exc.code, "message": str(exc)}}
            if exc.data is not None:
                payload["error"]["data"] = exc.data
        await self.say(sid, json.dumps(payload))

    async def do_fs_read(self, sid: str, rest: str, text: str) -> None:
        parts = rest.split(" ")
        line = int(parts[1]) if len(parts) > 1 else None
        limit = int(parts[2]) if len(parts) > 2 else None
        await self._reply_call(
            sid, self.conn.read_text_file(path=parts[0], session_id=sid, line=line, limit=limit)
        )

    async def do_fs_write(self, sid: str, rest: str, text: str) -> None:
        path, _, content = text.partition(" ")[2].partition(" ")
        await self._reply_call(
            sid, self.conn.write_text_file(content=content, path=path, session_id=sid)
        )

    async def do_terminal(self, sid: str, rest: str, text: str) -> None:
        async def run() -> Any:
            created = await self.conn.create_terminal(command=rest, session_id=sid)
            tid = created.terminal_id
            await self.conn.session_update(
                sid,
                ToolCallStart(
                    session_update="tool_call",
                    tool_call_id="term-1",
                    title=rest,
                    kind="execute",
                    status="in_progress",
                    content=[{"type": "terminal", "terminalId": tid}],
                ),
            )
            exit_status = await self.conn.wait_for_terminal_exit(session_id=sid, terminal_id=tid)
            output = await self.conn.terminal_output(session_id=sid, terminal_id=tid)
            await self.conn.release_terminal(session_id=sid, terminal_id=tid)
            await self.conn.session_update(
                sid,
                ToolCallProgress(
                    session_update="tool_call_update", tool_call_id="term-1", status="completed"
                ),
            )
            return {"exit": _dump(exit_status), "output": _dump(output)}

        await self._reply_call(sid, run())

    async def do_call(self, sid: str, rest: str, text: str) -> None:
        request = json.loads(rest)
        await self._reply_call(
            sid, self.conn._conn.send_request(request["method"], request["params"])
        )

    async def do_updates(self, sid: str, rest: str, text: str) -> None:
        for update in json.loads(rest):
            await self.conn._conn.send_notification(
                "session/update", {"sessionId": sid, "update": update}
            )

    async def do_slow(self, sid: str, rest: str, text: str) -> PromptResponse | None:
        count, delay = rest.split()
        for n in range(int(count)):
            if self.cancelled[sid].is_set():
                return PromptResponse(stop_reason="cancelled")
            await self.say(sid, f"line {n}\n")
            await asyncio.sleep(float(delay))
        return None

    async def do_permission_when(self, sid: str, rest: str, text: str) -> None:
        for n in range(5):
            await self.say(sid, f"working {n}\n")
            await asyncio.sleep(0.05)
        while not os.path.exists(rest):
            await asyncio.sleep(0.02)
        response = await self._ask(sid, "tc-gate", announce=True)
        await self.say(sid, json.dumps(response.outcome.model_dump(by_alias=True)))

    async def do_burst(self, sid: str, rest: str, text: str) -> PromptResponse | None:
        size, wait = rest.split()
        words = ("lorem ipsum dolor sit amet " * (int(size) // 27 + 1))[: int(size)]
        await self.say(sid, words)
        try:
            await asyncio.wait_for(self.cancelled[sid].wait(), float(wait))
        except TimeoutError:
            return None
        return PromptResponse(stop_reason="cancelled")

    async def do_showcase(self, sid: str, rest: str, text: str) -> None:
        await self.conn.session_update(
            sid,
            AgentThoughtChunk(
                session_update="agent_thought_chunk",
                content=TextContentBlock(type="text", text="Checking the greeting code first."),
            ),
        )
        await self.conn.session_update(
            sid,
            AgentPlanUpdate(
                session_update="plan",
                entries=[
                    PlanEntry(content="Read greet.py", priority="high", status="completed"),
                    PlanEntry(content="Fix the greeting", priority="medium", status="completed"),
                    PlanEntry(content="Run the tests", priority="low", status="in_progress"),
                ],
            ),
        )
        for piece in SHOWCASE_REPLY:
            await self.say(sid, piece)
        path = os.path.join(os.getcwd(), "greet.py")
        await self.conn.session_update(
            sid,
            ToolCallStart(
                session_update="tool_call",
                tool_call_id="edit-1",
                title="Edit greet.py",
                kind="edit",
                status="completed",
                locations=[{"path": path, "line": 2}],
                content=[
                    {
                        "type": "diff",
                        "path": path,
                        "oldText": 'def greet(name):\n    return "Hello " + name\n',
                        "newText": 'def greet(name: str) -> str:\n    return f"Hello, {name}!"\n',
                    }
                ],
            ),
        )
        created = await self.conn.create_terminal(
            command="printf '\\033[32m2 passed\\033[0m in 0.01s\\n'", session_id=sid
        )
        await self.conn.session_update(
            sid,
            ToolCallStart(
                session_update="tool_call",
                tool_call_id="run-1",
                title="pytest -q",
                kind="execute",
                status="in_progress",
                content=[{"type": "terminal", "terminalId": created.terminal_id}],
            ),
        )
        await self.conn.wait_for_terminal_exit(session_id=sid, terminal_id=created.terminal_id)
        await self.conn.release_terminal(session_id=sid, terminal_id=created.terminal_id)
        await self.conn.session_update(
            sid,
            ToolCallProgress(
                session_update="tool_call_update", tool_call_id="run-1", status="completed"
            ),
        )
        await self.say(sid, "All green. The greeting now has **type hints** and a comma.")

    async def do_mode(self, sid: str, rest: str, text: str) -> None:
        await self.say(sid, self.mode)


SHOWCASE_REPLY = [
    "## Fixing the greeting\n\n",
    "The greeting was missing a comma. I will:\n\n",
    "1. add type hints,\n2. use an f-string,\n3. run the tests.\n\n",
    '```python\nprint(greet("Ada"))  # Hello, Ada!\n```\n',
]


def _dump(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, exclude_none=True)
    return value


def main() -> None:
    asyncio.run(acp.run_agent(ScriptedAgent(), use_unstable_protocol=True))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
