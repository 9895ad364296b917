"""Commands that ask for permission, in every order an agent may."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from acp.schema import (
    FileEditToolCallContent,
    PermissionOption,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

from tests.agents.scripted.base import AgentBase

OPTIONS = [
    PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
    PermissionOption(option_id="always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
]


class PermissionCommands(AgentBase):
    cwd: str

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

    async def do_permission_when(self, sid: str, rest: str, text: str) -> None:
        for n in range(5):
            await self.say(sid, f"working {n}\n")
            await asyncio.sleep(0.05)
        while not os.path.exists(rest):
            await asyncio.sleep(0.02)
        response = await self._ask(sid, "tc-gate", announce=True)
        await self.say(sid, json.dumps(response.outcome.model_dump(by_alias=True)))

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
