"""Checkpoints engine, what a checkpoint records: a turn's changes and diffs,
ignore rules, size and file limits, symlinks, nested repositories, several roots,
unusual names. Real git, real files in tmp dirs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from acp_tui.core.checkpoints import shadow_repo
from acp_tui.core.checkpoints.engine import CheckpointError, Checkpoints
from tests.checkpoint_helpers import changed, files_of, needs_git, project_git, write
from tests.checkpoint_helpers import project as project  # (a fixture)
from tests.checkpoint_helpers import state as state  # (a fixture)

pytestmark = needs_git


MiB = 1024 * 1024


def test_a_turn_lists_exactly_its_writes_edits_deletes_and_created_files(
    project: Path, state: Path
) -> None:
    checkpoints = Checkpoints([project], "s1", state_dir=state)
    assert checkpoints.available, checkpoints.reason
    before = checkpoints.take("before-turn", turn=1, prompt="refactor")
    write(project, {"src/app.py": "def main():\n    return 2\n# done\n", "src/new.py": "N = 1\n"})
    (project / "docs" / "guide.md").unlink()
    subprocess.run(["sh", "-c", "echo made > made_by_shell.txt"], cwd=project, check=True)
    write(project, {"run.log": "ignored\n", "build/out.o": b"\0\1"})
    after = checkpoints.take("after-turn", turn=1, prompt="refactor")

    changes = checkpoints.changes(before.checkpoint_id, after.checkpoint_id)
    assert changed(changes) == {
        "src/app.py": "modified",
        "src/new.py": "added",
        "docs/guide.md": "deleted",
        "made_by_shell.txt": "added",
    }
    counts = {change.rel: (change.added, change.removed) for change in changes}
    assert counts["src/app.py"] == (2, 1)
    assert counts["docs/guide.md"] == (0, 1)
    assert all(change.path == project / change.rel for change in changes)
    # the tree did not change since: nothing between the after-turn and now
    assert checkpoints.changes(after.checkpoint_id) == []

    listed = checkpoints.list_checkpoints()
    assert [item.checkpoint.checkpoint_id for item in listed] == [
        after.checkpoint_id,
        before.checkpoint_id,
    ]
    newest = listed[0]
    assert newest.previous_id == before.checkpoint_id
    assert changed(list(newest.files)) == changed(changes)
    assert newest.checkpoint.label == "after-turn"
    assert newest.checkpoint.turn == 1
    assert newest.checkpoint.prompt == "refactor"
    assert newest.checkpoint.session_id == "s1"
    assert listed[1].files == ()


def test_diffs_carry_both_texts_and_detect_binary_files(project: Path, state: Path) -> None:
    write(project, {"image.bin": b"\x89PNG\0\1\2"})
    checkpoints = Checkpoints([project], "s1", state_dir=state)
    before = checkpoints.take("before-turn", turn=1)
    write(project, {"README.md": "# project\nmore\n", "image.bin": b"\x89PNG\0\3"})
    diffs = {diff.rel: diff for diff in checkpoints.diffs(before.checkpoint_id)}
    readme = diffs["README.md"]
    assert (readme.old_text, readme.new_text) == ("# project\n", "# project\nmore\n")
    assert (readme.added, readme.removed, readme.binary) == (1, 0, False)
    assert readme.as_content() == {
        "type": "diff",
        "path": str(project / "README.md"),
        "oldText": "# project\n",
        "newText": "# project\nmore\n",
    }
    image = diffs["image.bin"]
    assert image.binary and image.old_text is None and image.new_text is None
    assert image.added is None
    patch = checkpoints.patch(before.checkpoint_id, paths=[project / "README.md"])
    assert "--- a/README.md\n+++ b/README.md\n" in patch
    assert "+more\n" in patch
    assert "image.bin" not in patch


def test_gitignored_files_are_not_recorded(tmp_path: Path, state: Path) -> None:
    project = tmp_path / "mono"
    write(
        project,
        {
            ".gitignore": "node_modules/\n/top-only.txt\npkg/web/dist/\n"
            "**/generated/\n/pkg/web/*.min.js\n!/pkg/web/keep.min.js\n/pkg/other/\n",
            "pkg/web/.gitignore": "*.tmp\n!keep.tmp\n",
            "pkg/web/app.js": "app\n",
        },
    )
    project_git(project, "init", "-q")
    (project / ".git" / "info" / "exclude").write_text("secret.env\n")
    checkpoints = Checkpoints([project], "s1", state_dir=state)
    before = checkpoints.take("before-turn", turn=1)
    write(
        project,
        {
            "node_modules/x/index.js": "x\n",
            "pkg/web/cache.tmp": "tmp\n",
            "pkg/web/keep.tmp": "kept\n",
            "pkg/web/dist/bundle.js": "b\n",
            "top-only.txt": "ignored at the top\n",
            "pkg/top-only.txt": "not ignored here\n",
            "secret.env": "KEY=1\n",
            ".git/info/marker": "inside .git\n",
        },
    )
    after = checkpoints.take("after-turn", turn=1)
    assert changed(checkpoints.changes(before.checkpoint_id, after.checkpoint_id)) == {
        "pkg/web/keep.tmp": "added",
        "pkg/top-only.txt": "added",
    }

    # A session in a sub-folder: the rules of the folders above and of the
    # project's info/exclude still apply, rewritten for the sub-folder.
    sub = Checkpoints([project / "pkg" / "web"], "s2", state_dir=state)
    start = sub.take("before-turn", turn=1)
    write(project / "pkg" / "web", {"dist/more.js": "m\n", "secret.env": "K\n", "x.tmp": "t\n"})
    write(project / "pkg" / "web", {"node_modules/y.js": "y\n", "src/ok.js": "ok\n"})
    write(project / "pkg" / "web", {"src/generated/g.js": "g\n", "a.min.js": "m\n"})
    write(project / "pkg" / "web", {"keep.min.js": "k\n", "src/b.min.js": "b\n"})
    write(project / "pkg" / "web", {"pkg/other/x.js": "not the top's pkg/other\n"})
    assert changed(sub.changes(start.checkpoint_id)) == {
        "src/ok.js": "added",
        "keep.min.js": "added",
        "src/b.min.js": "added",
        "pkg/other/x.js": "added",
    }
    # What the sub-folder's shadow records is what git itself tracks there.
    sub.take("after-turn", turn=1)
    shadow = shadow_repo.ShadowRepo((project / "pkg" / "web").resolve(), state, "git")
    recorded = shadow.run("ls-tree", "-r", "--name-only", "-z", "HEAD").decode().split("\0")
    listed = project_git(project, "ls-files", "-o", "--exclude-standard", "-z", "pkg/web")
    expected = {path.removeprefix("pkg/web/") for path in listed.split("\0") if path}
    assert set(filter(None, recorded)) == expected

    # A file the rules start ignoring drops out of the next checkpoint.
    rules = (project / ".gitignore").read_text() + "pkg/top-only.txt\n"
    write(project, {".gitignore": rules})
    later = checkpoints.take("before-turn", turn=2)
    assert changed(checkpoints.changes(after.checkpoint_id, later.checkpoint_id)) == {
        ".gitignore": "modified",
        "pkg/top-only.txt": "deleted",
        "pkg/web/src/ok.js": "added",
        "pkg/web/keep.min.js": "added",
        "pkg/web/src/b.min.js": "added",
        "pkg/web/pkg/other/x.js": "added",
    }


def test_files_over_the_size_limit_are_skipped_and_said_so(project: Path, state: Path) -> None:
    checkpoints = Checkpoints([project], "s1", state_dir=state, size_limit=1 * MiB)
    write(project, {"grows.bin": b"small"})
    before = checkpoints.take("before-turn", turn=1)
    assert before.skipped == ()
    write(project, {"huge.bin": b"\0" * (MiB + 1), "grows.bin": b"x" * (2 * MiB), "ok.bin": b"1"})
    after = checkpoints.take("after-turn", turn=1)
    assert {(item.path.name, item.reason, item.size) for item in after.skipped} == {
        ("huge.bin", "too-large", MiB + 1),
        ("grows.bin", "too-large", 2 * MiB),
    }
    listed = checkpoints.list_checkpoints()[0].checkpoint
    assert {item.path.name for item in listed.skipped} == {"huge.bin", "grows.bin"}
    assert changed(checkpoints.changes(before.checkpoint_id, after.checkpoint_id)) == {
        "ok.bin": "added",
        "grows.bin": "deleted",  # its 2 MiB content is not in the checkpoint
    }
    objects = subprocess.run(
        ["du", "-sk", str(state)], capture_output=True, text=True, check=True
    ).stdout
    assert int(objects.split()[0]) < 1024  # the big files were never hashed in
    # Restoring the start puts the small version back; the file is flagged
    # as holding content no checkpoint has.
    plan = checkpoints.plan_restore(before.checkpoint_id)
    grows = next(item for item in plan.files if item.rel == "grows.bin")
    assert (grows.action, grows.unsaved) == ("recreate", True)
    # Restoring the after-turn leaves the file it could not record alone.
    write(project, {"huge.bin": b"changed"})
    plan = checkpoints.plan_restore(after.checkpoint_id)
    assert "huge.bin" not in {item.rel for item in plan.files}
    assert {item.path.name for item in plan.kept} == {"huge.bin"}
    checkpoints.restore(after.checkpoint_id)
    assert (project / "huge.bin").read_bytes() == b"changed"


def test_symlinks_that_leave_the_roots_are_skipped(tmp_path: Path, state: Path) -> None:
    root = tmp_path / "root"
    extra = tmp_path / "extra"
    write(root, {"a.txt": "a\n"})
    write(extra, {"lib.txt": "lib\n"})
    write(tmp_path, {"outside/secret.txt": "s\n"})
    checkpoints = Checkpoints([root, extra], "s1", state_dir=state)
    before = checkpoints.take("before-turn", turn=1)
    os.symlink("a.txt", root / "inside")
    os.symlink(extra / "lib.txt", root / "to-extra")
    os.symlink("../outside/secret.txt", root / "escape")
    os.symlink(tmp_path / "outside", root / "escape-dir")
    os.symlink("/", root / "to-slash")
    after = checkpoints.take("after-turn", turn=1)
    assert {(item.path.name, item.reason) for item in after.skipped} == {
        ("escape", "symlink-outside"),
        ("escape-dir", "symlink-outside"),
        ("to-slash", "symlink-outside"),
    }
    assert changed(checkpoints.changes(before.checkpoint_id, after.checkpoint_id)) == {
        "inside": "added",
        "to-extra": "added",
    }
    checkpoints.restore(before.checkpoint_id)
    assert not (root / "inside").exists() and not (root / "to-extra").is_symlink()
    assert (root / "escape").is_symlink()  # never recorded: left alone
    assert (tmp_path / "outside" / "secret.txt").read_text() == "s\n"


def test_two_roots(tmp_path: Path, state: Path) -> None:
    cwd = tmp_path / "cwd"
    extra = tmp_path / "extra"
    write(cwd, {"main.py": "m\n"})
    write(extra, {"shared.py": "s\n"})
    checkpoints = Checkpoints([cwd, extra, cwd / "sub"], "s1", state_dir=state)
    assert checkpoints.roots == (cwd.resolve(), extra.resolve())  # a root inside another: once
    before = checkpoints.take("before-turn", turn=1)
    write(cwd, {"main.py": "m2\n", "sub/new.py": "n\n"})
    write(extra, {"shared.py": "s2\n"})
    after = checkpoints.take("after-turn", turn=1)
    changes = checkpoints.changes(before.checkpoint_id, after.checkpoint_id)
    assert {(change.root.name, change.rel, change.change) for change in changes} == {
        ("cwd", "main.py", "modified"),
        ("cwd", "sub/new.py", "added"),
        ("extra", "shared.py", "modified"),
    }
    assert checkpoints.list_checkpoints()[0].checkpoint.roots == checkpoints.roots
    assert "b/../extra/shared.py" in checkpoints.patch(before.checkpoint_id)
    result = checkpoints.restore(before.checkpoint_id)
    assert (extra / "shared.py").read_text() == "s\n"
    assert not (cwd / "sub").exists()
    checkpoints.restore(result.checkpoint_id, paths=[extra / "shared.py"])
    assert (extra / "shared.py").read_text() == "s2\n"
    assert (cwd / "main.py").read_text() == "m\n"
    assert len({path.name for path in state.iterdir()}) == 2  # one shadow repository per root


def test_nested_repositories_and_dot_git_are_never_recorded(project: Path, state: Path) -> None:
    checkpoints = Checkpoints([project], "s1", state_dir=state)
    before = checkpoints.take("before-turn", turn=1)
    nested = project / "vendor" / "lib"
    write(nested, {"code.c": "int x;\n"})
    project_git(nested, "init", "-q")
    write(project, {".git/stray": "x\n", "src/.git": "gitdir: /nowhere\n"})
    after = checkpoints.take("after-turn", turn=1)
    assert {(item.path, item.reason) for item in after.skipped} == {
        (project / "vendor" / "lib", "nested-repository"),
    }
    assert checkpoints.changes(before.checkpoint_id, after.checkpoint_id) == []


def test_type_changes_and_unusual_names_round_trip(tmp_path: Path, state: Path) -> None:
    root = tmp_path / "root"
    write(root, {"was-file": "f\n", "was-dir/inner.txt": "i\n", "to-link.txt": "t\n"})
    odd = os.fsdecode(b"caf\xe9 \xff.txt")  # not UTF-8
    checkpoints = Checkpoints([root], "s1", state_dir=state)
    before = checkpoints.take("before-turn", turn=1)
    at_start = files_of(root)
    (root / "was-file").unlink()
    write(root, {"was-file/now-inside.txt": "n\n", "new\nline.txt": "nl\n", odd: "odd\n"})
    shutil.rmtree(root / "was-dir")
    write(root, {"was-dir": "now a file\n"})
    (root / "to-link.txt").unlink()
    os.symlink("was-dir", root / "to-link.txt")
    after = checkpoints.take("after-turn", turn=1)
    assert changed(checkpoints.changes(before.checkpoint_id, after.checkpoint_id)) == {
        "was-file": "deleted",
        "was-file/now-inside.txt": "added",
        "was-dir/inner.txt": "deleted",
        "was-dir": "added",
        "to-link.txt": "modified",
        "new\nline.txt": "added",
        odd: "added",
    }
    after_turn = files_of(root)
    undo = checkpoints.restore(before.checkpoint_id)
    assert files_of(root) == at_start
    assert not (root / "to-link.txt").is_symlink()
    checkpoints.restore(undo.checkpoint_id)
    assert files_of(root) == after_turn
    assert os.readlink(root / "to-link.txt") == "was-dir"


def test_a_tree_over_the_file_limit_fails_clearly(tmp_path: Path, state: Path) -> None:
    write(tmp_path / "root", {f"f{n}.txt": "x" for n in range(20)})
    checkpoints = Checkpoints([tmp_path / "root"], "s1", state_dir=state, max_files=10)
    with pytest.raises(CheckpointError, match="20 files to record, over the limit of 10"):
        checkpoints.take("before-turn")


def test_checkpoints_kept_inside_the_root_never_record_themselves(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home, {"notes.txt": "n\n"})
    checkpoints = Checkpoints([home], "s1", state_dir=home / ".local" / "state" / "[x]")
    first = checkpoints.take("before-turn", turn=1)
    write(home, {"notes.txt": "n2\n"})
    second = checkpoints.take("after-turn", turn=1)
    third = checkpoints.take("before-turn", turn=2)
    assert changed(checkpoints.changes(first.checkpoint_id, second.checkpoint_id)) == {
        "notes.txt": "modified"
    }
    assert checkpoints.changes(second.checkpoint_id, third.checkpoint_id) == []


def test_ignore_rules_above_the_root_that_are_not_utf8(tmp_path: Path, state: Path) -> None:
    project = tmp_path / "project"
    write(project, {".gitignore": b"caf\xe9/\n*.o\n", "sub/main.c": "int main;\n"})
    project_git(project, "init", "-q")
    checkpoints = Checkpoints([project / "sub"], "s1", state_dir=state)
    start = checkpoints.take("before-turn")
    write(project / "sub", {"main.o": b"\0", os.fsdecode(b"caf\xe9/x"): "x\n", "ok.c": "ok\n"})
    assert changed(checkpoints.changes(start.checkpoint_id)) == {"ok.c": "added"}
