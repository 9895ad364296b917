"""A session's checkpoints around its turns, and what it reports of them.

Before each prompt turn the session's folders are recorded, and again when
the turn ends (:mod:`acp_tui.core.checkpoints.engine` does the recording, in
worker threads). The difference becomes the turn's ``changes`` entry,
whoever made it: the agent's own tools, a terminal command,
``fs/write_text_file``, or the user in another editor (a file whose
modification time falls outside every tool call of the turn is marked
``outside``: :func:`~acp_tui.core.checkpoints.files.edited_outside_tools`).

A turn never waits long for a checkpoint: each take is awaited at most
:attr:`CheckpointSettings.wait_limit` seconds (a tree far larger than the
bench's 10,000 files, hashed for the first time); past it the turn goes on,
the take finishes in the background, and the log says what that turn lacks.
Without ``git`` the feature is off and the first turn's notice says why;
nothing else changes.

Everything here returns plain data in the headless protocol's wire form
(``checkpoint.list`` / ``diff`` / ``restore``): the TUI and the headless
server show the same facts.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from acp_tui.core.checkpoints.engine import (
    Checkpoint,
    CheckpointError,
    Checkpoints,
    FileChange,
    ListedCheckpoint,
    PlannedFile,
    RestoreResult,
    edited_outside_tools,
)
from acp_tui.core.checkpoints.settings import CheckpointSettings
from acp_tui.core.errors import ErrorCode, HostError
from acp_tui.core.model.entries import FINISHED_STATUSES, ChangesEntry, NoticeLevel, RewindEntry
from acp_tui.core.model.events import Event

log = logging.getLogger(__name__)

Note = tuple[NoticeLevel, str]


class TurnCheckpoints:
    """One session's checkpoints: taken around its turns, listed, compared, restored."""

    def __init__(
        self, roots: Sequence[Path], session_id: str, settings: CheckpointSettings
    ) -> None:
        self.settings = settings
        self.engine: Checkpoints | None = None
        #: Why checkpoints are off for this session (None: they are on).
        self.reason: str | None = "checkpoints are off in the config file"
        if settings.enabled:
            self.engine = Checkpoints(
                roots,
                session_id,
                state_dir=settings.state_dir,
                size_limit=settings.size_limit,
                keep=settings.keep,
            )
            self.reason = self.engine.reason
        self._explained = not settings.enabled  # switched off by hand: nothing to explain
        self._before: Checkpoint | None = None
        self._jobs: set[asyncio.Future[Any]] = set()
        self._pruning: asyncio.Future[Any] | None = None
        self._restoring = asyncio.Lock()
        #: Running windows (wall clock) of the current turn's tool calls, by index.
        self._started: dict[int, float] = {}
        self._windows: list[tuple[float, float]] = []
        #: Since when the agent's host writes and live terminals run, by key
        #: (kept across turns: a terminal may outlive the turn that started it).
        self._active: dict[str, float] = {}

    @property
    def available(self) -> bool:
        return self.reason is None

    # -- around a turn ---------------------------------------------------------------

    async def before_turn(self, turn: int, prompt: str) -> list[Note]:
        """Record the folders as the turn finds them; notes for the log."""
        self._before = None
        self._started.clear()
        self._windows.clear()
        engine = self._engine_or_none()
        if engine is None:
            return self._explain()
        try:
            async with self._restoring:  # a restore running: the turn sees its files
                self._before = await self._bounded(
                    partial(engine.take, "before-turn", turn=turn, prompt=prompt)
                )
        except TimeoutError:
            return [("warning", self._slow(f"before turn {turn}", "its changes are not shown"))]
        except CheckpointError as error:
            return self._failed(error)
        return []

    async def after_turn(self, turn: int, prompt: str) -> tuple[ChangesEntry | None, list[Note]]:
        """Record the folders as the turn left them; the turn's changes entry
        (None when nothing changed, or no checkpoint was taken before it)."""
        engine = self._engine_or_none()
        before = self._before
        self._before = None
        if engine is None:
            return None, []
        now = time.time()  # windows are compared with files' modification times
        running = [*self._started.values(), *self._active.values()]
        windows = [*self._windows, *((start, now) for start in running)]
        try:
            after = await self._bounded(
                partial(engine.take, "after-turn", turn=turn, prompt=prompt)
            )
            if before is None:
                return None, []
            changes = await self._bounded(engine.changes, before.checkpoint_id, after.checkpoint_id)
        except TimeoutError:
            return None, [("warning", self._slow(f"after turn {turn}", "see /changes later"))]
        except CheckpointError as error:
            return None, self._failed(error)
        self._prune(engine)
        if not changes and not after.skipped:
            return None, []
        outside = set(edited_outside_tools(changes, windows))
        entry = ChangesEntry(
            turn=turn,
            checkpoint_id=after.checkpoint_id,
            base_checkpoint_id=before.checkpoint_id,
            files=[self._file(change, change.path in outside) for change in changes],
            skipped=[
                {"path": str(item.path), "display": self.display(item.path), "reason": item.reason}
                for item in after.skipped
            ],
        )
        return entry, []

    def observe(self, event: Event) -> None:
        """One committed event of the session: tool calls' running windows."""
        if event.type not in ("entry-appended", "entry-updated"):
            return
        data = event.data
        wire = data.get("entry") if event.type == "entry-appended" else data["patch"].get("entry")
        if not isinstance(wire, dict) or wire.get("kind") != "tool_call":
            return
        index = int(data["index"])
        clock = time.time()
        if wire.get("status") in FINISHED_STATUSES:
            start = self._started.pop(index, None)
            if start is not None:
                self._windows.append((start, clock))
        else:
            self._started.setdefault(index, clock)

    def agent_active(self, key: str, busy: bool) -> None:
        """The agent changes files through the host, inside a tool call or
        not: an ``fs/write_text_file`` or a terminal (until released), by
        ``key``. Its running time counts as a tool call's."""
        clock = time.time()
        if busy:
            self._active.setdefault(key, clock)
            return
        start = self._active.pop(key, None)
        if start is not None:
            self._windows.append((start, clock))

    # -- reading and restoring ---------------------------------------------------------

    async def listed(self) -> list[dict[str, Any]]:
        """``checkpoint.list``: this session's checkpoints, newest first."""
        engine = self._require()
        listed = await self._run(engine.list_checkpoints)
        # (after-restore only marks what a restore wrote: the tree is its target's)
        return [self._listed(i) for i in listed if i.checkpoint.label != "after-restore"]

    async def diff(self, checkpoint_id: str, path: str | None) -> str:
        """``checkpoint.diff``: a unified diff from the checkpoint to the tree now."""
        engine = self._require()
        patch: str = await self._run(
            engine.patch, checkpoint_id, None, None if path is None else [path]
        )
        return patch

    async def file_diffs(
        self, old_id: str, new_id: str | None, paths: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """Each changed file as an ACP ``diff`` content item (the tool-call
        diff renderer's input), with ``change`` and ``display``."""
        engine = self._require()
        found = await self._run(engine.diffs, old_id, new_id, paths)
        return [
            {**item.as_content(), "change": item.change, "display": self.display(item.path),
             "binary": item.binary, "truncated": item.truncated}
            for item in found
        ]  # fmt: skip

    async def plan(self, checkpoint_id: str, paths: Sequence[str] | None) -> list[dict[str, Any]]:
        """A dry run of :meth:`restore`: what it would write, remove, or overwrite."""
        engine = self._require()
        plan = await self._run(engine.plan_restore, checkpoint_id, paths)
        return [self._planned(item) for item in plan.files]

    async def restore(
        self, checkpoint_id: str, paths: Sequence[str] | None, *, tell_agent: bool
    ) -> tuple[RewindEntry, RestoreResult, str | None]:
        """Put the files back as they were at ``checkpoint_id`` (all, or
        ``paths``): the log's entry, what was done, and (``tell_agent``, when
        anything changed) the line the next prompt tells the agent."""
        engine = self._require()
        async with self._restoring:
            target = await self._run(engine.get, checkpoint_id)
            result = await self._run(engine.restore, checkpoint_id, paths)
        entry = RewindEntry(
            checkpoint_id=checkpoint_id,
            undo_checkpoint_id=result.checkpoint_id,
            turn=target.turn,
            files=[self._planned(item) for item in result.files],
            agent_told=tell_agent and bool(result.files),
            label=target.label,
        )
        return entry, result, self._agent_note(entry, target.label) if entry.agent_told else None

    def _agent_note(self, entry: RewindEntry, label: str) -> str:
        """What the next prompt tells the agent about a restore."""
        where = {
            "before-turn": f"as they were before turn {entry.turn}",
            "after-turn": f"as they were after turn {entry.turn}",
            "before-restore": "as they were before an earlier restore (that restore is undone)",
            "after-restore": "as an earlier restore left them",
        }.get(label, "as they were at an earlier checkpoint")
        done = {"restore": "restored", "recreate": "brought back", "remove": "removed"}
        names = ", ".join(
            f"{f['display']} ({done.get(f['action'], f['action'])})" for f in entry.files[:20]
        )
        more = f" and {len(entry.files) - 20} more" if len(entry.files) > 20 else ""
        return (
            f"[acp-tui: the user restored files {where}: {names}{more}. "
            "What you remember of those files may be out of date; read them again before "
            "editing them.]\n\n"
        )

    async def close(self) -> None:
        """Let running takes and prunes finish (they hold the folder's lock)."""
        jobs = [*self._jobs, *([self._pruning] if self._pruning else [])]
        if jobs:
            await asyncio.gather(*jobs, return_exceptions=True)

    # -- helpers -----------------------------------------------------------------------

    def display(self, path: Path | str) -> str:
        """A path as the log shows it: relative to the session's first folder."""
        path = Path(path)
        roots = self.engine.roots if self.engine is not None else ()
        if roots and (path == roots[0] or roots[0] in path.parents):
            return path.relative_to(roots[0]).as_posix()
        return str(path)

    def _file(self, change: FileChange, outside: bool) -> dict[str, Any]:
        item: dict[str, Any] = {
            "path": str(change.path),
            "display": self.display(change.path),
            "change": change.change,
        }
        if change.added is not None:
            item["added"] = change.added
        if change.removed is not None:
            item["removed"] = change.removed
        if change.binary:
            item["binary"] = True
        if outside:
            item["outside"] = True
        return item

    def _planned(self, item: PlannedFile) -> dict[str, Any]:
        planned: dict[str, Any] = {
            "path": str(item.path),
            "display": self.display(item.path),
            "action": item.action,
        }
        if item.edited_outside_turns:
            planned["editedOutside"] = True
        if item.unsaved:
            planned["unsaved"] = True
        return planned

    def _listed(self, item: ListedCheckpoint) -> dict[str, Any]:
        checkpoint = item.checkpoint
        listed: dict[str, Any] = {
            "checkpointId": checkpoint.checkpoint_id,
            "createdAt": datetime.fromtimestamp(checkpoint.created_at, UTC).isoformat(),
            "label": checkpoint.label,
            "turn": checkpoint.turn,
            "prompt": checkpoint.prompt,
            "files": [
                {"path": str(f.path), "display": self.display(f.path), "change": f.change}
                for f in item.files
            ],
        }
        if item.previous_id is not None:
            listed["previousId"] = item.previous_id
        return listed

    def _engine_or_none(self) -> Checkpoints | None:
        return self.engine if self.reason is None else None

    def _require(self) -> Checkpoints:
        engine = self._engine_or_none()
        if engine is None:
            raise HostError("unsupported", self._pathless(self.reason or "checkpoints are off"))
        return engine

    def _explain(self) -> list[Note]:
        if self._explained or self.reason is None:
            return []
        self._explained = True
        return [
            (
                "info",
                f"{_sentence(self.reason)} Turns run as usual, with no checkpoints to rewind to.",
            )
        ]

    def _failed(self, error: CheckpointError) -> list[Note]:
        """A checkpoint failed: off for this session, said once."""
        self.reason = f"checkpoints are off for this session: {error}"
        log.warning("checkpoint failed: %s", error)
        return self._explain()

    def _slow(self, which: str, lacks: str) -> str:
        return (
            f"The checkpoint {which} took over {self.settings.wait_limit:g} s (a large tree?); "
            f"the turn went on without waiting, so {lacks}."
        )

    async def _bounded(self, function: Any, *args: Any) -> Any:
        """``function(*args)`` in a worker thread, awaited at most ``wait_limit``
        seconds (it goes on in the background past that)."""
        job = asyncio.ensure_future(asyncio.to_thread(function, *args))
        self._jobs.add(job)
        job.add_done_callback(self._jobs.discard)
        job.add_done_callback(_log_failure)
        return await asyncio.wait_for(asyncio.shield(job), self.settings.wait_limit)

    async def _run(self, function: Any, *args: Any) -> Any:
        """A command's engine call, in a worker thread; errors as HostError."""
        try:
            return await asyncio.to_thread(function, *args)
        except CheckpointError as error:
            raise HostError(_code(error), self._pathless(str(error))) from None

    def _pathless(self, text: str) -> str:
        """``text`` without an absolute path of the host (errors never show
        one): a path in the roots relative to its root, any other by its name."""
        roots = self.engine.roots if self.engine is not None else ()
        for root in sorted(roots, key=lambda root: len(str(root)), reverse=True):
            name = "the session's folder" if root == roots[0] else f"the folder {root.name}"
            text = text.replace(str(root) + "/", "").replace(str(root), name)
        return re.sub(r"(?<![\w.~])/[^\s:'\"()]+", lambda m: Path(m.group()).name or "/", text)

    def _prune(self, engine: Checkpoints) -> None:
        if self._pruning is not None and not self._pruning.done():
            return
        self._pruning = asyncio.ensure_future(asyncio.to_thread(engine.prune))
        self._pruning.add_done_callback(_log_failure)


def _code(error: CheckpointError) -> ErrorCode:
    text = str(error)
    if text.startswith("no checkpoint"):
        return "not_found"
    return "invalid_params" if "outside the session's folders" in text else "internal"


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def _log_failure(job: asyncio.Future[Any]) -> None:
    if job.cancelled():
        return
    error = job.exception()
    if error is not None and not isinstance(error, CheckpointError):
        log.error("a checkpoint job failed", exc_info=error)
