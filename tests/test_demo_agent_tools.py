"""The built-in demo agent's tools: read, edit and run, through the client
when it advertises fs/* and terminal/*, with its own I/O when it does not, and
with permissions asked, rejected, remembered or cancelled.

Every test spawns ``python -m acp_tui.agents.demo`` and talks to it through the
recording client of tests/demo_agent_client.py, which does real file I/O and
runs real commands.
"""

from __future__ import annotations

from pathlib import Path

from tests.demo_agent_client import (
    RecordingClient,
    ask,
    assert_markdown,
    caps,
    demo,
    guard,
    new_session,
)

# -- read -----------------------------------------------------------------------------------


async def test_read_uses_the_client_when_advertised(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("".join(f"line {n}\n" for n in range(1, 15)), encoding="utf-8")
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "please read something")
    assert client.params("read_text_file") == [{"path": str(readme)}]
    updates = client.tool_of_kind(session_id, "read")
    start = updates[0]
    assert start.title == "Read README.md"
    assert [loc.path for loc in start.locations] == [str(readme)]
    assert [u.status for u in updates] == ["pending", "in_progress", "completed"]
    shown = updates[-1].content[0].content.text
    assert shown.startswith("```markdown\nline 1\n") and "line 10\n```" in shown
    assert "line 11" not in shown.split("```")[1]
    text = client.text(session_id)
    assert "**14 lines**" in text
    assert_markdown(text)


