"""checkpoint.list / diff / restore through a real `acp-tui --headless --stdio`,
with the real scripted agent changing real files, and real git."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HeadlessClient
from tests.fake_agents import ECHO_AGENT, agent_params
from tests.test_turn_checkpoints import files_of, steps
from tests.test_turn_checkpoints import project as project  # (a fixture)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

TURN = steps(
    {"fs_write": "new.txt", "text": "alpha\nbeta\n"},
    {"write": "edit.txt", "text": "one\nTWO\nthree\n"},
    {"delete": "gone.txt"},
    {"run": "printf 'x\\ny\\n' > made.txt"},
)


async def start(headless: Any, tmp_path: Path, **env: str) -> HeadlessClient:
    """A headless host with its own state folder (the checkpoints' home)."""
    client: HeadlessClient = await headless(XDG_STATE_HOME=str(tmp_path / "state"), **env)
    return client


async def session_on(client: HeadlessClient, cwd: Path, agent: dict[str, Any] | None = None) -> str:
    opened = await client.result(
        "connection.open", {"agent": agent or agent_params(), "cwd": str(cwd)}
    )
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    session_id: str = created["sessionId"]
    return session_id


async def prompt(client: HeadlessClient, session_id: str, text: str) -> None:
    done = await client.call("session.prompt", {"sessionId": session_id, "text": text}, 60)
    assert done.get("result", {}).get("stopReason") == "end_turn", done


def appended(client: HeadlessClient, session_id: str, kind: str) -> list[dict[str, Any]]:
    return [
        e["entry"]
        for e in client.events
        if e["type"] == "entry-appended"
        and e.get("sessionId") == session_id
        and e["entry"]["kind"] == kind
    ]


async def error_of(client: HeadlessClient, method: str, params: dict[str, Any]) -> dict[str, Any]:
    frame = await client.call(method, params)
    assert "error" in frame, frame
    error: dict[str, Any] = frame["error"]
    return error


async def test_list_diff_restore_and_undo(headless: Any, tmp_path: Path, project: Path) -> None:
    client = await start(headless, tmp_path)
    session_id = await session_on(client, project)
    before = files_of(project)
    await prompt(client, session_id, TURN)
    after = files_of(project)

    [changes] = appended(client, session_id, "changes")
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    assert [e for e in snapshot["entries"] if e["kind"] == "changes"] == [changes]
    assert {f["display"]: (f["change"], f["added"], f["removed"]) for f in changes["files"]} == {
        "new.txt": ("added", 2, 0),
        "edit.txt": ("modified", 1, 1),
        "gone.txt": ("deleted", 0, 2),
        "made.txt": ("added", 2, 0),
    }

    listed = (await client.result("checkpoint.list", {"sessionId": session_id}))["checkpoints"]
    assert [c["checkpointId"] for c in listed] == [
        changes["checkpointId"],
        changes["baseCheckpointId"],
    ]
    newest = listed[0]
    assert newest["turn"] == 1 and newest["prompt"] == TURN and newest["label"] == "after-turn"
    assert newest["createdAt"].endswith("+00:00")
    assert sorted((f["display"], f["change"]) for f in newest["files"]) == sorted(
        (f["display"], f["change"]) for f in changes["files"]
    )

    base = changes["baseCheckpointId"]
    diff = await client.result("checkpoint.diff", {"sessionId": session_id, "checkpointId": base})
    text = diff["diff"]
    for name in ("new.txt", "edit.txt", "gone.txt", "made.txt"):
        assert f"b/{name}" in text
    assert "-two\n+TWO\n" in text and "keep.txt" not in text
    one = await client.result(
        "checkpoint.diff", {"sessionId": session_id, "checkpointId": base, "path": "edit.txt"}
    )
    assert one["diff"].startswith("diff --git a/edit.txt b/edit.txt")
    assert "new.txt" not in one["diff"]
    nothing = await client.result(
        "checkpoint.diff", {"sessionId": session_id, "checkpointId": changes["checkpointId"]}
    )
    assert nothing == {"diff": ""}

    restored = await client.result(
        "checkpoint.restore", {"sessionId": session_id, "checkpointId": base}
    )
    assert files_of(project) == before
    assert sorted(restored["restored"]) == sorted(
        str(project / n) for n in ("new.txt", "edit.txt", "gone.txt", "made.txt")
    )
    assert {f["display"]: f["action"] for f in restored["files"]} == {
        "new.txt": "remove",
        "made.txt": "remove",
        "gone.txt": "recreate",
        "edit.txt": "restore",
    }
    [rewind] = appended(client, session_id, "rewind")
    assert rewind["checkpointId"] == base
    assert rewind["undoCheckpointId"] == restored["checkpointId"]
    assert rewind["agentTold"] is False and rewind["turn"] == 1

    undo = await client.result(
        "checkpoint.restore", {"sessionId": session_id, "checkpointId": restored["checkpointId"]}
    )
    assert files_of(project) == after
    assert undo["checkpointId"] != restored["checkpointId"]
    snapshot = await client.result("session.snapshot", {"sessionId": session_id})
    assert [e["kind"] for e in snapshot["entries"]][-2:] == ["rewind", "rewind"]
    # Restoring one file only.
    single = await client.result(
        "checkpoint.restore",
        {"sessionId": session_id, "checkpointId": base, "paths": ["gone.txt", "edit.txt"]},
    )
    assert sorted(single["restored"]) == [str(project / "edit.txt"), str(project / "gone.txt")]
    assert (project / "new.txt").exists()
    assert (project / "gone.txt").read_text() == "first\nsecond\n"


async def test_the_dry_run_shows_the_plan_and_writes_nothing(
    headless: Any, tmp_path: Path, project: Path
) -> None:
    client = await start(headless, tmp_path)
    session_id = await session_on(client, project)
    await prompt(client, session_id, TURN)
    [changes] = appended(client, session_id, "changes")
    (project / "keep.txt").write_text("the user, between turns\n")
    before = files_of(project)
    listed = await client.result("checkpoint.list", {"sessionId": session_id})
    plan = await client.result(
        "checkpoint.restore",
        {"sessionId": session_id, "checkpointId": changes["baseCheckpointId"], "dryRun": True},
    )
    assert set(plan) == {"files"}
    assert {f["display"]: (f["action"], f.get("editedOutside", False)) for f in plan["files"]} == {
        "new.txt": ("remove", False),
        "made.txt": ("remove", False),
        "gone.txt": ("recreate", False),
        "edit.txt": ("restore", False),
        "keep.txt": ("restore", True),
    }
    assert files_of(project) == before
    assert await client.result("checkpoint.list", {"sessionId": session_id}) == listed
    assert appended(client, session_id, "rewind") == []


async def test_bad_params_are_clear_errors(headless: Any, tmp_path: Path, project: Path) -> None:
    client = await start(headless, tmp_path)
    session_id = await session_on(client, project)
    await prompt(client, session_id, steps({"write": "a.txt", "text": "a\n"}))
    [changes] = appended(client, session_id, "changes")
    base = changes["baseCheckpointId"]
    bad: list[tuple[str, dict[str, Any], str]] = [
        ("checkpoint.list", {}, "sessionId"),
        ("checkpoint.list", {"sessionId": 7}, "sessionId"),
        ("checkpoint.diff", {"sessionId": session_id}, "checkpointId"),
        ("checkpoint.diff", {"sessionId": session_id, "checkpointId": base, "path": 3}, "path"),
        ("checkpoint.restore", {"sessionId": session_id, "checkpointId": ""}, "checkpointId"),
        ("checkpoint.restore", {"sessionId": session_id, "checkpointId": base, "paths": "a.txt"},
         "paths"),
        ("checkpoint.restore", {"sessionId": session_id, "checkpointId": base, "paths": [1]},
         "paths"),
        ("checkpoint.restore", {"sessionId": session_id, "checkpointId": base, "paths": []},
         "paths"),
        ("checkpoint.restore",
         {"sessionId": session_id, "checkpointId": base, "tellAgent": "yes"}, "tellAgent"),
        ("checkpoint.restore", {"sessionId": session_id, "checkpointId": base, "dryRun": 1},
         "dryRun"),
    ]  # fmt: skip
    for method, params, named in bad:
        error = await error_of(client, method, params)
        assert error["code"] == "invalid_params", (method, params, error)
        assert named in error["message"], (method, params, error)
    assert (project / "a.txt").exists()  # nothing was restored by a bad request
    for method in ("checkpoint.list", "checkpoint.diff", "checkpoint.restore"):
        params = {"sessionId": "nope", "checkpointId": base}
        assert (await error_of(client, method, params))["code"] == "not_found"
    unknown = await error_of(
        client, "checkpoint.restore", {"sessionId": session_id, "checkpointId": "00ff-abc"}
    )
    assert unknown["code"] == "not_found" and "00ff-abc" in unknown["message"]
    unknown = await error_of(
        client, "checkpoint.diff", {"sessionId": session_id, "checkpointId": "00ff-abc"}
    )
    assert unknown["code"] == "not_found"
    outside = await error_of(
        client,
        "checkpoint.restore",
        {"sessionId": session_id, "checkpointId": base, "paths": [str(tmp_path / "x.txt")]},
    )
    assert outside["code"] == "invalid_params"
    assert str(tmp_path) not in outside["message"] and "x.txt" in outside["message"]


async def test_restore_while_a_turn_runs_is_refused(
    headless: Any, tmp_path: Path, project: Path
) -> None:
    client = await start(headless, tmp_path)
    session_id = await session_on(client, project)
    await prompt(client, session_id, steps({"write": "a.txt", "text": "a\n"}))
    [changes] = appended(client, session_id, "changes")
    gate = tmp_path / "gate"
    running = client.send(
        "session.prompt", {"sessionId": session_id, "text": steps({"wait": str(gate)})}
    )
    await client.wait_event(
        lambda e: e.get("sessionId") == session_id and e.get("status") == "running"
    )
    refused = await error_of(
        client,
        "checkpoint.restore",
        {"sessionId": session_id, "checkpointId": changes["baseCheckpointId"]},
    )
    assert refused["code"] == "turn_running"
    assert (project / "a.txt").read_text() == "a\n"
    gate.touch()
    assert (await asyncio.wait_for(running, 20))["result"]["stopReason"] == "end_turn"
    done = await client.result(
        "checkpoint.restore", {"sessionId": session_id, "checkpointId": changes["baseCheckpointId"]}
    )
    assert done["restored"] == [str(project / "a.txt")] and not (project / "a.txt").exists()


async def test_two_sessions_on_one_folder(headless: Any, tmp_path: Path, project: Path) -> None:
    client = await start(headless, tmp_path)
    first = await session_on(client, project)
    second = await session_on(client, project)
    await prompt(client, first, steps({"write": "a.txt", "text": "from a\n"}))
    await prompt(client, second, steps({"write": "b.txt", "text": "from b\n"}))
    [first_changes] = appended(client, first, "changes")
    [second_changes] = appended(client, second, "changes")
    assert [f["display"] for f in first_changes["files"]] == ["a.txt"]
    assert [f["display"] for f in second_changes["files"]] == ["b.txt"]

    def ids(listed: dict[str, Any]) -> list[str]:
        return [c["checkpointId"] for c in listed["checkpoints"]]

    first_listed = await client.result("checkpoint.list", {"sessionId": first})
    second_listed = await client.result("checkpoint.list", {"sessionId": second})
    assert ids(first_listed) == [first_changes["checkpointId"], first_changes["baseCheckpointId"]]
    assert ids(second_listed) == [
        second_changes["checkpointId"],
        second_changes["baseCheckpointId"],
    ]
    # The first session's dry run names what the second one wrote as done outside its turns.
    plan = await client.result(
        "checkpoint.restore",
        {"sessionId": first, "checkpointId": first_changes["baseCheckpointId"], "dryRun": True},
    )
    assert {f["display"]: f.get("editedOutside", False) for f in plan["files"]} == {
        "a.txt": False,
        "b.txt": True,
    }
    await client.result(
        "checkpoint.restore",
        {"sessionId": first, "checkpointId": first_changes["baseCheckpointId"], "paths": ["a.txt"]},
    )
    assert not (project / "a.txt").exists() and (project / "b.txt").exists()
    # The second session is unharmed: its checkpoints, its next turn, its restores.
    again = await client.result("checkpoint.list", {"sessionId": second})
    assert ids(again) == ids(second_listed)
    await prompt(client, second, steps({"write": "b.txt", "text": "from b, again\n"}))
    later = appended(client, second, "changes")[-1]
    assert [(f["display"], f["change"]) for f in later["files"]] == [("b.txt", "modified")]
    await client.result(
        "checkpoint.restore", {"sessionId": second, "checkpointId": second_changes["checkpointId"]}
    )
    assert (project / "a.txt").read_text() == "from a\n"  # as the second session's turn left it
    assert (project / "b.txt").read_text() == "from b\n"
    assert len((await client.result("checkpoint.list", {"sessionId": first}))["checkpoints"]) == 3


async def test_tell_agent_puts_the_note_before_the_next_prompt(
    headless: Any, tmp_path: Path, project: Path
) -> None:
    client = await start(headless, tmp_path)
    echo = agent_params(ECHO_AGENT)
    session_id = await session_on(client, project, echo)
    await prompt(client, session_id, "first")
    listed = (await client.result("checkpoint.list", {"sessionId": session_id}))["checkpoints"]
    base = listed[-1]["checkpointId"]
    (project / "later.txt").write_text("the user's\n")
    done = await client.result(
        "checkpoint.restore", {"sessionId": session_id, "checkpointId": base, "tellAgent": True}
    )
    assert done["restored"] == [str(project / "later.txt")]
    [rewind] = appended(client, session_id, "rewind")
    assert rewind["agentTold"] is True
    await prompt(client, session_id, "second")
    replies = appended(client, session_id, "assistant")
    blocks = json.loads(replies[-1]["chunks"][0]["text"])
    assert [b["type"] for b in blocks] == ["text", "text"]
    note = blocks[0]["text"]
    assert note.startswith("[acp-tui: the user restored files as they were before turn 1:")
    assert "later.txt (removed)" in note and str(tmp_path) not in note
    assert blocks[1] == {"type": "text", "text": "second"}
    users = appended(client, session_id, "user")
    assert users[-1]["content"][0]["text"] == note  # the log shows what the agent was told
    await prompt(client, session_id, "third")
    blocks = json.loads(appended(client, session_id, "assistant")[-1]["chunks"][0]["text"])
    assert blocks == [{"type": "text", "text": "third"}]  # told once


async def test_without_git_turns_run_and_checkpoints_say_why(
    headless: Any, tmp_path: Path, project: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    client = await start(headless, tmp_path, PATH=str(bin_dir))
    session_id = await session_on(client, project)
    for n in range(2):
        await prompt(
            client,
            session_id,
            steps({"fs_write": f"n{n}.txt", "text": "x\n"}, {"run": f"echo {n} > r{n}.txt"}),
        )
    assert (project / "n1.txt").read_text() == "x\n" and (project / "r1.txt").read_text() == "1\n"
    notices = appended(client, session_id, "notice")
    assert len(notices) == 1, notices
    assert notices[0]["level"] == "info"
    assert "git" in notices[0]["text"] and "PATH" in notices[0]["text"]
    assert appended(client, session_id, "changes") == []
    error = await error_of(client, "checkpoint.list", {"sessionId": session_id})
    assert error["code"] == "unsupported"
    assert "git" in error["message"] and "not on PATH" in error["message"]
    error = await error_of(
        client, "checkpoint.restore", {"sessionId": session_id, "checkpointId": "x"}
    )
    assert error["code"] == "unsupported"
    assert not (tmp_path / "state" / "acp-tui" / "checkpoints").exists()
