"""The built-in demo agent, driven as a real subprocess from the SDK's client side.

Every test spawns ``python -m acp_tui.agents.demo`` with ``acp.spawn_agent_process``
and talks to it through a small recording client that does real file I/O and runs
real commands for ``terminal/*``.
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
import pytest
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
    ResourceContentBlock,
    TerminalExitStatus,
    TerminalOutputResponse,
    TextContentBlock,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from acp_tui import __version__
from acp_tui.agents import demo_script

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


# -- initialize, sessions, modes ------------------------------------------------------------


async def test_initialize_and_new_session(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, init):
        assert init.protocol_version == 1
        assert init.agent_info.name == "acp-tui-demo"
        assert init.agent_info.title == "acp-tui demo agent"
        assert init.agent_info.version == __version__
        assert init.agent_capabilities.load_session is False
        assert init.agent_capabilities.prompt_capabilities.embedded_context is True
        assert init.agent_capabilities.prompt_capabilities.image is False
        assert init.auth_methods == []
        response = await guard(conn.new_session(cwd=str(tmp_path), mcp_servers=[]))
        assert response.session_id
        assert response.modes.current_mode_id == "ask"
        modes = {mode.id: mode.name for mode in response.modes.available_modes}
        assert modes == {"ask": "Ask before edits", "auto": "Auto-accept edits"}


async def test_available_commands_follow_new_session(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    frames: list[dict[str, Any]] = []
    async with demo(client, frames=frames) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await client.wait_until(lambda: bool(client.of(session_id, "available_commands_update")))
    [update] = client.of(session_id, "available_commands_update")
    commands = {command.name: command for command in update.available_commands}
    assert set(commands) == {"tour", "read", "edit", "run", "plan", "help"}
    assert commands["read"].input is not None and commands["run"].input is not None
    assert commands["tour"].input is None
    response_at = next(i for i, f in enumerate(frames) if "sessionId" in f.get("result", {}))
    update_at = next(
        i
        for i, f in enumerate(frames)
        if f.get("params", {}).get("update", {}).get("sessionUpdate") == "available_commands_update"
    )
    assert response_at < update_at


async def test_set_mode_sends_current_mode_update(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await guard(conn.set_session_mode(session_id=session_id, mode_id="auto"))
        await client.wait_until(lambda: bool(client.of(session_id, "current_mode_update")))
        assert [u.current_mode_id for u in client.of(session_id, "current_mode_update")] == ["auto"]
        with pytest.raises(RequestError) as error:
            await guard(conn.set_session_mode(session_id=session_id, mode_id="yolo"))
        assert error.value.code == -32602


# -- streaming and multi-turn ---------------------------------------------------------------


async def test_plain_prompt_streams_thought_then_markdown(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        assert await ask(conn, session_id, "What can you do?") == "end_turn"
    chunks = [
        u
        for u in client.of(session_id)
        if u.session_update in ("agent_thought_chunk", "agent_message_chunk")
    ]
    thoughts = [u for u in chunks if u.session_update == "agent_thought_chunk"]
    messages = [u for u in chunks if u.session_update == "agent_message_chunk"]
    assert 2 <= len(thoughts) <= 3
    assert chunks[: len(thoughts)] == thoughts  # the thought comes first
    assert len({u.message_id for u in thoughts}) == 1
    assert len(messages) > 20  # a few words per chunk
    assert len({u.message_id for u in messages}) == 1
    assert None not in {u.message_id for u in messages}
    text = client.text(session_id)
    assert_markdown(text)
    assert "```python" in text
    assert "What can you do?" in text


async def test_second_prompt_mentions_the_first(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "What can you do?")
        first = client.text(session_id)
        await ask(conn, session_id, "hello")  # not a tour: only the first prompt greets
        second = client.text(session_id)[len(first) :]
    assert "Last time" not in first
    assert "Last time you asked about “What can you do?”" in second
    assert not client.tool_calls(session_id)


async def test_resource_links_are_mentioned_by_name(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    link = ResourceContentBlock(type="resource_link", name="notes.txt", uri="file:///x/notes.txt")
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "Look at this", link)
    assert "`notes.txt`" in client.text(session_id)


async def test_same_prompt_gives_the_same_text(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        first = await new_session(conn, tmp_path)
        second = await new_session(conn, tmp_path)
        await ask(conn, first, "Tell me about ACP")
        await ask(conn, second, "Tell me about ACP")
    assert client.text(first) == client.text(second)
    assert client.text(first, "agent_thought_chunk") == client.text(second, "agent_thought_chunk")


async def test_tour_is_deterministic_across_fresh_workspaces(tmp_path: Path) -> None:
    texts = []
    for name in ("one", "two"):
        root = tmp_path / name
        root.mkdir()
        (root / "README.md").write_text("# Project\n\nHello.\n", encoding="utf-8")
        client = RecordingClient(root)
        async with demo(client) as (conn, _):
            session_id = await new_session(conn, root)
            assert await ask(conn, session_id, "/tour") == "end_turn"
        texts.append(client.text(session_id).replace(str(root), "<root>"))
    assert texts[0] == texts[1]


# -- read -----------------------------------------------------------------------------------


async def test_read_uses_the_client_when_advertised(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("".join(f"line {n}\n" for n in range(1, 15)), encoding="utf-8")
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "please read something")
    assert client.params("read_text_file") == [{"path": str(readme)}]
    updates = client.tool_of_kind(session_id, "read")
    start = updates[0]
    assert start.title == "Read README.md"
    assert [loc.path for loc in start.locations] == [str(readme)]
    assert [u.status for u in updates] == ["pending", "in_progress", "completed"]
    shown = updates[-1].content[0].content.text
    assert shown.startswith("```markdown\nline 1\n") and "line 10\n```" in shown
    assert "line 11" not in shown.split("```")[1]
    text = client.text(session_id)
    assert "**14 lines**" in text
    assert_markdown(text)


async def test_read_a_given_path(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("readme\n", encoding="utf-8")
    (tmp_path / "other.py").write_text("print('hi')\n", encoding="utf-8")
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/read other.py")
    assert client.params("read_text_file") == [{"path": str(tmp_path / "other.py")}]
    assert client.tool_of_kind(session_id, "read")[0].title == "Read other.py"


async def test_read_falls_back_to_its_own_io(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    client = RecordingClient(tmp_path)
    async with demo(client, caps(fs=False, terminal=False)) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/read")
    assert "read_text_file" not in client.methods()
    updates = client.tool_of_kind(session_id, "read")
    assert updates[0].title == "Read pyproject.toml"
    assert updates[-1].status == "completed"
    assert "name = 'x'" in updates[-1].content[0].content.text


async def test_read_refused_by_the_client_fails_the_tool_call(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("secret\n", encoding="utf-8")
    client = RecordingClient(tmp_path, refuse_reads=True)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        assert await ask(conn, session_id, "/read") == "end_turn"
    updates = client.tool_of_kind(session_id, "read")
    assert updates[-1].status == "failed"
    error = updates[-1].content[0].content.text
    assert error.startswith("The client refused: Permission denied")
    assert "The client refused" in client.text(session_id)
    assert "## Under the hood" in client.text(session_id)  # the turn carried on


# -- edit -----------------------------------------------------------------------------------


async def test_edit_asks_permission_then_writes_exactly_the_diff(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path, ["allow_once"])
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "edit my notes please")
    notes = tmp_path / "demo-notes.md"
    [permission] = client.params("request_permission")
    assert [(o.option_id, o.name, o.kind) for o in permission["options"]] == [
        ("allow_once", "Allow", "allow_once"),
        ("allow_always", "Always allow", "allow_always"),
        ("reject_once", "Reject", "reject_once"),
    ]
    updates = client.tool_of_kind(session_id, "edit")
    assert updates[0].title == "Write demo-notes.md"
    [diff] = updates[0].content
    assert diff.type == "diff" and diff.path == str(notes) and diff.old_text is None
    assert "edit my notes please" in diff.new_text
    assert client.params("write_text_file") == [{"path": str(notes), "content": diff.new_text}]
    assert notes.read_text(encoding="utf-8") == diff.new_text
    assert [u.status for u in updates] == ["pending", "in_progress", "completed"]
    assert client.methods().index("request_permission") < client.methods().index("write_text_file")


async def test_rejected_edit_writes_nothing(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path, ["reject_once"])
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        assert await ask(conn, session_id, "/edit") == "end_turn"
    assert "write_text_file" not in client.methods()
    assert not (tmp_path / "demo-notes.md").exists()
    updates = client.tool_of_kind(session_id, "edit")
    assert updates[-1].status == "failed"
    assert updates[-1].content[0].content.text == "Edit rejected by the user"
    assert "Edit rejected by the user" in client.text(session_id)


async def test_auto_mode_writes_without_asking(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await guard(conn.set_session_mode(session_id=session_id, mode_id="auto"))
        await ask(conn, session_id, "write something")
    assert "request_permission" not in client.methods()
    assert len(client.params("write_text_file")) == 1
    assert client.tool_of_kind(session_id, "edit")[-1].status == "completed"


async def test_allow_always_is_remembered(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path, ["allow_always"])
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/edit")
        await ask(conn, session_id, "/edit")
    assert len(client.params("request_permission")) == 1
    first, second = client.params("write_text_file")
    assert second["content"].startswith(first["content"])
    assert "## Note 2" in second["content"]
    diffs = [u[0].content[0] for u in client.tool_calls(session_id).values()]
    assert diffs[1].old_text == first["content"]


async def test_cancelled_permission_ends_the_turn(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path, ["cancelled"])
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        assert await ask(conn, session_id, "/edit") == "cancelled"
    assert "write_text_file" not in client.methods()
    assert client.tool_of_kind(session_id, "edit")[-1].status == "failed"
    assert "Under the hood" not in client.text(session_id)


async def test_edit_falls_back_to_its_own_io(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path, ["allow_once"])
    async with demo(client, caps(fs=False, terminal=False)) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/edit")
    assert client.methods() == ["request_permission"]
    [diff] = client.tool_of_kind(session_id, "edit")[0].content
    assert (tmp_path / "demo-notes.md").read_text(encoding="utf-8") == diff.new_text


# -- run ------------------------------------------------------------------------------------


async def test_run_uses_a_client_terminal(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/run echo hello-demo")
    terminal_calls = [m for m in client.methods() if "terminal" in m]
    assert terminal_calls == [
        "create_terminal",
        "wait_for_terminal_exit",
        "terminal_output",
        "release_terminal",
    ]
    assert client.params("create_terminal") == [
        {
            "command": "echo hello-demo",
            "args": None,
            "cwd": str(tmp_path),
            "output_byte_limit": 65536,
        }
    ]
    updates = client.tool_of_kind(session_id, "execute")
    assert updates[0].title == "Run `echo hello-demo`"
    assert updates[1].status == "in_progress"
    assert [(c.type, c.terminal_id) for c in updates[1].content] == [("terminal", "term-1")]
    assert updates[-1].status == "completed"
    assert updates[-1].raw_output["exitCode"] == 0
    assert "hello-demo" in updates[-1].raw_output["output"]
    assert "exited with code **0**" in client.text(session_id)


async def test_run_colon_command_and_nonzero_exit(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "please run: exit 3")
    assert client.params("create_terminal")[0]["command"] == "exit 3"
    updates = client.tool_of_kind(session_id, "execute")
    assert updates[-1].status == "failed"
    assert updates[-1].raw_output["exitCode"] == 3
    assert "exited with code **3**" in client.text(session_id)


async def test_run_falls_back_to_its_own_shell(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client, caps(terminal=False)) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/run echo fallback-demo")
    assert not [m for m in client.methods() if "terminal" in m]
    updates = client.tool_of_kind(session_id, "execute")
    assert updates[-1].status == "completed"
    shown = updates[-1].content[0].content.text
    assert shown.startswith("```text\n") and "fallback-demo" in shown
    assert not any(c.type == "terminal" for u in updates for c in (u.content or []))


# -- plan and tour --------------------------------------------------------------------------


async def test_plan_entries_progress_to_completed(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/plan")
    plans = client.of(session_id, "plan")
    assert len(plans[0].entries) == 3
    assert {e.status for e in plans[0].entries} == {"pending"}
    assert {e.status for e in plans[-1].entries} == {"completed"}
    order = {"pending": 0, "in_progress": 1, "completed": 2}
    for index in range(3):
        seen = [order[p.entries[index].status] for p in plans]
        assert seen == sorted(seen) and 1 in seen
    assert [e.priority for e in plans[0].entries] == ["high", "medium", "low"]
    assert_markdown(client.text(session_id))


async def test_greeting_starts_the_tour(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Hi\n", encoding="utf-8")
    client = RecordingClient(tmp_path, ["allow_once"])
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        assert await ask(conn, session_id, "Hello!") == "end_turn"
    kinds = [updates[0].kind for updates in client.tool_calls(session_id).values()]
    assert kinds == ["read", "edit", "execute"]
    assert all(u[-1].status == "completed" for u in client.tool_calls(session_id).values())
    plans = client.of(session_id, "plan")
    assert [e.content for e in plans[0].entries] == [
        "Read README.md",
        "Write demo-notes.md",
        "Run `ls -la`",
    ]
    assert {e.status for e in plans[-1].entries} == {"completed"}
    text = client.text(session_id)
    assert text.startswith("# Welcome to the acp-tui demo")
    assert_markdown(text)


# -- cancel ---------------------------------------------------------------------------------


async def test_cancel_mid_turn_stops_promptly(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client, delay="0.05") as (conn, _):
        session_id = await new_session(conn, tmp_path)
        turn = asyncio.ensure_future(ask(conn, session_id, "/help"))
        await client.wait_until(lambda: len(client.of(session_id, "agent_message_chunk")) >= 3)
        cancelled_at = asyncio.get_running_loop().time()
        await conn.cancel(session_id=session_id)
        assert await guard(turn) == "cancelled"
        assert asyncio.get_running_loop().time() - cancelled_at < 2  # the full reply takes ~5 s
        seen = len(client.of(session_id))
        await asyncio.sleep(0.5)
        assert len(client.of(session_id)) == seen  # nothing for that turn after it returned
        assert "```python" not in client.text(session_id)  # it stopped before the end


async def test_cancel_while_a_terminal_runs_releases_it(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client, delay="0.05") as (conn, _):
        session_id = await new_session(conn, tmp_path)
        turn = asyncio.ensure_future(ask(conn, session_id, "/run sleep 30"))
        await client.wait_until(lambda: "wait_for_terminal_exit" in client.methods())
        await conn.cancel(session_id=session_id)
        assert await guard(turn) == "cancelled"
    methods = client.methods()
    assert methods.index("kill_terminal") < methods.index("release_terminal")
    assert "terminal_output" not in methods
    assert client.tool_of_kind(session_id, "execute")[-1].status == "failed"


async def test_cancel_while_waiting_for_permission(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path, hold_permission=True)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        turn = asyncio.ensure_future(ask(conn, session_id, "/edit"))
        await client.wait_until(lambda: "request_permission" in client.methods())
        await conn.cancel(session_id=session_id)
        assert await guard(turn) == "cancelled"
        assert client.tool_of_kind(session_id, "edit")[-1].status == "failed"
        # The session takes the next prompt as usual.
        assert await ask(conn, session_id, "/help") == "end_turn"
    assert "write_text_file" not in client.methods()


# -- routing (pure) -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "first_turn", "kind", "steps", "command"),
    [
        ("hi", True, "tour", ("read", "edit", "run"), None),
        ("hi", False, "help", (), None),
        ("give me the TOUR", False, "tour", ("read", "edit", "run"), None),
        ("/read", False, "steps", ("read",), None),
        ("please Write a file", False, "steps", ("edit",), None),
        ("open a shell", False, "steps", ("run",), None),
        ("run: git status", False, "steps", ("run",), "git status"),
        ("/run echo hi", False, "steps", ("run",), "echo hi"),
        ("read it, then run `pwd`", False, "steps", ("read", "run"), "pwd"),
        ("make a plan", False, "plan", (), None),
        ("/help", False, "help", (), None),
        ("/unknown", False, "help", (), None),
        ("what is this README about?", False, "help", (), None),
    ],
)
def test_routing(
    text: str, first_turn: bool, kind: str, steps: tuple[str, ...], command: str | None
) -> None:
    route = demo_script.route(text, first_turn=first_turn)
    assert (route.kind, route.steps, route.command) == (kind, steps, command)


def test_pieces_rebuild_the_text_exactly() -> None:
    text = "## Title\n\n- a list\n\n```python\nprint('x')\n```\n  trailing  "
    parts = demo_script.pieces(text)
    assert "".join(parts) == text
    assert all(len(part.split()) <= 3 for part in parts)
