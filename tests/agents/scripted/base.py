"""What every group of commands uses: the connection, saying text, waiting for a cancel."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from acp.schema import AgentMessageChunk, PromptResponse, TextContentBlock


def chunk(text: str) -> AgentMessageChunk:
    return AgentMessageChunk(
        session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
    )


class AgentBase:
    def __init__(self) -> None:
        self.conn: Any = None
        self.cancelled: dict[str, asyncio.Event] = {}
        self.state_dir = os.environ.get("ACP_FAKE_STATE_DIR")

    def _remember(self, session_id: str, record: dict[str, Any]) -> None:
        if self.state_dir:
            with open(os.path.join(self.state_dir, session_id + ".jsonl"), "a") as f:
                f.write(json.dumps(record) + "\n")

    async def say(self, session_id: str, text: str) -> None:
        self._remember(session_id, {"agent": text})
        await self.conn.session_update(session_id, chunk(text))

    async def wait_cancel(self, session_id: str) -> PromptResponse:
        await self.cancelled.setdefault(session_id, asyncio.Event()).wait()
        return PromptResponse(stop_reason="cancelled")
