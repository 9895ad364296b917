"""What checkpoints are made of: the records, changes and restore plans.

The data :mod:`acp_tui.core.checkpoints.engine` returns, how a checkpoint's record
is kept in its commit message (JSON after a title line).
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from acp_tui.core.checkpoints.shadow_repo import GitError, RawChange, RefRecord

Label = Literal["before-turn", "after-turn", "before-restore", "after-restore"]
ChangeKind = Literal["added", "modified", "deleted"]
SkipReason = Literal[
    "too-large", "symlink-outside", "nested-repository", "unreadable", "special", "in-the-way"
]
"""Why a file is not recorded; ``in-the-way``, in a restore's ``kept``: a
folder (or file) holding unrecorded files stands where the file goes."""
RestoreAction = Literal["restore", "recreate", "remove"]
"""``restore``: changed since, written back; ``recreate``: deleted since,
brought back; ``remove``: created since, deleted."""

MAX_SKIPPED_STORED = 1000
MAX_PROMPT_STORED = 4000
KINDS: dict[str, ChangeKind] = {"A": "added", "D": "deleted", "M": "modified", "T": "modified"}


class CheckpointError(Exception):
    """A checkpoint could not be taken, read or restored; the message says why.

    A restore that failed after it began writing sets ``checkpoint_id`` to its
    ``before-restore`` checkpoint: restoring that one undoes what it wrote."""

    def __init__(self, message: str, checkpoint_id: str | None = None) -> None:
        super().__init__(message)
        self.checkpoint_id = checkpoint_id


class CheckpointsUnavailable(CheckpointError):
    """Checkpoints are off for this session (see :attr:`Checkpoints.reason`)."""


@dataclass(frozen=True)
class Skipped:
    """A file a checkpoint did not record, and why."""

    path: Path
    reason: SkipReason
    size: int | None = None


@dataclass(frozen=True)
class Checkpoint:
    """The state of the session's roots at one moment."""

    checkpoint_id: str
    label: Label
    created_at: float
    session_id: str | None
    turn: int | None
    prompt: str | None
    roots: tuple[Path, ...]
    """The roots it holds a record of (all the session's, unless one failed)."""
    skipped: tuple[Skipped, ...] = ()
    skipped_more: int = 0
    """Skipped files beyond the :data:`MAX_SKIPPED_STORED` listed per root."""


@dataclass(frozen=True)
class FileChange:
    """One file that differs between two states."""

    path: Path
    root: Path
    rel: str
    """The path inside ``root``, with ``/`` separators (git's form)."""
    change: ChangeKind
    added: int | None = None
    """Lines added and removed; ``None`` for a binary file or when not counted."""
    removed: int | None = None
    binary: bool = False


@dataclass(frozen=True)
class ListedCheckpoint:
    """A checkpoint in :meth:`Checkpoints.list_checkpoints`, with the files that differ
    from the one before it in the same list (``previous_id``)."""

    checkpoint: Checkpoint
    previous_id: str | None
    files: tuple[FileChange, ...]


@dataclass(frozen=True)
class FileDiff(FileChange):
    """A :class:`FileChange` with both sides' text, for a diff renderer."""

    old_text: str | None = None
    """``None`` when the file is added, binary, or over the text limit."""
    new_text: str | None = None
    """``None`` when the file is deleted, binary, or over the text limit."""
    truncated: bool = False
    """A side was over the text limit and is left out."""

    def as_content(self) -> dict[str, Any]:
        """The file as an ACP ``diff`` content item (what tool calls carry):
        ``oldText`` is ``None`` for a new file; a deleted one has ``newText`` ""."""
        return {
            "type": "diff",
            "path": str(self.path),
            "oldText": self.old_text,
            "newText": self.new_text or "",
        }


@dataclass(frozen=True)
class PlannedFile:
    """One file a restore writes or removes."""

    path: Path
    root: Path
    rel: str
    action: RestoreAction
    edited_outside_turns: bool
    """It changed since the target outside this session's turns: by the user
    between turns, or by anyone else (another session's agent included)."""
    unsaved: bool
    """What is there now is in no checkpoint (ignored or skipped: a file at
    this path, or a symlink where its folder goes), so the restore replaces
    it for good."""


@dataclass(frozen=True)
class RestorePlan:
    """What restoring ``target_id`` would do, written nowhere yet."""

    target_id: str
    files: tuple[PlannedFile, ...]
    kept: tuple[Skipped, ...]
    """Files the target could not record (skipped then): left as they are."""


