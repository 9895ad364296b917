"""The merge rules of a session thread, one row per rule (Zed's acp_thread)."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.core.model.entries import AssistantEntry, ToolCallEntry, UserEntry
from acp_tui.core.model.thread import Thread

# Each step: ("text", type, text, message_id) | ("user", text) | ("tool", fields)
Step = tuple[Any, ...]


def run(steps: list[Step]) -> Thread:
    thread = Thread()
    for step in steps:
        if step[0] == "text":
            thread.add_text(step[1], step[2], step[3])
        elif step[0] == "user":
            thread.append_user([{"type": "text", "text": step[1]}])
        elif step[0] == "tool":
            thread.upsert_tool_call({"toolCallId": step[1], "title": step[1]})
    return thread


def shape(thread: Thread) -> list[Any]:
    """Entries as plain data: user text, assistant chunk tuples, tool ids."""
    out: list[Any] = []
    for entry in thread.entries:
        if isinstance(entry, UserEntry):
            out.append(("user", entry.text))
        elif isinstance(entry, AssistantEntry):
            out.append([(c.type, c.text, c.message_id) for c in entry.chunks])
        elif isinstance(entry, ToolCallEntry):
            out.append(("tool", entry.tool_call_id))
    return out


MERGE_ROWS = [
    pytest.param(
        [("text", "message", "a", None), ("text", "message", "b", None)],
        [[("message", "ab", None)]],
        id="same type, no ids: appends to the last chunk",
    ),
    pytest.param(
        [("text", "message", "a", "m1"), ("text", "message", "b", "m1")],
        [[("message", "ab", "m1")]],
        id="same type, equal ids: appends",
    ),
    pytest.param(
        [("text", "message", "a", "m1"), ("text", "message", "b", "m2")],
        [[("message", "a", "m1"), ("message", "b", "m2")]],
        id="same type, different ids: new chunk in the same entry",
    ),
    pytest.param(
        [("text", "message", "a", None), ("text", "message", "b", "m1")],
        [[("message", "ab", "m1")]],
        id="missing id is back-filled",
    ),
    pytest.param(
        [("text", "message", "a", "m1"), ("text", "message", "b", None)],
        [[("message", "ab", "m1")]],
        id="incoming without id merges into a chunk with one",
    ),
    pytest.param(
        [("text", "thought", "t", None), ("text", "message", "m", None)],
        [[("thought", "t", None), ("message", "m", None)]],
        id="type change: new chunk in the same assistant entry",
    ),
    pytest.param(
        [
            ("text", "message", "a", None),
            ("text", "thought", "t", None),
            ("text", "message", "b", None),
        ],
        [[("message", "a", None), ("thought", "t", None), ("message", "b", None)]],
        id="back to the first type: yet another chunk, not the old one",
    ),
    pytest.param(
        [("user", "hi"), ("text", "message", "a", None)],
        [("user", "hi"), [("message", "a", None)]],
        id="after a user entry: new assistant entry",
    ),
    pytest.param(
        [("text", "message", "a", None), ("tool", "t1"), ("text", "message", "b", None)],
        [[("message", "a", None)], ("tool", "t1"), [("message", "b", None)]],
        id="after a tool call: new assistant entry",
    ),
]


@pytest.mark.parametrize(("steps", "expected"), MERGE_ROWS)
def test_chunk_merge_rules(steps: list[Step], expected: list[Any]) -> None:
    assert shape(run(steps)) == expected


def test_text_delta_events_describe_the_change() -> None:
    thread = Thread()
    first = thread.add_text("message", "a", None)
    second = thread.add_text("message", "b", "m1")
    third = thread.add_text("thought", "t", None)
    assert first.type == "entry-appended" and first.data["index"] == 0
    assert second.data["patch"] == {
        "textDelta": {"chunk": 0, "type": "message", "text": "b", "messageId": "m1"}
    }
    assert third.data["patch"] == {"textDelta": {"chunk": 1, "type": "thought", "text": "t"}}


def test_versions_bump_on_every_change() -> None:
    thread = Thread()
    thread.add_text("message", "a", None)
    entry = thread.entries[0]
    before = entry.version
    thread.add_text("message", "b", None)
    assert entry.version == before + 1


def test_user_chunks_extend_the_last_user_entry() -> None:
    thread = Thread()
    thread.add_user_chunk({"type": "text", "text": "hel"})
    event = thread.add_user_chunk({"type": "text", "text": "lo"})
    thread.add_user_chunk({"type": "resource_link", "uri": "file:///x", "name": "x"})
    assert event.type == "entry-updated"
    entry = thread.entries[0]
    assert isinstance(entry, UserEntry)
    assert entry.content[0] == {"type": "text", "text": "hello"}
    assert entry.content[1]["type"] == "resource_link"
    thread.add_text("message", "reply", None)
    thread.add_user_chunk({"type": "text", "text": "again"})
    assert [e.kind for e in thread.entries] == ["user", "assistant", "user"]


TOOL_ROWS: list[Any] = [
    pytest.param(
        [("start", {"toolCallId": "t", "title": "a", "kind": "read", "status": "pending"})],
        {"title": "a", "toolKind": "read", "status": "pending"},
        1,
        id="tool_call appends an entry",
    ),
    pytest.param(
        [
            ("start", {"toolCallId": "t", "title": "a", "kind": "read", "rawInput": {"x": 1}}),
            ("start", {"toolCallId": "t", "title": "b", "status": "in_progress"}),
        ],
        {"title": "b", "toolKind": "other", "status": "in_progress"},
        1,
        id="same id announced twice: replaced whole, no second entry",
    ),
    pytest.param(
        [
            ("start", {"toolCallId": "t", "title": "placeholder", "kind": "execute"}),
            ("update", {"toolCallId": "t", "title": "ls -la", "rawInput": {"command": "ls"}}),
            ("update", {"toolCallId": "t", "status": "completed"}),
        ],
        {
            "title": "ls -la",
            "toolKind": "execute",
            "status": "completed",
            "rawInput": {"command": "ls"},
        },
        1,
        id="updates change only the fields they carry",
    ),
    pytest.param(
        [
            (
                "start",
                {
                    "toolCallId": "t",
                    "title": "a",
                    "content": [{"type": "content", "content": {"type": "text", "text": "1"}}],
                },
            ),
            (
                "update",
                {
                    "toolCallId": "t",
                    "content": [{"type": "content", "content": {"type": "text", "text": "2"}}],
                },
            ),
        ],
        {"content": [{"type": "content", "content": {"type": "text", "text": "2"}}]},
        1,
        id="update content replaces the content list",
    ),
    pytest.param(
        [("update", {"toolCallId": "ghost", "title": "what", "status": "in_progress"})],
        {"title": "what", "status": "failed"},
        1,
        id="update for an unknown id: a visible failed entry",
    ),
    pytest.param(
        [
            ("start", {"toolCallId": "t", "title": "a"}),
            ("update", {"toolCallId": "t", "status": "bogus"}),
        ],
        {"status": "pending"},
        1,
        id="an unknown status value is ignored, not stored",
    ),
]


@pytest.mark.parametrize(("steps", "expected", "count"), TOOL_ROWS)
def test_tool_call_rules(steps: list[Any], expected: dict[str, Any], count: int) -> None:
    thread = Thread()
    for kind, fields in steps:
        if kind == "start":
            thread.upsert_tool_call(fields)
        else:
            thread.update_tool_call(fields)
    assert len(thread.entries) == count
    wire = thread.entries[0].to_wire()
    for key, value in expected.items():
        assert wire[key] == value, key


def test_unknown_update_entry_says_what_happened() -> None:
    thread = Thread()
    thread.update_tool_call({"toolCallId": "ghost"})
    entry = thread.entries[0]
    assert isinstance(entry, ToolCallEntry)
    assert "never announced" in entry.content[0]["content"]["text"]
    # A later announcement of that id replaces the placeholder.
    thread.upsert_tool_call({"toolCallId": "ghost", "title": "real", "status": "in_progress"})
    assert len(thread.entries) == 1
    assert thread.entries[0].to_wire()["status"] == "in_progress"


def test_long_stream_joins_lazily() -> None:
    thread = Thread()
    for n in range(20_000):
        thread.add_text("message", f"{n},", None)
    entry = thread.entries[0]
    assert isinstance(entry, AssistantEntry)
    text = entry.chunks[0].text
    assert text.split(",")[:-1] == [str(n) for n in range(20_000)]
