"""The local history store and resuming sessions, against real agent processes."""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from acp_tui.core.errors import HostError
from acp_tui.core.host import Host
from acp_tui.core.model.entries import AssistantEntry, UserEntry, entry_from_wire
from acp_tui.core.storage.history_store import HistoryStore, read_transcript
from tests.fake_agents import agent_spec


@pytest.fixture
def store(tmp_path: Path) -> HistoryStore:
    return HistoryStore(tmp_path / "history")


@pytest.fixture
async def history_host(store: HistoryStore) -> AsyncIterator[Host]:
    host = Host(history=store)
    try:
        yield host
    finally:
        await host.shutdown()


def texts(entries: list[dict[str, Any]]) -> list[str]:
    shown = []
    for wire in entries:
        entry = entry_from_wire(wire)
        if isinstance(entry, UserEntry):
            shown.append("you: " + entry.text)
        elif isinstance(entry, AssistantEntry):
            shown.append("agent: " + "".join(c.text for c in entry.chunks).strip())
    return shown


async def test_turns_are_appended_as_they_end(
    history_host: Host, store: HistoryStore, tmp_path: Path
) -> None:
    connection, _ = await history_host.open_connection(agent_spec(), tmp_path)
    session = await history_host.create_session(connection.connection_id)
    await history_host.prompt(session.session_id, [{"type": "text", "text": "echo one"}])
    path = store.path_for(session.agent_session_id)
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["type"] == "session"
    assert texts(store.read(session.agent_session_id).entries) == ["you: echo one", "agent: one"]
    update = {"sessionUpdate": "session_info_update", "title": "Numbers"}
    await history_host.prompt(
        session.session_id, [{"type": "text", "text": "updates " + json.dumps([update])}]
    )
    await history_host.prompt(session.session_id, [{"type": "text", "text": "echo two"}])
    transcript = store.read(session.agent_session_id)
    assert transcript.title == "Numbers"
    assert transcript.agent == "scripted" and Path(transcript.cwd) == tmp_path.resolve()
    assert texts(transcript.entries)[-2:] == ["you: echo two", "agent: two"]
    # Only what changed is appended: turn 1's entries were written once.
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert sum(1 for r in records if r["type"] == "entry" and r["index"] == 0) == 1
    listed = store.sessions(agent="scripted", cwd=tmp_path.resolve())
    assert [s.session_id for s in listed] == [session.agent_session_id]
    assert listed[0].title == "Numbers"
    assert store.sessions(agent="other") == []


async def test_a_finished_tool_call_is_stored_in_its_final_state(
    history_host: Host, store: HistoryStore, tmp_path: Path
) -> None:
    connection, _ = await history_host.open_connection(agent_spec(), tmp_path)
    session = await history_host.create_session(connection.connection_id)
    await history_host.prompt(session.session_id, [{"type": "text", "text": "showcase"}])
    stored = store.read(session.agent_session_id).entries
    assert [e["kind"] for e in stored] == [e.to_wire()["kind"] for e in session.thread.entries]
    tools = [e for e in stored if e["kind"] == "tool_call"]
    assert tools and all(t["status"] == "completed" for t in tools)


def test_a_torn_last_line_is_skipped_with_a_warning_then_cut(
    store: HistoryStore, tmp_path: Path
) -> None:
    store.root.mkdir(parents=True)
    path = store.path_for("abc")
    header = {"type": "session", "v": 1, "sessionId": "abc", "agent": "a", "cwd": "/w"}
    good = {"type": "entry", "index": 0, "entry": {"kind": "user", "content": []}}
    torn = json.dumps({"type": "entry", "index": 1, "entry": {"kind": "notice"}})[:25]
    path.write_text(json.dumps(header) + "\n" + json.dumps(good) + "\n" + torn)
    transcript = read_transcript(path)
    assert len(transcript.entries) == 1
    assert len(transcript.warnings) == 1 and "cut short" in transcript.warnings[0]
    # The next writer of that session (resumed) cuts the torn record off.
    store.recorder("abc", agent="a", cwd=Path("/w"), resumed=True)
    assert path.read_text().endswith(json.dumps(good) + "\n")


def test_a_corrupt_middle_line_is_skipped_and_the_rest_kept(store: HistoryStore) -> None:
    store.root.mkdir(parents=True)
    path = store.path_for("abc")
    records = [
        json.dumps({"type": "session", "sessionId": "abc", "agent": "a", "cwd": "/w"}),
        "{not json",
        json.dumps({"type": "entry", "index": 0, "entry": {"kind": "notice", "text": "kept"}}),
    ]
    path.write_text("\n".join(records) + "\n")
    transcript = read_transcript(path)
    assert [e["text"] for e in transcript.entries] == ["kept"]
    assert transcript.warnings == [f"{path.name} line 2: not valid JSON; skipped"]


