"""One session's entry list and the rules that merge agent updates into it.

Pure and synchronous: every method applies one change and returns the
events describing it (without session id or cursor; the session stamps
those). The merge rules are Zed's (crates/acp_thread):

* A message/thought chunk appends to the last chunk of the last entry when
  that entry is an assistant entry, the chunk type is the same and the
  message ids are compatible (they conflict only when both are set and
  differ; a missing id is back-filled). Otherwise it starts a new chunk in
  that assistant entry; when the last entry is not an assistant entry, it
  starts a new assistant entry.
* A user message chunk (history replay) extends the last user entry the
  same way, or starts one.
* ``tool_call`` is an upsert by ``toolCallId`` (agents announce the same id
  twice); ``tool_call_update`` changes only the fields it carries, and one
  for an unknown id becomes a visible failed entry instead of vanishing.
"""

from __future__ import annotations

from typing import Any

from acp_tui.core.model import events
from acp_tui.core.model.entries import (
    AssistantEntry,
    Chunk,
    ChunkType,
    Entry,
    NoticeEntry,
    NoticeLevel,
    ToolCallEntry,
    ToolStatus,
    UserEntry,
    entry_from_wire,
)
from acp_tui.core.model.events import Event

#: ACP tool-call fields (wire names) -> ToolCallEntry attributes.
_TOOL_FIELDS = {
    "title": "title",
    "kind": "tool_kind",
    "status": "status",
    "content": "content",
    "locations": "locations",
    "rawInput": "raw_input",
    "rawOutput": "raw_output",
}
_AGENT_STATUSES = frozenset({"pending", "in_progress", "completed", "failed"})


def ids_compatible(current: str | None, incoming: str | None) -> bool:
    return current is None or incoming is None or current == incoming


