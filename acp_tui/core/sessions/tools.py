"""A session's client capabilities: ``fs/*`` behind the fence, ``terminal/*`` on ptys.

Terminal output reaches the thread through ``on_output``: whenever a
terminal's output changes (throttled by the terminal manager to about 10
updates a second), is killed or released, the session is handed the
terminal's id and output, and its thread copies that into every tool call
that embeds the terminal (``{"type": "terminal", "terminalId": …}``). The
last output of a released terminal is kept, so content the agent re-sends
still shows it. A terminal id this host never created is not looked up:
the entry shows what the agent's content carries. Nothing here touches an
entry.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from acp import RequestError
from acp.schema import (
    CreateTerminalRequest,
    KillTerminalRequest,
    ReadTextFileRequest,
    ReleaseTerminalRequest,
    TerminalOutputRequest,
    WaitForTerminalExitRequest,
    WriteTextFileRequest,
)
from pydantic import BaseModel, ValidationError

from acp_tui.core.capabilities import fs
from acp_tui.core.capabilities.terminals import TerminalManager, TerminalSnapshot
from acp_tui.core.model.validation import describe
from acp_tui.core.transport.acp_protocol import invalid_params

M = TypeVar("M", bound=BaseModel)

#: Final output of released terminals, kept to refill content the agent re-sends.
_RELEASED_MEMORY = 32
#: Called with a terminal's id and its output as content shows it.
OutputListener = Callable[[str, dict[str, Any]], None]
#: Called with a key and True when the agent starts changing files through the
#: host (an ``fs/write_text_file``, a terminal), False when that ends.
ActivityListener = Callable[[str, bool], None]


def _parse(model: type[M], params: Any) -> M:
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise invalid_params(f"invalid params ({describe(exc)})") from None


class SessionTools:
    def __init__(
        self,
        fence: fs.PathFence,
        base_env: Mapping[str, str] | None = None,
        *,
        on_output: OutputListener | None = None,
    ) -> None:
        self.fence = fence
        self.on_output = on_output
        #: Told of the agent's own work on files (checkpoints: who changed what).
        self.on_activity: ActivityListener | None = None
        self._writes = 0
        self.terminals = TerminalManager(base_env=base_env, on_change=self._terminal_changed)
        self._released: OrderedDict[str, TerminalSnapshot] = OrderedDict()

    # -- fs/* ------------------------------------------------------------------

    async def read_text_file(self, params: Any) -> dict[str, Any]:
        request = _parse(ReadTextFileRequest, params)
        text = await asyncio.to_thread(
            fs.read_text_file, self.fence, request.path, request.line, request.limit
        )
        return {"content": text}

    async def write_text_file(self, params: Any) -> dict[str, Any]:
        request = _parse(WriteTextFileRequest, params)
        self._writes += 1
        key = f"write-{self._writes}"
        self._active(key, True)
        try:
            await asyncio.to_thread(fs.write_text_file, self.fence, request.path, request.content)
        finally:
            self._active(key, False)
        return {}

    def _active(self, key: str, busy: bool) -> None:
        if self.on_activity is not None:
            self.on_activity(key, busy)

    # -- terminal/* ------------------------------------------------------------

    async def create_terminal(self, params: Any) -> dict[str, Any]:
        request = _parse(CreateTerminalRequest, params)
        cwd = self.fence.resolve_dir(request.cwd)
        env = {variable.name: variable.value for variable in request.env or ()}
        terminal_id = await self.terminals.create(
            request.command,
            request.args or (),
            env=env,
            cwd=cwd,
            output_byte_limit=request.output_byte_limit,
        )
        self._active(f"terminal-{terminal_id}", True)  # until it is released
        return {"terminalId": terminal_id}

    async def terminal_output(self, params: Any) -> dict[str, Any]:
        request = _parse(TerminalOutputRequest, params)
        snapshot = self.terminals.output(request.terminal_id)
        result: dict[str, Any] = {"output": snapshot.output, "truncated": snapshot.truncated}
        if snapshot.exit_status is not None:
            result["exitStatus"] = snapshot.exit_status.to_wire()
        return result

    async def wait_for_terminal_exit(self, params: Any) -> dict[str, Any]:
        request = _parse(WaitForTerminalExitRequest, params)
        status = await self.terminals.wait_for_exit(request.terminal_id)
        return status.to_wire()

    async def kill_terminal(self, params: Any) -> dict[str, Any]:
        request = _parse(KillTerminalRequest, params)
        await self.terminals.kill(request.terminal_id)
        self._terminal_changed(request.terminal_id)
        return {}

    async def release_terminal(self, params: Any) -> dict[str, Any]:
        request = _parse(ReleaseTerminalRequest, params)
        snapshot = await self.terminals.release(request.terminal_id)
        self._active(f"terminal-{request.terminal_id}", False)
        self._released[request.terminal_id] = snapshot
        while len(self._released) > _RELEASED_MEMORY:
            self._released.popitem(last=False)
        self._show(request.terminal_id, snapshot)
        return {}

    async def close(self) -> None:
        await self.terminals.close()

    # -- terminal output for tool-call entries ----------------------------------

    def _snapshot(self, terminal_id: str) -> TerminalSnapshot | None:
        released = self._released.get(terminal_id)
        if released is not None:
            return released
        try:
            return self.terminals.output(terminal_id)
        except RequestError:
            return None

    def shown_output(self, terminal_id: str) -> dict[str, Any] | None:
        """A terminal's output as a content item shows it (None: not ours)."""
        snapshot = self._snapshot(terminal_id)
        return _shown(snapshot) if snapshot is not None else None

    def _terminal_changed(self, terminal_id: str) -> None:
        snapshot = self._snapshot(terminal_id)
        if snapshot is not None:
            self._show(terminal_id, snapshot)

    def _show(self, terminal_id: str, snapshot: TerminalSnapshot) -> None:
        if self.on_output is not None:
            self.on_output(terminal_id, _shown(snapshot))


def _shown(snapshot: TerminalSnapshot) -> dict[str, Any]:
    shown: dict[str, Any] = {"output": snapshot.output, "truncated": snapshot.truncated}
    if snapshot.exit_status is not None:
        shown["exitStatus"] = snapshot.exit_status.to_wire()
    return shown
