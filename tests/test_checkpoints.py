"""Checkpoints engine: real git, real files in tmp dirs, real processes."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.core.checkpoints import shadow_repo
from acp_tui.core.checkpoints.engine import (
    Checkpoint,
    CheckpointError,
    Checkpoints,
    CheckpointsUnavailable,
    FileChange,
    edited_outside_tools,
)
from acp_tui.core.checkpoints.git_program import find_git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

MiB = 1024 * 1024


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def project_git(root: Path, *args: str) -> str:
    """The user's own git on the project (not the shadow)."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return done.stdout.decode()


def tree_hash(folder: Path) -> dict[str, str]:
    """Every entry under ``folder``: its type, mode, size, mtime and content hash."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            info = path.lstat()
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                out[rel] = f"link {os.readlink(path)}"
            elif path.is_dir():
                out[rel] = f"dir {info.st_mode:o}"
            else:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                out[rel] = f"file {info.st_mode:o} {info.st_size} {info.st_mtime_ns} {digest}"
    return out


def files_of(root: Path) -> dict[str, bytes]:
    """The files under ``root`` (``.git`` left out), with their bytes."""
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if name != ".git"]
        for name in filenames:
            path = Path(dirpath) / name
            if not path.is_symlink():
                out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def changed(changes: list[FileChange]) -> dict[str, str]:
    return {change.rel: change.change for change in changes}


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project with a commit, a stash, a hook and a dirty index."""
    root = tmp_path / "project"
    write(
        root,
        {
            ".gitignore": "*.log\nbuild/\n",
            "README.md": "# project\n",
            "src/app.py": "def main():\n    return 1\n",
            "src/util.py": "X = 1\n",
            "docs/guide.md": "guide\n",
        },
    )
    project_git(root, "init", "-q")
    project_git(root, "add", "-A")
    project_git(root, "commit", "-qm", "initial")
    write(root, {"src/util.py": "X = 2\n"})
    project_git(root, "stash", "-q")
    write(root, {"docs/guide.md": "guide, staged\n"})
    project_git(root, "add", "docs/guide.md")
    hook = root / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {root.parent / 'hook-ran'}\n")
    hook.chmod(0o755)
    return root


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


