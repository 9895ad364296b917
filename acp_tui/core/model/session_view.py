"""One session as a front end knows it: a replica built from the event stream.

A :class:`SessionView` starts from a snapshot (``Host.snapshot``, the
headless protocol's ``session.snapshot``) and applies the events that
follow it, in order, by their wire payloads (acp-host-jsonl-v1): the same
facts the headless server writes. It never reads the session it mirrors, so
it can be fed from the host in this process, from a recording, or from a
host in another process. Events at or below its cursor are already in it
and are skipped.

Its entries are its own objects (the model's entry classes, rebuilt from
their wire forms), each with a version that changes on every change the
view applies, so a front end can cache what it derives from one.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from acp_tui.core.model.entries import (
    AssistantEntry,
    Chunk,
    ChunkType,
    Entry,
    ToolCallEntry,
    ToolStatus,
    entry_from_wire,
)
from acp_tui.core.model.events import ENVELOPE

#: Tool-call statuses as the wire shows them (``entry_from_wire`` reads a
#: stored transcript, where an unfinished call is over: a live view keeps them).
_TOOL_STATUSES: frozenset[str] = frozenset(get_args(ToolStatus))

#: Versions are unique across views: a log that shows several views caches
#: by (position, version), and a position can change hands (entries removed).
_versions = itertools.count(1)


def live_entry(wire: Mapping[str, Any]) -> Entry:
    """An entry rebuilt from its wire form as it is now (a running tool call
    stays running, a pending permission stays on its entry)."""
    entry = entry_from_wire(dict(wire))
    if isinstance(entry, ToolCallEntry):
        status = wire.get("status")
        if status in _TOOL_STATUSES:
            entry.status = status
        permission = wire.get("permission")
        entry.permission = dict(permission) if isinstance(permission, Mapping) else None
    entry.version = next(_versions)
    return entry


@dataclass(eq=False)
class SessionView:
    """The state of one session: entries, status, plan, modes, config, usage, title."""

    session_id: str
    cursor: int = 0
    status: str = "idle"
    entries: list[Entry] = field(default_factory=list)
    plan: list[dict[str, Any]] = field(default_factory=list)
    commands: list[dict[str, Any]] = field(default_factory=list)
    modes: dict[str, Any] | None = None
    config_options: list[dict[str, Any]] = field(default_factory=list)
    title: str | None = None
    usage: dict[str, Any] | None = None
    last_stop_reason: str | None = None
    #: The session's working directory, when the snapshot names it.
    cwd: Path | None = None
    #: The MCP servers the session was given, when the snapshot names them.
    mcp_servers: list[dict[str, Any]] | None = None
    #: Pending permission requests: request id -> ``permission-requested`` payload.
    permissions: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_snapshot(cls, snapshot: Mapping[str, Any]) -> SessionView:
        """The view of ``snapshot`` (``session.snapshot``'s result)."""
        modes = snapshot.get("modes")
        cwd = snapshot.get("cwd")
        view = cls(
            session_id=str(snapshot["sessionId"]),
            cursor=int(snapshot.get("cursor", 0)),
            status=str(snapshot.get("status", "idle")),
            entries=[live_entry(wire) for wire in snapshot.get("entries") or []],
            plan=list(snapshot.get("plan") or []),
            commands=list(snapshot.get("availableCommands") or []),
            modes=dict(modes) if isinstance(modes, Mapping) else None,
            config_options=list(snapshot.get("configOptions") or []),
            title=snapshot.get("title"),
            usage=snapshot.get("usage"),
            last_stop_reason=snapshot.get("stopReason"),
            cwd=Path(cwd) if isinstance(cwd, str) else None,
            mcp_servers=list(servers)
            if isinstance(servers := snapshot.get("mcpServers"), list)
            else None,
        )
        for entry in view.entries:
            if isinstance(entry, ToolCallEntry) and entry.permission is not None:
                request_id = str(entry.permission.get("requestId"))
                view.permissions[request_id] = {
                    "requestId": request_id,
                    "toolCallId": entry.tool_call_id,
                    "title": entry.title,
                    "options": list(entry.permission.get("options") or []),
                }
        return view

    @property
    def running(self) -> bool:
        """A turn is running, as far as the events applied say."""
        return self.status == "running"

    # -- applying events ------------------------------------------------------

    def apply(self, kind: str, cursor: int, data: Mapping[str, Any]) -> bool:
        """Apply one event of this session (its type, cursor and payload);
        False when the view already holds it (``cursor`` at or below its own)."""
        if cursor and cursor <= self.cursor:
            return False
        applier = _APPLIERS.get(kind)
        if applier is not None:
            applier(self, data)
        if cursor:
            self.cursor = cursor
        return True

    def apply_wire(self, event: Mapping[str, Any]) -> bool:
        """:meth:`apply` for an event in its wire form (``Event.to_wire()``)."""
        return self.apply(str(event.get("type")), int(event.get("cursor") or 0), event)

    def _appended(self, data: Mapping[str, Any]) -> None:
        index = int(data["index"])
        entry = live_entry(data["entry"])
        if index >= len(self.entries):
            self.entries.append(entry)
        else:
            self.entries[index] = entry

    def _updated(self, data: Mapping[str, Any]) -> None:
        index = int(data["index"])
        patch = data["patch"]
        if "entry" in patch:
            self.entries[index] = live_entry(patch["entry"])
            return
        delta = patch.get("textDelta")
        entry = self.entries[index]
        if not isinstance(delta, Mapping) or not isinstance(entry, AssistantEntry):
            return
        position = int(delta.get("chunk", 0))
        text = str(delta.get("text", ""))
        message_id = delta.get("messageId")
        if position < len(entry.chunks):
            chunk = entry.chunks[position]
            chunk.append(text)
            if chunk.message_id is None and isinstance(message_id, str):
                chunk.message_id = message_id
        else:
            kind: ChunkType = "thought" if delta.get("type") == "thought" else "message"
            entry.chunks.append(
                Chunk(kind, text, message_id if isinstance(message_id, str) else None)
            )
        entry.version = next(_versions)

    def _removed(self, data: Mapping[str, Any]) -> None:
        del self.entries[int(data["start"]) : int(data["end"])]

    def _status(self, data: Mapping[str, Any]) -> None:
        self.status = str(data.get("status", self.status))
        if isinstance(data.get("stopReason"), str):
            self.last_stop_reason = data["stopReason"]

    def _permission_requested(self, data: Mapping[str, Any]) -> None:
        request_id = str(data["requestId"])
        self.permissions[request_id] = {
            "requestId": request_id,
            "toolCallId": data.get("toolCallId"),
            "title": data.get("title"),
            "options": list(data.get("options") or []),
        }

    def _permission_resolved(self, data: Mapping[str, Any]) -> None:
        self.permissions.pop(str(data["requestId"]), None)

    def _plan(self, data: Mapping[str, Any]) -> None:
        self.plan = list(data.get("entries") or [])

    def _mode(self, data: Mapping[str, Any]) -> None:
        if self.modes is not None:
            self.modes = {**self.modes, "currentModeId": data.get("currentModeId")}

    def _config(self, data: Mapping[str, Any]) -> None:
        self.config_options = list(data.get("configOptions") or [])

    def _commands(self, data: Mapping[str, Any]) -> None:
        self.commands = list(data.get("availableCommands") or [])

    def _title(self, data: Mapping[str, Any]) -> None:
        if "title" in data:
            self.title = data["title"]

    def _usage(self, data: Mapping[str, Any]) -> None:
        self.usage = {k: v for k, v in data.items() if k not in ENVELOPE}

    # -- reading ----------------------------------------------------------------

    def tool_call(self, tool_call_id: str) -> tuple[int, ToolCallEntry] | None:
        for index in range(len(self.entries) - 1, -1, -1):
            entry = self.entries[index]
            if isinstance(entry, ToolCallEntry) and entry.tool_call_id == tool_call_id:
                return index, entry
        return None

    def snapshot(self) -> dict[str, Any]:
        """The view in ``session.snapshot``'s shape (equal to the host's at the
        same cursor)."""
        state: dict[str, Any] = {
            "sessionId": self.session_id,
            "cursor": self.cursor,
            "status": self.status,
            "entries": [entry.to_wire() for entry in self.entries],
            "plan": self.plan,
            "availableCommands": self.commands,
            "configOptions": self.config_options,
        }
        if self.title is not None:
            state["title"] = self.title
        if self.modes is not None:
            state["modes"] = self.modes
        if self.usage is not None:
            state["usage"] = self.usage
        if self.cwd is not None:
            state["cwd"] = str(self.cwd)
        if self.mcp_servers is not None:
            state["mcpServers"] = self.mcp_servers
        return state


_APPLIERS: dict[str, Callable[[SessionView, Mapping[str, Any]], None]] = {
    "entry-appended": SessionView._appended,
    "entry-updated": SessionView._updated,
    "entries-removed": SessionView._removed,
    "status-changed": SessionView._status,
    "permission-requested": SessionView._permission_requested,
    "permission-resolved": SessionView._permission_resolved,
    "plan-updated": SessionView._plan,
    "mode-changed": SessionView._mode,
    "config-updated": SessionView._config,
    "commands-updated": SessionView._commands,
    "title-updated": SessionView._title,
    "usage-updated": SessionView._usage,
}


def replay(snapshot: Mapping[str, Any], events: Iterable[Mapping[str, Any]]) -> SessionView:
    """The view of ``snapshot`` with ``events`` (wire forms) applied; events of
    other sessions are left out."""
    view = SessionView.from_snapshot(snapshot)
    for event in events:
        if event.get("sessionId") == view.session_id:
            view.apply_wire(event)
    return view
