"""Writing the local history: a subscriber to the event stream.

A :class:`SessionRecorder` knows its session only from events: it starts
from the session's snapshot and applies every event after it, as any front
end would (the session never calls it). It keeps the entries in their wire
form, marks the ones that changed, and appends them to the session's file
whenever the session's status changes (a turn starts or ends, the agent
goes away) or the host asks (a load has finished). :class:`Recordings`
routes the hub's events to each session's recorder. The file's layout is
in :mod:`acp_tui.core.storage.history_store`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from acp_tui.core.model.agent_markup import readable_title
from acp_tui.core.model.budget import Spill, bounded_record
from acp_tui.core.model.entries import Chunk, ChunkType, describe_block
from acp_tui.core.model.events import Event
from acp_tui.core.model.session_state import kept_settings
from acp_tui.core.transport.json_frames import dumps, to_utf8

log = logging.getLogger(__name__)

FIRST_PROMPT_CHARS = 200


class SessionRecorder:
    """Appends one session's committed entries to its file."""

    def __init__(self, path: Path, first_records: list[dict[str, Any]]) -> None:
        self.path = path
        self._pending = list(first_records)
        #: The session's entries in their wire forms, as its events said.
        self._entries: list[dict[str, Any]] = []
        #: The chunks of its assistant entries (text deltas extend them).
        self._chunks: dict[int, list[Chunk]] = {}
        #: Entries changed since the last flush; None: look at every entry.
        self._dirty: set[int] | None = None
        self._title: str | None = None
        self._modes: Mapping[str, Any] | None = None
        self._config: list[dict[str, Any]] = []
        self._usage: dict[str, Any] | None = None
        self._written_title: str | None = None
        self._prompts: set[int] = set()
        self._summary: tuple[int, str] | None = None
        self._settings: dict[str, Any] | None = None
        self.failed = False
        #: Where a string too long for a record is kept (see core/budget.py).
        self.spill: Spill | None = None

    # -- what the session is --------------------------------------------------

    def start(self, snapshot: Mapping[str, Any]) -> None:
        """Begin from the session's snapshot (every entry in it is to be written)."""
        self._entries, self._chunks = [], {}
        for wire in snapshot.get("entries") or []:
            self._put(len(self._entries), wire)
        self._dirty = None
        title = snapshot.get("title")
        self._title = title if isinstance(title, str) else None
        modes = snapshot.get("modes")
        self._modes = modes if isinstance(modes, Mapping) else None
        self._config = list(snapshot.get("configOptions") or [])
        usage = snapshot.get("usage")
        self._usage = usage if isinstance(usage, dict) else None

    def apply(self, event: Event) -> None:
        """One event of the session, in commit order."""
        data = event.data
        kind = event.type
        if kind == "entry-appended":
            self._put(int(data["index"]), data["entry"])
        elif kind == "entry-updated":
            self._patch(int(data["index"]), data["patch"])
        elif kind == "entries-removed":
            start, end = int(data["start"]), int(data["end"])
            wires = [self._wire(i) for i in range(len(self._entries))]
            del wires[start:end]
            self._entries, self._chunks = [], {}
            for wire in wires:
                self._put(len(self._entries), wire)
            self._dirty = None
        elif kind == "title-updated":
            if "title" in data:
                self._title = data["title"]
        elif kind == "mode-changed":
            if self._modes is not None:
                self._modes = {**self._modes, "currentModeId": data.get("currentModeId")}
        elif kind == "config-updated":
            self._config = list(data.get("configOptions") or [])
        elif kind == "usage-updated":
            self._usage = dict(data)
        elif kind == "status-changed":
            self.flush()

    def _put(self, index: int, wire: Mapping[str, Any]) -> None:
        wire = dict(wire)
        if index >= len(self._entries):
            self._entries.append(wire)
        else:
            self._entries[index] = wire
        self._chunks.pop(index, None)
        if wire.get("kind") == "assistant":
            self._chunks[index] = [
                Chunk(
                    "thought" if c.get("type") == "thought" else "message",
                    str(c.get("text", "")),
                    c.get("messageId"),
                )
                for c in wire.get("chunks") or []
                if isinstance(c, dict)
            ]
        self._mark(index)

    def _patch(self, index: int, patch: Mapping[str, Any]) -> None:
        if "entry" in patch:
            self._put(index, patch["entry"])
            return
        delta = patch.get("textDelta")
        chunks = self._chunks.get(index)
        if not isinstance(delta, Mapping) or chunks is None:
            return
        position = int(delta.get("chunk", 0))
        text = str(delta.get("text", ""))
        message_id = delta.get("messageId")
        if position < len(chunks):
            chunk = chunks[position]
            chunk.append(text)
            if chunk.message_id is None and isinstance(message_id, str):
                chunk.message_id = message_id
        else:
            chunk_type: ChunkType = "thought" if delta.get("type") == "thought" else "message"
            chunks.append(Chunk(chunk_type, text, message_id))
        self._mark(index)

    def _mark(self, index: int) -> None:
        if self._dirty is not None:
            self._dirty.add(index)

    def _wire(self, index: int) -> dict[str, Any]:
        chunks = self._chunks.get(index)
        if chunks is None:
            return dict(self._entries[index])
        return {"kind": "assistant", "chunks": [c.to_wire() for c in chunks]}

    # -- writing -----------------------------------------------------------------

    def flush(self) -> None:
        """Append what changed since the last flush, then fsync."""
        if self.failed:
            return
        records = self._pending
        self._pending = []
        count = len(self._entries)
        dirty = range(count) if self._dirty is None else sorted(self._dirty)
        self._dirty = set()
        for index in dirty:
            if index < count:
                wire = self._wire(index)
                if wire.get("kind") == "user":
                    self._prompts.add(index)
                wire.pop("permission", None)  # a pending permission is not history
                records.append({"type": "entry", "index": index, "entry": wire})
        if self._title and self._title != self._written_title:
            self._written_title = self._title
            records.append({"type": "title", "title": self._title})
        records += self._changed_summary()
        if not records:
            return
        data = b"".join(_record_line(bounded_record(r, self.spill)) for r in records)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            # History is a convenience: losing it must never break the session.
            self.failed = True
            log.warning("cannot write the session history (%s); history is off for it", exc)

    def _changed_summary(self) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        entries = self._entries
        self._prompts = {
            i for i in self._prompts if i < len(entries) and entries[i].get("kind") == "user"
        }
        if self._prompts:
            content = entries[min(self._prompts)].get("content") or []
            text = "".join(describe_block(b) for b in content if isinstance(b, dict))
            text = readable_title(text)
            summary = (len(self._prompts), " ".join(text.split())[:FIRST_PROMPT_CHARS])
            if summary != self._summary:
                self._summary = summary
                records.append({"type": "summary", "turns": summary[0], "firstPrompt": summary[1]})
        settings = kept_settings(self._modes, self._config, self._usage)
        if settings != self._settings and ("mode" in settings or settings["config"]):
            self._settings = settings
            records.append({"type": "settings", **settings})
        return records


