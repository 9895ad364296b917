"""The built-in demo agent's turns: initialize, sessions and modes, streamed
replies over several turns, the plan and the tour, cancelling, and how a prompt
is routed.

Every test but the routing ones spawns ``python -m acp_tui.agents.demo`` and talks
to it through the recording client of tests/demo_agent_client.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.schema import ResourceContentBlock

from acp_tui import __version__
from acp_tui.agents import demo_script
from tests.demo_agent_client import RecordingClient, ask, assert_markdown, demo, guard, new_session

# -- initialize, sessions, modes ------------------------------------------------------------


async def test_initialize_and_new_session(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, init):
        assert init.protocol_version == 1
        assert init.agent_info.name == "acp-tui-demo"
        assert init.agent_info.title == "acp-tui demo agent"
        assert init.agent_info.version == __version__
        assert init.agent_capabilities.load_session is False
        assert init.agent_capabilities.prompt_capabilities.embedded_context is True
        assert init.agent_capabilities.prompt_capabilities.image is False
        assert init.auth_methods == []
        response = await guard(conn.new_session(cwd=str(tmp_path), mcp_servers=[]))
        assert response.session_id
        assert response.modes.current_mode_id == "ask"
        modes = {mode.id: mode.name for mode in response.modes.available_modes}
        assert modes == {"ask": "Ask before edits", "auto": "Auto-accept edits"}


async def test_available_commands_follow_new_session(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    frames: list[dict[str, Any]] = []
    async with demo(client, frames=frames) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await client.wait_until(lambda: bool(client.of(session_id, "available_commands_update")))
    [update] = client.of(session_id, "available_commands_update")
    commands = {command.name: command for command in update.available_commands}
    assert set(commands) == {"tour", "read", "edit", "run", "plan", "help"}
    assert commands["read"].input is not None and commands["run"].input is not None
    assert commands["tour"].input is None
    response_at = next(i for i, f in enumerate(frames) if "sessionId" in f.get("result", {}))
    update_at = next(
        i
        for i, f in enumerate(frames)
        if f.get("params", {}).get("update", {}).get("sessionUpdate") == "available_commands_update"
    )
    assert response_at < update_at


async def test_set_mode_sends_current_mode_update(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await guard(conn.set_session_mode(session_id=session_id, mode_id="auto"))
        await client.wait_until(lambda: bool(client.of(session_id, "current_mode_update")))
        assert [u.current_mode_id for u in client.of(session_id, "current_mode_update")] == ["auto"]
        with pytest.raises(RequestError) as error:
            await guard(conn.set_session_mode(session_id=session_id, mode_id="yolo"))
        assert error.value.code == -32602


# -- streaming and multi-turn ---------------------------------------------------------------


async def test_plain_prompt_streams_thought_then_markdown(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        assert await ask(conn, session_id, "What can you do?") == "end_turn"
    chunks = [
        u
        for u in client.of(session_id)
        if u.session_update in ("agent_thought_chunk", "agent_message_chunk")
    ]
    thoughts = [u for u in chunks if u.session_update == "agent_thought_chunk"]
    messages = [u for u in chunks if u.session_update == "agent_message_chunk"]
    assert 2 <= len(thoughts) <= 3
    assert chunks[: len(thoughts)] == thoughts  # the thought comes first
    assert len({u.message_id for u in thoughts}) == 1
    assert len(messages) > 20  # a few words per chunk
    assert len({u.message_id for u in messages}) == 1
    assert None not in {u.message_id for u in messages}
    text = client.text(session_id)
    assert_markdown(text)
    assert "```python" in text
    assert "What can you do?" in text


async def test_second_prompt_mentions_the_first(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "What can you do?")
        first = client.text(session_id)
        await ask(conn, session_id, "hello")  # not a tour: only the first prompt greets
        second = client.text(session_id)[len(first) :]
    assert "Last time" not in first
    assert "Last time you asked about “What can you do?”" in second
    assert not client.tool_calls(session_id)


async def test_resource_links_are_mentioned_by_name(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    link = ResourceContentBlock(type="resource_link", name="notes.txt", uri="file:///x/notes.txt")
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "Look at this", link)
    assert "`notes.txt`" in client.text(session_id)


async def test_same_prompt_gives_the_same_text(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        first = await new_session(conn, tmp_path)
        second = await new_session(conn, tmp_path)
        await ask(conn, first, "Tell me about ACP")
        await ask(conn, second, "Tell me about ACP")
    assert client.text(first) == client.text(second)
    assert client.text(first, "agent_thought_chunk") == client.text(second, "agent_thought_chunk")


async def test_tour_is_deterministic_across_fresh_workspaces(tmp_path: Path) -> None:
    texts = []
    for name in ("one", "two"):
        root = tmp_path / name
        root.mkdir()
        (root / "README.md").write_text("# Project\n\nHello.\n", encoding="utf-8")
        client = RecordingClient(root)
        async with demo(client) as (conn, _):
            session_id = await new_session(conn, root)
            assert await ask(conn, session_id, "/tour") == "end_turn"
        texts.append(client.text(session_id).replace(str(root), "<root>"))
    assert texts[0] == texts[1]


# -- plan and tour --------------------------------------------------------------------------


async def test_plan_entries_progress_to_completed(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/plan")
    plans = client.of(session_id, "plan")
    assert len(plans[0].entries) == 3
    assert {e.status for e in plans[0].entries} == {"pending"}
    assert {e.status for e in plans[-1].entries} == {"completed"}
    order = {"pending": 0, "in_progress": 1, "completed": 2}
    for index in range(3):
        seen = [order[p.entries[index].status] for p in plans]
        assert seen == sorted(seen) and 1 in seen
    assert [e.priority for e in plans[0].entries] == ["high", "medium", "low"]
    assert_markdown(client.text(session_id))


async def test_greeting_starts_the_tour(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Hi\n", encoding="utf-8")
    client = RecordingClient(tmp_path, ["allow_once"])
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        assert await ask(conn, session_id, "Hello!") == "end_turn"
    kinds = [updates[0].kind for updates in client.tool_calls(session_id).values()]
    assert kinds == ["read", "edit", "execute"]
    assert all(u[-1].status == "completed" for u in client.tool_calls(session_id).values())
    plans = client.of(session_id, "plan")
    assert [e.content for e in plans[0].entries] == [
        "Read README.md",
        "Write demo-notes.md",
        "Run `ls -la`",
    ]
    assert {e.status for e in plans[-1].entries} == {"completed"}
    text = client.text(session_id)
    assert text.startswith("# Welcome to the acp-tui demo")
    assert_markdown(text)


# -- cancel ---------------------------------------------------------------------------------


async def test_cancel_mid_turn_stops_promptly(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client, delay="0.05") as (conn, _):
        session_id = await new_session(conn, tmp_path)
        turn = asyncio.ensure_future(ask(conn, session_id, "/help"))
        await client.wait_until(lambda: len(client.of(session_id, "agent_message_chunk")) >= 3)
        cancelled_at = asyncio.get_running_loop().time()
        await conn.cancel(session_id=session_id)
        assert await guard(turn) == "cancelled"
        assert asyncio.get_running_loop().time() - cancelled_at < 2  # the full reply takes ~5 s
        seen = len(client.of(session_id))
        await asyncio.sleep(0.5)
        assert len(client.of(session_id)) == seen  # nothing for that turn after it returned
        assert "```python" not in client.text(session_id)  # it stopped before the end


async def test_cancel_while_a_terminal_runs_releases_it(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client, delay="0.05") as (conn, _):
        session_id = await new_session(conn, tmp_path)
        turn = asyncio.ensure_future(ask(conn, session_id, "/run sleep 30"))
        await client.wait_until(lambda: "wait_for_terminal_exit" in client.methods())
        await conn.cancel(session_id=session_id)
        assert await guard(turn) == "cancelled"
    methods = client.methods()
    assert methods.index("kill_terminal") < methods.index("release_terminal")
    assert "terminal_output" not in methods
    assert client.tool_of_kind(session_id, "execute")[-1].status == "failed"


async def test_cancel_while_waiting_for_permission(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path, hold_permission=True)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        turn = asyncio.ensure_future(ask(conn, session_id, "/edit"))
        await client.wait_until(lambda: "request_permission" in client.methods())
        await conn.cancel(session_id=session_id)
        assert await guard(turn) == "cancelled"
        assert client.tool_of_kind(session_id, "edit")[-1].status == "failed"
        # The session takes the next prompt as usual.
        assert await ask(conn, session_id, "/help") == "end_turn"
    assert "write_text_file" not in client.methods()


# -- routing (pure) -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "first_turn", "kind", "steps", "command"),
    [
        ("hi", True, "tour", ("read", "edit", "run"), None),
        ("hi", False, "help", (), None),
        ("give me the TOUR", False, "tour", ("read", "edit", "run"), None),
        ("/read", False, "steps", ("read",), None),
        ("please Write a file", False, "steps", ("edit",), None),
        ("open a shell", False, "steps", ("run",), None),
        ("run: git status", False, "steps", ("run",), "git status"),
        ("/run echo hi", False, "steps", ("run",), "echo hi"),
        ("read it, then run `pwd`", False, "steps", ("read", "run"), "pwd"),
        ("make a plan", False, "plan", (), None),
        ("/help", False, "help", (), None),
        ("/unknown", False, "help", (), None),
        ("what is this README about?", False, "help", (), None),
    ],
)
def test_routing(
    text: str, first_turn: bool, kind: str, steps: tuple[str, ...], command: str | None
) -> None:
    route = demo_script.route(text, first_turn=first_turn)
    assert (route.kind, route.steps, route.command) == (kind, steps, command)


def test_pieces_rebuild_the_text_exactly() -> None:
    text = "## Title\n\n- a list\n\n```python\nprint('x')\n```\n  trailing  "
    parts = demo_script.pieces(text)
    assert "".join(parts) == text
    assert all(len(part.split()) <= 3 for part in parts)
