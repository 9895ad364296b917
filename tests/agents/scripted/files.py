"""``steps JSON``: a turn that changes files the ways real agents do.

Each step of the JSON list runs in order; every file step is one tool call
(announced ``in_progress``, then ``completed``) unless it says ``"bare": true``:

    {"fs_write": PATH, "text": T}    fs/write_text_file (the host writes)
    {"write": PATH, "text": T}       the agent writes the file itself (its own tool)
    {"delete": PATH}                 the agent deletes the file itself
    {"run": COMMAND}                 terminal/create (a shell line) .. wait .. release
    {"say": TEXT}                    a message chunk
    {"wait": PATH}                   wait (no tool call running) until PATH exists
    {"sleep": SECONDS}               pause, no tool call running

PATH is relative to the session's cwd, or absolute. The turn ends after the
last step; its reply ends with "steps done".
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from acp.schema import ToolCallProgress, ToolCallStart

from tests.agents.scripted.base import AgentBase


class FileCommands(AgentBase):
    cwd: str

    async def do_steps(self, sid: str, rest: str, text: str) -> None:
        for number, step in enumerate(json.loads(rest)):
            if "say" in step:
                await self.say(sid, step["say"])
            elif "wait" in step:
                while not os.path.exists(self._path(step["wait"])):
                    await asyncio.sleep(0.02)
            elif "sleep" in step:
                await asyncio.sleep(float(step["sleep"]))
            else:
                await self._tool_step(sid, f"step-{number}", step)
        await self.say(sid, "steps done")

    def _path(self, path: str) -> str:
        return os.path.join(self.cwd, path)

    async def _tool_step(self, sid: str, call_id: str, step: dict[str, Any]) -> None:
        bare = step.get("bare") is True
        kind = "execute" if "run" in step else "delete" if "delete" in step else "edit"
        if not bare:
            await self.conn.session_update(
                sid,
                ToolCallStart(
                    session_update="tool_call",
                    tool_call_id=call_id,
                    title=json.dumps(step),
                    kind=kind,
                    status="in_progress",
                ),
            )
        if "fs_write" in step:
            await self.conn.write_text_file(
                content=step["text"], path=self._path(step["fs_write"]), session_id=sid
            )
        elif "write" in step:
            with open(self._path(step["write"]), "w", encoding="utf-8") as f:
                f.write(step["text"])
        elif "delete" in step:
            os.remove(self._path(step["delete"]))
        elif "run" in step:
            created = await self.conn.create_terminal(command=step["run"], session_id=sid)
            tid = created.terminal_id
            await self.conn.wait_for_terminal_exit(session_id=sid, terminal_id=tid)
            await self.conn.release_terminal(session_id=sid, terminal_id=tid)
        if not bare:
            await self.conn.session_update(
                sid,
                ToolCallProgress(
                    session_update="tool_call_update", tool_call_id=call_id, status="completed"
                ),
            )
