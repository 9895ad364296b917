"""Planning a restore: what putting a checkpoint back changes in one root.

:meth:`~acp_tui.core.checkpoints.engine.Checkpoints.plan_restore` (a dry run)
and :meth:`~acp_tui.core.checkpoints.engine.Checkpoints.restore` ask
:func:`plan_root`, inside the root's lock, about each file that differs
between the checkpoint and the tree now: whether it is written back, brought
back or removed; whether it is kept as it is instead (it was skipped when the
checkpoint was taken, or something holding unrecorded files stands where it
goes); and whether it was edited while no turn of the session ran
(:func:`outside_turns`), most likely by the user, whose edit the restore
would undo.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from acp_tui.core.checkpoints.files import in_the_way
from acp_tui.core.checkpoints.model import (
    CheckpointError,
    PlannedFile,
    RestoreAction,
    Skipped,
    parse_records,
    skipped_of,
)
from acp_tui.core.checkpoints.shadow_repo import RawChange, RefRecord, ShadowRepo

#: Compares pairs of commits (new, old) in a repository: the engine's, remembered.
DiffPairs = Callable[[ShadowRepo, list[tuple[str, str]]], list[list[RawChange]]]
_ACTIONS: dict[str, RestoreAction] = {"A": "remove", "D": "recreate"}


def plan_root(
    repo: ShadowRepo,
    target_id: str,
    now: str,
    rels: Sequence[str],
    *,
    session_id: str,
    diff_pairs: DiffPairs,
) -> tuple[list[PlannedFile], list[Skipped]]:
    """What restoring ``target_id`` over tree ``now`` changes in ``repo``,
    limited to ``rels`` (empty: every path), and what it keeps (inside the lock)."""
    parsed = parse_records(repo.refs())
    ids = [record.checkpoint_id for record, _meta in parsed]
    if target_id not in ids:  # pruned by another session a moment ago
        raise CheckpointError(f"no checkpoint {target_id!r}")
    index = ids.index(target_id)
    target, target_meta = parsed[index]
    cannot = {item.path: item for item in skipped_of(target_meta)}
    outside = outside_turns(
        repo, parsed[index:], now, rels, session_id=session_id, diff_pairs=diff_pairs
    )
    files: list[PlannedFile] = []
    kept: list[Skipped] = []
    raw = repo.diff(target.commit, now, rels)
    removed = {item.rel for item in raw if item.status == "A"}
    for item in raw:
        path = repo.root / item.rel
        if path in cannot:
            kept.append(cannot[path])
            continue
        action = _ACTIONS.get(item.status, "restore")
        way = in_the_way(repo.root, item.rel, removed) if action == "recreate" else None
        if way == "blocked":
            kept.append(Skipped(path, "in-the-way"))
            continue
        files.append(
            PlannedFile(path, repo.root, item.rel, action, item.rel in outside, way is not None)
        )
    return files, kept


def outside_turns(
    repo: ShadowRepo,
    since: list[tuple[RefRecord, dict[str, Any]]],
    now: str,
    rels: Sequence[str],
    *,
    session_id: str,
    diff_pairs: DiffPairs,
) -> set[str]:
    """Paths changed, from ``since[0]`` to ``now``, while no turn of session
    ``session_id`` ran. Every checkpoint of the root (any session's) bounds an
    interval; one is inside a turn from this session's ``before-turn`` to
    its ``after-turn``, and one from ``before-restore`` to ``after-restore``
    is the restore's own writing."""
    in_turn = False
    pairs: list[tuple[str, str]] = []
    for i, (record, meta) in enumerate(since):
        if meta.get("session") == session_id:
            if meta.get("label") == "before-turn":
                in_turn = True
            elif meta.get("label") == "after-turn":
                in_turn = False
        restoring = (
            meta.get("session") == session_id
            and meta.get("label") == "before-restore"
            and i + 1 < len(since)
            and since[i + 1][1].get("label") == "after-restore"
        )
        if not in_turn and not restoring and i + 1 < len(since):
            pairs.append((since[i + 1][0].commit, record.commit))
    changed = {item.rel for raw in diff_pairs(repo, pairs) for item in raw}
    if not in_turn and since[-1][0].tree != now:
        changed |= {item.rel for item in repo.diff(since[-1][0].commit, now, rels)}
    return changed
