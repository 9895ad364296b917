"""The local history: each session's entries in a JSONL file of its own, so
a transcript survives the agent process, a crash of ours, and agents that
cannot load sessions.

Layout: ``$XDG_DATA_HOME/acp-tui/sessions/<session>.jsonl`` (default
``~/.local/share/...``). One JSON record per line:

* ``{"type": "session", "v": 1, "sessionId", "agent", "cwd", "created"}`` — first
  (again after a ``reset``; the last one holds);
* ``{"type": "entry", "index": i, "entry": {...wire form...}}`` — an entry as
  committed; a later record for the same index supersedes the earlier one
  (a tool call that finished, a reply that grew);
* ``{"type": "title", "title": ...}``;
* ``{"type": "summary", "turns": n, "firstPrompt": ...}`` — for the resume
  picker, written when it changes (the last one holds; listing reads it from
  the file's tail);
* ``{"type": "settings", "mode": ..., "config": {...}, "usage": {...}}`` — the
  mode, config values (the model) and usage last seen, restored on resume;
* ``{"type": "reset"}`` — the agent replayed the session (``session/load``):
  the records before it are superseded by the replay that follows.

Writes (:mod:`acp_tui.core.storage.history_recorder`, which follows the
session's events) are appends of the entries that changed, flushed and
fsync'ed whenever the session's status changes (a turn starts or ends, the
agent goes away). A record keeps at most 1 MiB of any one string: the rest
of it is in a file of the session's spill folder, named in a marker (the
records stay small, a 16 MB reply is written once, not at every flush). A crash can only tear
the last line: reading skips it with a warning, and the next recorder on that
file cuts it off before appending. Retention: the oldest files beyond
``max_sessions`` or older than ``max_age_days`` are deleted by :meth:`prune`
(the CLI calls it at start-up). A new session whose id is already on file
(agents that reuse ids) moves the older file aside to ``<name>.<mtime>.jsonl``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_tui.core.storage.history_recorder import SessionRecorder

log = logging.getLogger(__name__)

RECORD_VERSION = 1
DEFAULT_MAX_SESSIONS = 500
DEFAULT_MAX_AGE_DAYS = 90.0
#: Listing reads at most this much of a file's start for its header and title,
#: and of its end for the last summary.
_HEAD_BYTES = 64 * 1024
_TAIL_BYTES = 16 * 1024


def default_root(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    data_home = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "acp-tui" / "sessions"


def file_name(session_id: str) -> str:
    """A safe, unique file name for an agent's session id."""
    readable = re.sub(r"[^A-Za-z0-9._-]", "_", session_id)[:60].strip(".") or "session"
    digest = hashlib.sha256(session_id.encode()).hexdigest()[:10]
    return f"{readable}-{digest}.jsonl"


@dataclass(frozen=True)
class StoredSession:
    """One session in the store, as listed (header and title only)."""

    session_id: str
    agent: str
    cwd: str
    title: str | None
    created: str
    #: Last write, seconds since the epoch.
    updated: float
    path: Path
    #: Prompts sent (None: not recorded, a file from an older acp-tui).
    turns: int | None = None
    first_prompt: str | None = None

    @property
    def key(self) -> str:
        """The store's own handle on this transcript (unique, unlike agent ids)."""
        return self.path.stem

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            # Only acp-tui can open a local transcript, so its key stands in.
            "sessionId": self.key,
            "agentSessionId": self.session_id,
            "cwd": self.cwd,
            "agent": self.agent,
            "updatedAt": _iso(self.updated),
            "source": "local",
        }
        if self.title:
            wire["title"] = self.title
        if self.turns is not None:
            wire["turns"] = self.turns
        if self.first_prompt:
            wire["firstPrompt"] = self.first_prompt
        return wire


