"""Checkpoints engine, its shadow repositories: the project's own git left
alone, two sessions in two processes, packing and pruning, git missing or too
old, where the shadow lives, clear errors. Real git, real files in tmp dirs,
real processes."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.core.checkpoints import shadow_repo
from acp_tui.core.checkpoints.engine import (
    Checkpoint,
    CheckpointError,
    Checkpoints,
    CheckpointsUnavailable,
)
from acp_tui.core.checkpoints.git_program import find_git
from tests.checkpoint_helpers import changed, files_of, needs_git, project_git, write
from tests.checkpoint_helpers import project as project  # (a fixture)
from tests.checkpoint_helpers import state as state  # (a fixture)

pytestmark = needs_git


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


def test_a_state_folder_that_cannot_be_made_is_a_clear_error(tmp_path: Path) -> None:
    write(tmp_path, {"root/a.txt": "a\n", "blocker": "a file where the folder goes\n"})
    checkpoints = Checkpoints([tmp_path / "root"], "s1", state_dir=tmp_path / "blocker" / "state")
    with pytest.raises(CheckpointError, match=r"checkpoint of .*root: .*Not a directory"):
        checkpoints.take("before-turn")
