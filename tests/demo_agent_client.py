"""Driving the built-in demo agent as a real subprocess from the SDK's client side.

``demo(client)`` spawns ``python -m acp_tui.agents.demo`` with ``acp.spawn_agent_process``
and initializes it; ``RecordingClient`` is a small recording client that does real
file I/O and runs real commands for ``terminal/*``.

    client = RecordingClient(tmp_path, ["allow_once"])   permission answers, in order
    async with demo(client, caps(fs=False)) as (conn, init):
        session_id = await new_session(conn, tmp_path)
        assert await ask(conn, session_id, "/read") == "end_turn"
    client.tool_of_kind(session_id, "read")              that tool call's updates
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import acp
from acp import RequestError
from acp.connection import StreamDirection, StreamEvent
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    TextContentBlock,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

T = TypeVar("T")
TIMEOUT = 20.0


async def guard(awaitable: Awaitable[T]) -> T:
    """Hang guard: every protocol round trip in these tests finishes within 20 s."""
    return await asyncio.wait_for(awaitable, TIMEOUT)


class _Terminal:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.output = b""
        self.collector = asyncio.ensure_future(self._collect())

    def kill(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)

    async def _collect(self) -> None:
        assert self.process.stdout is not None
        self.output = await self.process.stdout.read()
        await self.process.wait()


class RecordingClient:
    """An ``acp.Client`` that records everything and answers from a script."""

    def __init__(
        self,
        root: Path,
        permissions: list[str] | None = None,
        *,
        refuse_reads: bool = False,
        hold_permission: bool = False,
    ) -> None:
        self.root = root
        self.permissions = list(permissions or [])  # option ids, or "cancelled"
        self.refuse_reads = refuse_reads
        self.hold_permission = hold_permission
        self.updates: list[tuple[str, Any]] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.terminals: dict[str, _Terminal] = {}
        self.changed = asyncio.Event()

    def _record(self, method: str, **params: Any) -> None:
        self.calls.append((method, params))
        self.changed.set()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        # Record before any await: the SDK runs each notification as its own task.
        self.updates.append((session_id, update))
        self.changed.set()

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **_: Any
    ) -> RequestPermissionResponse:
        self._record("request_permission", tool_call=tool_call, options=options)
        if self.hold_permission:
            await asyncio.Event().wait()  # never answered: only a cancel ends this
        answer = self.permissions.pop(0) if self.permissions else "allow_once"
        if answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **_: Any,
    ) -> ReadTextFileResponse:
        self._record("read_text_file", path=path)
        if self.refuse_reads:
            raise RequestError(
                -32001, "Permission denied", {"details": "reads are off in this test"}
            )
        return ReadTextFileResponse(content=Path(path).read_text(encoding="utf-8"))

    async def write_text_file(
        self, session_id: str, path: str, content: str, **_: Any
    ) -> WriteTextFileResponse:
        self._record("write_text_file", path=path, content=content)
        Path(path).write_text(content, encoding="utf-8")
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **_: Any,
    ) -> CreateTerminalResponse:
        self._record(
            "create_terminal",
            command=command,
            args=args,
            cwd=cwd,
            output_byte_limit=output_byte_limit,
        )
        process = await asyncio.create_subprocess_shell(
            command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            cwd=cwd,
            start_new_session=True,  # a kill reaches the shell's children too
        )
        terminal_id = f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = _Terminal(process)
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> WaitForTerminalExitResponse:
        self._record("wait_for_terminal_exit", terminal_id=terminal_id)
        terminal = self.terminals[terminal_id]
        await terminal.collector
        return WaitForTerminalExitResponse(exit_code=terminal.process.returncode)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> TerminalOutputResponse:
        self._record("terminal_output", terminal_id=terminal_id)
        terminal = self.terminals[terminal_id]
        code = terminal.process.returncode
        return TerminalOutputResponse(
            output=terminal.output.decode("utf-8", errors="replace"),
            truncated=False,
            exit_status=TerminalExitStatus(exit_code=code) if code is not None else None,
        )

    async def release_terminal(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> ReleaseTerminalResponse:
        self._record("release_terminal", terminal_id=terminal_id)
        self._kill(terminal_id)
        return ReleaseTerminalResponse()

    async def kill_terminal(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> KillTerminalResponse:
        self._record("kill_terminal", terminal_id=terminal_id)
        self._kill(terminal_id)
        return KillTerminalResponse()

    def _kill(self, terminal_id: str) -> None:
        self.terminals[terminal_id].kill()

    # Not used by the demo.

    async def create_elicitation(self, *args: Any, **kwargs: Any) -> Any:
        raise RequestError.method_not_found("elicitation/create")

    async def complete_elicitation(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def on_connect(self, conn: Any) -> None:
        return None

    # -- queries -------------------------------------------------------------------------

    def of(self, session_id: str, kind: str | None = None) -> list[Any]:
        return [
            u
            for sid, u in self.updates
            if sid == session_id and (kind is None or u.session_update == kind)
        ]

    def text(self, session_id: str, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(session_id, kind))

    def methods(self) -> list[str]:
        return [method for method, _ in self.calls]

    def params(self, method: str) -> list[dict[str, Any]]:
        return [params for name, params in self.calls if name == method]

    def tool_calls(self, session_id: str) -> dict[str, list[Any]]:
        """Every tool call's ``tool_call`` and ``tool_call_update``s, by id, in order."""
        calls: dict[str, list[Any]] = {}
        for update in self.of(session_id):
            if update.session_update in ("tool_call", "tool_call_update"):
                calls.setdefault(update.tool_call_id, []).append(update)
        return calls

    def tool_of_kind(self, session_id: str, kind: str) -> list[Any]:
        for updates in self.tool_calls(session_id).values():
            if updates[0].kind == kind:
                return updates
        raise AssertionError(f"no {kind} tool call in {self.tool_calls(session_id)}")

    async def wait_until(self, predicate: Callable[[], bool]) -> None:
        async def loop() -> None:
            while not predicate():
                self.changed.clear()
                await self.changed.wait()

        await guard(loop())


