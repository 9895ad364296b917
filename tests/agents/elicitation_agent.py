"""An ACP agent on the SDK that asks the user questions (``elicitation/create``).

Each prompt's first word is a command; the agent does exactly that and
replies with one message chunk, the JSON of what it got back:

    form                  a form with every field type (strings with a format,
                          a length, a pattern; a number and an integer with
                          bounds; a boolean; single and multiple choices, with
                          and without titles; defaults); reply the answer
    ask JSON              a form with the requestedSchema JSON; reply the answer
                          or the error
    url [DELAY]           a url question (elicitationId "url-1"); once accepted,
                          DELAY seconds later (default 1) send elicitation/complete;
                          reply the answer
    url-when PATH         the same, elicitation/complete once the file PATH exists
    url-early             a url question; 0.3 s later, without an answer yet,
                          send elicitation/complete; reply the answer
    url-wait              a url question; once accepted, end the turn (never
                          send elicitation/complete)
    withdraw [DELAY]      a form question, withdrawn with $/cancel_request DELAY
                          seconds later (default 0.3); reply the answer
    withdraw-when PATH    the same, withdrawn once the file PATH exists
    request-scoped        a form question tied to this session/prompt request
                          (requestId, no sessionId); reply the answer
    abandon               a form question, then end the turn without waiting
                          for it; the answer it got comes in the next reply
    ask-after-cancel      wait for session/cancel, then ask a form question
                          anyway; reply the answer
    unknown               send three requests no client implements (one with
                          no sessionId, an extension method, mcp/connect) and
                          reply their error codes, then end the turn
    caps                  reply the clientCapabilities received in initialize
    echo WORDS            reply WORDS

With ELICIT_ON_NEW=1, ``session/new`` first asks a question tied to itself
(requestId: the session/new request, no session yet) and answers once the
question has its answer; the answer is reported by ``caps``.
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
    ElicitationFormSessionMode,
    ElicitationSchema,
    ElicitationUrlSessionMode,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    TextContentBlock,
)

EVERY_FIELD: dict[str, Any] = {
    "type": "object",
    "title": "Project setup",
    "properties": {
        "name": {
            "type": "string",
            "title": "Project name",
            "description": "Letters and dashes",
            "minLength": 3,
            "maxLength": 20,
            "pattern": "^[a-z-]+$",
            "default": "my-app",
        },
        "email": {"type": "string", "title": "Email", "format": "email"},
        "start": {"type": "string", "title": "Start date", "format": "date"},
        "ratio": {"type": "number", "title": "Ratio", "minimum": 0, "maximum": 1, "default": 0.5},
        "port": {"type": "integer", "title": "Port", "minimum": 1024, "maximum": 65535},
        "logging": {"type": "boolean", "title": "Enable logging", "default": True},
        "color": {"type": "string", "title": "Color", "enum": ["red", "green", "blue"]},
        "size": {
            "type": "string",
            "title": "Size",
            "oneOf": [
                {"const": "s", "title": "Small"},
                {"const": "m", "title": "Medium"},
                {"const": "l", "title": "Large"},
            ],
            "default": "m",
        },
        "tags": {
            "type": "array",
            "title": "Tags",
            "items": {"type": "string", "enum": ["web", "cli", "lib"]},
            "minItems": 1,
            "default": ["cli"],
        },
        "targets": {
            "type": "array",
            "title": "Targets",
            "items": {
                "anyOf": [
                    {"const": "linux", "title": "Linux"},
                    {"const": "mac", "title": "macOS"},
                ]
            },
            "maxItems": 2,
        },
    },
    "required": ["name", "email", "port"],
}
SMALL: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "title": "Answer"}},
    "required": ["answer"],
}


def chunk(text: str) -> AgentMessageChunk:
    return AgentMessageChunk(
        session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
    )


def dump(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


class ElicitationAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.sessions = 0
        #: As the client sent them (raw, not through the SDK's defaults).
        self.client_capabilities: Any = None
        #: The JSON-RPC id of the session/prompt (and session/new) being handled.
        self.prompt_rpc: dict[str, Any] = {}
        self.new_rpc: Any = None
        self.on_new_answer: Any = None
        self.abandoned: asyncio.Future[Any] | None = None
        self.cancelled: dict[str, asyncio.Event] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    def observe(self, event: Any) -> None:
        """Sees every incoming message before it is handled (the SDK's observer)."""
        message = event.message
        if event.direction.value != "incoming" or "id" not in message:
            return
        if message.get("method") == "initialize":
            self.client_capabilities = message["params"].get("clientCapabilities")
        elif message.get("method") == "session/prompt":
            self.prompt_rpc[message["params"]["sessionId"]] = message["id"]
        elif message.get("method") == "session/new":
            self.new_rpc = message["id"]

    @property
    def raw(self) -> Any:
        return self.conn._conn  # the SDK's Connection: requests by hand

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(name="elicitation", title="Asking agent", version="1"),
            auth_methods=[],
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        self.sessions += 1
        if os.environ.get("ELICIT_ON_NEW") == "1":
            self.on_new_answer = await self.raw.send_request(
                "elicitation/create",
                {
                    "requestId": self.new_rpc,
                    "mode": "form",
                    "message": "Which workspace should this session use?",
                    "requestedSchema": SMALL,
                },
            )
        return NewSessionResponse(session_id=f"q{self.sessions}")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancelled.setdefault(session_id, asyncio.Event()).set()

    async def say(self, session_id: str, text: str) -> None:
        await self.conn.session_update(session_id, chunk(text))

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt).strip()
        command, _, rest = text.partition(" ")
        handler = getattr(self, "do_" + command.replace("-", "_"), None)
        if handler is None:
            await self.say(session_id, f"unknown command {command!r}")
        else:
            reply = await handler(session_id, rest.strip())
            if reply is not None:
                await self.say(session_id, json.dumps(reply))
        return PromptResponse(stop_reason="end_turn")

    # -- the commands ------------------------------------------------------------

    async def do_echo(self, sid: str, rest: str) -> Any:
        return rest

    async def do_caps(self, sid: str, rest: str) -> Any:
        return {"clientCapabilities": self.client_capabilities, "onNew": self.on_new_answer}

    async def do_form(self, sid: str, rest: str) -> Any:
        mode = ElicitationFormSessionMode(
            session_id=sid, requested_schema=ElicitationSchema.model_validate(EVERY_FIELD)
        )
        answer = await self.conn.create_elicitation("Set up the new project.", mode)
        return dump(answer)

    async def do_ask(self, sid: str, rest: str) -> Any:
        params = {
            "sessionId": sid,
            "mode": "form",
            "message": "A question",
            "requestedSchema": json.loads(rest),
        }
        return await self._call("elicitation/create", params)

    async def _call(self, method: str, params: Any) -> Any:
        try:
            return {"result": await self.raw.send_request(method, params)}
        except acp.RequestError as exc:
            return {"error": {"code": exc.code, "message": str(exc)}}

    def _url_mode(self, sid: str, elicitation_id: str = "url-1") -> ElicitationUrlSessionMode:
        return ElicitationUrlSessionMode(
            session_id=sid,
            elicitation_id=elicitation_id,
            url="https://auth.example.com/connect?state=abc123",
        )

    async def do_url(self, sid: str, rest: str, until: Any = None) -> Any:
        delay = float(rest) if rest else 1.0
        message = "Sign in to Example to let the agent read your repositories."
        answer = await self.conn.create_elicitation(message, self._url_mode(sid))
        if answer.action == "accept":
            await (until if until is not None else asyncio.sleep(delay))
            await self.conn.complete_elicitation(elicitation_id="url-1")
        return dump(answer)

    async def do_url_when(self, sid: str, rest: str) -> Any:
        return await self.do_url(sid, "", until=_exists(rest))

    async def do_url_early(self, sid: str, rest: str) -> Any:
        asking = asyncio.ensure_future(
            self.conn.create_elicitation("Sign in to Example.", self._url_mode(sid, "url-2"))
        )
        await asyncio.sleep(0.3)
        await self.conn.complete_elicitation(elicitation_id="url-2")
        return dump(await asyncio.wait_for(asking, 10))

    async def do_url_wait(self, sid: str, rest: str) -> Any:
        answer = await self.conn.create_elicitation("Sign in to Example.", self._url_mode(sid))
        return dump(answer)

    async def do_withdraw_when(self, sid: str, rest: str) -> Any:
        return await self.do_withdraw(sid, "", until=_exists(rest))

    async def do_withdraw(self, sid: str, rest: str, until: Any = None) -> Any:
        delay = float(rest) if rest else 0.3
        request_id = self.raw._next_request_id
        asking = asyncio.ensure_future(
            self._call(
                "elicitation/create",
                {
                    "sessionId": sid,
                    "mode": "form",
                    "message": "This question will be withdrawn.",
                    "requestedSchema": SMALL,
                },
            )
        )
        await (until if until is not None else asyncio.sleep(delay))
        await self.raw.send_notification("$/cancel_request", {"requestId": request_id})
        return await asyncio.wait_for(asking, 10)

    async def do_request_scoped(self, sid: str, rest: str) -> Any:
        params = {
            "requestId": self.prompt_rpc[sid],
            "mode": "form",
            "message": "A question tied to this prompt.",
            "requestedSchema": SMALL,
        }
        return await self._call("elicitation/create", params)

    async def do_abandon(self, sid: str, rest: str) -> Any:
        earlier = self.abandoned
        params = {
            "sessionId": sid,
            "mode": "form",
            "message": "Nobody waits for this answer.",
            "requestedSchema": SMALL,
        }
        self.abandoned = asyncio.ensure_future(self._call("elicitation/create", params))
        await asyncio.sleep(0.2)
        return {"earlier": await asyncio.wait_for(earlier, 10) if earlier else None}

    async def do_ask_after_cancel(self, sid: str, rest: str) -> Any:
        cancelled = self.cancelled.setdefault(sid, asyncio.Event())
        cancelled.clear()
        await cancelled.wait()
        params = {
            "sessionId": sid,
            "mode": "form",
            "message": "Asked after the cancel.",
            "requestedSchema": SMALL,
        }
        return await self._call("elicitation/create", params)

    async def do_unknown(self, sid: str, rest: str) -> Any:
        calls = [
            ("x/not_a_method", {"anything": 1}),
            ("_vendor/ext", {"sessionId": sid}),
            ("mcp/connect", {"sessionId": sid, "serverId": "s"}),
        ]
        codes = {}
        for method, params in calls:
            reply = await asyncio.wait_for(self._call(method, params), 10)
            codes[method] = reply.get("error", {}).get("code")
        return codes


async def _exists(path: str) -> None:
    while not os.path.exists(path):
        await asyncio.sleep(0.02)


def main() -> None:
    agent = ElicitationAgent()
    asyncio.run(acp.run_agent(agent, observers=[agent.observe]))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
