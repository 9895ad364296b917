"""A session's client capabilities: ``fs/*`` behind the fence, ``terminal/*`` on ptys.

Also keeps terminal output visible in the thread: a tool call whose content
embeds ``{"type": "terminal", "terminalId": …}`` gets that terminal's
output, ``truncated`` flag and exit status copied into the content item as
the terminal runs (throttled by the terminal manager to about 10 updates a
second) and a last time when the terminal is released, so the output stays
in the entry after ``terminal/release``. A terminal id this host never
created is not looked up: the entry shows what the agent's content carries.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

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
from acp_tui.core.model.entries import ToolCallEntry
from acp_tui.core.model.events import Event
from acp_tui.core.model.thread import Thread
from acp_tui.core.model.validation import describe

M = TypeVar("M", bound=BaseModel)

#: Final output of released terminals, kept to refill content the agent re-sends.
_RELEASED_MEMORY = 32


class ToolsOwner(Protocol):
    thread: Thread

    def commit(self, event: Event) -> None: ...


def _parse(model: type[M], params: Any) -> M:
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise RequestError(-32602, f"invalid params ({describe(exc)})") from None


class SessionTools:
    def __init__(
        self, owner: ToolsOwner, fence: fs.PathFence, base_env: Mapping[str, str] | None = None
    ) -> None:
        self._owner = owner
        self.fence = fence
        self.terminals = TerminalManager(base_env=base_env, on_change=self._terminal_changed)
        self._watchers: dict[str, set[str]] = {}
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
        await asyncio.to_thread(fs.write_text_file, self.fence, request.path, request.content)
        return {}

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
        self._released[request.terminal_id] = snapshot
        while len(self._released) > _RELEASED_MEMORY:
            self._released.popitem(last=False)
        self._refresh_watchers(request.terminal_id, snapshot)
        return {}

    async def close(self) -> None:
        await self.terminals.close()
        self._watchers.clear()

    # -- terminal output in tool-call entries --------------------------------

    def _snapshot(self, terminal_id: str) -> TerminalSnapshot | None:
        released = self._released.get(terminal_id)
        if released is not None:
            return released
        try:
            return self.terminals.output(terminal_id)
        except RequestError:
            return None

    def fill_terminals(self, content: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
        """``content`` with each known terminal's current output copied in."""
        if not content:
            return []
        filled = []
        for item in content:
            if item.get("type") == "terminal":
                snapshot = self._snapshot(str(item.get("terminalId")))
                if snapshot is not None:
                    item = _with_output(item, snapshot)
            filled.append(item)
        return filled

    def watch_terminals(self, entry: ToolCallEntry) -> None:
        for terminal_id in entry.terminal_ids():
            self._watchers.setdefault(terminal_id, set()).add(entry.tool_call_id)

    def _terminal_changed(self, terminal_id: str) -> None:
        snapshot = self._snapshot(terminal_id)
        if snapshot is not None:
            self._refresh_watchers(terminal_id, snapshot)

    def _refresh_watchers(self, terminal_id: str, snapshot: TerminalSnapshot) -> None:
        thread = self._owner.thread
        for tool_call_id in sorted(self._watchers.get(terminal_id, ())):
            found = thread.tool_call(tool_call_id)
            if found is None:
                continue
            index, entry = found
            changed = False
            for position, item in enumerate(entry.content):
                if item.get("type") == "terminal" and item.get("terminalId") == terminal_id:
                    updated = _with_output(item, snapshot)
                    if updated != item:
                        entry.content[position] = updated
                        changed = True
            if changed:
                self._owner.commit(thread.touch(index))


def _with_output(item: dict[str, Any], snapshot: TerminalSnapshot) -> dict[str, Any]:
    filled = {**item, "output": snapshot.output, "truncated": snapshot.truncated}
    if snapshot.exit_status is not None:
        filled["exitStatus"] = snapshot.exit_status.to_wire()
    return filled
