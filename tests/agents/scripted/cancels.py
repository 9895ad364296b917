"""Commands that wait for a cancel, and answer it well or badly."""

from __future__ import annotations

import asyncio

from acp.schema import PromptResponse

from tests.agents.scripted.base import AgentBase, chunk


class CancelCommands(AgentBase):
    async def do_hang(self, sid: str, rest: str, text: str) -> PromptResponse:
        return await self.wait_cancel(sid)

    async def do_late_cancel(self, sid: str, rest: str, text: str) -> PromptResponse:
        await self.wait_cancel(sid)
        await asyncio.sleep(float(rest))
        return PromptResponse(stop_reason="cancelled")

    async def do_talk_after_cancel(self, sid: str, rest: str, text: str) -> PromptResponse:
        await self.wait_cancel(sid)
        await asyncio.sleep(float(rest))
        await self.conn.session_update(sid, chunk("late words"))
        await asyncio.sleep(0.2)
        return PromptResponse(stop_reason="cancelled")

    async def do_ignore_cancel(self, sid: str, rest: str, text: str) -> PromptResponse:
        await asyncio.Event().wait()
        raise AssertionError
