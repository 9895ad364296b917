"""Added directories (``--add-dir``, config ``add_dirs``, headless
``additionalDirectories``) through a real `acp-tui --headless --stdio` and the
real scripted agent: told to the agent when it advertises
``sessionCapabilities.additionalDirectories`` (else one notice says it was
not), and admitted by the fence either way."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HeadlessClient
from tests.fake_agents import SCRIPTED_AGENT, agent_params
from tests.test_cli import run
from tests.test_headless import rebuild_text

NOT_TOLD = "The agent was not told of the added directories"


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    """work (the cwd), cli (--add-dir), given (additionalDirectories), outside."""
    made = {name: tmp_path / name for name in ("work", "cli", "given", "outside")}
    for name, folder in made.items():
        folder.mkdir()
        (folder / "f.txt").write_text(f"in {name}\n")
    return made


async def reply(client: HeadlessClient, session_id: str, text: str) -> Any:
    """The agent's reply to one prompt, read as JSON."""
    before = rebuild_text(client.events, session_id)
    done = await client.result("session.prompt", {"sessionId": session_id, "text": text})
    assert done == {"stopReason": "end_turn"}
    return json.loads(rebuild_text(client.events, session_id)[len(before) :])


async def create(
    client: HeadlessClient, cwd: Path, given: list[str] | None = None, **env: str
) -> tuple[str, str]:
    opened = await client.result("connection.open", {"agent": agent_params(**env), "cwd": str(cwd)})
    params: dict[str, Any] = {"connectionId": opened["connectionId"]}
    if given is not None:
        params["additionalDirectories"] = given
    created = await client.result("session.create", params)
    return opened["connectionId"], created["sessionId"]


def notices(client: HeadlessClient, session_id: str) -> list[str]:
    return [
        e["entry"]["text"]
        for e in client.events
        if e["type"] == "entry-appended"
        and e.get("sessionId") == session_id
        and e["entry"]["kind"] == "notice"
    ]


async def test_an_agent_that_supports_them_is_told_and_the_fence_admits_them(
    headless: Any, folders: dict[str, Path]
) -> None:
    client = await headless("--add-dir", str(folders["cli"]), cwd=folders["work"])
    _, session_id = await create(
        client, folders["work"], [str(folders["given"])], ACP_FAKE_ADD_DIRS="1"
    )
    told = await reply(client, session_id, "lifecycle")
    assert told == {
        "method": "session/new",
        "cwd": str(folders["work"].resolve()),
        "additionalDirectories": [str(folders["cli"].resolve()), str(folders["given"].resolve())],
    }
    for name in ("cli", "given"):
        read = await reply(client, session_id, f"fs-read {folders[name] / 'f.txt'}")
        assert read == {"result": {"content": f"in {name}\n"}}
    refused = await reply(client, session_id, f"fs-read {folders['outside'] / 'f.txt'}")
    assert "error" in refused and "result" not in refused
    assert not [n for n in notices(client, session_id) if NOT_TOLD in n]


async def test_an_agent_without_support_is_not_told_but_the_fence_admits_them(
    headless: Any, folders: dict[str, Path]
) -> None:
    client = await headless("--add-dir", str(folders["cli"]), cwd=folders["work"])
    _, session_id = await create(client, folders["work"], [str(folders["given"])])
    told = await reply(client, session_id, "lifecycle")
    assert told["method"] == "session/new" and told["additionalDirectories"] is None
    for name in ("cli", "given"):
        read = await reply(client, session_id, f"fs-read {folders[name] / 'f.txt'}")
        assert read == {"result": {"content": f"in {name}\n"}}
    refused = await reply(client, session_id, f"fs-read {folders['outside'] / 'f.txt'}")
    assert "error" in refused
    [notice] = [n for n in notices(client, session_id) if NOT_TOLD in n]
    assert str(folders["cli"].resolve()) in notice and str(folders["given"].resolve()) in notice


async def test_without_added_dirs_nothing_is_sent_and_nothing_said(
    headless: Any, folders: dict[str, Path]
) -> None:
    client = await headless(cwd=folders["work"])
    _, session_id = await create(client, folders["work"], ACP_FAKE_ADD_DIRS="1")
    told = await reply(client, session_id, "lifecycle")
    assert told["additionalDirectories"] is None
    refused = await reply(client, session_id, f"fs-read {folders['cli'] / 'f.txt'}")
    assert "error" in refused
    assert notices(client, session_id) == []