class Thread:
    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self._tool_index: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.entries)

    # -- helpers ---------------------------------------------------------

    def _append(self, entry: Entry) -> Event:
        self.entries.append(entry)
        index = len(self.entries) - 1
        if isinstance(entry, ToolCallEntry):
            self._tool_index[entry.tool_call_id] = index
        return events.entry_appended(index, entry.to_wire())

    def touch(self, index: int) -> Event:
        """Bump entry ``index``'s version and describe it whole."""
        entry = self.entries[index]
        entry.version += 1
        return events.entry_replaced(index, entry.to_wire())

    def tool_call(self, tool_call_id: str) -> tuple[int, ToolCallEntry] | None:
        index = self._tool_index.get(tool_call_id)
        if index is None:
            return None
        entry = self.entries[index]
        assert isinstance(entry, ToolCallEntry)
        return index, entry

    def index_of(self, entry: Entry) -> int:
        for index in range(len(self.entries) - 1, -1, -1):
            if self.entries[index] is entry:
                return index
        raise ValueError("entry is not in this thread")

    # -- user, assistant, notices ---------------------------------------

    def append_user(self, content: list[dict[str, Any]]) -> Event:
        return self._append(UserEntry(content=list(content)))

    def add_user_chunk(self, block: dict[str, Any]) -> Event:
        last = self.entries[-1] if self.entries else None
        if not isinstance(last, UserEntry):
            return self._append(UserEntry(content=[block]))
        tail = last.content[-1] if last.content else None
        if tail is not None and tail.get("type") == "text" and block.get("type") == "text":
            last.content[-1] = {**tail, "text": str(tail.get("text", "")) + block.get("text", "")}
        else:
            last.content.append(block)
        return self.touch(len(self.entries) - 1)

    def text_target(self, chunk_type: ChunkType, message_id: str | None) -> Chunk | None:
        """The chunk :meth:`add_text` would extend (None: it would start one)."""
        last = self.entries[-1] if self.entries else None
        if not isinstance(last, AssistantEntry) or not last.chunks:
            return None
        tail = last.chunks[-1]
        if tail.type == chunk_type and ids_compatible(tail.message_id, message_id):
            return tail
        return None

    def last_chunk(self) -> tuple[int, int]:
        """(entry index, chunk index) of the chunk text was last added to."""
        last = self.entries[-1]
        assert isinstance(last, AssistantEntry)
        return len(self.entries) - 1, len(last.chunks) - 1

    def add_text(self, chunk_type: ChunkType, text: str, message_id: str | None) -> Event:
        entries = self.entries
        last = entries[-1] if entries else None
        if not isinstance(last, AssistantEntry):
            entry = AssistantEntry(chunks=[Chunk(chunk_type, text, message_id)])
            return self._append(entry)
        index = len(entries) - 1
        last.version += 1
        chunks = last.chunks
        tail = chunks[-1] if chunks else None
        if (
            tail is not None
            and tail.type == chunk_type
            and ids_compatible(tail.message_id, message_id)
        ):
            if tail.message_id is None:
                tail.message_id = message_id
            tail.append(text)
            return events.text_delta(index, len(chunks) - 1, chunk_type, text, tail.message_id)
        chunks.append(Chunk(chunk_type, text, message_id))
        return events.text_delta(index, len(chunks) - 1, chunk_type, text, message_id)

    def append_copy(self, entry: Entry) -> Event:
        """Append a copy of another thread's entry (a session carried over)."""
        return self._append(entry_from_wire(entry.to_wire()))

    def append_notice(self, level: NoticeLevel, text: str) -> Event:
        return self._append(NoticeEntry(level=level, text=text))

    # -- tool calls ------------------------------------------------------

    def upsert_tool_call(self, fields: dict[str, Any]) -> tuple[Event, ToolCallEntry, bool]:
        """Apply a ``tool_call``: a new entry, or a whole replacement of the
        entry with the same id. Returns (event, entry, replaced)."""
        entry = ToolCallEntry(tool_call_id=str(fields["toolCallId"]))
        _assign(entry, fields)
        found = self.tool_call(entry.tool_call_id)
        if found is None:
            return self._append(entry), entry, False
        index, old = found
        entry.version = old.version + 1
        self.entries[index] = entry
        return events.entry_replaced(index, entry.to_wire()), entry, True

    def update_tool_call(self, fields: dict[str, Any]) -> tuple[Event, ToolCallEntry, bool]:
        """Apply a ``tool_call_update``: change only the fields it carries.

        An update for an id never announced becomes a failed entry that
        shows what the update carried. Returns (event, entry, created)."""
        tool_call_id = str(fields["toolCallId"])
        found = self.tool_call(tool_call_id)
        if found is None:
            entry = ToolCallEntry(tool_call_id=tool_call_id, title="Unknown tool call")
            _assign(entry, fields)
            entry.status = "failed"
            entry.content = [
                _text_content(f"The agent updated tool call {tool_call_id!r}, never announced."),
                *entry.content,
            ]
            return self._append(entry), entry, True
        index, entry = found
        _assign(entry, fields)
        return self.touch(index), entry, False

    def set_tool_status(self, index: int, status: ToolStatus) -> Event:
        entry = self.entries[index]
        assert isinstance(entry, ToolCallEntry)
        entry.status = status
        return self.touch(index)

    def remove(self, start: int, end: int) -> Event:
        del self.entries[start:end]
        self._tool_index = {
            e.tool_call_id: i for i, e in enumerate(self.entries) if isinstance(e, ToolCallEntry)
        }
        return Event("entries-removed", {"start": start, "end": end})


def _assign(entry: ToolCallEntry, fields: dict[str, Any]) -> None:
    for wire_name, attribute in _TOOL_FIELDS.items():
        value = fields.get(wire_name)
        if value is None:
            continue
        if wire_name == "status" and value not in _AGENT_STATUSES:
            continue
        if wire_name in ("content", "locations"):
            value = list(value)
        elif wire_name == "title":
            value = str(value)
        setattr(entry, attribute, value)


def _text_content(text: str) -> dict[str, Any]:
    return {"type": "content", "content": {"type": "text", "text": text}}
