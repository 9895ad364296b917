"""One session's entry list: the only code that changes an entry.

Every change to an entry — text, a tool call, a pending permission, a
terminal's output copied into a tool call — is a method here. Each applies
one change and returns the events describing it (without session id or
cursor; the session stamps those). Synchronous, no I/O, no callbacks.

A pending permission lives on its tool call's entry (``permission``:
request id and options) and nowhere else; the thread's lookups by request
id and by terminal id are indexes of its own entries. The merge rules are
Zed's (crates/acp_thread):

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
* A tool call's parent (``_meta.claudeCode.parentToolUseId``: the subagent
  tool call it runs under) is taken from whichever of its updates carries
  one, and kept when a later one does not; anything malformed is ignored.
* A permission request is resolved once: by a decision, or cancelled (a
  newer request for the same call, the turn ending, the call replaced or
  finished by the agent). Every later decision is ``already_decided``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from acp_tui.core.errors import HostError
from acp_tui.core.model import events
from acp_tui.core.model.entries import (
    AssistantEntry,
    ChangesEntry,
    Chunk,
    ChunkType,
    Entry,
    NoticeEntry,
    NoticeLevel,
    RewindEntry,
    ToolCallEntry,
    ToolStatus,
    UserEntry,
    entry_from_wire,
)
from acp_tui.core.model.events import Event

#: A terminal's output as a tool call's content item shows it (``output``,
#: ``truncated``, ``exitStatus``?), or None for a terminal this host never made.
TerminalOutput = Callable[[str], Mapping[str, Any] | None]

#: How many resolved request ids are remembered to answer ``already_decided``.
RESOLVED_MEMORY = 10_000
CANCELLED: dict[str, Any] = {"outcome": "cancelled"}

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
        #: Pending permission request id -> its tool call's id.
        self._waiting: dict[str, str] = {}
        self._resolved: OrderedDict[str, None] = OrderedDict()
        #: Terminal id -> the tool calls whose content embeds it.
        self._terminals: dict[str, set[str]] = {}

    def __len__(self) -> int:
        return len(self.entries)

    # -- helpers ---------------------------------------------------------

    def _append(self, entry: Entry) -> Event:
        self.entries.append(entry)
        index = len(self.entries) - 1
        if isinstance(entry, ToolCallEntry):
            self._tool_index[entry.tool_call_id] = index
            self._index_terminals(entry)
        return events.entry_appended(index, entry.to_wire())

    def _index_terminals(self, entry: ToolCallEntry) -> None:
        for terminal_id in entry.terminal_ids():
            self._terminals.setdefault(terminal_id, set()).add(entry.tool_call_id)

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

    def append_record(self, entry: ChangesEntry | RewindEntry) -> Event:
        """A record of the host's own about the session's files (checkpoints)."""
        return self._append(entry)

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
        if entry.parent_tool_call_id is None:
            entry.parent_tool_call_id = old.parent_tool_call_id
        self.entries[index] = entry
        self._index_terminals(entry)
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
        self._index_terminals(entry)
        return self.touch(index), entry, False

    def set_tool_status(self, index: int, status: ToolStatus) -> Event:
        entry = self.entries[index]
        assert isinstance(entry, ToolCallEntry)
        entry.status = status
        return self.touch(index)

    def mark_unfinished(self, start: int, status: ToolStatus) -> list[Event]:
        """Tool calls from ``start`` on still pending or running get ``status``."""
        out = []
        for index in range(start, len(self.entries)):
            entry = self.entries[index]
            if isinstance(entry, ToolCallEntry) and entry.status in ("pending", "in_progress"):
                out.append(self.set_tool_status(index, status))
        return out

    def remove(self, start: int, end: int) -> Event:
        del self.entries[start:end]
        self._tool_index = {
            e.tool_call_id: i for i, e in enumerate(self.entries) if isinstance(e, ToolCallEntry)
        }
        self._waiting = {r: t for r, t in self._waiting.items() if t in self._tool_index}
        return Event("entries-removed", {"start": start, "end": end})

    # -- terminal output ---------------------------------------------------------

    def show_terminal(self, terminal_id: str, output: Mapping[str, Any]) -> list[Event]:
        """Copy a terminal's ``output`` (``output``, ``truncated``,
        ``exitStatus``?) into every tool call that embeds it."""
        out = []
        for tool_call_id in sorted(self._terminals.get(terminal_id, ())):
            found = self.tool_call(tool_call_id)
            if found is None:
                continue
            index, entry = found
            changed = False
            for position, item in enumerate(entry.content):
                if item.get("type") == "terminal" and item.get("terminalId") == terminal_id:
                    updated = with_output(item, output)
                    if updated != item:
                        entry.content[position] = updated
                        changed = True
            if changed:
                out.append(self.touch(index))
        return out

    # -- permissions ---------------------------------------------------------------

    def waiting(self, request_id: str) -> tuple[int, ToolCallEntry] | None:
        """The tool call that permission request ``request_id`` waits on."""
        tool_call_id = self._waiting.get(request_id)
        return self.tool_call(tool_call_id) if tool_call_id is not None else None

    def pending_requests(self) -> list[str]:
        """Every pending permission request id, oldest first."""
        return list(self._waiting)

    def was_resolved(self, request_id: str) -> bool:
        return request_id in self._resolved

    def request_permission(
        self, tool_call_id: str, request_id: str, options: list[dict[str, Any]]
    ) -> list[Event]:
        """Request ``request_id`` waits on tool call ``tool_call_id`` (an
        older request for the same call is cancelled: it can never be answered)."""
        found = self.tool_call(tool_call_id)
        if found is None:
            raise ValueError(f"no tool call {tool_call_id!r} in this thread")
        index, entry = found
        out = []
        older = _permission_id(entry)
        if older is not None:
            out += self.resolve_permission(older, CANCELLED, status=None, touch=False)
        entry.permission = {"requestId": request_id, "options": options}
        self._waiting[request_id] = tool_call_id
        out.append(self.touch(index))
        out.append(
            Event(
                "permission-requested",
                {
                    "requestId": request_id,
                    "toolCallId": tool_call_id,
                    "title": entry.title,
                    "options": options,
                },
            )
        )
        return out

    def decide_permission(self, request_id: str, option_id: str) -> list[Event]:
        """The user chose ``option_id``: an allow option runs the call, a reject
        option rejects it. HostError for an unknown option, or a request that
        is not pending (``already_decided``, ``not_found``)."""
        options = self._require(request_id)
        option = next((o for o in options if o.get("optionId") == option_id), None)
        if option is None:
            known = ", ".join(str(o.get("optionId")) for o in options)
            raise HostError("invalid_params", f"unknown optionId {option_id!r} (one of: {known})")
        allowed = str(option.get("kind", "")).startswith("allow")
        return self.resolve_permission(
            request_id,
            {"outcome": "selected", "optionId": option_id},
            status="in_progress" if allowed else "rejected",
            touch=True,
        )

    def cancel_permission(self, request_id: str) -> list[Event]:
        """Cancelled by the user or the agent: the tool call shows ``canceled``."""
        self._require(request_id)
        return self.resolve_permission(request_id, CANCELLED, status="canceled", touch=True)

    def cancel_permissions(self) -> list[Event]:
        """Every pending request cancelled (the turn ended, the session closed)."""
        out = []
        for request_id in self.pending_requests():
            out += self.resolve_permission(request_id, CANCELLED, status="canceled", touch=True)
        return out

    def drop_permission_of(self, tool_call_id: str) -> list[Event]:
        """The agent replaced or finished tool call ``tool_call_id``: a request
        waiting on it is cancelled, the entry left for the caller to change."""
        found = self.tool_call(tool_call_id)
        request_id = _permission_id(found[1]) if found is not None else None
        if request_id is None:
            return []
        return self.resolve_permission(request_id, CANCELLED, status=None, touch=False)

    def resolve_permission(
        self,
        request_id: str,
        outcome: dict[str, Any],
        *,
        status: ToolStatus | None,
        touch: bool,
    ) -> list[Event]:
        """Resolve pending request ``request_id`` with ``outcome``: off its
        entry (with ``status``, when given), then ``permission-resolved``."""
        tool_call_id = self._waiting.pop(request_id, None)
        if tool_call_id is None:
            return []
        self._resolved[request_id] = None
        while len(self._resolved) > RESOLVED_MEMORY:
            self._resolved.popitem(last=False)
        out = []
        found = self.tool_call(tool_call_id)
        if found is not None and _permission_id(found[1]) == request_id:
            index, entry = found
            entry.permission = None
            if status is not None:
                entry.status = status
            if touch:
                out.append(self.touch(index))
        out.append(Event("permission-resolved", {"requestId": request_id, "outcome": outcome}))
        return out

    def _require(self, request_id: str) -> list[dict[str, Any]]:
        """The options of pending request ``request_id``."""
        found = self.waiting(request_id)
        if found is not None and found[1].permission is not None:
            return list(found[1].permission.get("options") or [])
        if request_id in self._resolved:
            raise HostError(
                "already_decided", f"permission request {request_id} was already resolved"
            )
        raise HostError("not_found", f"no permission request {request_id}")


def with_output(item: dict[str, Any], output: Mapping[str, Any]) -> dict[str, Any]:
    """A terminal content item with the terminal's output copied in."""
    return {**item, **output}


