"""The agent's questions (ACP elicitation) through a real `acp-tui --headless --stdio`
process and a real ACP agent on the SDK (tests/agents/elicitation_agent.py)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from tests.conftest import TESTS, HeadlessClient
from tests.test_headless import rebuild_text

AGENT = {"command": sys.executable, "args": [str(TESTS / "agents" / "elicitation_agent.py")]}


async def open_session(
    client: HeadlessClient, cwd: Path, env: dict[str, str] | None = None
) -> tuple[str, str]:
    agent = {**AGENT, "env": env} if env else AGENT
    opened = await client.result("connection.open", {"agent": agent, "cwd": str(cwd)})
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    return opened["connectionId"], created["sessionId"]


class Turn:
    """One prompt in flight, and what it brought."""

    def __init__(self, client: HeadlessClient, session_id: str, text: str) -> None:
        self.client = client
        self.session_id = session_id
        self.start = len(client.events)
        self.frame_start = len(client.frames)
        self.response = client.send("session.prompt", {"sessionId": session_id, "text": text})

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self.client.events[self.start :] if kind is None or e["type"] == kind]

    async def event(self, kind: str, **fields: Any) -> dict[str, Any]:
        def matches(e: dict[str, Any]) -> bool:
            return e["type"] == kind and all(e.get(k) == v for k, v in fields.items())

        async def scan() -> dict[str, Any]:
            while True:
                found = [e for e in self.events() if matches(e)]
                if found:
                    return found[0]
                await asyncio.sleep(0.02)

        return await asyncio.wait_for(scan(), 10)

    async def reply(self) -> Any:
        """The agent's reply (JSON) once the turn has ended."""
        frame = await asyncio.wait_for(self.response, 20)
        assert frame["result"] == {"stopReason": "end_turn"}, frame
        return json.loads(rebuild_text(self.events(), self.session_id))

    def frame_index(self, predicate: Any) -> int:
        frames = self.client.frames
        return next(i for i in range(self.frame_start, len(frames)) if predicate(frames[i]))


def event_is(kind: str, **fields: Any) -> Any:
    def check(frame: dict[str, Any]) -> bool:
        event = frame.get("event") or {}
        return bool(event.get("type") == kind and all(event.get(k) == v for k, v in fields.items()))

    return check