@dataclass
class Transcript:
    """A stored session read back: its entries' wire forms, in order."""

    session_id: str
    agent: str
    cwd: str
    title: str | None
    entries: list[dict[str, Any]]
    warnings: list[str] = field(default_factory=list)
    #: The last settings record: mode, config values, usage.
    settings: dict[str, Any] = field(default_factory=dict)


class HistoryStore:
    def __init__(
        self,
        root: Path,
        *,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        max_age_days: float | None = DEFAULT_MAX_AGE_DAYS,
    ) -> None:
        self.root = root
        self.max_sessions = max_sessions
        self.max_age_days = max_age_days

    def path_for(self, session_id: str) -> Path:
        return self.root / file_name(session_id)

    # -- writing -----------------------------------------------------------

    def recorder(
        self, session_id: str, *, agent: str, cwd: Path, resumed: bool = False
    ) -> SessionRecorder:
        """The recorder for ``session_id``. A resumed session (the agent
        replays its history) continues its file after a ``reset`` record; a
        new session whose id is already on file (agents that reuse ids, like
        the demo's ``demo-1``) moves the older transcript aside first."""
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self.path_for(session_id)
        header: dict[str, Any] = {
            "type": "session",
            "v": RECORD_VERSION,
            "sessionId": session_id,
            "agent": agent,
            "cwd": str(cwd),
            "created": _iso(time.time()),
        }
        records: list[dict[str, Any]] = [header]
        if _cut_torn_tail(path):
            if resumed:
                records.insert(0, {"type": "reset"})
            else:
                aside = path.with_name(f"{path.stem}.{path.stat().st_mtime_ns}.jsonl")
                path.rename(aside)
        return SessionRecorder(path, records)

    def prune(self) -> int:
        """Delete sessions past the retention limits; returns how many."""
        if not self.root.is_dir():
            return 0
        files = sorted(self.root.glob("*.jsonl"), key=_mtime, reverse=True)
        doomed = files[self.max_sessions :]
        if self.max_age_days is not None:
            cutoff = time.time() - self.max_age_days * 86400
            doomed += [f for f in files[: self.max_sessions] if _mtime(f) < cutoff]
        for path in doomed:
            with contextlib.suppress(OSError):
                path.unlink()
        return len(doomed)

    # -- reading -----------------------------------------------------------

    def sessions(self, *, agent: str | None = None, cwd: Path | None = None) -> list[StoredSession]:
        """Stored sessions, newest first, optionally for one agent and cwd."""
        if not self.root.is_dir():
            return []
        found = []
        for path in self.root.glob("*.jsonl"):
            stored = _list_entry(path)
            if stored is None:
                continue
            if agent is not None and stored.agent != agent:
                continue
            if cwd is not None and Path(stored.cwd) != cwd:
                continue
            found.append(stored)
        found.sort(key=lambda s: s.updated, reverse=True)
        return found

    def stored(self, session_id: str) -> StoredSession | None:
        """The listing of the transcript of agent session ``session_id``, if kept."""
        return _list_entry(self.path_for(session_id))

    def read(self, key: str) -> Transcript:
        """A stored transcript by its key (as listed) or its agent session id;
        KeyError when there is none."""
        path = self.find(key)
        if path is None:
            raise KeyError(key)
        return read_transcript(path)

    def find(self, key: str) -> Path | None:
        """The file of a stored transcript by its key (as listed) or its
        agent session id (None: none is kept)."""
        if "/" in key:
            return None
        for path in (self.root / f"{key}.jsonl", self.path_for(key)):
            if path.is_file():
                return path
        return None

    def is_key(self, key: str) -> bool:
        """Whether ``key`` is a stored transcript's own key (what a ``source:
        local`` listing names it by), not an agent's session id."""
        return "/" not in key and (self.root / f"{key}.jsonl").is_file()

    def remove(self, key: str) -> bool:
        """Forget a stored transcript (by its key or its agent session id);
        True when there was one."""
        path = self.find(key)
        if path is None:
            return False
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return True