def test_the_projects_own_git_is_byte_for_byte_unchanged(
    project: Path, state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The user's global config would run hooks, convert line ends and use a
    # filter: none of it may reach the shadow repository.
    home = tmp_path / "home"
    hooks = home / "hooks"
    hooks.mkdir(parents=True)
    for name in ("post-checkout", "post-commit", "pre-commit", "post-index-change"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {tmp_path / 'hook-ran'}\n")
        (hooks / name).chmod(0o755)
    (home / ".gitconfig").write_text(
        f"[core]\n\thooksPath = {hooks}\n\tautocrlf = true\n\tfsmonitor = true\n"
        '[filter "upper"]\n\tclean = tr a-z A-Z\n\tsmudge = tr a-z A-Z\n\trequired = true\n'
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_DIR", str(project / ".git"))  # left behind by a hook, say
    monkeypatch.setenv("GIT_INDEX_FILE", str(project / ".git" / "index"))
    write(project, {".gitattributes": "*.txt filter=upper text eol=crlf\n"})
    write(project, {"notes.txt": "lower case\n", "crlf.md": "one\r\ntwo\r\n"})
    dot_git = tree_hash(project / ".git")

    checkpoints = Checkpoints([project], "s1", state_dir=state)
    before = checkpoints.take("before-turn", turn=1)
    at_start = files_of(project)
    write(project, {"notes.txt": "edited\n", "crlf.md": "three\r\n", "src/app.py": "x\n"})
    (project / "README.md").unlink()
    after = checkpoints.take("after-turn", turn=1)
    checkpoints.changes(before.checkpoint_id, after.checkpoint_id)
    checkpoints.diffs(before.checkpoint_id)
    checkpoints.plan_restore(before.checkpoint_id)
    undo = checkpoints.restore(before.checkpoint_id)
    assert files_of(project) == at_start  # the same bytes: no eol or filter applied
    checkpoints.restore(undo.checkpoint_id)
    checkpoints.prune(keep=1, gc="always")

    assert tree_hash(project / ".git") == dot_git  # index, stash, hooks, refs, objects
    assert not (tmp_path / "hook-ran").exists()
    assert project_git(project, "stash", "list").count("\n") == 1


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


SESSION_SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from acp_tui.core.checkpoints.engine import Checkpoints
    root, state, name, rounds = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    checkpoints = Checkpoints([root], name, state_dir=state)
    for turn in range(rounds):
        checkpoints.take("before-turn", turn=turn, prompt=name)
        (root / f"{name}-{turn}.txt").write_text(f"{name} {turn}\\n")
        checkpoints.take("after-turn", turn=turn, prompt=name)
        if turn % 4 == 3:  # packs and prunes while the other session writes
            checkpoints.prune(keep=1000, gc="always")
    print(len(checkpoints.list_checkpoints()))
    """
)


def test_two_sessions_on_one_root_in_two_processes(tmp_path: Path, state: Path) -> None:
    root = tmp_path / "shared"
    write(root, {"base.txt": "b\n"})
    rounds = 15
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SESSION_SCRIPT, str(root), str(state), name, str(rounds)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("alpha", "beta")
    ]
    outputs = [proc.communicate(timeout=240) for proc in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert out.strip() == str(2 * rounds)
    alpha = Checkpoints([root], "alpha", state_dir=state)
    listed = alpha.list_checkpoints()
    assert {item.checkpoint.session_id for item in listed} == {"alpha"}
    assert len(alpha.list_checkpoints(all_sessions=True)) == 4 * rounds
    # Every after-turn holds the file of its own turn, whatever ran in between.
    for item in listed:
        if item.checkpoint.label == "after-turn":
            turn = item.checkpoint.turn
            diff = alpha.changes(item.previous_id or "", item.checkpoint.checkpoint_id)
            assert f"alpha-{turn}.txt" in changed(diff)
    repo = shadow_repo.ShadowRepo(root.resolve(), state, "git")
    repo.run("fsck", "--strict", "--no-dangling")


def test_a_write_that_lost_its_objects_folder_to_a_gc_is_run_again(
    project: Path, state: Path, tmp_path: Path
) -> None:
    """The two-process test above hits this race now and then: another
    session's ``git gc`` removes an empty ``objects/xx`` folder as this git
    makes it. Here a git wrapper fails the first ``commit-tree`` with git's
    own words for it, every other call goes to the real git."""
    real = shutil.which("git")
    marker = tmp_path / "failed-once"
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(
        "#!/bin/sh\n"
        'for arg in "$@"; do\n'
        f'  if [ "$arg" = commit-tree ] && [ ! -e {marker} ]; then\n'
        f"    touch {marker}\n"
        "    echo 'error: unable to create temporary file: No such file or directory' >&2\n"
        "    echo 'fatal: failed to write commit object' >&2\n"
        "    exit 128\n"
        "  fi\n"
        "done\n"
        f'exec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    found = find_git()
    git = type(found)(str(wrapper), found.version)
    checkpoints = Checkpoints([project], "s1", state_dir=state, git=git)
    first = checkpoints.take("before-turn", turn=1)
    assert marker.exists()
    assert [item.checkpoint.checkpoint_id for item in checkpoints.list_checkpoints()] == [
        first.checkpoint_id
    ]


def test_a_new_shadow_is_not_packed_after_its_first_turn(project: Path, state: Path) -> None:
    checkpoints = Checkpoints([project], "s1", state_dir=state)
    checkpoints.take("before-turn", turn=1)
    checkpoints.take("after-turn", turn=1)
    assert checkpoints.prune() == 0
    repo = shadow_repo.ShadowRepo(project.resolve(), state, "git")
    counts = repo.run("count-objects", "-v").decode()
    assert "packs: 0" in counts.splitlines()
    checkpoints.prune(gc="always")
    assert "packs: 1" in repo.run("count-objects", "-v").decode().splitlines()


async def test_callable_from_asyncio_without_blocking_the_loop(project: Path, state: Path) -> None:
    one = Checkpoints([project], "s1", state_dir=state)
    two = Checkpoints([project], "s2", state_dir=state)
    write(project, {f"bulk/{n}.txt": f"{n}\n" * 50 for n in range(2000)})
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.005)

    ticker = asyncio.ensure_future(tick())
    try:
        taken = await asyncio.gather(
            *(
                asyncio.to_thread(session.take, "before-turn", turn=n)
                for n in range(3)
                for session in (one, two)
            )
        )
    finally:
        ticker.cancel()
    assert ticks > 3  # the loop ran while git did
    assert len({checkpoint.checkpoint_id for checkpoint in taken}) == 6
    assert len(one.list_checkpoints()) == 3 and len(two.list_checkpoints()) == 3


def test_no_git_on_path(tmp_path: Path, state: Path) -> None:
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from acp_tui.core.checkpoints.engine import Checkpoints, CheckpointsUnavailable
        checkpoints = Checkpoints([Path({str(tmp_path)!r})], "s1", state_dir=Path({str(state)!r}))
        print(checkpoints.available)
        print(checkpoints.reason)
        for call in (lambda: checkpoints.take("before-turn"), checkpoints.list_checkpoints,
                     checkpoints.prune, lambda: checkpoints.restore("x")):
            try:
                call()
            except CheckpointsUnavailable as error:
                print("raised:", error)
        """
    )
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "False"
    assert lines[1] == "checkpoints are off: the git program is not on PATH"
    assert lines[2:] == [f"raised: {lines[1]}"] * 4
    assert not state.exists()


def test_too_old_git_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'git version 2.17.1'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent))
    try:
        program = find_git(refresh=True)
    finally:
        monkeypatch.undo()
        find_git(refresh=True)
    assert program.path is None
    assert program.reason == "checkpoints are off: git 2.25 or newer is needed (found 2.17.1)"
    checkpoints = Checkpoints([tmp_path], "s1", git=program)
    assert not checkpoints.available
    with pytest.raises(CheckpointsUnavailable):
        checkpoints.take("before-turn")


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


