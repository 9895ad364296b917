"""Checkpoints around real turns: the host, a real scripted agent that changes
files the ways agents do (fs/write_text_file, its own writes and deletes, a
terminal command), real git, real files.

Every test gives the host its own state folder and a small size limit."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from acp_tui.core import CheckpointSettings, Host, HostError
from tests.checkpoint_helpers import files_of, project_git, write
from tests.fake_agents import agent_spec

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SIZE_LIMIT = 4096

ORIGINAL = {
    "edit.txt": "one\ntwo\nthree\n",
    "gone.txt": "first\nsecond\n",
    "keep.txt": "untouched\n",
    ".gitignore": "*.log\n",
}


def steps(*items: dict[str, Any]) -> str:
    return "steps " + json.dumps(list(items))


def hash_tree(folder: Path) -> dict[str, str]:
    """Every entry under ``folder`` (``.git`` included): mode, size, mtime, bytes."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            info = path.lstat()
            rel = path.relative_to(folder).as_posix()
            if path.is_dir():
                out[rel] = f"dir {info.st_mode:o} {info.st_mtime_ns}"
            else:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                out[rel] = f"{info.st_mode:o} {info.st_size} {info.st_mtime_ns} {digest}"
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    write(root, ORIGINAL)
    return root


@pytest.fixture
async def ck_host(tmp_path: Path) -> AsyncIterator[Host]:
    settings = CheckpointSettings(size_limit=SIZE_LIMIT, state_dir=tmp_path / "state")
    host = Host(checkpoints=settings)
    try:
        yield host
    finally:
        await host.shutdown()


async def new_session(host: Host, cwd: Path) -> str:
    connection, _ = await host.open_connection(agent_spec(), cwd)
    session = await host.create_session(connection.connection_id, cwd)
    return session.session_id


async def prompt(host: Host, session_id: str, text: str) -> str:
    return await host.prompt(session_id, [{"type": "text", "text": text}])


def entries(host: Host, session_id: str, kind: str) -> list[dict[str, Any]]:
    return [e for e in host.snapshot(session_id)["entries"] if e["kind"] == kind]


def by_display(files: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["display"]: item for item in files}


THE_TURN = steps(
    {"fs_write": "new.txt", "text": "alpha\nbeta\n"},
    {"write": "edit.txt", "text": "one\nTWO\nthree\nfour\n"},
    {"delete": "gone.txt"},
    {"run": "printf 'x\\ny\\nz\\n' > made.txt"},
    {"run": "echo noise > debug.log"},
    {"run": "head -c 10000 /dev/zero > big.bin"},
)


async def test_the_changes_entry_lists_exactly_the_turns_files(
    ck_host: Host, project: Path
) -> None:
    session_id = await new_session(ck_host, project)
    assert await prompt(ck_host, session_id, THE_TURN) == "end_turn"
    [changes] = entries(ck_host, session_id, "changes")
    assert changes["turn"] == 1
    shown = {
        name: {k: v for k, v in item.items() if k not in ("path", "display")}
        for name, item in by_display(changes["files"]).items()
    }
    assert shown == {
        "new.txt": {"change": "added", "added": 2, "removed": 0},
        "edit.txt": {"change": "modified", "added": 2, "removed": 1},
        "gone.txt": {"change": "deleted", "added": 0, "removed": 2},
        "made.txt": {"change": "added", "added": 3, "removed": 0},
    }
    assert by_display(changes["files"])["new.txt"]["path"] == str(project / "new.txt")
    # Ignored: not a change and not a skip; over the size limit: skipped, said so.
    assert [(s["display"], s["reason"]) for s in changes["skipped"]] == [("big.bin", "too-large")]
    kinds = [e["kind"] for e in ck_host.snapshot(session_id)["entries"]]
    assert kinds.index("changes") == len(kinds) - 1  # after everything of the turn


