"""Checkpoints engine, restoring: the dry run, whole and one-file restores and
their undo, files edited outside the turns, and what a restore never touches.
Real git, real files in tmp dirs."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from acp_tui.core.checkpoints.engine import (
    CheckpointError,
    Checkpoints,
    FileChange,
    edited_outside_tools,
)
from tests.checkpoint_helpers import files_of, needs_git, write
from tests.checkpoint_helpers import project as project  # (a fixture)
from tests.checkpoint_helpers import state as state  # (a fixture)

pytestmark = needs_git


def test_restore_brings_back_removes_and_leaves_the_rest_and_undo_redoes_the_turn(
    project: Path, state: Path
) -> None:
    checkpoints = Checkpoints([project], "s1", state_dir=state)
    untouched = project / "README.md"
    before = checkpoints.take("before-turn", turn=1, prompt="p")
    at_start = files_of(project)
    write(project, {"src/app.py": "changed\n", "pkg/deep/new.py": "new\n"})
    (project / "docs" / "guide.md").unlink()
    (project / "src" / "util.py").chmod(0o755)
    checkpoints.take("after-turn", turn=1, prompt="p")
    after_turn = files_of(project)
    untouched_stat = untouched.stat()

    plan = checkpoints.plan_restore(before.checkpoint_id)
    assert {item.rel: item.action for item in plan.files} == {
        "src/app.py": "restore",
        "pkg/deep/new.py": "remove",
        "docs/guide.md": "recreate",
        "src/util.py": "restore",
    }
    assert files_of(project) == after_turn  # the dry run wrote nothing

    result = checkpoints.restore(before.checkpoint_id)
    assert files_of(project) == at_start
    assert not (project / "pkg").exists()  # the folders it created went with it
    assert (project / "src" / "util.py").stat().st_mode & 0o777 == 0o644
    assert sorted(result.restored) == sorted(project / item.rel for item in plan.files)
    assert untouched.stat().st_mtime_ns == untouched_stat.st_mtime_ns
    assert untouched.stat().st_ino == untouched_stat.st_ino
    assert checkpoints.get(result.checkpoint_id).label == "before-restore"

    undo = checkpoints.restore(result.checkpoint_id)
    assert files_of(project) == after_turn
    assert (project / "src" / "util.py").stat().st_mode & 0o777 == 0o755
    assert undo.checkpoint_id != result.checkpoint_id


def test_restore_of_one_file_alone(project: Path, state: Path) -> None:
    checkpoints = Checkpoints([project], "s1", state_dir=state)
    before = checkpoints.take("before-turn", turn=1)
    write(project, {"src/app.py": "a\n", "src/util.py": "b\n", "src/added.py": "c\n"})
    checkpoints.take("after-turn", turn=1)
    chosen = ["src/app.py", project / "src/added.py"]
    result = checkpoints.restore(before.checkpoint_id, paths=chosen)
    assert (project / "src/app.py").read_text() == "def main():\n    return 1\n"
    assert not (project / "src/added.py").exists()
    assert (project / "src/util.py").read_text() == "b\n"
    assert sorted(p.name for p in result.restored) == ["added.py", "app.py"]
    with pytest.raises(CheckpointError, match="outside the session's folders"):
        checkpoints.restore(before.checkpoint_id, paths=[project.parent / "elsewhere"])


def test_the_dry_run_names_files_edited_outside_the_turns(project: Path, state: Path) -> None:
    checkpoints = Checkpoints([project], "s1", state_dir=state)
    other = Checkpoints([project], "s2", state_dir=state)
    start = checkpoints.take("before-turn", turn=1)
    write(project, {"src/app.py": "turn 1\n"})
    checkpoints.take("after-turn", turn=1)
    write(project, {"README.md": "the user, between turns\n"})
    checkpoints.take("before-turn", turn=2)
    write(project, {"src/util.py": "turn 2\n"})
    other.take("before-turn", turn=1)
    write(project, {"docs/guide.md": "inside s1's turn, whoever wrote it\n"})
    other.take("after-turn", turn=1)
    checkpoints.take("after-turn", turn=2)
    write(project, {"late.txt": "the user, after the last turn\n"})
    other.take("before-turn", turn=2)
    write(project, {"other.txt": "another session's agent\n"})
    other.take("after-turn", turn=2)

    plan = checkpoints.plan_restore(start.checkpoint_id)
    flags = {item.rel: item.edited_outside_turns for item in plan.files}
    assert flags == {
        "src/app.py": False,
        "src/util.py": False,
        "docs/guide.md": False,
        "README.md": True,
        "late.txt": True,
        "other.txt": True,
    }
    assert not any(item.unsaved for item in plan.files)


def test_edited_outside_tools_uses_the_tool_windows(tmp_path: Path) -> None:
    write(tmp_path, {"agent.py": "a\n", "user.py": "u\n"})
    now = time.time()
    os.utime(tmp_path / "agent.py", (now - 30, now - 30))
    os.utime(tmp_path / "user.py", (now - 10, now - 10))
    changes = [
        FileChange(tmp_path / "agent.py", tmp_path, "agent.py", "modified"),
        FileChange(tmp_path / "user.py", tmp_path, "user.py", "added"),
        FileChange(tmp_path / "gone.py", tmp_path, "gone.py", "deleted"),
    ]
    windows = [(now - 32, now - 29), (now - 5, now)]
    assert edited_outside_tools(changes, windows) == [tmp_path / "user.py"]
    assert edited_outside_tools(changes, [(now - 40, now)]) == []


def test_a_restore_never_writes_through_a_symlink_that_leaves_the_root(
    tmp_path: Path, state: Path
) -> None:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    write(root, {"conf/settings.ini": "a=1\n"})
    write(outside, {"settings.ini": "outside\n"})
    checkpoints = Checkpoints([root], "s1", state_dir=state)
    before = checkpoints.take("before-turn", turn=1)
    shutil.rmtree(root / "conf")
    os.symlink(outside, root / "conf")  # conf/settings.ini now resolves outside
    checkpoints.take("after-turn", turn=1)
    checkpoints.restore(before.checkpoint_id)
    assert not (root / "conf").is_symlink()
    assert (root / "conf" / "settings.ini").read_text() == "a=1\n"
    assert (outside / "settings.ini").read_text() == "outside\n"


def test_a_restore_never_deletes_what_no_checkpoint_holds(tmp_path: Path, state: Path) -> None:
    root = tmp_path / "root"
    write(root, {"a.txt": "a\n", "b.txt": "b\n", "c/d.txt": "d\n"})
    checkpoints = Checkpoints([root], "s1", state_dir=state, size_limit=100)
    before = checkpoints.take("before-turn", turn=1)
    (root / "a.txt").unlink()  # a folder with an ignored file where a.txt was
    write(root, {"a.txt/notes.log": "mine\n", "a.txt/tracked.py": "t\n", ".gitignore": "*.log\n"})
    shutil.rmtree(root / "c")  # a file too large to record where the folder c was
    write(root, {"c": "x" * 200, "b.txt": "changed\n"})
    checkpoints.take("after-turn", turn=1)
    plan = checkpoints.plan_restore(before.checkpoint_id)
    assert {(item.path.name, item.reason) for item in plan.kept} == {
        ("a.txt", "in-the-way"),
        ("d.txt", "in-the-way"),
    }
    result = checkpoints.restore(before.checkpoint_id)
    assert {item.path.name for item in result.kept} == {"a.txt", "d.txt"}
    assert (root / "a.txt" / "notes.log").read_text() == "mine\n"
    assert not (root / "a.txt" / "tracked.py").exists()  # recorded: removed as created since
    assert (root / "c").read_text() == "x" * 200
    assert (root / "b.txt").read_text() == "b\n"


@pytest.mark.skipif(shutil.which("chattr") is None, reason="needs chattr")
def test_a_failed_restore_names_the_checkpoint_that_undoes_it(tmp_path: Path, state: Path) -> None:
    root = tmp_path / "root"
    write(root, {"a.txt": "a\n", "b.txt": "b\n"})
    checkpoints = Checkpoints([root], "s1", state_dir=state)
    before = checkpoints.take("before-turn", turn=1)
    write(root, {"a.txt": "changed a\n", "b.txt": "changed b\n"})
    checkpoints.take("after-turn", turn=1)
    locked = subprocess.run(["chattr", "+i", str(root)], capture_output=True)
    if locked.returncode != 0:
        pytest.skip("the file system has no immutable flag")
    try:
        with pytest.raises(CheckpointError) as caught:
            checkpoints.restore(before.checkpoint_id)
    finally:
        subprocess.run(["chattr", "-i", str(root)], check=True)
    undo = caught.value.checkpoint_id
    assert undo is not None and f"restore {undo} to undo" in str(caught.value)
    checkpoints.restore(undo)
    assert (root / "a.txt").read_text() == "changed a\n"
    assert (root / "b.txt").read_text() == "changed b\n"


def test_what_a_restore_wrote_is_not_an_edit_outside_the_turns(project: Path, state: Path) -> None:
    checkpoints = Checkpoints([project], "s1", state_dir=state)
    write(project, {"kept.txt": "v1\n"})
    before = checkpoints.take("before-turn", turn=1)
    write(project, {"kept.txt": "v2\n", "new.txt": "made by the turn\n"})
    checkpoints.take("after-turn", turn=1)
    undo = checkpoints.restore(before.checkpoint_id).checkpoint_id
    # Undoing the rewind: every file it touches was written by the restore.
    plan = checkpoints.plan_restore(undo)
    assert {(p.rel, p.action) for p in plan.files} == {
        ("kept.txt", "restore"),
        ("new.txt", "recreate"),
    }
    assert not [p.rel for p in plan.files if p.edited_outside_turns]
    # An edit after the restore is the user's: flagged.
    write(project, {"kept.txt": "the user's\n"})
    flagged = [p.rel for p in checkpoints.plan_restore(undo).files if p.edited_outside_turns]
    assert flagged == ["kept.txt"]
    assert [c.checkpoint.label for c in checkpoints.list_checkpoints()][:2] == [
        "after-restore",
        "before-restore",
    ]
