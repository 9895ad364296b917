"""A hostile ACP agent on the SDK: escape codes in every string it controls,
huge single chunks, floods, lone surrogates, frames nested too deep.

Every string it controls is ``hostile(TAG)``: an OSC that would set the
window title to PWNED, TAG in bold red, a BEL, a C1 CSI that would clear the
screen, a bidi override. Shown safely, it reads ``TAG␇�2J�`` and "PWNED"
never reaches the terminal. Its agentInfo, modes and config options are
hostile from the start. Each prompt's first line is a command:

    strings              title, plan, commands (+ one with a control char in
                         its name), tool call (title, locations, text, diff,
                         raw input), config and usage (cost) updates, a line on
                         stderr, then a permission request with hostile
                         options; replies with the outcome
    fail                 answer the prompt with an error (hostile message)
    die-loud             write a hostile line to stderr, then exit 3
    bad-updates N        N malformed session/updates (each one an error)
    stderr-flood N       N separate lines on stderr
    huge N [MODE]        one message chunk of N characters without a line
                         break, ending in END-OF-CHUNK (MODE "words": lorem
                         ipsum; "solid": no space)
    huge-tool N          a tool call whose text content is N characters
    chunks N SIZE        N message chunks of SIZE characters each
    surrogate            an emoji split into two chunks: "\\ud83d", "\\ude00"
    deep N               a session/update, then a request, nested N deep
                         (raw frames); then "still here"
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import acp
from acp.schema import (
    AgentCapabilities,
    AgentMessageChunk,
    AgentPlanUpdate,
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    Cost,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PlanEntry,
    PromptResponse,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionInfoUpdate,
    SessionMode,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    TextContentBlock,
    ToolCallLocation,
    ToolCallStart,
    ToolCallUpdate,
    UnstructuredCommandInput,
    UsageUpdate,
)


def hostile(tag: str) -> str:
    """``tag`` wrapped in what a terminal would obey if it were written raw."""
    return f"\x1b]0;PWNED\x07\x1b[1;31m{tag}\x1b[0m\x07\x9b2J\u202e"


#: How each hostile string looks once made safe.
def shown(tag: str) -> str:
    return f"{tag}␇\ufffd2J\ufffd"


def chunk(text: str) -> AgentMessageChunk:
    return AgentMessageChunk(
        session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
    )


class HostileAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.sessions = 0
        self.model = "fast"

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(
                name=hostile("agent"), title=hostile("agent"), version=hostile("v1")
            ),
        )

    def config_options(self) -> list[SessionConfigOptionSelect]:
        return [
            SessionConfigOptionSelect(
                type="select",
                id="model",
                name=hostile("cfg"),
                category="model",
                current_value=self.model,
                options=[
                    SessionConfigSelectOption(
                        value="fast", name=hostile("fast"), description=hostile("fast-desc")
                    ),
                    SessionConfigSelectOption(value="smart", name=hostile("smart")),
                ],
            )
        ]

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        self.sessions += 1
        return NewSessionResponse(
            session_id=f"h{self.sessions}",
            config_options=self.config_options(),
            modes=SessionModeState(
                current_mode_id="ask",
                available_modes=[
                    SessionMode(id="ask", name=hostile("mode-ask"), description=hostile("mdesc")),
                    SessionMode(id="auto", name=hostile("mode-auto")),
                ],
            ),
        )

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        self.model = str(value)
        return SetSessionConfigOptionResponse(config_options=self.config_options())

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None

    async def update(self, sid: str, update: Any) -> None:
        await self.conn.session_update(sid, update)

    async def raw(self, message: dict[str, Any] | bytes) -> None:
        """Write one frame ourselves (in order: the SDK's own sends are done)."""
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        writer = self.conn._conn._transport._sender._writer
        writer.write(data + b"\n")
        await writer.drain()

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt)
        line = text.splitlines()[0] if text else ""
        command, _, rest = line.partition(" ")
        handler = getattr(self, "do_" + command.replace("-", "_"), None)
        if handler is None:
            await self.update(session_id, chunk(f"unknown command {command!r}"))
        else:
            await handler(session_id, rest)
        return PromptResponse(stop_reason="end_turn")

    # -- commands ------------------------------------------------------------

    async def do_strings(self, sid: str, rest: str) -> None:
        await self.update(
            sid, SessionInfoUpdate(session_update="session_info_update", title=hostile("title"))
        )
        await self.update(
            sid,
            AgentPlanUpdate(
                session_update="plan",
                entries=[
                    PlanEntry(content=hostile("plan-1"), priority="high", status="in_progress"),
                    PlanEntry(content=hostile("plan-2"), priority="low", status="pending"),
                ],
            ),
        )
        await self.update(
            sid,
            AvailableCommandsUpdate(
                session_update="available_commands_update",
                available_commands=[
                    AvailableCommand(
                        name="review",
                        description=hostile("cmd-desc"),
                        input=AvailableCommandInput(
                            root=UnstructuredCommandInput(hint=hostile("hint"))
                        ),
                    ),
                    AvailableCommand(name="\x1b[31mevil", description="cannot be typed"),
                ],
            ),
        )
        await self.update(
            sid,
            ConfigOptionUpdate(
                session_update="config_option_update", config_options=self.config_options()
            ),
        )
        await self.update(
            sid,
            UsageUpdate(
                session_update="usage_update",
                used=1200,
                size=200_000,
                cost=Cost(amount=0.5, currency=hostile("usd")),
            ),
        )
        await self.update(
            sid,
            ToolCallStart(
                session_update="tool_call",
                tool_call_id="hostile-1",
                title=hostile("tool"),
                kind="edit",
                status="pending",
                locations=[ToolCallLocation(path="/tmp/" + hostile("loc"), line=3)],
                content=[
                    {"type": "content", "content": {"type": "text", "text": hostile("tool-text")}},
                    {
                        "type": "diff",
                        "path": "/tmp/" + hostile("diff-path"),
                        "oldText": "a\n",
                        "newText": hostile("diff-line") + "\n",
                    },
                ],
                raw_input={"command": hostile("raw")},
            ),
        )
        sys.stderr.write(hostile("stderr") + "\n")
        sys.stderr.flush()
        response = await self.conn.request_permission(
            session_id=sid,
            tool_call=ToolCallUpdate(tool_call_id="hostile-1"),
            options=[
                PermissionOption(option_id="allow", name=hostile("opt-allow"), kind="allow_once"),
                PermissionOption(option_id="no", name=hostile("opt-reject"), kind="reject_once"),
            ],
        )
        outcome = response.outcome.model_dump(by_alias=True)
        await self.update(sid, chunk(hostile("reply") + " " + json.dumps(outcome)))

    async def do_fail(self, sid: str, rest: str) -> None:
        raise acp.RequestError(-32603, hostile("error"))

    async def do_die_loud(self, sid: str, rest: str) -> None:
        sys.stderr.write(hostile("stderr-last") + "\n")
        sys.stderr.flush()
        await asyncio.sleep(0.05)
        os._exit(3)

    async def do_bad_updates(self, sid: str, rest: str) -> None:
        for n in range(int(rest)):
            # A tool_call_update without its toolCallId: malformed, one error each.
            await self.conn._conn.send_notification(
                "session/update",
                {"sessionId": sid, "update": {"sessionUpdate": "tool_call_update", "n": n}},
            )
        await self.update(sid, chunk("sent"))

    async def do_stderr_flood(self, sid: str, rest: str) -> None:
        for n in range(int(rest)):
            sys.stderr.write(f"line {n}\n")
            sys.stderr.flush()
            if n % 50 == 0:
                await asyncio.sleep(0)
        await self.update(sid, chunk("flooded"))

    async def do_huge(self, sid: str, rest: str) -> None:
        size, _, mode = rest.partition(" ")
        count = int(size)
        if mode == "solid":
            pattern = "abcdefghijklmnopqrstuvwxyz0123456789"
        else:
            pattern = "lorem ipsum dolor sit amet "
        end = "END-OF-CHUNK"
        text = (pattern * (count // len(pattern) + 1))[: max(count - len(end), 0)] + end
        await self.update(sid, chunk(text))

    async def do_huge_tool(self, sid: str, rest: str) -> None:
        text = ("tool output " * (int(rest) // 12 + 1))[: int(rest)]
        await self.update(
            sid,
            ToolCallStart(
                session_update="tool_call",
                tool_call_id="huge-tool",
                title="Read a huge file",
                kind="read",
                status="completed",
                content=[{"type": "content", "content": {"type": "text", "text": text}}],
            ),
        )

    async def do_chunks(self, sid: str, rest: str) -> None:
        count, size = (int(part) for part in rest.split())
        for n in range(count):
            text = (f"[{n}] " + "x" * size)[:size]
            await self.update(sid, chunk(text))

    async def do_surrogate(self, sid: str, rest: str) -> None:
        # The SDK writes these as \\ud83d and \\ude00 escapes: lone surrogates.
        await self.update(sid, chunk("split \ud83d"))
        await self.update(sid, chunk("\ude00 emoji"))

    async def do_deep(self, sid: str, rest: str) -> None:
        depth = int(rest)
        nested = b"[" * depth + b"]" * depth
        await self.raw(
            b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"'
            + sid.encode()
            + b'","update":'
            + nested
            + b"}}"
        )
        await self.raw(
            b'{"jsonrpc":"2.0","id":"deep-1","method":"fs/read_text_file","params":' + nested + b"}"
        )
        await self.update(sid, chunk("still here"))


def main() -> None:
    asyncio.run(acp.run_agent(HostileAgent()))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
