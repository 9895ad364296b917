"""Commands that call the client: files, terminals, raw requests and updates."""

from __future__ import annotations

import json
from typing import Any

import acp
from acp.schema import ToolCallProgress, ToolCallStart

from tests.agents.scripted.base import AgentBase


def _dump(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, exclude_none=True)
    return value


class ClientCallCommands(AgentBase):
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