def fill_terminals(
    content: list[dict[str, Any]] | None, terminal_output: TerminalOutput
) -> list[dict[str, Any]]:
    """``content`` with each known terminal's current output copied in."""
    if not content:
        return []
    filled = []
    for item in content:
        if item.get("type") == "terminal":
            output = terminal_output(str(item.get("terminalId")))
            if output is not None:
                item = with_output(item, output)
        filled.append(item)
    return filled


def _permission_id(entry: ToolCallEntry) -> str | None:
    permission = entry.permission
    request_id = permission.get("requestId") if permission is not None else None
    return request_id if isinstance(request_id, str) else None


def parent_tool_call_id(fields: Mapping[str, Any]) -> str | None:
    """The parent a tool call's update names (``_meta`` → ``claudeCode`` →
    ``parentToolUseId``, a non-empty string other than the call's own id)."""
    meta = fields.get("_meta")
    claude = meta.get("claudeCode") if isinstance(meta, Mapping) else None
    parent = claude.get("parentToolUseId") if isinstance(claude, Mapping) else None
    if not isinstance(parent, str) or not parent or parent == fields.get("toolCallId"):
        return None
    return parent


def _assign(entry: ToolCallEntry, fields: dict[str, Any]) -> None:
    parent = parent_tool_call_id(fields)
    if parent is not None:
        entry.parent_tool_call_id = parent
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
