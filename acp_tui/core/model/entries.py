"""The entries of a session's thread, and their wire shapes.

Entry shapes follow protocol/acp-host-jsonl-v1.md (ACP's camelCase names).
Every entry has a ``version`` that the thread bumps on each change, so a
front end can cache whatever it derives from an entry (rendered lines) per
version. ACP content blocks and tool-call content are kept as plain JSON
objects in their wire form: they are only ever shown or forwarded.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Literal

ChunkType = Literal["message", "thought"]
ToolStatus = Literal[
    "pending",
    "in_progress",
    "completed",
    "failed",
    "waiting_for_confirmation",
    "canceled",
    "rejected",
]
NoticeLevel = Literal["info", "warning", "error"]

#: Statuses after which a tool call does nothing more.
FINISHED_STATUSES: frozenset[str] = frozenset({"completed", "failed", "canceled", "rejected"})


class Chunk:
    """One run of assistant text of one type (message or thought).

    Text arrives in many small pieces. Appending to a growing string would
    copy it every time (O(n^2)); a list of tiny strings costs ~60 bytes of
    overhead per piece (a 1,000,000-chunk stream would hold 60 MB of it).
    So pieces gather in a short list that is folded into ~KB blocks, and the
    whole text is joined only when someone reads it.
    """

    __slots__ = ("_blocks", "_length", "_pending", "message_id", "type")

    #: Pieces folded into one block at a time.
    FOLD = 256

    def __init__(self, chunk_type: ChunkType, text: str, message_id: str | None) -> None:
        self.type: ChunkType = chunk_type
        self.message_id = message_id
        self._blocks: list[str] = []
        self._pending = [text]
        self._length = len(text)

    @property
    def length(self) -> int:
        """The text's length, known without joining it."""
        return self._length

    def append(self, text: str) -> None:
        self._length += len(text)
        pending = self._pending
        pending.append(text)
        if len(pending) >= self.FOLD:
            self._blocks.append("".join(pending))
            pending.clear()

    @property
    def text(self) -> str:
        if self._pending:
            self._blocks.append("".join(self._pending))
            self._pending.clear()
        blocks = self._blocks
        if len(blocks) > 1:
            joined = "".join(blocks)
            blocks.clear()
            blocks.append(joined)
        return blocks[0] if blocks else ""

    def text_from(self, start: int) -> str:
        """The text from ``start`` on, joining none of what comes before it
        (reading a long reply's new end costs the end's length, not the reply's)."""
        wanted = self._length - max(start, 0)
        if wanted <= 0:
            return ""
        if wanted == self._length:
            return self.text
        tail: list[str] = []
        for part in itertools.chain(reversed(self._pending), reversed(self._blocks)):
            if len(part) >= wanted:
                tail.append(part[len(part) - wanted :])
                break
            tail.append(part)
            wanted -= len(part)
        return "".join(reversed(tail))

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text, "messageId": self.message_id}


@dataclass(eq=False)
class UserEntry:
    content: list[dict[str, Any]]
    version: int = 0
    kind: Literal["user"] = "user"

    @property
    def text(self) -> str:
        """The prompt's text blocks, with other blocks named in brackets."""
        return "".join(describe_block(block) for block in self.content)

    def to_wire(self) -> dict[str, Any]:
        return {"kind": "user", "content": list(self.content)}


@dataclass(eq=False)
class AssistantEntry:
    chunks: list[Chunk] = field(default_factory=list)
    version: int = 0
    kind: Literal["assistant"] = "assistant"

    def to_wire(self) -> dict[str, Any]:
        return {"kind": "assistant", "chunks": [c.to_wire() for c in self.chunks]}


@dataclass(eq=False)
class ToolCallEntry:
    tool_call_id: str
    title: str = ""
    tool_kind: str = "other"
    #: The agent's status, or a client-side one (rejected, canceled).
    status: ToolStatus = "pending"
    content: list[dict[str, Any]] = field(default_factory=list)
    locations: list[dict[str, Any]] = field(default_factory=list)
    raw_input: Any = None
    raw_output: Any = None
    #: The pending permission request, when one waits on this tool call.
    permission: dict[str, Any] | None = None
    #: The tool call this one runs under (a subagent's: claude-agent-acp's
    #: ``_meta.claudeCode.parentToolUseId``), when the agent says so.
    parent_tool_call_id: str | None = None
    version: int = 0
    kind: Literal["tool_call"] = "tool_call"

    @property
    def shown_status(self) -> ToolStatus:
        return "waiting_for_confirmation" if self.permission is not None else self.status

    def terminal_ids(self) -> list[str]:
        return [c["terminalId"] for c in self.content if c.get("type") == "terminal"]

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "kind": "tool_call",
            "toolCallId": self.tool_call_id,
            "title": self.title,
            "toolKind": self.tool_kind,
            "status": self.shown_status,
            "content": list(self.content),
            "locations": list(self.locations),
        }
        if self.raw_input is not None:
            wire["rawInput"] = self.raw_input
        if self.raw_output is not None:
            wire["rawOutput"] = self.raw_output
        if self.permission is not None:
            wire["permission"] = self.permission
        if self.parent_tool_call_id is not None:
            wire["parentToolCallId"] = self.parent_tool_call_id
        return wire


@dataclass(eq=False)
class NoticeEntry:
    """Something the host itself has to tell the user (agent exited, …).

    An addition to the protocol's entry kinds: ``{"kind": "notice",
    "level": "info"|"warning"|"error", "text": str}``.
    """

    level: NoticeLevel
    text: str
    version: int = 0
    kind: Literal["notice"] = "notice"

    def to_wire(self) -> dict[str, Any]:
        return {"kind": "notice", "level": self.level, "text": self.text}