def test_retention_prunes_the_oldest_and_keeps_restoring(project: Path, state: Path) -> None:
    checkpoints = Checkpoints([project], "s1", state_dir=state, keep=4)
    taken: list[Checkpoint] = []
    for turn in range(5):
        write(project, {"counter.txt": f"{turn}\n", f"file{turn}.txt": "x" * 10_000 + str(turn)})
        taken.append(checkpoints.take("after-turn", turn=turn))
    assert checkpoints.prune(gc="always") == 1
    ids = [item.checkpoint.checkpoint_id for item in checkpoints.list_checkpoints()]
    assert ids == [checkpoint.checkpoint_id for checkpoint in reversed(taken[1:])]
    with pytest.raises(CheckpointError, match="no checkpoint"):
        checkpoints.restore(taken[0].checkpoint_id)
    checkpoints.restore(taken[1].checkpoint_id)
    assert (project / "counter.txt").read_text() == "1\n"
    assert not (project / "file4.txt").exists()
    assert checkpoints.prune() == 2  # the restore's own two checkpoints count
    repo = shadow_repo.ShadowRepo(project.resolve(), state, "git")
    repo.run("fsck", "--strict", "--no-dangling")


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


def test_a_killed_git_leaves_no_stale_lock(project: Path, state: Path) -> None:
    checkpoints = Checkpoints([project], "s1", state_dir=state)
    checkpoints.take("before-turn", turn=1)
    repo = shadow_repo.ShadowRepo(project.resolve(), state, "git")
    Path(str(repo.index) + ".lock").write_text("left by a killed git")
    write(project, {"after-crash.txt": "x\n"})
    taken = checkpoints.take("after-turn", turn=1)
    assert "after-crash.txt" in changed(list(checkpoints.list_checkpoints()[0].files))
    assert taken.skipped == ()


@pytest.fixture
def in_state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    yield tmp_path / "xdg-state"


def test_the_shadow_lives_under_xdg_state_home_keyed_by_the_canonical_root(
    project: Path, in_state_home: Path, tmp_path: Path
) -> None:
    link = tmp_path / "link-to-project"
    os.symlink(project, link)
    Checkpoints([project], "s1").take("before-turn")
    Checkpoints([link], "s2").take("before-turn")
    repos = list((in_state_home / "acp-tui" / "checkpoints").iterdir())
    assert len(repos) == 1 and repos[0].name.startswith("project-")
    assert (repos[0] / "root").read_text().strip() == str(project.resolve())
    assert len(Checkpoints([link], "s1").list_checkpoints(all_sessions=True)) == 2


def test_a_missing_root_turns_the_feature_off(tmp_path: Path) -> None:
    checkpoints = Checkpoints([tmp_path / "gone"], "s1", state_dir=tmp_path / "state")
    assert checkpoints.reason == f"checkpoints are off: {tmp_path / 'gone'} is not a folder"


def test_unknown_ids_are_a_clear_error(project: Path, state: Path) -> None:
    checkpoints = Checkpoints([project], "s1", state_dir=state)
    checkpoints.take("before-turn")
    for call in (checkpoints.changes, checkpoints.restore, checkpoints.plan_restore):
        with pytest.raises(CheckpointError, match="no checkpoint 'nope'"):
            call("nope")


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


def test_a_tree_over_the_file_limit_fails_clearly(tmp_path: Path, state: Path) -> None:
    write(tmp_path / "root", {f"f{n}.txt": "x" for n in range(20)})
    checkpoints = Checkpoints([tmp_path / "root"], "s1", state_dir=state, max_files=10)
    with pytest.raises(CheckpointError, match="20 files to record, over the limit of 10"):
        checkpoints.take("before-turn")


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


def test_the_engine_imports_no_session_host_connection_or_ui() -> None:
    script = (
        "import sys, acp_tui.core.checkpoints.engine\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')\n"
        "       or m.startswith('acp_tui.ui') or m.startswith('acp_tui.server')\n"
        "       or m in ('acp_tui.core.sessions.session', 'acp_tui.core.host',\n"
        "                'acp_tui.core.connection')]\n"
        "print(','.join(sorted(bad)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == ""


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


def test_a_state_folder_that_cannot_be_made_is_a_clear_error(tmp_path: Path) -> None:
    write(tmp_path, {"root/a.txt": "a\n", "blocker": "a file where the folder goes\n"})
    checkpoints = Checkpoints([tmp_path / "root"], "s1", state_dir=tmp_path / "blocker" / "state")
    with pytest.raises(CheckpointError, match=r"checkpoint of .*root: .*Not a directory"):
        checkpoints.take("before-turn")


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
