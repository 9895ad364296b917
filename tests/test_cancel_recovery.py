"""After a cancel (point 1 of issue 13): nothing is sent before the agent has
settled, and the stale ``end_turn`` of claude-agent-acp#551 never reaches the
user as an empty turn or shifts replies onto the wrong prompt.

The scripted agent's ACP_FAKE_LAG_AFTER_CANCEL mode behaves as the real
adapter does (tests/e2e/test_cancel_claude.py runs the real one)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp_tui.core.host import Host
from acp_tui.core.model.entries import AssistantEntry, NoticeEntry, UserEntry
from acp_tui.core.sessions.session import Session
from tests.fake_agents import agent_spec
from tests.waiting import until


def text(value: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": value}]


def exchanges(session: Session) -> list[tuple[str, str]]:
    """(prompt, the reply text that follows it) for every user entry."""
    pairs: list[tuple[str, str]] = []
    for entry in session.thread.entries:
        if isinstance(entry, UserEntry):
            pairs.append((entry.text, ""))
        elif isinstance(entry, AssistantEntry) and pairs:
            reply = "".join(c.text for c in entry.chunks if c.type == "message")
            pairs[-1] = (pairs[-1][0], pairs[-1][1] + reply)
    return pairs


async def cancelled_turn(host: Host, session: Session, command: str = "slow 100 0.05") -> None:
    before = len(session.thread)
    pending = asyncio.ensure_future(host.prompt(session.session_id, text(command)))
    await until(
        lambda: any(isinstance(e, AssistantEntry) for e in session.thread.entries[before:]),
        poll=0.01,
    )
    await host.cancel(session.session_id)
    assert await pending == "cancelled"


async def lagging_session(host: Host, tmp_path: Path, **env: str) -> tuple[Session, Path]:
    count = tmp_path / "count"
    spec = agent_spec(ACP_FAKE_LAG_AFTER_CANCEL="1", ACP_FAKE_COUNT_FILE=str(count), **env)
    connection, _ = await host.open_connection(spec, tmp_path)
    return await host.create_session(connection.connection_id, tmp_path), count


def resumes(count: Path) -> int:
    return count.read_text().splitlines().count("resume") if count.exists() else 0


async def test_the_stale_end_turn_is_absorbed_and_replies_stay_with_their_prompts(
    host: Host, tmp_path: Path
) -> None:
    session, count = await lagging_session(host, tmp_path, ACP_FAKE_REOPEN="1")
    await cancelled_turn(host, session)
    # The first prompt after the cancel: the agent's stale answer is detected,
    # its session reopened (close + resume) and the prompt sent once more.
    assert await host.prompt(session.session_id, text("echo one")) == "end_turn"
    assert resumes(count) == 1
    assert await host.prompt(session.session_id, text("echo two")) == "end_turn"
    # From now on the connection is known to need it: the next cancel reopens
    # the session before anything else is sent (no stale answer at all).
    await cancelled_turn(host, session)
    assert await host.prompt(session.session_id, text("echo three")) == "end_turn"
    assert resumes(count) == 2
    assert await host.prompt(session.session_id, text("echo four")) == "end_turn"
    pairs = exchanges(session)
    assert [p for p in pairs if not p[0].startswith("slow")] == [
        ("echo one", "one "),
        ("echo two", "two "),
        ("echo three", "three "),
        ("echo four", "four "),
    ]
    notices = [e.text for e in session.thread.entries if isinstance(e, NoticeEntry)]
    assert notices.count("Cancelled.") == 2
    assert not any("without a reply" in n for n in notices)


async def test_mode_and_model_survive_the_reopen(host: Host, tmp_path: Path) -> None:
    session, count = await lagging_session(host, tmp_path, ACP_FAKE_REOPEN="1")
    await host.set_mode(session.session_id, "auto")
    await host.set_config_option(session.session_id, "model", "smart")
    await cancelled_turn(host, session)
    await host.prompt(session.session_id, text("mode"))
    assert resumes(count) == 1
    assert exchanges(session)[-1] == ("mode", "auto")
    assert session.modes is not None and session.modes["currentModeId"] == "auto"
    (model,) = [o for o in session.config_options if o["id"] == "model"]
    assert model["currentValue"] == "smart"


async def test_without_close_and_resume_the_prompt_is_sent_again(
    host: Host, tmp_path: Path
) -> None:
    session, count = await lagging_session(host, tmp_path)
    await cancelled_turn(host, session)
    assert await host.prompt(session.session_id, text("echo again")) == "end_turn"
    assert resumes(count) == 0
    assert exchanges(session)[-1] == ("echo again", "again ")


async def test_nothing_is_sent_before_the_cancelled_prompt_has_answered(
    tmp_path: Path,
) -> None:
    # The agent answers the cancel 1 s late; the turn ends for the user after
    # the 0.2 s grace, but the next prompt waits for that answer.
    host = Host(cancel_grace=0.2)
    try:
        connection, _ = await host.open_connection(agent_spec(), tmp_path)
        session = await host.create_session(connection.connection_id, tmp_path)
        pending = asyncio.ensure_future(host.prompt(session.session_id, text("late-cancel 1")))
        await asyncio.sleep(0.2)
        await host.cancel(session.session_id)
        assert await pending == "cancelled"
        assert session.status == "idle"
        await host.prompt(session.session_id, text("echo after"))
        assert exchanges(session)[-1] == ("echo after", "after ")
    finally:
        await host.shutdown()


async def test_what_a_cancelled_turn_sends_late_stays_above_the_next_prompt(
    tmp_path: Path,
) -> None:
    host = Host(cancel_grace=0.2)
    try:
        connection, _ = await host.open_connection(agent_spec(), tmp_path)
        session = await host.create_session(connection.connection_id, tmp_path)
        pending = asyncio.ensure_future(
            host.prompt(session.session_id, text("talk-after-cancel 0.6"))
        )
        await asyncio.sleep(0.2)
        await host.cancel(session.session_id)
        assert await pending == "cancelled"  # ended for the user after the grace
        await host.prompt(session.session_id, text("echo mine"))
        assert exchanges(session) == [
            ("talk-after-cancel 0.6", "late words"),
            ("echo mine", "mine "),
        ]
    finally:
        await host.shutdown()


async def test_a_cancel_while_waiting_for_the_agent_to_settle_sends_nothing(
    tmp_path: Path,
) -> None:
    host = Host(cancel_grace=0.2)
    try:
        connection, _ = await host.open_connection(agent_spec(), tmp_path)
        session = await host.create_session(connection.connection_id, tmp_path)
        pending = asyncio.ensure_future(host.prompt(session.session_id, text("late-cancel 2")))
        await asyncio.sleep(0.2)
        await host.cancel(session.session_id)
        assert await pending == "cancelled"
        waiting = asyncio.ensure_future(host.prompt(session.session_id, text("echo never")))
        await asyncio.sleep(0.2)
        assert session.status == "running"
        await host.cancel(session.session_id)
        assert await asyncio.wait_for(waiting, 1) == "cancelled"
        await host.prompt(session.session_id, text("echo later"))
        assert [p for p in exchanges(session) if p[0].startswith("echo")] == [
            ("echo never", ""),
            ("echo later", "later "),
        ]
    finally:
        await host.shutdown()


async def test_an_empty_turn_is_never_silent(host: Host, tmp_path: Path) -> None:
    connection, _ = await host.open_connection(agent_spec(), tmp_path)
    session = await host.create_session(connection.connection_id, tmp_path)
    await host.prompt(session.session_id, text("updates []"))
    last = session.thread.entries[-1]
    assert isinstance(last, NoticeEntry) and "without a reply" in last.text
