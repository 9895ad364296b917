"""A fake ACP agent that reports the content blocks of each prompt it receives.

It advertises ``promptCapabilities`` from the environment (both true unless
set to ``0``): ``ECHO_EMBEDDED`` (embeddedContext) and ``ECHO_IMAGE`` (image).
Each prompt is answered with one message chunk: the JSON list of the blocks as
received (text of ``resource`` blocks and image ``data`` included), and the
same JSON is appended as one line to the file ``ECHO_BLOCKS_FILE`` when set.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import acp
from acp.schema import (
    AgentCapabilities,
    AgentMessageChunk,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    TextContentBlock,
)


class EchoBlocksAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.sessions = 0

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                prompt_capabilities=PromptCapabilities(
                    embedded_context=os.environ.get("ECHO_EMBEDDED", "1") != "0",
                    image=os.environ.get("ECHO_IMAGE", "1") != "0",
                )
            ),
            agent_info=Implementation(name="echo-blocks", version="1"),
            auth_methods=[],
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        self.sessions += 1
        return NewSessionResponse(session_id=f"e{self.sessions}")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        blocks = [block.model_dump(by_alias=True, exclude_none=True) for block in prompt]
        line = json.dumps(blocks)
        path = os.environ.get("ECHO_BLOCKS_FILE")
        if path:
            with open(path, "a", encoding="utf-8") as f:
                f.write(line + "\n")
        await self.conn.session_update(
            session_id,
            AgentMessageChunk(
                session_update="agent_message_chunk",
                content=TextContentBlock(type="text", text=line),
            ),
        )
        return PromptResponse(stop_reason="end_turn")


def main() -> None:
    asyncio.run(acp.run_agent(EchoBlocksAgent()))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