def caps(*, fs: bool = True, terminal: bool = True) -> ClientCapabilities:
    return ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=terminal
    )


@contextlib.asynccontextmanager
async def demo(
    client: RecordingClient,
    capabilities: ClientCapabilities | None = None,
    *,
    delay: str = "0",
    frames: list[dict[str, Any]] | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """A running demo agent, initialized: yields (connection, initialize response)."""
    env = {**os.environ, "ACP_TUI_DEMO_DELAY": delay}

    def observe(event: StreamEvent) -> None:
        if frames is not None and event.direction == StreamDirection.INCOMING:
            frames.append(event.message)

    async with acp.spawn_agent_process(
        client,
        sys.executable,
        "-m",
        "acp_tui.agents.demo",
        env=env,
        cwd=client.root,
        transport_kwargs={"stderr": None},  # inherit: pytest captures it, nothing can block
        observers=[observe],
    ) as (conn, _process):
        response = await guard(
            conn.initialize(
                protocol_version=acp.PROTOCOL_VERSION,
                client_capabilities=capabilities or caps(),
                client_info=Implementation(name="test-client", version="0"),
            )
        )
        yield conn, response
        for terminal in client.terminals.values():
            terminal.kill()
            await guard(terminal.collector)


async def new_session(conn: Any, cwd: Path) -> str:
    response = await guard(conn.new_session(cwd=str(cwd), mcp_servers=[]))
    return str(response.session_id)


async def ask(conn: Any, session_id: str, text: str, *extra: Any) -> str:
    blocks = [TextContentBlock(type="text", text=text), *extra]
    response = await guard(conn.prompt(session_id=session_id, prompt=blocks))
    return str(response.stop_reason)


def assert_markdown(text: str) -> None:
    lines = text.splitlines()
    assert any(line.startswith("#") for line in lines), text
    assert any(line.startswith("- ") for line in lines), text
    assert "```" in text, text