@dataclass(eq=False)
class ChangesEntry:
    """What one prompt turn changed in the session's folders, whoever made the
    changes: the files that differ between the checkpoint taken before the
    turn and the one taken after it.

    Wire: ``{"kind": "changes", "turn": int|null, "checkpointId": str (after
    the turn), "baseCheckpointId": str (before it), "files": [{"path",
    "display", "change": "added"|"modified"|"deleted", "added"?, "removed"?,
    "binary"?, "outside"?}], "skipped": [{"path", "reason"}]}``. ``outside``:
    the file was most likely written by someone else while the turn ran (its
    modification time is outside every tool call of the turn).
    """

    turn: int | None
    checkpoint_id: str
    base_checkpoint_id: str
    files: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    version: int = 0
    kind: Literal["changes"] = "changes"

    def to_wire(self) -> dict[str, Any]:
        return {
            "kind": "changes",
            "turn": self.turn,
            "checkpointId": self.checkpoint_id,
            "baseCheckpointId": self.base_checkpoint_id,
            "files": list(self.files),
            "skipped": list(self.skipped),
        }


@dataclass(eq=False)
class RewindEntry:
    """Files put back as they were at a checkpoint. The conversation stays as
    it is (ACP cannot rewind an agent's memory).

    Wire: ``{"kind": "rewind", "checkpointId": str (restored), "turn":
    int|null (the turn whose start it was), "undoCheckpointId": str (taken
    just before: restoring it undoes this), "files": [{"path", "display",
    "action": "restore"|"recreate"|"remove"}], "agentTold": bool (the next
    prompt tells the agent), "label": the restored checkpoint's label
    ("before-turn", "after-turn", "before-restore": an earlier restore undone,
    "after-restore")}``.
    """

    checkpoint_id: str
    undo_checkpoint_id: str
    turn: int | None = None
    files: list[dict[str, Any]] = field(default_factory=list)
    agent_told: bool = False
    label: str = "before-turn"
    version: int = 0
    kind: Literal["rewind"] = "rewind"

    def to_wire(self) -> dict[str, Any]:
        return {
            "kind": "rewind",
            "checkpointId": self.checkpoint_id,
            "turn": self.turn,
            "undoCheckpointId": self.undo_checkpoint_id,
            "files": list(self.files),
            "agentTold": self.agent_told,
            "label": self.label,
        }


Entry = UserEntry | AssistantEntry | ToolCallEntry | NoticeEntry | ChangesEntry | RewindEntry


def describe_block(block: dict[str, Any]) -> str:
    """A content block as text: text as is, anything else named in brackets."""
    block_type = block.get("type")
    if block_type == "text":
        return str(block.get("text", ""))
    if block_type == "resource_link":
        return f"[{block.get('name') or block.get('uri', 'link')}]({block.get('uri', '')})"
    if block_type == "resource":
        resource = block.get("resource") or {}
        return f"[{resource.get('uri', 'resource')}]"
    return f"[{block_type or 'content'}]"


def entry_from_wire(wire: dict[str, Any]) -> Entry:
    """An entry rebuilt from its wire form (a stored transcript); ValueError
    when ``wire`` is not one of the entry kinds."""
    kind = wire.get("kind")
    if kind == "user":
        content = wire.get("content")
        return UserEntry(
            [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        )
    if kind == "assistant":
        entry = AssistantEntry()
        for chunk in wire.get("chunks") or []:
            if isinstance(chunk, dict) and chunk.get("type") in ("message", "thought"):
                entry.chunks.append(
                    Chunk(chunk["type"], str(chunk.get("text", "")), chunk.get("messageId"))
                )
        return entry
    if kind == "tool_call":
        status = wire.get("status")
        return ToolCallEntry(
            tool_call_id=str(wire.get("toolCallId", "")),
            title=str(wire.get("title", "")),
            tool_kind=str(wire.get("toolKind", "other")),
            # A call still waiting or running when it was stored will never finish now.
            status=status if status in FINISHED_STATUSES else "canceled",
            content=[c for c in wire.get("content") or [] if isinstance(c, dict)],
            locations=[c for c in wire.get("locations") or [] if isinstance(c, dict)],
            raw_input=wire.get("rawInput"),
            raw_output=wire.get("rawOutput"),
            parent_tool_call_id=_text_or_none(wire.get("parentToolCallId")),
        )
    if kind == "notice":
        level = wire.get("level")
        return NoticeEntry(
            level=level if level in ("info", "warning", "error") else "info",
            text=str(wire.get("text", "")),
        )
    if kind == "changes":
        return ChangesEntry(
            turn=_int_or_none(wire.get("turn")),
            checkpoint_id=str(wire.get("checkpointId", "")),
            base_checkpoint_id=str(wire.get("baseCheckpointId", "")),
            files=_objects(wire.get("files")),
            skipped=_objects(wire.get("skipped")),
        )
    if kind == "rewind":
        return RewindEntry(
            checkpoint_id=str(wire.get("checkpointId", "")),
            undo_checkpoint_id=str(wire.get("undoCheckpointId", "")),
            turn=_int_or_none(wire.get("turn")),
            files=_objects(wire.get("files")),
            agent_told=wire.get("agentTold") is True,
            label=str(wire.get("label") or "before-turn"),
        )
    raise ValueError(f"unknown entry kind {kind!r}")


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _objects(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