def read_transcript(path: Path) -> Transcript:
    warnings: list[str] = []
    header: dict[str, Any] = {}
    entries: dict[int, dict[str, Any]] = {}
    title = None
    settings: dict[str, Any] = {}
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    torn = not raw.endswith(b"\n") and bool(raw)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            if torn and number == len(lines):
                warnings.append(
                    f"{path.name}: the last record was cut short (a crash while writing?)"
                    " and was skipped"
                )
            else:
                warnings.append(f"{path.name} line {number}: not valid JSON; skipped")
            continue
        if not isinstance(record, dict):
            warnings.append(f"{path.name} line {number}: not a record; skipped")
            continue
        kind = record.get("type")
        if kind == "session":
            header = record
        elif kind == "entry" and isinstance(record.get("index"), int):
            if isinstance(record.get("entry"), dict):
                entries[record["index"]] = record["entry"]
        elif kind == "title":
            title = record.get("title") if isinstance(record.get("title"), str) else title
        elif kind == "settings":
            settings = {k: v for k, v in record.items() if k != "type"}
        elif kind == "reset":
            entries.clear()
    for warning in warnings:
        log.warning("%s", warning)
    return Transcript(
        session_id=str(header.get("sessionId", path.stem)),
        agent=str(header.get("agent", "")),
        cwd=str(header.get("cwd", "")),
        title=title,
        entries=[entries[i] for i in sorted(entries)],
        warnings=warnings,
        settings=settings,
    )


def _cut_torn_tail(path: Path) -> bool:
    """Whether ``path`` exists; a torn last line (no newline) is cut off."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return False
    if size == 0:
        return False
    with open(path, "rb+") as f:
        f.seek(max(0, size - _HEAD_BYTES))
        tail = f.read()
        if tail.endswith(b"\n"):
            return True
        cut = tail.rfind(b"\n")
        keep = size - len(tail) + cut + 1 if cut >= 0 else 0
        log.warning("%s: cutting a torn last record before appending", path.name)
        f.truncate(keep)
    return keep > 0


def _list_entry(path: Path) -> StoredSession | None:
    try:
        with open(path, "rb") as f:
            head = f.read(_HEAD_BYTES)
        updated = _mtime(path)
    except OSError:
        return None
    first, _, rest = head.partition(b"\n")
    try:
        header = json.loads(first)
    except ValueError:
        return None
    if not isinstance(header, dict) or header.get("type") != "session":
        return None
    title = None
    summary: dict[str, Any] = {}
    # Titles usually come early (the agent names the session in turn 1); a
    # title record further in is found when the transcript is read. The
    # summary is rewritten as turns go by: the last one, near the end, holds.
    for line in [*rest.split(b"\n"), *_tail(path, len(head))]:
        if b'"type": "title"' in line:
            with contextlib.suppress(ValueError):
                title = json.loads(line).get("title")
        elif b'"type": "summary"' in line:
            with contextlib.suppress(ValueError):
                summary = json.loads(line)
    return StoredSession(
        session_id=str(header.get("sessionId", "")),
        agent=str(header.get("agent", "")),
        cwd=str(header.get("cwd", "")),
        title=title if isinstance(title, str) else None,
        created=str(header.get("created", "")),
        updated=updated,
        path=path,
        turns=summary["turns"] if isinstance(summary.get("turns"), int) else None,
        first_prompt=str(summary["firstPrompt"]) if summary.get("firstPrompt") else None,
    )


def _tail(path: Path, skip: int) -> list[bytes]:
    """The whole lines of the file's last :data:`_TAIL_BYTES` past ``skip``."""
    try:
        size = path.stat().st_size
        if size <= skip:
            return []
        with open(path, "rb") as f:
            start = max(skip, size - _TAIL_BYTES)
            f.seek(start)
            data = f.read()
    except OSError:
        return []
    lines = data.split(b"\n")
    return lines[1:] if start > skip else lines


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _iso(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).isoformat(timespec="seconds")
