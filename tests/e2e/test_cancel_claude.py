"""Esc, then the next prompt, against the real Claude adapters (issue 13, point 1).

claude-agent-acp 0.23 answers the first prompt after a cancel with a stale
``end_turn`` and then hands every reply to the prompt after it
(agentclientprotocol/claude-agent-acp#551). The host must absorb that: each
reply stays with its prompt, no turn is silently empty, headless and in the
TUI, whether the prompt is typed after Esc or was queued before it. The mock
delays its stream (``e2e:drip``), as a model slow to answer would.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from acp_tui.core.connection import AgentSpec
from acp_tui.core.model.entries import AssistantEntry, NoticeEntry
from acp_tui.ui.app import AcpApp
from tests.conftest import HeadlessClient
from tests.e2e.harness import WAIT, InstalledAdapter, MockApi
from tests.test_cancel_recovery import exchanges
from tests.ui.helpers import make_app, ready, screen_text, send, until

pytestmark = pytest.mark.e2e

SLOW = "e2e:drip 0.4 " + " ".join(f"w{i}" for i in range(60))


def pairs_of(entries: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(prompt text, reply text after it) from a snapshot's entries."""
    pairs: list[tuple[str, str]] = []
    for entry in entries:
        if entry["kind"] == "user":
            prompt = "".join(b.get("text", "") for b in entry["content"])
            pairs.append((prompt, ""))
        elif entry["kind"] == "assistant" and pairs:
            reply = "".join(c["text"] for c in entry["chunks"] if c["type"] == "message")
            pairs[-1] = (pairs[-1][0], pairs[-1][1] + reply)
    return pairs


def app_pairs(app: AcpApp) -> list[tuple[str, str]]:
    assert app.session is not None
    return exchanges(app.session)


def answered(app: AcpApp, prompt: str) -> bool:
    """Whether the app is idle with ``prompt`` the last one sent and nothing queued."""
    return (
        app.session is not None
        and app.session.status == "idle"
        and not app.queued
        and app_pairs(app)[-1][0] == prompt
    )


def notices(app: AcpApp) -> list[str]:
    assert app.session is not None
    return [e.text for e in app.session.thread.entries if isinstance(e, NoticeEntry)]


async def test_headless_prompts_right_after_a_cancel_get_their_own_replies(
    adapter: InstalledAdapter, mock_api: MockApi, home: Path, workdir: Path
) -> None:
    client = await HeadlessClient.start("--", *mock_api.agent_command(adapter, home), cwd=workdir)
    try:
        opened = await client.result("connection.open", {})
        created = await client.result(
            "session.create", {"connectionId": opened["connectionId"], "cwd": str(workdir)}
        )
        session_id = created["sessionId"]
        expected = []
        slow = {}
        for round_ in range(2):  # the first cancel teaches the host; the second uses it
            slow[round_] = "e2e:drip 0.4 " + " ".join(f"r{round_}w{i}" for i in range(60))
            pending = client.send("session.prompt", {"sessionId": session_id, "text": slow[round_]})
            marker = f"r{round_}w"
            await client.wait_event(  # this turn's reply is streaming
                lambda e, m=marker: (
                    e.get("sessionId") == session_id
                    and m in e.get("patch", {}).get("textDelta", {}).get("text", "")
                ),
                timeout=WAIT,
            )
            assert await client.result("session.cancel", {"sessionId": session_id}) == {}
            done = await asyncio.wait_for(pending, WAIT)
            assert done["result"] == {"stopReason": "cancelled"}
            # At once, as a client with a queued prompt would.
            word = f"reply{round_}-{uuid.uuid4().hex[:6]}"
            answer = await client.call(
                "session.prompt",
                {"sessionId": session_id, "text": f"e2e:drip 0.1 {word}"},
                timeout=WAIT,
            )
            assert answer["result"] == {"stopReason": "end_turn"}
            expected.append((f"e2e:drip 0.1 {word}", word))
        last = await client.call(
            "session.prompt",
            {"sessionId": session_id, "text": "e2e:say the last one"},
            timeout=WAIT,
        )
        assert last["result"] == {"stopReason": "end_turn"}
        expected.append(("e2e:say the last one", "the last one"))
        snapshot = await client.result("session.snapshot", {"sessionId": session_id})
        pairs = [p for p in pairs_of(snapshot["entries"]) if p[0] not in slow.values()]
        assert pairs == expected
        texts = [e["text"] for e in snapshot["entries"] if e["kind"] == "notice"]
        assert not any("without a reply" in t for t in texts)
    finally:
        await client.kill()


def claude_app(adapter: InstalledAdapter, mock_api: MockApi, home: Path, cwd: Path) -> AcpApp:
    command = mock_api.agent_command(adapter, home)
    return make_app(AgentSpec.of(command[0], command[1:], name="claude"), cwd)


async def streaming(app: AcpApp, pilot: Any, before: int) -> None:
    """Until the slow reply of the prompt sent last is streaming."""

    def started() -> bool:
        assert app.session is not None
        return any(
            isinstance(e, AssistantEntry) and e.chunks and e.chunks[0].text.strip()
            for e in app.session.thread.entries[before:]
        )

    await until(pilot, started, timeout=WAIT)


async def test_tui_esc_then_a_typed_prompt(
    adapter: InstalledAdapter, mock_api: MockApi, home: Path, workdir: Path
) -> None:
    app = claude_app(adapter, mock_api, home, workdir)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert app.session is not None
        expected = []
        for round_ in range(2):
            before = len(app.session.thread)
            await send(pilot, SLOW)
            await streaming(app, pilot, before)
            await pilot.press("escape")
            await until(pilot, lambda: app.session is not None and app.session.status == "idle")
            word = f"typed{round_}-{uuid.uuid4().hex[:6]}"
            await send(pilot, f"e2e:drip 0.1 {word}")
            prompt = f"e2e:drip 0.1 {word}"
            await until(pilot, lambda p=prompt: answered(app, p), timeout=WAIT)
            expected.append((f"e2e:drip 0.1 {word}", word))
            await until(pilot, lambda: not app.log_view.revealing)
            assert word in screen_text(app)
        assert [p for p in app_pairs(app) if p[0] != SLOW] == expected
        assert notices(app).count("Cancelled.") == 2
        assert not any("without a reply" in n for n in notices(app))


async def test_tui_a_prompt_queued_before_esc(
    adapter: InstalledAdapter, mock_api: MockApi, home: Path, workdir: Path
) -> None:
    app = claude_app(adapter, mock_api, home, workdir)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert app.session is not None
        expected = []
        for round_ in range(2):
            before = len(app.session.thread)
            await send(pilot, SLOW)
            await streaming(app, pilot, before)
            word = f"queued{round_}-{uuid.uuid4().hex[:6]}"
            await send(pilot, f"e2e:drip 0.1 {word}")
            assert app.queued == [f"e2e:drip 0.1 {word}"]
            await pilot.press("escape")
            prompt = f"e2e:drip 0.1 {word}"
            await until(pilot, lambda p=prompt: answered(app, p), timeout=WAIT)
            expected.append((f"e2e:drip 0.1 {word}", word))
        await send(pilot, "e2e:say and the next")
        await until(
            pilot,
            lambda: (
                app.session is not None
                and app.session.status == "idle"
                and app_pairs(app)[-1] == ("e2e:say and the next", "and the next")
            ),
            timeout=WAIT,
        )
        expected.append(("e2e:say and the next", "and the next"))
        assert [p for p in app_pairs(app) if p[0] != SLOW] == expected
        assert not any("without a reply" in n for n in notices(app))