class Recordings:
    """The recorders of a host's sessions, fed from its event hub."""

    def __init__(self) -> None:
        self._recorders: dict[str, SessionRecorder] = {}
        #: Session id -> its transcript's file (kept after the session closed).
        self._paths: dict[str, Path] = {}

    def add(self, session_id: str, recorder: SessionRecorder, snapshot: Mapping[str, Any]) -> None:
        """Record session ``session_id`` from ``snapshot`` on."""
        recorder.start(snapshot)
        self._recorders[session_id] = recorder
        self._paths[session_id] = recorder.path

    def on_event(self, event: Event) -> None:
        session_id = event.session_id
        recorder = self._recorders.get(session_id) if session_id is not None else None
        if recorder is None:
            return
        recorder.apply(event)
        if event.type == "status-changed" and event.data.get("status") == "closed":
            del self._recorders[session_id]  # type: ignore[arg-type]

    def flush(self, session_id: str) -> None:
        recorder = self._recorders.get(session_id)
        if recorder is not None:
            recorder.flush()

    def path(self, session_id: str) -> Path | None:
        """The file session ``session_id``'s transcript is kept in (None: not kept)."""
        return self._paths.get(session_id)

    def writes_to(self, path: Path) -> bool:
        """Whether an open session's transcript is being kept in ``path``."""
        return any(recorder.path == path for recorder in self._recorders.values())


def _record_line(record: dict[str, Any]) -> bytes:
    """One record as a line; what cannot be written (a lone surrogate that
    slipped through, a non-finite number) is replaced, never an exception."""
    try:
        return to_utf8(dumps(record, compact=False)) + b"\n"
    except ValueError as exc:
        log.warning("a history record could not be written (%s); skipped", exc)
        return b""