async def test_read_a_given_path(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("readme\n", encoding="utf-8")
    (tmp_path / "other.py").write_text("print('hi')\n", encoding="utf-8")
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/read other.py")
    assert client.params("read_text_file") == [{"path": str(tmp_path / "other.py")}]
    assert client.tool_of_kind(session_id, "read")[0].title == "Read other.py"


async def test_read_falls_back_to_its_own_io(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    client = RecordingClient(tmp_path)
    async with demo(client, caps(fs=False, terminal=False)) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/read")
    assert "read_text_file" not in client.methods()
    updates = client.tool_of_kind(session_id, "read")
    assert updates[0].title == "Read pyproject.toml"
    assert updates[-1].status == "completed"
    assert "name = 'x'" in updates[-1].content[0].content.text


async def test_read_refused_by_the_client_fails_the_tool_call(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("secret\n", encoding="utf-8")
    client = RecordingClient(tmp_path, refuse_reads=True)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        assert await ask(conn, session_id, "/read") == "end_turn"
    updates = client.tool_of_kind(session_id, "read")
    assert updates[-1].status == "failed"
    error = updates[-1].content[0].content.text
    assert error.startswith("The client refused: Permission denied")
    assert "The client refused" in client.text(session_id)
    assert "## Under the hood" in client.text(session_id)  # the turn carried on


# -- edit -----------------------------------------------------------------------------------


async def test_edit_asks_permission_then_writes_exactly_the_diff(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path, ["allow_once"])
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "edit my notes please")
    notes = tmp_path / "demo-notes.md"
    [permission] = client.params("request_permission")
    assert [(o.option_id, o.name, o.kind) for o in permission["options"]] == [
        ("allow_once", "Allow", "allow_once"),
        ("allow_always", "Always allow", "allow_always"),
        ("reject_once", "Reject", "reject_once"),
    ]
    updates = client.tool_of_kind(session_id, "edit")
    assert updates[0].title == "Write demo-notes.md"
    [diff] = updates[0].content
    assert diff.type == "diff" and diff.path == str(notes) and diff.old_text is None
    assert "edit my notes please" in diff.new_text
    assert client.params("write_text_file") == [{"path": str(notes), "content": diff.new_text}]
    assert notes.read_text(encoding="utf-8") == diff.new_text
    assert [u.status for u in updates] == ["pending", "in_progress", "completed"]
    assert client.methods().index("request_permission") < client.methods().index("write_text_file")


async def test_rejected_edit_writes_nothing(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path, ["reject_once"])
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        assert await ask(conn, session_id, "/edit") == "end_turn"
    assert "write_text_file" not in client.methods()
    assert not (tmp_path / "demo-notes.md").exists()
    updates = client.tool_of_kind(session_id, "edit")
    assert updates[-1].status == "failed"
    assert updates[-1].content[0].content.text == "Edit rejected by the user"
    assert "Edit rejected by the user" in client.text(session_id)


async def test_auto_mode_writes_without_asking(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await guard(conn.set_session_mode(session_id=session_id, mode_id="auto"))
        await ask(conn, session_id, "write something")
    assert "request_permission" not in client.methods()
    assert len(client.params("write_text_file")) == 1
    assert client.tool_of_kind(session_id, "edit")[-1].status == "completed"


async def test_allow_always_is_remembered(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path, ["allow_always"])
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/edit")
        await ask(conn, session_id, "/edit")
    assert len(client.params("request_permission")) == 1
    first, second = client.params("write_text_file")
    assert second["content"].startswith(first["content"])
    assert "## Note 2" in second["content"]
    diffs = [u[0].content[0] for u in client.tool_calls(session_id).values()]
    assert diffs[1].old_text == first["content"]


async def test_cancelled_permission_ends_the_turn(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path, ["cancelled"])
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        assert await ask(conn, session_id, "/edit") == "cancelled"
    assert "write_text_file" not in client.methods()
    assert client.tool_of_kind(session_id, "edit")[-1].status == "failed"
    assert "Under the hood" not in client.text(session_id)


async def test_edit_falls_back_to_its_own_io(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path, ["allow_once"])
    async with demo(client, caps(fs=False, terminal=False)) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/edit")
    assert client.methods() == ["request_permission"]
    [diff] = client.tool_of_kind(session_id, "edit")[0].content
    assert (tmp_path / "demo-notes.md").read_text(encoding="utf-8") == diff.new_text


# -- run ------------------------------------------------------------------------------------


async def test_run_uses_a_client_terminal(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/run echo hello-demo")
    terminal_calls = [m for m in client.methods() if "terminal" in m]
    assert terminal_calls == [
        "create_terminal",
        "wait_for_terminal_exit",
        "terminal_output",
        "release_terminal",
    ]
    assert client.params("create_terminal") == [
        {
            "command": "echo hello-demo",
            "args": None,
            "cwd": str(tmp_path),
            "output_byte_limit": 65536,
        }
    ]
    updates = client.tool_of_kind(session_id, "execute")
    assert updates[0].title == "Run `echo hello-demo`"
    assert updates[1].status == "in_progress"
    assert [(c.type, c.terminal_id) for c in updates[1].content] == [("terminal", "term-1")]
    assert updates[-1].status == "completed"
    assert updates[-1].raw_output["exitCode"] == 0
    assert "hello-demo" in updates[-1].raw_output["output"]
    assert "exited with code **0**" in client.text(session_id)


async def test_run_colon_command_and_nonzero_exit(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "please run: exit 3")
    assert client.params("create_terminal")[0]["command"] == "exit 3"
    updates = client.tool_of_kind(session_id, "execute")
    assert updates[-1].status == "failed"
    assert updates[-1].raw_output["exitCode"] == 3
    assert "exited with code **3**" in client.text(session_id)


async def test_run_falls_back_to_its_own_shell(tmp_path: Path) -> None:
    client = RecordingClient(tmp_path)
    async with demo(client, caps(terminal=False)) as (conn, _):
        session_id = await new_session(conn, tmp_path)
        await ask(conn, session_id, "/run echo fallback-demo")
    assert not [m for m in client.methods() if "terminal" in m]
    updates = client.tool_of_kind(session_id, "execute")
    assert updates[-1].status == "completed"
    shown = updates[-1].content[0].content.text
    assert shown.startswith("```text\n") and "fallback-demo" in shown
    assert not any(c.type == "terminal" for u in updates for c in (u.content or []))
