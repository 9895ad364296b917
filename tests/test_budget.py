"""Issue 12, point 8: a memory budget per session; outgoing lines and history
records bounded. Through the real headless host and the hostile agent, with
the budget set in the config file, and the budget's rules on their own."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from acp_tui.agents.config import load_config
from tests.conftest import HeadlessClient
from tests.fake_agents import HOSTILE_AGENT, agent_params
from tests.test_headless import rebuild_text

HOSTILE = agent_params(HOSTILE_AGENT)
MIB = 1024 * 1024
#: Characters of one text delta, at most (core/budget.py's DELTA_LIMIT).
DELTA_LIMIT = MIB
_PATH = re.compile(r"(?:it is written to|all of it is in) (\S+)\]")


async def _session(headless: Any, tmp_path: Path, budget_mib: float | None) -> tuple[Any, str]:
    config = tmp_path / "config.toml"
    config.write_text(f"[limits]\nsession_text_mib = {budget_mib}\n" if budget_mib else "")
    client: HeadlessClient = await headless(
        ACP_TUI_CONFIG=str(config),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_DATA_HOME=str(tmp_path / "data"),
    )
    opened = await client.result("connection.open", {"agent": HOSTILE, "cwd": str(tmp_path)})
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    return client, created["sessionId"]


def _spilled(text: str) -> str:
    """The text of the file a marker in ``text`` names."""
    match = _PATH.search(text)
    assert match is not None, text[-300:]
    return Path(match.group(1)).expanduser().read_text()


def _chunks(count: int, size: int) -> str:
    return "".join((f"[{n}] " + "x" * size)[:size] for n in range(count))


async def test_past_the_budget_large_contents_are_cut_and_kept_in_files(
    headless: Any, tmp_path: Path
) -> None:
    client, session_id = await _session(headless, tmp_path, 1)
    # A reply that crosses the 1 MiB budget: what fits, a marker, the rest in a file.
    await client.result("session.prompt", {"sessionId": session_id, "text": "chunks 4 524288"})
    # A large tool output past it: its head and a marker.
    await client.result("session.prompt", {"sessionId": session_id, "text": "huge-tool 2000000"})
    # A short reply past it is still kept whole.
    await client.result("session.prompt", {"sessionId": session_id, "text": "chunks 2 100"})
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    # (A changes entry may follow a turn: the agent's log is in the folder.)
    entries = [e for e in snapshot["entries"] if e["kind"] != "changes"]
    reply = entries[1]["chunks"][0]["text"]
    assert reply.startswith(_chunks(2, 524288))
    assert "the rest of this reply is not shown (over this session's text budget of 1 MiB)" in reply
    assert len(reply) < 1 * MIB + 500
    assert _spilled(reply) == _chunks(4, 524288)  # nothing is lost
    tool_text = entries[3]["content"][0]["content"]["text"]
    assert len(tool_text) < 64 * 1024 + 500 and "more characters not shown" in tool_text
    assert _spilled(tool_text) == ("tool output " * 200_000)[:2_000_000]
    assert entries[5]["chunks"][0]["text"] == _chunks(2, 100)


async def test_a_16_mb_chunk_is_kept_and_goes_out_in_bounded_lines(
    headless: Any, tmp_path: Path
) -> None:
    client, session_id = await _session(headless, tmp_path, None)  # the default: 64 MiB
    size = 16 * MIB
    await client.result("session.prompt", {"sessionId": session_id, "text": f"huge {size}"})
    text = rebuild_text(client.events, session_id)
    assert len(text) == size and text.endswith("END-OF-CHUNK")
    longest = max(len(json.dumps(frame)) for frame in client.frames)
    assert longest < DELTA_LIMIT + 10_000
    # The history keeps a bounded record; the whole reply is in a file.
    (history,) = (tmp_path / "data" / "acp-tui" / "sessions").glob("*.jsonl")
    records = history.read_bytes().splitlines()
    assert max(len(line) for line in records) < 1 * MIB + 10_000
    stored = [json.loads(line) for line in records if b'"assistant"' in line][-1]
    assert _spilled(stored["entry"]["chunks"][0]["text"]) == text


def test_the_budget_is_set_in_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[limits]\nsession_text_mib = 8\n")
    assert load_config(path).text_budget == 8 * MIB
    path.write_text("[limits]\nsession_text_mib = 0\nother = 1\n")
    config = load_config(path)
    assert config.text_budget == 64 * MIB
    assert [p.split(": ", 2)[-1] for p in config.problems] == [
        "limits.session_text_mib must be a number of MiB, at least 1; ignoring it",
        "unknown key 'limits.other' (known: session_text_mib); ignoring it",
    ]


@pytest.mark.parametrize("spill", [True, False])
def test_the_rules_of_the_budget(tmp_path: Path, spill: bool) -> None:
    from acp_tui.core.model.budget import HEAD, Spill, TextBudget  # (the module is new)

    budget = TextBudget(100_000, Spill(tmp_path) if spill else None)
    assert budget.admit("a" * 90_000) == "a" * 90_000  # within
    assert budget.admit("b" * 1000) == "b" * 1000  # small: kept past the limit too
    cut = budget.admit("c" * 200_000)
    assert cut.startswith("c" * HEAD) and not cut.startswith("c" * (HEAD + 1))
    if spill:
        assert _spilled(cut) == "c" * 200_000
    else:
        assert "it was dropped" in cut
    # A chunk that crosses: the rest of it never reaches memory.
    start = budget.admit_delta(None, lambda: "", "d" * 70_000)
    assert start.marked and budget.used < 100_000 + 2 * HEAD + 1000
    budget.spill_rest((0, 0), start.rest_to)
    assert budget.admit_delta((0, 0), lambda: start.text, "e" * 50).dropped
    if spill:
        assert _spilled(start.text) == "d" * 70_000 + "e" * 50
