"""Events the host core publishes to its front ends.

One dataclass for every event type of acp-host-jsonl-v1: the ``type`` is the
protocol's name, ``data`` holds the payload fields under their wire names,
and ``session_id``/``cursor`` are stamped by the session that commits it.
Payloads are built when the event is committed (they are snapshots), so a
front end that serialises an event later still sees the state of that
moment, whatever happened to the session since.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

EventType = Literal[
    "entry-appended",
    "entry-updated",
    "entries-removed",
    "status-changed",
    "permission-requested",
    "permission-resolved",
    "elicitation-requested",
    "elicitation-resolved",
    "elicitation-completed",
    "plan-updated",
    "mode-changed",
    "config-updated",
    "commands-updated",
    "title-updated",
    "usage-updated",
    "needs-you",
    "agent-stderr",
    "protocol-frame",
    "error",
    "resync",
]

#: Events a congested channel may drop (the protocol calls ``agent-stderr``
#: "bounded, lossy under flood"). Everything else is structural or text.
LOSSY_TYPES: frozenset[str] = frozenset({"agent-stderr"})


@dataclass(slots=True)
class Event:
    type: EventType
    data: dict[str, Any] = field(default_factory=dict)
    session_id: str | None = None
    cursor: int = 0
    #: Text of merged deltas not yet joined (see :func:`merge_text_deltas`).
    pending_parts: list[str] | None = None
    #: Characters of assistant text a text delta carries (0 for other events).
    text_size: int = 0

    @property
    def text_delta(self) -> dict[str, Any] | None:
        """The ``textDelta`` patch when this is a text delta, else None."""
        if self.type != "entry-updated":
            return None
        delta: dict[str, Any] | None = self.data["patch"].get("textDelta")
        return delta

    def seal(self) -> Event:
        """Join merged text; called once the event leaves its channel."""
        if self.pending_parts is not None:
            self.data["patch"]["textDelta"]["text"] = "".join(self.pending_parts)
            self.pending_parts = None
        return self

    def to_wire(self) -> dict[str, Any]:
        self.seal()
        wire: dict[str, Any] = {"type": self.type}
        if self.session_id is not None:
            wire["sessionId"] = self.session_id
            wire["cursor"] = self.cursor
        wire.update(self.data)
        return wire


#: Wire fields of every event that are not its payload.
ENVELOPE = ("type", "sessionId", "cursor")


def event_from_wire(wire: dict[str, Any]) -> Event:
    """An event read back from its wire form (:meth:`Event.to_wire`), as a
    front end on another process's host receives it."""
    session_id = wire.get("sessionId")
    cursor = wire.get("cursor")
    kind: Any = wire.get("type")  # (a newer host's type passes through as it is)
    event = Event(
        kind,
        {key: value for key, value in wire.items() if key not in ENVELOPE},
        session_id if isinstance(session_id, str) else None,
        cursor if isinstance(cursor, int) else 0,
    )
    delta = event.text_delta if isinstance(event.data.get("patch"), dict) else None
    if delta is not None:
        event.text_size = len(str(delta.get("text", "")))
    return event


def entry_appended(index: int, entry: dict[str, Any]) -> Event:
    return Event("entry-appended", {"index": index, "entry": entry})


def entry_replaced(index: int, entry: dict[str, Any]) -> Event:
    return Event("entry-updated", {"index": index, "patch": {"entry": entry}})


def text_delta(index: int, chunk: int, chunk_type: str, text: str, message_id: str | None) -> Event:
    delta: dict[str, Any] = {"chunk": chunk, "type": chunk_type, "text": text}
    if message_id is not None:
        delta["messageId"] = message_id
    event = Event("entry-updated", {"index": index, "patch": {"textDelta": delta}})
    event.text_size = len(text)
    return event


def merge_text_deltas(earlier: Event, later: Event) -> Event | None:
    """Fold ``later`` into ``earlier`` when both extend the same chunk.

    Returns the merged event, or None (changing nothing) when they are not
    two deltas of the same (session, entry, chunk). Events are shared by
    every channel they were published to, so the first merge works on a
    private copy of ``earlier``; texts are collected in a list and joined
    once by :meth:`Event.seal`, so merging n deltas costs O(n), not O(n^2).
    The merged event carries the later cursor.
    """
    a, b = earlier.text_delta, later.text_delta
    if a is None or b is None:
        return None
    if (
        earlier.session_id != later.session_id
        or earlier.data["index"] != later.data["index"]
        or a["chunk"] != b["chunk"]
        or a["type"] != b["type"]
    ):
        return None
    merged = earlier
    if merged.pending_parts is None:
        a = dict(a)
        merged = Event(
            "entry-updated",
            {"index": earlier.data["index"], "patch": {"textDelta": a}},
            earlier.session_id,
            earlier.cursor,
            [a["text"]],
            earlier.text_size,
        )
    assert merged.pending_parts is not None
    merged.pending_parts.append(b["text"])
    merged.text_size += later.text_size
    if "messageId" in b:
        a["messageId"] = b["messageId"]
    merged.cursor = later.cursor
    return merged