async def test_restoring_the_base_undoes_the_turn_and_its_checkpoint_redoes_it(
    ck_host: Host, project: Path
) -> None:
    before = files_of(project)
    session_id = await new_session(ck_host, project)
    await prompt(ck_host, session_id, THE_TURN)
    after = files_of(project)
    [changes] = entries(ck_host, session_id, "changes")

    done = await ck_host.restore_checkpoint(session_id, changes["baseCheckpointId"])
    now = files_of(project)
    # The ignored and the oversize files were never recorded: left alone.
    assert now == {**before, "debug.log": b"noise\n", "big.bin": bytes(10000)}
    assert sorted(done["restored"]) == sorted(
        str(project / name) for name in ("new.txt", "edit.txt", "gone.txt", "made.txt")
    )
    [rewind] = entries(ck_host, session_id, "rewind")
    assert rewind["checkpointId"] == changes["baseCheckpointId"]
    assert rewind["undoCheckpointId"] == done["checkpointId"]
    assert rewind["turn"] == 1 and rewind["agentTold"] is False
    assert {f["display"]: f["action"] for f in rewind["files"]} == {
        "new.txt": "remove",
        "made.txt": "remove",
        "gone.txt": "recreate",
        "edit.txt": "restore",
    }
    assert {f["display"]: f["action"] for f in done["files"]} == {
        f["display"]: f["action"] for f in rewind["files"]
    }

    undone = await ck_host.restore_checkpoint(session_id, done["checkpointId"])
    assert files_of(project) == after
    assert undone["checkpointId"] not in (done["checkpointId"], changes["baseCheckpointId"])
    listed = await ck_host.list_checkpoints(session_id)
    labels = [item["label"] for item in listed]
    assert labels == ["before-restore", "before-restore", "after-turn", "before-turn"]
    ids = [item["checkpointId"] for item in listed]
    assert ids == sorted(ids, reverse=True)


async def test_the_projects_own_git_is_byte_for_byte_unchanged(
    ck_host: Host, project: Path
) -> None:
    project_git(project, "init", "-q")
    project_git(project, "add", "-A")
    project_git(project, "commit", "-q", "-m", "start")
    (project / "staged.txt").write_text("staged\n")
    project_git(project, "add", "staged.txt")
    status = project_git(project, "status", "--porcelain")  # (it may refresh the index)
    dot_git = hash_tree(project / ".git")
    assert "index" in dot_git

    session_id = await new_session(ck_host, project)
    await prompt(ck_host, session_id, THE_TURN)
    [changes] = entries(ck_host, session_id, "changes")
    assert not any(f["display"].startswith(".git/") for f in changes["files"])
    done = await ck_host.restore_checkpoint(session_id, changes["baseCheckpointId"])
    await ck_host.restore_checkpoint(session_id, done["checkpointId"])
    await ck_host.checkpoint_diff(session_id, changes["baseCheckpointId"])
    await ck_host.plan_restore(session_id, changes["baseCheckpointId"])
    await ck_host.list_checkpoints(session_id)

    assert hash_tree(project / ".git") == dot_git
    await ck_host.restore_checkpoint(session_id, changes["baseCheckpointId"])
    # Back to the project's state, but for the file no checkpoint could hold.
    assert project_git(project, "status", "--porcelain") == status + "?? big.bin\n"