@pytest.mark.parametrize(
    ("ages_days", "max_sessions", "kept"),
    [
        ([40, 31, 5, 2, 1], 10, ["s2", "s3", "s4"]),  # too old
        ([4, 3, 2, 1], 2, ["s2", "s3"]),  # too many: the newest stay
        ([40, 3, 2, 1], 2, ["s2", "s3"]),  # both
    ],
)
def test_retention(
    tmp_path: Path, ages_days: list[int], max_sessions: int, kept: list[str]
) -> None:
    store = HistoryStore(tmp_path / "h", max_sessions=max_sessions, max_age_days=30)
    store.root.mkdir(parents=True)
    now = time.time()
    for n, age in enumerate(ages_days):
        path = store.path_for(f"s{n}")
        path.write_text(json.dumps({"type": "session", "sessionId": f"s{n}"}) + "\n")
        os.utime(path, (now - age * 86400, now - age * 86400))
    assert store.prune() == len(ages_days) - len(kept)
    assert sorted(s.session_id for s in store.sessions()) == kept


def test_a_100000_entry_transcript_reads_back_whole(store: HistoryStore) -> None:
    store.root.mkdir(parents=True)
    path = store.path_for("big")
    with open(path, "w") as f:
        f.write(json.dumps({"type": "session", "sessionId": "big", "agent": "a", "cwd": "/"}))
        f.write("\n")
        for i in range(100_000):
            entry = {"kind": "notice", "level": "info", "text": f"line {i}"}
            f.write(json.dumps({"type": "entry", "index": i, "entry": entry}) + "\n")
    transcript = store.read("big")
    assert len(transcript.entries) == 100_000
    assert transcript.entries[-1]["text"] == "line 99999"


async def test_resume_with_session_load_replays_into_the_log(
    history_host: Host, store: HistoryStore, tmp_path: Path
) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    spec = agent_spec(ACP_FAKE_STATE_DIR=str(state))
    connection, _ = await history_host.open_connection(spec, tmp_path)
    first = await history_host.create_session(connection.connection_id)
    await history_host.prompt(first.session_id, [{"type": "text", "text": "echo remember me"}])
    await history_host.close_connection(connection.connection_id)

    connection, reused = await history_host.open_connection(spec, tmp_path)
    assert not reused
    listed = await history_host.list_sessions(connection.connection_id, tmp_path)
    assert [s["sessionId"] for s in listed] == [first.agent_session_id]
    assert listed[0]["source"] == "agent"
    loaded = await history_host.load_session(connection.connection_id, first.agent_session_id)
    assert [e.to_wire()["kind"] for e in loaded.thread.entries] == ["user", "assistant"]
    await history_host.prompt(loaded.session_id, [{"type": "text", "text": "echo again"}])
    replies = [
        "".join(c.text for c in e.chunks).strip()
        for e in loaded.thread.entries
        if isinstance(e, AssistantEntry)
    ]
    assert replies == ["remember me", "again"]
    # The local file holds the replayed history once, not twice.
    assert texts(store.read(first.agent_session_id).entries) == [
        "you: echo remember me",
        "agent: remember me",
        "you: echo again",
        "agent: again",
    ]


async def test_without_session_list_the_local_history_is_listed(
    history_host: Host, tmp_path: Path
) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    spec = agent_spec(ACP_FAKE_STATE_DIR=str(state), ACP_FAKE_NO_LIST="1")
    connection, _ = await history_host.open_connection(spec, tmp_path)
    session = await history_host.create_session(connection.connection_id)
    await history_host.prompt(session.session_id, [{"type": "text", "text": "echo x"}])
    listed = await history_host.list_sessions(connection.connection_id, tmp_path)
    assert [(s["agentSessionId"], s["source"]) for s in listed] == [
        (session.agent_session_id, "local")
    ]
    assert history_host.history is not None
    assert texts(history_host.history.read(listed[0]["sessionId"]).entries) == [
        "you: echo x",
        "agent: x",
    ]


