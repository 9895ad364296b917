"""Checkpoints: the state of a session's folders at one moment, to compare and restore.

A session takes a checkpoint before each prompt turn and another when it ends,
whoever edits the files (the agent's own tools, a terminal command,
``fs/write_text_file``, the user in another editor). Each root folder of the
session (its cwd and extra roots) has a shadow git repository of its own
(:mod:`acp_tui.core.checkpoints.shadow_repo`); a checkpoint is one commit per root under
one id, with its label, turn, prompt, session and skipped files in the commit
message. Two sessions on the same folder share its repository and its lock,
and each lists only its own checkpoints.

What is recorded: every file git would track under the root — nested and
top-level ``.gitignore`` files, the project's ``info/exclude`` and the
``.gitignore`` files above the root (when the root is inside a git work tree)
and the user's global excludes file are honoured — minus ``.git`` (git never
records it), files over :attr:`Checkpoints.size_limit`, symlinks that resolve
outside every root of the session, nested git repositories, and unreadable
or special files. Each checkpoint lists what it skipped, every time. Empty
folders are not recorded (git tracks files).

Use: every method blocks (git processes; the first checkpoint of a big tree
hashes every file), so an asyncio caller runs it in a worker thread::

    checkpoints = Checkpoints([cwd, *extra_roots], session_id)
    if not checkpoints.available:
        notice(checkpoints.reason)          # one line: why the feature is off
    before = await asyncio.to_thread(checkpoints.take, "before-turn", turn=n, prompt=text)
    ...the turn runs...
    after = await asyncio.to_thread(checkpoints.take, "after-turn", turn=n, prompt=text)
    changes = await asyncio.to_thread(
        checkpoints.changes, before.checkpoint_id, after.checkpoint_id
    )
    await asyncio.to_thread(checkpoints.prune)    # in the background, after a turn

Threads and processes are safe: each root's repository is used under its
lock (:meth:`~acp_tui.core.checkpoints.shadow_repo.ShadowRepo.lock`). Errors are a
:class:`CheckpointError` with a message that names the root; without git
(or with a git older than 2.25) :attr:`Checkpoints.reason` says why, and
every method raises :class:`CheckpointsUnavailable` with that reason.

Retention: :meth:`Checkpoints.prune` keeps the newest :attr:`Checkpoints.keep`
checkpoints of each root (every session's counted). Schedule it after each
after-turn checkpoint in a worker thread, off the turn's path, and at most one
at a time per root; it locks the repository only to drop refs, and packs the
objects (``git gc``, outside the lock) at most once per :data:`GC_INTERVAL`.
The first checkpoint of a root hashes every file: take it when the session
opens, in the background, so the first turn does not wait for it.

Who changed a file during a turn cannot be read from the tree.
:func:`edited_outside_tools` gives what can be told: files whose modification
time falls outside every tool call's running window (the session knows the
windows) were most likely written by someone else, typically the user.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from acp_tui.core.checkpoints.files import classify, edited_outside_tools
from acp_tui.core.checkpoints.git_program import GitProgram, find_git
from acp_tui.core.checkpoints.model import (
    KINDS,
    MAX_SKIPPED_STORED,
    ChangeKind,
    Checkpoint,
    CheckpointError,
    CheckpointsUnavailable,
    FileChange,
    FileDiff,
    GitErrors,
    Label,
    ListedCheckpoint,
    PlannedFile,
    RestoreAction,
    RestorePlan,
    RestoreResult,
    Skipped,
    SkipReason,
    canonical_roots,
    cap_prompt,
    change_of,
    checkpoint_of,
    new_id,
    parse_records,
    record_message,
    record_meta,
    skipped_of,
)
from acp_tui.core.checkpoints.restore_planning import plan_root
from acp_tui.core.checkpoints.settings import DEFAULT_KEEP, DEFAULT_SIZE_LIMIT
from acp_tui.core.checkpoints.shadow_repo import (
    RawChange,
    RefRecord,
    ShadowRepo,
    default_state_dir,
)

__all__ = [
    "ChangeKind",
    "Checkpoint",
    "CheckpointError",
    "Checkpoints",
    "CheckpointsUnavailable",
    "FileChange",
    "FileDiff",
    "Label",
    "ListedCheckpoint",
    "PlannedFile",
    "RestoreAction",
    "RestorePlan",
    "RestoreResult",
    "SkipReason",
    "Skipped",
    "edited_outside_tools",
]

DEFAULT_MAX_FILES = 250_000
"""Most files one checkpoint records anew (its first one records them all):
a session started in a home folder fails clearly instead of hashing it."""
DEFAULT_MAX_TEXT = 1024 * 1024
"""Bytes of one side of a file shown in a :class:`FileDiff`."""
GC_INTERVAL = 3600.0
PAIR_CACHE = 4096
"""Comparisons of two checkpoints remembered (for listing and dry runs)."""


class Checkpoints:
    """One session's checkpoints over its roots; every method blocks."""

    def __init__(
        self,
        roots: Sequence[Path | str],
        session_id: str,
        *,
        state_dir: Path | None = None,
        size_limit: int = DEFAULT_SIZE_LIMIT,
        keep: int = DEFAULT_KEEP,
        max_files: int = DEFAULT_MAX_FILES,
        git: GitProgram | None = None,
    ) -> None:
        self.session_id = session_id
        self.size_limit = size_limit
        self.keep = keep
        self.max_files = max_files
        self.roots = canonical_roots(roots)
        self.reason: str | None = None
        program = find_git() if git is None else git
        if program.path is None:
            self.reason = program.reason or "checkpoints are off: git is not available"
        elif not self.roots:
            self.reason = "checkpoints are off: the session has no folder"
        else:
            missing = [root for root in self.roots if not root.is_dir()]
            if missing:
                self.reason = f"checkpoints are off: {missing[0]} is not a folder"
        state = default_state_dir() if state_dir is None else state_dir
        self._repos = [ShadowRepo(root, state, program.path or "git") for root in self.roots]
        self._outside = tuple(str(root) for root in self.roots)  # symlinks may point here
        self._pair_cache: dict[tuple[str, str], list[RawChange]] = {}
        self._cache_lock = threading.Lock()

    @property
    def available(self) -> bool:
        return self.reason is None

    # -- taking ------------------------------------------------------------------------

    def take(
        self, label: Label, *, turn: int | None = None, prompt: str | None = None
    ) -> Checkpoint:
        """Record the roots as they are now; the checkpoint and what it skipped."""
        self._check()
        checkpoint_id = ""
        created = 0.0
        skipped: list[Skipped] = []
        more = 0
        for repo in self._repos:
            with self._errors(repo), repo.lock():
                if not checkpoint_id:  # made in the lock: ids sort as the commits were made
                    checkpoint_id, created = new_id(), time.time()
                tree, root_skipped = self._snapshot(repo)
                meta = record_meta(
                    checkpoint_id, label, created, self.session_id, turn, prompt, root_skipped
                )
                repo.set_ref(checkpoint_id, repo.commit(tree, record_message(meta)), tree)
            skipped += root_skipped[:MAX_SKIPPED_STORED]
            more += max(0, len(root_skipped) - MAX_SKIPPED_STORED)
        return Checkpoint(
            checkpoint_id, label, created, self.session_id, turn, cap_prompt(prompt),
            self.roots, tuple(skipped), more,
        )  # fmt: skip

    def _snapshot(self, repo: ShadowRepo) -> tuple[str, list[Skipped]]:
        """Bring the index in line with the root and write its tree (in the lock)."""
        repo.ensure()
        rules_changed = repo.sync_excludes()
        status = repo.status()
        add: list[str] = []
        drop: list[str] = []
        skipped: list[Skipped] = []
        for tracked, paths in ((True, status.changed), (False, status.untracked)):
            for rel in paths:
                if rel.rsplit("/", 1)[-1] == ".gitignore":
                    rules_changed = True
                reason, size = classify(repo.root, rel, self._outside, self.size_limit)
                if reason is None:
                    add.append(rel)
                elif reason == "drop":
                    drop.append(rel)
                else:
                    skipped.append(Skipped(repo.root / rel.rstrip("/"), reason, size))
                    if tracked:
                        drop.append(rel)
        if len(add) > self.max_files:
            raise CheckpointError(
                f"{repo.root}: {len(add)} files to record, over the limit of {self.max_files}"
            )
        if status.clean and not rules_changed:
            unchanged = repo.head_tree()  # saves a git process on an unchanged tree
            if unchanged is not None:
                return unchanged, skipped
        repo.update_index(drop, force_remove=True)
        repo.update_index(add)
        if rules_changed:
            repo.update_index(repo.ignored_tracked(), force_remove=True)
        return repo.write_tree(), skipped

    # -- reading -----------------------------------------------------------------------

    def list_checkpoints(self, *, all_sessions: bool = False) -> list[ListedCheckpoint]:
        """This session's checkpoints (every session's with ``all_sessions``),
        newest first, each with the files changed since the one before it in
        this list (per root: a root without it compares nothing)."""
        self._check()
        metas: dict[str, dict[str, Any]] = {}
        roots: dict[str, list[Path]] = {}
        skipped: dict[str, list[Skipped]] = {}
        more: dict[str, int] = {}
        files: dict[str, list[FileChange]] = {}
        for repo in self._repos:
            with self._errors(repo):
                records = [
                    (record, meta)
                    for record, meta in parse_records(repo.refs())
                    if all_sessions or meta.get("session") == self.session_id
                ]
                pairs = [(new[0].commit, old[0].commit) for old, new in itertools.pairwise(records)]
                diffs = self._diff_pairs(repo, pairs)
            for record, meta in records:
                cid = record.checkpoint_id
                metas.setdefault(cid, meta)
                roots.setdefault(cid, []).append(repo.root)
                skipped.setdefault(cid, []).extend(skipped_of(meta))
                more[cid] = more.get(cid, 0) + int(meta.get("skipped_more") or 0)
            for (record, _meta), raw in zip(records[1:], diffs, strict=True):
                changes = [change_of(repo.root, item) for item in raw]
                files.setdefault(record.checkpoint_id, []).extend(changes)
        ordered = sorted(metas)
        listed = [
            ListedCheckpoint(
                checkpoint_of(metas[cid], tuple(roots[cid]), tuple(skipped[cid]), more[cid]),
                ordered[index - 1] if index else None,
                tuple(files.get(cid, ())),
            )
            for index, cid in enumerate(ordered)
        ]
        listed.reverse()
        return listed

    def get(self, checkpoint_id: str) -> Checkpoint:
        """One checkpoint of any session on these roots; CheckpointError if none."""
        for listed in self.list_checkpoints(all_sessions=True):
            if listed.checkpoint.checkpoint_id == checkpoint_id:
                return listed.checkpoint
        raise CheckpointError(f"no checkpoint {checkpoint_id!r}")

    def changes(
        self, old_id: str, new_id: str | None = None, paths: Iterable[Path | str] | None = None
    ) -> list[FileChange]:
        """Files that differ from checkpoint ``old_id`` to ``new_id`` (``None``:
        the tree now), with line counts; limited to ``paths`` (files or folders)."""
        return [change for change, _old, _new in self._compare(old_id, new_id, paths, False)]

    def diffs(
        self,
        old_id: str,
        new_id: str | None = None,
        paths: Iterable[Path | str] | None = None,
        *,
        max_text: int = DEFAULT_MAX_TEXT,
    ) -> list[FileDiff]:
        """:meth:`changes` with each file's old and new text (a symlink's
        text is its target)."""
        out: list[FileDiff] = []
        for change, old, new in self._compare(old_id, new_id, paths, True):
            truncated = any(data is not None and len(data) > max_text for data in (old, new))
            texts = [
                None if data is None or change.binary or len(data) > max_text
                else data.decode("utf-8", "replace")
                for data in (old, new)
            ]  # fmt: skip
            out.append(
                FileDiff(
                    change.path, change.root, change.rel, change.change, change.added,
                    change.removed, change.binary, texts[0], texts[1], truncated,
                )
            )  # fmt: skip
        return out

    def patch(
        self, old_id: str, new_id: str | None = None, paths: Iterable[Path | str] | None = None
    ) -> str:
        """A unified diff (git's) from ``old_id`` to ``new_id`` or the tree now.
        Paths are shown relative to the first root (``a/src/x.py``)."""
        parts: list[str] = []
        for repo, sides, rels in self._pairs(old_id, new_id, paths):
            prefix = os.path.relpath(repo.root, self.roots[0]).replace(os.sep, "/")
            prefix = "" if prefix == "." else prefix + "/"
            with self._errors(repo):
                parts.append(repo.patch(*sides, rels, prefix))
        return "".join(parts)

    def _compare(
        self, old_id: str, new_id: str | None, paths: Iterable[Path | str] | None, blobs: bool
    ) -> list[tuple[FileChange, bytes | None, bytes | None]]:
        out: list[tuple[FileChange, bytes | None, bytes | None]] = []
        for repo, sides, rels in self._pairs(old_id, new_id, paths):
            with self._errors(repo):
                raw = repo.diff(*sides, rels)
                if not raw:
                    continue
                counts = repo.numstat(*sides, rels)
                shas = [sha for item in raw for sha in (item.old_blob, item.new_blob)]
                contents = repo.blobs([sha for sha in shas if sha.strip("0")] if blobs else [])
            for item in raw:
                added, removed = counts.get(item.rel, (0, 0))
                binary = added < 0
                change = FileChange(
                    repo.root / item.rel, repo.root, item.rel, KINDS.get(item.status, "modified"),
                    None if binary else added, None if binary else removed, binary,
                )  # fmt: skip
                out.append((change, contents.get(item.old_blob), contents.get(item.new_blob)))
        return out

    def _pairs(
        self, old_id: str, new_id: str | None, paths: Iterable[Path | str] | None
    ) -> list[tuple[ShadowRepo, tuple[str, str], list[str]]]:
        """Per root holding ``old_id`` (and ``new_id``): the two tree-ishes to
        compare (the tree now, written for the purpose, when ``new_id`` is
        ``None``) and the paths asked for there."""
        self._check()
        wanted = self._rels(paths)
        records = self._records()
        old = self._commits(records, old_id)
        new = None if new_id is None else self._commits(records, new_id)
        out: list[tuple[ShadowRepo, tuple[str, str], list[str]]] = []
        for repo in self._repos:
            if repo.root not in old or (wanted is not None and repo.root not in wanted):
                continue
            if new is not None and repo.root not in new:
                continue
            if new is not None:
                other = new[repo.root]
            else:
                with self._errors(repo), repo.lock():
                    other = self._snapshot(repo)[0]
            out.append((repo, (old[repo.root], other), [] if wanted is None else wanted[repo.root]))
        return out

    def _records(self) -> dict[Path, list[tuple[RefRecord, dict[str, Any]]]]:
        """Every session's checkpoints, per root, oldest first."""
        out: dict[Path, list[tuple[RefRecord, dict[str, Any]]]] = {}
        for repo in self._repos:
            with self._errors(repo):
                out[repo.root] = parse_records(repo.refs())
        return out

    @staticmethod
    def _commits(
        records: dict[Path, list[tuple[RefRecord, dict[str, Any]]]], checkpoint_id: str
    ) -> dict[Path, str]:
        """The commit of ``checkpoint_id`` in each root that has it; raises if none."""
        found = {
            root: record.commit
            for root, listed in records.items()
            for record, _meta in listed
            if record.checkpoint_id == checkpoint_id
        }
        if not found:
            raise CheckpointError(f"no checkpoint {checkpoint_id!r}")
        return found

    # -- restoring ---------------------------------------------------------------------

    def plan_restore(
        self, checkpoint_id: str, paths: Iterable[Path | str] | None = None
    ) -> RestorePlan:
        """A dry run of :meth:`restore`: the files it would write or remove,
        which of them were edited outside this session's turns since, and which
        hold content no checkpoint has. Nothing in the roots is written."""
        self._check()
        wanted = self._rels(paths)
        targets = self._commits(self._records(), checkpoint_id)
        files: list[PlannedFile] = []
        kept: list[Skipped] = []
        for repo in self._repos:
            if repo.root not in targets or (wanted is not None and repo.root not in wanted):
                continue
            with self._errors(repo), repo.lock():
                now = self._snapshot(repo)[0]
                planned, root_kept = plan_root(
                    repo, checkpoint_id, now, [] if wanted is None else wanted[repo.root],
                    session_id=self.session_id, diff_pairs=self._diff_pairs,
                )  # fmt: skip
            files += planned
            kept += root_kept
        return RestorePlan(checkpoint_id, tuple(files), tuple(kept))

    def restore(
        self,
        checkpoint_id: str,
        paths: Iterable[Path | str] | None = None,
        *,
        turn: int | None = None,
    ) -> RestoreResult:
        """Put the files (all, or ``paths``: files or folders) back as they were
        at ``checkpoint_id``: changed ones written back, deleted ones brought
        back, ones created since removed, the others untouched. A
        ``before-restore`` checkpoint of every root is taken first, in the same
        lock; its id is returned, so restoring it undoes this restore."""
        self._check()
        wanted = self._rels(paths)
        targets = self._commits(self._records(), checkpoint_id)
        before_id = after_id = ""
        created = 0.0
        files: list[PlannedFile] = []
        kept: list[Skipped] = []
        for repo in self._repos:
            errors = self._errors(repo)
            errors.checkpoint_id = before_id if files else None  # an earlier root was written
            with errors, repo.lock():
                if not before_id:
                    before_id, created = new_id(), time.time()
                tree, skipped = self._snapshot(repo)
                meta = record_meta(
                    before_id, "before-restore", created, self.session_id, turn, None, skipped
                )
                repo.set_ref(before_id, repo.commit(tree, record_message(meta)), tree)
                if repo.root not in targets or (wanted is not None and repo.root not in wanted):
                    continue
                planned, root_kept = plan_root(
                    repo, checkpoint_id, tree, [] if wanted is None else wanted[repo.root],
                    session_id=self.session_id, diff_pairs=self._diff_pairs,
                )  # fmt: skip
                errors.checkpoint_id = before_id
                repo.checkout(
                    targets[repo.root],
                    [item.rel for item in planned if item.action != "remove"],
                    [item.rel for item in planned if item.action == "remove"],
                )
                # What the restore wrote is known: no edit "outside the turns".
                if not after_id:
                    after_id = new_id()
                tree, skipped = self._snapshot(repo)
                meta = record_meta(
                    after_id, "after-restore", time.time(), self.session_id, turn, None, skipped
                )
                repo.set_ref(after_id, repo.commit(tree, record_message(meta)), tree)
            files += planned
            kept += root_kept
        restored = tuple(item.path for item in files)
        return RestoreResult(checkpoint_id, tuple(files), tuple(kept), before_id, restored)

    def _diff_pairs(self, repo: ShadowRepo, pairs: list[tuple[str, str]]) -> list[list[RawChange]]:
        """:meth:`ShadowRepo.diff_pairs`, remembered: commits never change."""
        with self._cache_lock:
            missing = [pair for pair in pairs if pair not in self._pair_cache]
        found = dict(zip(missing, repo.diff_pairs(missing), strict=True))
        with self._cache_lock:
            self._pair_cache.update(found)
            while len(self._pair_cache) > PAIR_CACHE:
                del self._pair_cache[next(iter(self._pair_cache))]
            return [found.get(pair) or self._pair_cache.get(pair, []) for pair in pairs]

    # -- upkeep ------------------------------------------------------------------------

    def prune(
        self, keep: int | None = None, *, gc: Literal["auto", "always", "never"] = "auto"
    ) -> int:
        """Drop all but the newest ``keep`` (default :attr:`keep`) checkpoints of
        each root, every session's counted; returns how many were dropped.
        With ``gc="auto"`` the repository is then packed and its unreachable
        objects deleted when that was last done over :data:`GC_INTERVAL` ago.
        Meant for a worker thread after a turn ends: it holds the lock only to
        delete refs, and git's ``gc`` runs outside it."""
        self._check()
        count = max(1, self.keep if keep is None else keep)
        dropped = 0
        for repo in self._repos:
            with self._errors(repo):
                with repo.lock():
                    old = [record.checkpoint_id for record in repo.refs()[:-count]]
                    repo.delete_refs(old)
                dropped += len(old)
                stamp = repo.gc_stamp
                try:
                    age = time.time() - stamp.stat().st_mtime
                except OSError:
                    age = float("inf")
                if gc == "always" or (gc == "auto" and age > GC_INTERVAL and repo.refs()):
                    repo.gc()
                    stamp.write_text(f"{time.time()}\n", encoding="utf-8")
        return dropped

    # -- helpers -------------------------------------------------------------------------

    def _check(self) -> None:
        if self.reason is not None:
            raise CheckpointsUnavailable(self.reason)

    def _errors(self, repo: ShadowRepo) -> GitErrors:
        return GitErrors(repo.root)

    def _rels(self, paths: Iterable[Path | str] | None) -> dict[Path, list[str]] | None:
        """``paths`` (absolute, or relative to the first root) by root, as
        git paths; ``None`` for every path. A path outside the roots raises."""
        if paths is None:
            return None
        by_root: dict[Path, list[str]] = {}
        longest_first = sorted(self.roots, key=lambda root: len(str(root)), reverse=True)
        for raw in paths:
            path = Path(raw)
            path = Path(os.path.abspath(path if path.is_absolute() else self.roots[0] / path))
            parent = Path(os.path.realpath(path.parent))
            path = parent / path.name if path.name else parent
            for root in longest_first:
                if path == root or root in path.parents:
                    rel = path.relative_to(root).as_posix()
                    by_root.setdefault(root, []).append("" if rel == "." else rel)
                    break
            else:
                raise CheckpointError(f"{raw} is outside the session's folders")
        return {root: ([] if "" in rels else rels) for root, rels in by_root.items()}