async def test_a_file_the_user_edits_while_no_tool_runs_is_marked_outside(
    ck_host: Host, project: Path, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    session_id = await new_session(ck_host, project)
    turn = asyncio.ensure_future(
        prompt(
            ck_host,
            session_id,
            steps({"write": "agent.txt", "text": "mine\n"}, {"say": "ready"}, {"wait": str(gate)}),
        )
    )
    session = ck_host.session(session_id)
    while "ready" not in json.dumps(session.snapshot()["entries"]):
        await asyncio.sleep(0.02)
    # Well clear of the tool call's window (the heuristic allows 1 s of slack).
    await asyncio.sleep(1.5)
    (project / "keep.txt").write_text("the user was here\n")
    gate.touch()
    assert await asyncio.wait_for(turn, 20) == "end_turn"
    [changes] = entries(ck_host, session_id, "changes")
    files = by_display(changes["files"])
    assert set(files) == {"agent.txt", "keep.txt"}
    assert files["keep.txt"]["outside"] is True
    assert "outside" not in files["agent.txt"]


async def test_host_writes_and_terminals_outside_any_tool_call_are_the_agents(
    ck_host: Host, project: Path
) -> None:
    """An agent may call fs/write_text_file or terminal/create without
    announcing a tool call; what they write is still the agent's."""
    session_id = await new_session(ck_host, project)
    turn = steps(
        {"fs_write": "host-wrote.txt", "text": "a\n", "bare": True},
        {"sleep": 1.5},
        {"run": "sleep 1.5; echo late > ran.txt", "bare": True},
        {"sleep": 1.5},
    )
    await prompt(ck_host, session_id, turn)
    [changes] = entries(ck_host, session_id, "changes")
    files = by_display(changes["files"])
    assert set(files) == {"host-wrote.txt", "ran.txt"}
    assert [name for name, item in files.items() if item.get("outside")] == []


async def test_a_turn_that_changes_nothing_has_no_changes_entry(
    ck_host: Host, project: Path
) -> None:
    session_id = await new_session(ck_host, project)
    await prompt(ck_host, session_id, "echo hello")
    assert entries(ck_host, session_id, "changes") == []
    listed = await ck_host.list_checkpoints(session_id)
    assert [item["label"] for item in listed] == ["after-turn", "before-turn"]
    assert listed[0]["files"] == [] and listed[0]["prompt"] == "echo hello"


async def test_the_dry_run_plans_and_writes_nothing(ck_host: Host, project: Path) -> None:
    session_id = await new_session(ck_host, project)
    await prompt(ck_host, session_id, THE_TURN)
    [changes] = entries(ck_host, session_id, "changes")
    (project / "keep.txt").write_text("edited between turns\n")  # by the user
    (project / "made.txt").write_text("and this one too\n")
    before = files_of(project)
    listed = await ck_host.list_checkpoints(session_id)
    plan = await ck_host.plan_restore(session_id, changes["baseCheckpointId"])
    assert files_of(project) == before
    planned = by_display(plan)
    assert {name: item["action"] for name, item in planned.items()} == {
        "new.txt": "remove",
        "made.txt": "remove",
        "gone.txt": "recreate",
        "edit.txt": "restore",
        "keep.txt": "restore",
    }
    assert {name for name, item in planned.items() if item.get("editedOutside")} == {
        "keep.txt",
        "made.txt",
    }
    assert entries(ck_host, session_id, "rewind") == []
    assert await ck_host.list_checkpoints(session_id) == listed  # no checkpoint taken


async def test_restore_refuses_while_a_turn_runs(
    ck_host: Host, project: Path, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    session_id = await new_session(ck_host, project)
    await prompt(ck_host, session_id, steps({"write": "a.txt", "text": "a\n"}))
    [changes] = entries(ck_host, session_id, "changes")
    turn = asyncio.ensure_future(prompt(ck_host, session_id, steps({"wait": str(gate)})))
    while ck_host.session(session_id).turn is None:
        await asyncio.sleep(0.02)
    with pytest.raises(HostError) as refused:
        await ck_host.restore_checkpoint(session_id, changes["baseCheckpointId"])
    assert refused.value.code == "turn_running"
    assert (project / "a.txt").exists()
    gate.touch()
    await asyncio.wait_for(turn, 20)


async def test_unknown_checkpoints_and_paths_outside_are_clear_errors(
    ck_host: Host, project: Path
) -> None:
    session_id = await new_session(ck_host, project)
    await prompt(ck_host, session_id, steps({"write": "a.txt", "text": "a\n"}))
    [changes] = entries(ck_host, session_id, "changes")
    with pytest.raises(HostError) as missing:
        await ck_host.restore_checkpoint(session_id, "0123-nope")
    assert missing.value.code == "not_found"
    with pytest.raises(HostError) as outside:
        await ck_host.restore_checkpoint(
            session_id, changes["baseCheckpointId"], [str(project.parent / "elsewhere.txt")]
        )
    assert outside.value.code == "invalid_params"
    assert str(project.parent) not in outside.value.message  # no absolute path of the host
    with pytest.raises(HostError) as no_session:
        await ck_host.list_checkpoints("no-such-session")
    assert no_session.value.code == "not_found"