@dataclass(frozen=True)
class RestoreResult(RestorePlan):
    """What a restore did. ``checkpoint_id`` is the checkpoint taken just
    before it: restoring that one undoes this restore."""

    checkpoint_id: str = ""
    restored: tuple[Path, ...] = field(default=())


# -- the record in the commit message ------------------------------------------------------

_id_lock = threading.Lock()
_last_micros = 0


def new_id() -> str:
    """A new checkpoint id: creation time (hex microseconds, increasing in
    this process) and a random part. Ids sort by creation time."""
    global _last_micros
    with _id_lock:
        _last_micros = max(time.time_ns() // 1000, _last_micros + 1)
        micros = _last_micros
    return f"{micros:014x}-{secrets.token_hex(3)}"


def record_meta(
    checkpoint_id: str,
    label: Label,
    created: float,
    session_id: str | None,
    turn: int | None,
    prompt: str | None,
    skipped: list[Skipped],
) -> dict[str, Any]:
    """A checkpoint's record, as its commit message keeps it."""
    return {
        "v": 1,
        "id": checkpoint_id,
        "label": label,
        "created": created,
        "session": session_id,
        "turn": turn,
        "prompt": cap_prompt(prompt),
        "skipped": [
            [str(item.path), item.reason, item.size] for item in skipped[:MAX_SKIPPED_STORED]
        ],
        "skipped_more": max(0, len(skipped) - MAX_SKIPPED_STORED),
    }


def record_message(meta: dict[str, Any]) -> str:
    return f"acp-tui checkpoint {meta['label']}\n\n{json.dumps(meta, ensure_ascii=True)}\n"


def parse_records(records: list[RefRecord]) -> list[tuple[RefRecord, dict[str, Any]]]:
    out: list[tuple[RefRecord, dict[str, Any]]] = []
    for record in records:
        body = record.message.partition("\n\n")[2]
        try:
            meta = json.loads(body)
        except ValueError:
            continue
        if isinstance(meta, dict) and meta.get("id") == record.checkpoint_id:
            out.append((record, meta))
    return out


def skipped_of(meta: dict[str, Any]) -> list[Skipped]:
    out: list[Skipped] = []
    for item in meta.get("skipped") or []:
        if isinstance(item, list) and len(item) == 3:
            out.append(Skipped(Path(item[0]), item[1], item[2]))
    return out


def checkpoint_of(
    meta: dict[str, Any], roots: tuple[Path, ...], skipped: tuple[Skipped, ...], more: int
) -> Checkpoint:
    turn = meta.get("turn")
    prompt = meta.get("prompt")
    return Checkpoint(
        str(meta["id"]),
        meta.get("label", "before-turn"),
        float(meta.get("created") or 0.0),
        meta.get("session"),
        turn if isinstance(turn, int) else None,
        prompt if isinstance(prompt, str) else None,
        roots,
        skipped,
        more,
    )


def change_of(root: Path, item: RawChange) -> FileChange:
    return FileChange(root / item.rel, root, item.rel, KINDS.get(item.status, "modified"))


def cap_prompt(prompt: str | None) -> str | None:
    if prompt is None or len(prompt) <= MAX_PROMPT_STORED:
        return prompt
    return prompt[: MAX_PROMPT_STORED - 1] + "…"


def canonical_roots(roots: Sequence[Path | str]) -> tuple[Path, ...]:
    """Canonical roots, in order, without repeats or roots inside another."""
    canonical: list[Path] = []
    for root in roots:
        path = Path(os.path.realpath(root))
        if path not in canonical:
            canonical.append(path)
    return tuple(
        path for path in canonical if not any(other in path.parents for other in canonical)
    )


class GitErrors:
    """Turns a :class:`GitError` (or an ``OSError``: a state folder that cannot
    be written) into a :class:`CheckpointError` naming the root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.checkpoint_id: str | None = None
        """Set once a restore has taken its ``before-restore`` checkpoint."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, tb: object) -> None:
        if isinstance(error, GitError | OSError):  # git failed; or the state folder did
            message = f"checkpoint of {self.root}: {error}"
            if self.checkpoint_id is not None:
                message += f" (restore {self.checkpoint_id} to undo what was written)"
            raise CheckpointError(message, self.checkpoint_id) from error
        if isinstance(error, CheckpointError) and error.checkpoint_id is None:
            error.checkpoint_id = self.checkpoint_id
