"""A subagent's turn, as claude-agent-acp sends one: a "Task" tool call, then the
subagent's own tool calls, each naming the Task in ``_meta.claudeCode.parentToolUseId``."""

from __future__ import annotations

import json
import os
from typing import Any

from acp.schema import ToolCallProgress, ToolCallStart, ToolCallUpdate

from tests.agents.scripted.base import AgentBase
from tests.agents.scripted.permissions import OPTIONS

TASK_ID = "task-1"
#: The subagent's tool calls: (id, title, kind).
CHILDREN = [
    ("sub-read", "Read tests/conftest.py", "read"),
    ("sub-run", "Run pytest -q", "execute"),
    ("sub-edit", "Edit notes.md", "edit"),
]
NOTE = "# Notes\n\nThe tests use real agents.\n"


def under(parent: str) -> dict[str, Any]:
    """The ``_meta`` of a tool call the subagent of tool call ``parent`` makes."""
    return {"claudeCode": {"parentToolUseId": parent}}


def _text(text: str) -> dict[str, Any]:
    return {"type": "content", "content": {"type": "text", "text": text}}


class SubagentCommands(AgentBase):
    cwd: str

    async def _child(self, sid: str, tool_call_id: str, **fields: Any) -> None:
        await self.conn.session_update(
            sid,
            ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=tool_call_id,
                field_meta=under(TASK_ID),
                **fields,
            ),
        )

    async def do_subagent(self, sid: str, rest: str, text: str) -> None:
        """A Task whose subagent reads a file (running until the edit is
        answered), runs a command that fails, and asks to edit a file; then the
        Task completes. Replies with the permission's outcome as JSON."""
        await self.conn.session_update(
            sid,
            ToolCallStart(
                session_update="tool_call",
                tool_call_id=TASK_ID,
                title="Task: Explore the tests",
                kind="think",
                status="in_progress",
                raw_input={"description": "Explore the tests", "subagent_type": "Explore"},
            ),
        )
        notes = os.path.join(self.cwd, "notes.md")
        edit: dict[str, Any] = {
            "locations": [{"path": notes}],
            "content": [{"type": "diff", "path": notes, "oldText": "# Notes\n", "newText": NOTE}],
        }
        for tool_call_id, title, kind in CHILDREN:
            call = ToolCallStart(
                session_update="tool_call",
                tool_call_id=tool_call_id,
                title=title,
                kind=kind,
                status="pending" if kind == "edit" else "in_progress",
                field_meta=under(TASK_ID),
                **(edit if kind == "edit" else {}),
            )
            await self.conn.session_update(sid, call)
        await self._child(
            sid, "sub-run", status="failed", content=[_text("1 failed, 41 passed in 2.3s")]
        )
        response = await self.conn.request_permission(
            session_id=sid,
            tool_call=ToolCallUpdate(tool_call_id="sub-edit", title="Edit notes.md"),
            options=OPTIONS,
        )
        outcome = response.outcome.model_dump(by_alias=True)
        allowed = outcome.get("optionId") in ("allow", "always")
        await self._child(sid, "sub-read", status="completed", content=[_text("42 lines")])
        if allowed:  # (rejected: the client says so)
            await self._child(sid, "sub-edit", status="completed")
        await self.conn.session_update(
            sid,
            ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=TASK_ID,
                status="completed",
                content=[_text("The tests run real agents over real pipes.")],
            ),
        )
        await self.say(sid, json.dumps(outcome))
