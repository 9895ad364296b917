"""Commands that stream a reply: echo, flood, slow, burst, showcase."""

from __future__ import annotations

import asyncio
import os

from acp.schema import (
    AgentPlanUpdate,
    AgentThoughtChunk,
    PlanEntry,
    PromptResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
)

from tests.agents.scripted.base import AgentBase

SHOWCASE_REPLY = [
    "## Fixing the greeting\n\n",
    "The greeting was missing a comma. I will:\n\n",
    "1. add type hints,\n2. use an f-string,\n3. run the tests.\n\n",
    '```python\nprint(greet("Ada"))  # Hello, Ada!\n```\n',
]


class StreamCommands(AgentBase):
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

    async def do_slow(self, sid: str, rest: str, text: str) -> PromptResponse | None:
        count, delay = rest.split()
        for n in range(int(count)):
            if self.cancelled[sid].is_set():
                return PromptResponse(stop_reason="cancelled")
            await self.say(sid, f"line {n}\n")
            await asyncio.sleep(float(delay))
        return None

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