async def test_session_load_sends_them_too(
    headless: Any, folders: dict[str, Path], tmp_path: Path
) -> None:
    state = tmp_path / "agent-state"
    state.mkdir()
    client = await headless(cwd=folders["work"])
    env = {"ACP_FAKE_ADD_DIRS": "1", "ACP_FAKE_STATE_DIR": str(state)}
    connection_id, session_id = await create(client, folders["work"], **env)
    await reply(client, session_id, "lifecycle")
    await client.result("session.close", {"sessionId": session_id})
    loaded = await client.result(
        "session.load",
        {
            "connectionId": connection_id,
            "sessionId": session_id,
            "additionalDirectories": [str(folders["given"])],
        },
    )
    told = await reply(client, loaded["sessionId"], "lifecycle")
    assert told == {
        "method": "session/load",
        "cwd": str(folders["work"].resolve()),
        "additionalDirectories": [str(folders["given"].resolve())],
    }
    read = await reply(client, loaded["sessionId"], f"fs-read {folders['given'] / 'f.txt'}")
    assert read == {"result": {"content": "in given\n"}}


@pytest.mark.parametrize("bad", ["relative/dir", "missing", 3])
async def test_bad_additional_directories_are_invalid_params(
    headless: Any, folders: dict[str, Path], bad: Any
) -> None:
    client = await headless(cwd=folders["work"])
    opened = await client.result(
        "connection.open", {"agent": agent_params(), "cwd": str(folders["work"])}
    )
    given = str(folders["work"] / bad) if bad == "missing" else bad
    frame = await client.call(
        "session.create",
        {"connectionId": opened["connectionId"], "additionalDirectories": [given]},
    )
    assert frame["error"]["code"] == "invalid_params", frame
    assert "additionalDirectories" in frame["error"]["message"]


async def test_config_add_dirs_are_relative_to_the_config_file(
    headless: Any, folders: dict[str, Path], tmp_path: Path
) -> None:
    config_dir = tmp_path / "cfg"
    (config_dir / "lib").mkdir(parents=True)
    path = config_dir / "config.toml"
    path.write_text('add_dirs = ["lib", "nope"]\n')
    client = await headless(
        "--add-dir",
        str(folders["cli"]),
        "--",
        sys.executable,
        str(SCRIPTED_AGENT),
        cwd=folders["work"],
        ACP_TUI_CONFIG=str(path),
        ACP_FAKE_ADD_DIRS="1",
    )
    opened = await client.result("connection.open", {"cwd": str(folders["work"])})
    created = await client.result("session.create", {"connectionId": opened["connectionId"]})
    told = await reply(client, created["sessionId"], "lifecycle")
    assert told["additionalDirectories"] == [
        str((config_dir / "lib").resolve()),
        str(folders["cli"].resolve()),
    ]
    await client.result("shutdown")
    await client.close_stdin_and_wait()
    assert client.proc.stderr is not None
    stderr = (await client.proc.stderr.read()).decode()
    assert f"config {path} line 1: add_dirs: 'nope' is not an existing directory" in stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_checkpoints_record_the_added_dirs(
    headless: Any, folders: dict[str, Path], tmp_path: Path
) -> None:
    client = await headless(
        "--add-dir", str(folders["cli"]), cwd=folders["work"], XDG_STATE_HOME=str(tmp_path / "st")
    )
    _, session_id = await create(client, folders["work"])
    target = folders["cli"] / "new.txt"
    steps = json.dumps([{"fs_write": str(target), "text": "made\n"}])
    done = await client.call("session.prompt", {"sessionId": session_id, "text": f"steps {steps}"})
    assert done["result"]["stopReason"] == "end_turn", done
    assert target.read_text() == "made\n"
    [changes] = [
        e["entry"]
        for e in client.events
        if e["type"] == "entry-appended"
        and e.get("sessionId") == session_id
        and e["entry"]["kind"] == "changes"
    ]
    assert [f["change"] for f in changes["files"]] == ["added"]
    await client.result(
        "checkpoint.restore",
        {"sessionId": session_id, "checkpointId": changes["baseCheckpointId"]},
    )
    assert not target.exists()


def test_a_missing_add_dir_is_a_clear_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    result = run("--headless", "--stdio", "--add-dir", str(missing))
    assert result.returncode == 2
    assert f"acp-tui: --add-dir is not a directory: {missing}" in result.stderr
    assert "Traceback" not in result.stderr