async def test_initialize_advertises_both_modes(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    reply = await Turn(client, session_id, "caps").reply()
    assert reply["clientCapabilities"] == {
        "fs": {"readTextFile": True, "writeTextFile": True},
        "terminal": True,
        "elicitation": {"form": {}, "url": {}},
    }


async def test_a_form_question_is_validated_and_the_first_answer_wins(
    headless: Any, tmp_path: Path
) -> None:
    client = await headless()
    connection_id, session_id = await open_session(client, tmp_path)
    turn = Turn(client, session_id, "form")
    asked = await turn.event("elicitation-requested")
    assert asked["sessionId"] == session_id and asked["connectionId"] == connection_id
    assert asked["mode"] == "form" and asked["message"] == "Set up the new project."
    assert asked["agent"] == "Asking agent"  # its agentInfo title: who asks
    properties = asked["requestedSchema"]["properties"]
    assert set(properties) == {
        "name",
        "email",
        "start",
        "ratio",
        "port",
        "logging",
        "color",
        "size",
        "tags",
        "targets",
    }
    assert properties["port"] == {
        "type": "integer",
        "title": "Port",
        "minimum": 1024,
        "maximum": 65535,
    }
    request_id = asked["requestId"]
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    assert [q["requestId"] for q in snapshot["elicitations"]] == [request_id]

    good = {"name": "my-app", "email": "ada@example.org", "port": 8080, "tags": ["web"]}
    bad = await client.call(
        "elicitation.respond",
        {
            "sessionId": session_id,
            "requestId": request_id,
            "action": "accept",
            "content": {**good, "port": 80, "email": "nope"},
        },
    )
    assert bad["error"]["code"] == "invalid_params"
    assert bad["error"]["data"]["fields"] == {
        "port": "Must be from 1024 to 65535.",
        "email": "Must be an email address, like name@example.com.",
    }
    assert "port: Must be from 1024 to 65535." in bad["error"]["message"]
    # Still open: nothing was sent, the snapshot still lists it.
    assert not turn.events("elicitation-resolved")
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    assert [q["requestId"] for q in snapshot["elicitations"]] == [request_id]

    first = client.send(
        "elicitation.respond",
        {"sessionId": session_id, "requestId": request_id, "action": "accept", "content": good},
    )
    second = client.send(
        "elicitation.respond",
        {"sessionId": session_id, "requestId": request_id, "action": "decline"},
    )
    assert (await first)["result"] == {}
    assert (await second)["error"]["code"] == "already_decided"
    resolved = await turn.event("elicitation-resolved")
    assert resolved == {
        "type": "elicitation-resolved",
        "sessionId": session_id,
        "cursor": resolved["cursor"],
        "requestId": request_id,
        "action": "accept",
        "content": good,
        "reason": "answered",
    }
    assert await turn.reply() == {"action": "accept", "content": good}
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    assert "elicitations" not in snapshot


async def test_bad_answers_get_clear_errors(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    turn = Turn(client, session_id, "form")
    request_id = (await turn.event("elicitation-requested"))["requestId"]

    async def code(**params: Any) -> str:
        frame = await client.call("elicitation.respond", {"requestId": request_id, **params})
        return str(frame["error"]["code"])

    assert await code(action="maybe") == "invalid_params"
    assert await code(action="decline", content={"name": "x"}) == "invalid_params"
    assert await code(action="accept", content=[1]) == "invalid_params"
    assert await code(action="accept", content={"nope": 1}) == "invalid_params"
    assert await code(action="decline", sessionId="another") == "not_found"
    assert await code(action="decline", requestId="elic-999") == "not_found"
    assert await code() == "invalid_params"  # no action
    # None of that answered it: the agent still waits, and a good answer is taken.
    assert not turn.events("elicitation-resolved")
    assert (
        await client.result("elicitation.respond", {"requestId": request_id, "action": "decline"})
        == {}
    )
    assert await turn.reply() == {"action": "decline"}


async def test_url_accept_waits_for_elicitation_complete(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    turn = Turn(client, session_id, "url 0.2")
    asked = await turn.event("elicitation-requested")
    assert asked["mode"] == "url" and asked["elicitationId"] == "url-1"
    assert asked["url"] == "https://auth.example.com/connect?state=abc123"
    assert "requestedSchema" not in asked
    request_id = asked["requestId"]
    with_content = await client.call(
        "elicitation.respond",
        {"requestId": request_id, "action": "accept", "content": {"token": "x"}},
    )
    assert with_content["error"]["code"] == "invalid_params"  # a url question takes none
    assert (
        await client.result("elicitation.respond", {"requestId": request_id, "action": "accept"})
        == {}
    )
    resolved = await turn.event("elicitation-resolved")
    assert resolved["action"] == "accept" and resolved["waiting"] is True
    again = await client.call("elicitation.respond", {"requestId": request_id, "action": "cancel"})
    assert again["error"]["code"] == "already_decided"
    completed = await turn.event("elicitation-completed")
    assert completed["requestId"] == request_id and completed["elicitationId"] == "url-1"
    assert completed["reason"] == "agent_completed"
    assert await turn.reply() == {"action": "accept"}


async def test_elicitation_complete_before_any_answer_accepts_it(
    headless: Any, tmp_path: Path
) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    turn = Turn(client, session_id, "url-early")
    request_id = (await turn.event("elicitation-requested"))["requestId"]
    resolved = await turn.event("elicitation-resolved")
    assert resolved["reason"] == "agent_completed" and resolved["action"] == "accept"
    assert "waiting" not in resolved
    assert await turn.reply() == {"action": "accept"}
    late = await client.call("elicitation.respond", {"requestId": request_id, "action": "accept"})
    assert late["error"]["code"] == "already_decided"


async def test_a_question_withdrawn_with_cancel_request_closes(
    headless: Any, tmp_path: Path
) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    turn = Turn(client, session_id, "withdraw 0.3")
    request_id = (await turn.event("elicitation-requested"))["requestId"]
    resolved = await turn.event("elicitation-resolved")
    assert resolved["action"] == "cancel" and resolved["reason"] == "agent_cancelled"
    assert await turn.reply() == {"result": {"action": "cancel"}}
    late = await client.call("elicitation.respond", {"requestId": request_id, "action": "accept"})
    assert late["error"]["code"] == "already_decided"


async def test_the_end_of_the_turn_closes_its_questions(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    # The agent asks, then ends its turn without waiting for the answer.
    turn = Turn(client, session_id, "abandon")
    request_id = (await turn.event("elicitation-requested"))["requestId"]
    assert await turn.reply() == {"earlier": None}
    closed_at = turn.frame_index(event_is("elicitation-resolved", requestId=request_id))
    idle_at = turn.frame_index(event_is("status-changed", status="idle"))
    assert closed_at < idle_at  # closed before the turn's end is reported
    assert client.frames[closed_at]["event"]["reason"] == "turn_ended"
    # The agent got "cancel" for it (it says so in its next reply).
    assert await Turn(client, session_id, "abandon").reply() == {
        "earlier": {"result": {"action": "cancel"}}
    }
    # A url question accepted and never completed closes with its turn too.
    turn = Turn(client, session_id, "url-wait")
    request_id = (await turn.event("elicitation-requested"))["requestId"]
    await client.result("elicitation.respond", {"requestId": request_id, "action": "accept"})
    assert await turn.reply() == {"action": "accept"}
    completed = await turn.event("elicitation-completed", requestId=request_id)
    assert completed["reason"] == "turn_ended"


async def test_cancelling_the_turn_cancels_its_question(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    schema = {"type": "object", "properties": {"x": {"type": "boolean"}}}
    turn = Turn(client, session_id, "ask " + json.dumps(schema))
    request_id = (await turn.event("elicitation-requested"))["requestId"]
    await client.result("session.cancel", {"sessionId": session_id})
    resolved = await turn.event("elicitation-resolved", requestId=request_id)
    assert resolved["action"] == "cancel" and resolved["reason"] == "turn_cancelled"
    assert await turn.reply() == {"result": {"action": "cancel"}}


async def test_a_question_after_the_cancel_is_closed_as_it_comes(
    headless: Any, tmp_path: Path
) -> None:
    # No checkpoint before the turn: the agent has the prompt when "running" comes.
    config = tmp_path / "config.toml"
    config.write_text("[checkpoints]\nenabled = false\n")
    client = await headless(ACP_TUI_CONFIG=str(config))
    _, session_id = await open_session(client, tmp_path)
    turn = Turn(client, session_id, "ask-after-cancel")
    await turn.event("status-changed", status="running")
    await client.result("session.cancel", {"sessionId": session_id})
    asked = await turn.event("elicitation-requested")
    resolved = await turn.event("elicitation-resolved", requestId=asked["requestId"])
    assert resolved["action"] == "cancel" and resolved["reason"] == "turn_cancelled"
    frame = await asyncio.wait_for(turn.response, 20)
    assert frame["result"] == {"stopReason": "end_turn"}
    assert json.loads(rebuild_text(turn.events(), session_id)) == {"result": {"action": "cancel"}}


async def test_a_schema_no_form_can_show_is_refused_at_once(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    reply = await Turn(client, session_id, 'ask {"type": "string"}').reply()
    assert reply["error"]["code"] == -32602
    assert "requestedSchema" in reply["error"]["message"]
    huge = {"type": "object", "properties": {f"f{n}": {"type": "boolean"} for n in range(101)}}
    reply = await Turn(client, session_id, "ask " + json.dumps(huge)).reply()
    assert reply["error"] == {"code": -32602, "message": "the form has over 100 fields"}
    assert not [e for e in client.events if e["type"] == "elicitation-requested"]


async def test_a_request_scoped_question_belongs_to_the_session_of_its_request(
    headless: Any, tmp_path: Path
) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    turn = Turn(client, session_id, "request-scoped")
    asked = await turn.event("elicitation-requested")
    assert asked["sessionId"] == session_id
    await client.result(
        "elicitation.respond",
        {"sessionId": session_id, "requestId": asked["requestId"], "action": "decline"},
    )
    assert await turn.reply() == {"result": {"action": "decline"}}


async def test_a_question_during_session_new_has_no_session_yet(
    headless: Any, tmp_path: Path
) -> None:
    client = await headless()
    agent = {**AGENT, "env": {"ELICIT_ON_NEW": "1"}}
    opened = await client.result("connection.open", {"agent": agent, "cwd": str(tmp_path)})
    creating = client.send("session.create", {"connectionId": opened["connectionId"]})
    asked = await client.wait_event(lambda e: e["type"] == "elicitation-requested")
    assert "sessionId" not in asked and asked["connectionId"] == opened["connectionId"]
    assert asked["message"] == "Which workspace should this session use?"
    assert not creating.done()  # session/new waits for the answer
    await client.result(
        "elicitation.respond",
        {"requestId": asked["requestId"], "action": "accept", "content": {"answer": "main"}},
    )
    session_id = (await asyncio.wait_for(creating, 20))["result"]["sessionId"]
    reply = await Turn(client, session_id, "caps").reply()
    assert reply["onNew"] == {"action": "accept", "content": {"answer": "main"}}


async def test_requests_we_do_not_implement_get_method_not_found(
    headless: Any, tmp_path: Path
) -> None:
    client = await headless()
    _, session_id = await open_session(client, tmp_path)
    reply = await Turn(client, session_id, "unknown").reply()
    assert reply == {"x/not_a_method": -32601, "_vendor/ext": -32601, "mcp/connect": -32601}


async def test_closing_the_connection_closes_its_questions(headless: Any, tmp_path: Path) -> None:
    client = await headless()
    connection_id, session_id = await open_session(client, tmp_path)
    turn = Turn(client, session_id, "form")
    request_id = (await turn.event("elicitation-requested"))["requestId"]
    await client.result("connection.close", {"connectionId": connection_id})
    resolved = await turn.event("elicitation-resolved", requestId=request_id)
    assert resolved["reason"] == "closed" and resolved["action"] == "cancel"
    late = await client.call("elicitation.respond", {"requestId": request_id, "action": "accept"})
    assert late["error"]["code"] == "already_decided"