async def test_an_agent_reusing_ids_does_not_overwrite_older_transcripts(
    history_host: Host, store: HistoryStore, tmp_path: Path
) -> None:
    for words in ("echo first", "echo second"):
        connection, _ = await history_host.open_connection(agent_spec(), tmp_path)
        session = await history_host.create_session(connection.connection_id)
        assert session.agent_session_id == "s1"
        await history_host.prompt(session.session_id, [{"type": "text", "text": words}])
        await history_host.close_connection(connection.connection_id)
    listed = store.sessions()
    assert len(listed) == 2
    kept = [texts(store.read(s.key).entries)[0] for s in listed]
    assert sorted(kept) == ["you: echo first", "you: echo second"]


async def test_an_agent_without_load_session_refuses_clearly(
    history_host: Host, tmp_path: Path
) -> None:
    connection, _ = await history_host.open_connection(agent_spec(), tmp_path)
    with pytest.raises(HostError) as caught:
        await history_host.load_session(connection.connection_id, "s1")
    assert caught.value.code == "unsupported"
    assert "cannot load sessions" in caught.value.message


async def test_loading_an_unknown_session_fails_and_leaves_nothing_behind(
    history_host: Host, tmp_path: Path
) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    connection, _ = await history_host.open_connection(
        agent_spec(ACP_FAKE_STATE_DIR=str(state)), tmp_path
    )
    with pytest.raises(HostError) as caught:
        await history_host.load_session(connection.connection_id, "s-nope")
    assert caught.value.code == "agent_error"
    assert "s-nope" not in history_host.sessions


async def test_a_failed_load_leaves_the_stored_transcript_alone(
    history_host: Host, store: HistoryStore, tmp_path: Path
) -> None:
    store.root.mkdir(parents=True)
    kept = store.path_for("s-gone")
    header = {"type": "session", "sessionId": "s-gone", "agent": "scripted", "cwd": "/w"}
    entry = {"type": "entry", "index": 0, "entry": {"kind": "notice", "text": "kept"}}
    kept.write_text(json.dumps(header) + "\n" + json.dumps(entry) + "\n")
    before = kept.read_bytes()
    state = tmp_path / "agent-state"
    state.mkdir()
    connection, _ = await history_host.open_connection(
        agent_spec(ACP_FAKE_STATE_DIR=str(state)), tmp_path
    )
    with pytest.raises(HostError):
        await history_host.load_session(connection.connection_id, "s-gone")
    assert kept.read_bytes() == before


def test_the_recorder_writes_from_the_snapshot_and_the_events_alone(store: HistoryStore) -> None:
    """No session in sight: what the recorder writes is what the events said."""
    from acp_tui.core.model import events
    from acp_tui.core.model.events import Event
    from acp_tui.core.storage.history_recorder import Recordings

    recordings = Recordings()
    recorder = store.recorder("abc", agent="a", cwd=Path("/w"))
    snapshot = {
        "sessionId": "abc",
        "cursor": 3,
        "entries": [{"kind": "user", "content": [{"type": "text", "text": "first prompt"}]}],
        "modes": {"currentModeId": "ask", "availableModes": []},
        "configOptions": [],
    }
    recordings.add("abc", recorder, snapshot)

    def commit(event: Event) -> None:
        event.session_id = "abc"
        recordings.on_event(event)

    reply = {"kind": "assistant", "chunks": [{"type": "message", "text": "Hel", "messageId": None}]}
    commit(events.entry_appended(1, reply))
    commit(events.text_delta(1, 0, "message", "lo", None))
    call = {"kind": "tool_call", "toolCallId": "t1", "title": "Run", "toolKind": "execute"}
    waiting = {**call, "status": "waiting_for_confirmation", "permission": {"requestId": "p"}}
    commit(events.entry_appended(2, waiting))
    commit(Event("mode-changed", {"currentModeId": "plan"}))
    commit(Event("title-updated", {"title": "Groceries"}))
    commit(Event("status-changed", {"status": "idle"}))  # a flush
    commit(events.entry_replaced(2, {**call, "status": "completed"}))
    commit(Event("status-changed", {"status": "closed"}))  # the last flush
    commit(events.text_delta(1, 0, "message", " (after the end)", None))
    transcript = read_transcript(recorder.path)
    assert [e["kind"] for e in transcript.entries] == ["user", "assistant", "tool_call"]
    assert transcript.entries[1]["chunks"][0]["text"] == "Hello"
    assert transcript.entries[2]["status"] == "completed"
    assert transcript.title == "Groceries"
    assert transcript.settings == {"config": {}, "mode": "plan"}
    records = [json.loads(line) for line in recorder.path.read_text().splitlines()]
    assert not any("permission" in r.get("entry", {}) for r in records)
    assert recordings.path("abc") == recorder.path  # known after the session closed
