"""Exporting a conversation as Markdown (acp_tui.core.storage.transcript).

The golden test runs the real scripted agent's ``showcase`` turn and compares
the document with tests/golden/showcase.md. After an intended change of the
output, regenerate it with ``UPDATE_GOLDEN=1 pytest tests/test_transcript.py``
and read the diff before committing it.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from acp_tui.core.host import Host
from acp_tui.core.model.thread import Thread
from acp_tui.core.storage.transcript import (
    ExportError,
    default_export_name,
    fence,
    to_markdown,
    write_markdown,
)
from tests.fake_agents import agent_spec

GOLDEN = Path(__file__).parent / "golden"


def tokens(document: str) -> list[Token]:
    """Block tokens as GitHub-flavoured CommonMark reads them."""
    return MarkdownIt("commonmark").parse(document)


def fences(document: str) -> list[Token]:
    return [t for t in tokens(document) if t.type == "fence"]


def shown(inline: Token) -> str:
    """The text a reader sees in an inline token (escapes and emphasis resolved)."""
    return "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))


def headings(document: str) -> list[str]:
    found = tokens(document)
    return [
        f"{t.tag} {shown(found[i + 1])}" for i, t in enumerate(found) if t.type == "heading_open"
    ]


def check_golden(name: str, document: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(document, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with UPDATE_GOLDEN=1 to write it"
    assert document == path.read_text(encoding="utf-8")


def tool(thread: Thread, **fields: Any) -> None:
    thread.upsert_tool_call({"toolCallId": f"tc-{len(thread)}", **fields})


# -- the golden document: a real agent's turn ----------------------------------------------


async def test_showcase_turn_matches_the_golden_document(
    host: Host, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path.resolve()
    monkeypatch.setenv("HOME", str(home))  # the directory shows as ~/ws everywhere
    workspace = home / "ws"
    workspace.mkdir()
    connection, _ = await host.open_connection(agent_spec(), workspace)
    session = await host.create_session(connection.connection_id, workspace)
    prompt = [{"type": "text", "text": "showcase"}]
    assert await host.prompt(session.session_id, prompt) == "end_turn"
    entries = session.thread.entries
    document = to_markdown(
        entries,
        title="Fixing the greeting",
        agent=connection.init_result["agentInfo"],
        cwd=session.cwd,
        plan=session.plan,
    )
    check_golden("showcase.md", document)

    # Nothing machine-specific: no temporary directory, no home directory.
    assert str(home) not in document and "/tmp" not in document
    # The wire form gives the same document.
    wire = [entry.to_wire() for entry in entries]
    assert document == to_markdown(
        wire,
        title="Fixing the greeting",
        agent=connection.init_result["agentInfo"],
        cwd=session.cwd,
        plan=session.plan,
    )
    # The structure a Markdown reader sees.
    assert headings(document) == [
        "h1 Fixing the greeting",
        "h2 Fixing the greeting",
        "h3 ✎ Edit greet.py — completed",
        "h3 $ pytest -q — completed",
        "h2 Plan",
    ]
    assert [(f.info, f.content) for f in fences(document)] == [
        ("python", 'print(greet("Ada"))  # Hello, Ada!\n'),
        (
            "diff",
            "--- greet.py\n+++ greet.py\n@@ -1,2 +1,2 @@\n"
            '-def greet(name):\n-    return "Hello " + name\n'
            '+def greet(name: str) -> str:\n+    return f"Hello, {name}!"\n',
        ),
        ("text", "2 passed in 0.01s\n"),
    ]


def test_the_diff_applies_with_patch(tmp_path: Path) -> None:
    """A real unified diff: patch(1) turns the old text into the new one."""
    if shutil.which("patch") is None:
        pytest.skip("patch(1) is not installed")
    old = "a\nb\nc\nd\ne\nf\ng\nh\n"
    new = "a\nB\nc\nd\ne\nf\ng\nH\nlast without newline"
    thread = Thread()
    diff = {"type": "diff", "path": str(tmp_path / "f.txt"), "oldText": old, "newText": new}
    tool(thread, title="Edit f.txt", kind="edit", status="completed", content=[diff])
    document = to_markdown(thread.entries, cwd=tmp_path)
    (patch_text,) = [f.content for f in fences(document)]
    assert patch_text.startswith("--- f.txt\n+++ f.txt\n@@ -1,8 +1,9 @@\n")
    assert patch_text.endswith("+last without newline\n\\ No newline at end of file\n")
    (tmp_path / "f.txt").write_text(old)
    subprocess.run(
        ["patch", "-p0", "--quiet"], input=patch_text, text=True, cwd=tmp_path, check=True
    )
    assert (tmp_path / "f.txt").read_text() == new


# -- unit cases -------------------------------------------------------------------------------


def test_fences_outgrow_the_backticks_inside() -> None:
    assert fence("plain\n", "text") == "```text\nplain\n```"
    assert fence("a\n```\nb", "text") == "````text\na\n```\nb\n````"
    assert fence("````\n```", "") == "`````\n````\n```\n`````"
    thread = Thread()
    output = "```\nnot a fence end\n````\nstill output\n"
    terminal = {
        "type": "terminal",
        "terminalId": "t1",
        "output": output,
        "exitStatus": {"exitCode": 1, "signal": None},
    }
    text = {"type": "content", "content": {"type": "text", "text": "Ran it."}}
    tool(thread, title="cat notes.md", kind="execute", status="failed", content=[terminal, text])
    tool(
        thread,
        title="Write README.md",
        kind="edit",
        status="completed",
        rawInput={"content": "```python\nx = 1\n```\n````\n"},
        rawOutput="``` done",
    )
    document = to_markdown(thread.entries)
    assert "`````text\n```\nnot a fence end\n````\nstill output\n`````" in document
    found = fences(document)
    assert [(f.info, f.content) for f in found] == [
        ("text", output),
        ("json", '{\n  "content": "```python\\nx = 1\\n```\\n````\\n"\n}\n'),
        ("text", "``` done\n"),
    ]
    assert "*exit 1*" in document
    assert headings(document) == [
        "h1 Conversation",
        "h3 $ cat notes.md — failed",
        "h3 ✎ Write README.md — completed",
    ]


def test_a_new_file_diff() -> None:
    thread = Thread()
    diff = {"type": "diff", "path": "/work/p/new.py", "oldText": None, "newText": "x = 1\ny = 2\n"}
    tool(
        thread,
        title="Create new.py",
        kind="edit",
        status="completed",
        content=[diff],
        locations=[{"path": "/work/p/new.py"}],
    )
    document = to_markdown(thread.entries, cwd="/work/p")
    assert "**Locations:** `new.py`" in document
    assert "```diff\n--- /dev/null\n+++ new.py\n@@ -0,0 +1,2 @@\n+x = 1\n+y = 2\n```" in document
    empty = Thread()
    tool(empty, title="Touch", kind="edit", content=[{**diff, "newText": ""}])
    assert "`new.py` *(new, empty file)*" in to_markdown(empty.entries, cwd="/work/p")
    same = Thread()
    tool(same, title="Touch", kind="edit", content=[{**diff, "oldText": "x\n", "newText": "x\n"}])
    assert "`new.py` *(no changes)*" in to_markdown(same.entries, cwd="/work/p")


def test_a_failed_tool_call() -> None:
    thread = Thread()
    thread.append_user([{"type": "text", "text": "run the build"}])
    terminal = {
        "type": "terminal",
        "terminalId": "t1",
        "output": "\x1b[31merror\x1b[0m: no such target\r\n",
        "truncated": True,
        "exitStatus": {"exitCode": None, "signal": "SIGKILL"},
    }
    error = {"type": "content", "content": {"type": "text", "text": "make: *** [all] Error 2"}}
    tool(
        thread,
        title="make __init__ *all*",
        kind="execute",
        status="failed",
        content=[terminal, error],
        rawInput={"command": "make all", "cwd": "/work/p"},
    )
    document = to_markdown(thread.entries, cwd="/work/p")
    assert "### $ make \\_\\_init\\_\\_ \\*all\\* — failed" in document
    assert headings(document)[-1] == "h3 $ make __init__ *all* — failed"
    assert (
        "```text\nerror: no such target\n```\n\n*killed by SIGKILL · output truncated*" in document
    )
    assert "make: *** [all] Error 2" in document
    assert (
        "<details><summary>Raw input</summary>\n\n```json\n"
        '{\n  "command": "make all",\n  "cwd": "/work/p"\n}\n```\n\n</details>'
    ) in document
    still_running = Thread()
    tool(still_running, title="sleep", kind="execute", content=[{**terminal, "exitStatus": None}])
    tool(
        still_running,
        title="gone",
        kind="execute",
        content=[{"type": "terminal", "terminalId": "x"}],
    )
    running = to_markdown(still_running.entries)
    assert "*still running · output truncated*" in running
    assert "*Terminal output not available.*" in running
    assert "### $ sleep — pending" in running


def test_a_cancelled_turn() -> None:
    """Cut off mid-code-block: the fence is closed; canceled tools and the notice show."""
    thread = Thread()
    thread.append_user([{"type": "text", "text": "write a long script"}])
    thread.add_text("thought", "Long script.\nVery long.", None)
    thread.add_text("message", "Here it is:\n\n```python\nfor i in range(10", None)
    tool(thread, title="Write script.py", kind="edit", status="in_progress")
    index = len(thread) - 1
    thread.set_tool_status(index, "canceled")
    thread.append_notice(
        "warning",
        "The agent did not end the turn within 5 s of the cancel; it was ended here.",
    )
    thread.append_notice("error", "The agent exited (code 3)\n\nLast lines:\nfatal: *boom*\n")
    document = to_markdown(thread.entries)
    assert "```python\nfor i in range(10\n```\n\n### ✎ Write script.py — canceled" in document
    assert headings(document) == ["h1 Conversation", "h3 ✎ Write script.py — canceled"]
    assert (
        "> **⚠ Warning:** The agent did not end the turn within 5 s of the cancel;"
        " it was ended here."
    ) in document
    assert (
        "> **✗ Error:** The agent exited (code 3)\n>\n> ```text\n> Last lines:\n"
        "> fatal: *boom*\n> ```\n"
    ) in document
    assert "<details><summary>Thought</summary>\n\nLong script.\nVery long.\n\n</details>" in (
        document
    )
    # A fence the agent did close is left alone, and so is one in a list item.
    closed = Thread()
    closed.add_text("message", "1. step\n\n   ```sh\n   ls\n   ```\n\nDone.", None)
    assert to_markdown(closed.entries).endswith("   ```sh\n   ls\n   ```\n\nDone.\n")
    cut = Thread()
    cut.add_text("message", "1. step\n\n   ~~~~sh\n   ls", None)
    assert to_markdown(cut.entries).endswith("   ~~~~sh\n   ls\n   ~~~~\n")


def test_a_user_message_with_resources(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/ada")
    thread = Thread()
    thread.append_user(
        [
            {"type": "text", "text": "Compare"},
            {
                "type": "resource_link",
                "uri": "file:///home/ada/p/greet.py",
                "name": "greet.py",
            },
            {"type": "text", "text": "with"},
            {
                "type": "resource",
                "resource": {
                    "uri": "file:///home/ada/notes/old%20greet.py",
                    "text": "def greet():\n    pass\n",
                    "mimeType": "text/x-python",
                },
            },
            {"type": "text", "text": " and the [spec](https://example.com/spec)."},
            {"type": "image", "mimeType": "image/png", "data": "AAAA"},
        ]
    )
    document = to_markdown(thread.entries, cwd="/home/ada/p")
    assert document == (
        "# Conversation\n\n"
        "- **Directory:** `~/p`\n\n"
        "---\n\n"
        "> **You**\n"
        ">\n"
        "> Compare [greet.py](file:///home/ada/p/greet.py) with"
        " [old greet.py](file:///home/ada/notes/old%20greet.py)"
        " and the [spec](https://example.com/spec). *\\[image: image/png\\]*\n"
        ">\n"
        "> `~/notes/old greet.py`\n"
        ">\n"
        "> ```py\n"
        "> def greet():\n"
        ">     pass\n"
        "> ```\n"
    )


def test_a_link_after_a_code_block_stays_out_of_it() -> None:
    link = {"type": "resource_link", "uri": "file:///w/a.py", "name": "a.py"}
    for text in ("see\n\n```py\nx = 1\n```", "see\n\n```py\nx = 1"):
        thread = Thread()
        thread.append_user([{"type": "text", "text": text}, link, {"type": "text", "text": "ok"}])
        document = to_markdown(thread.entries)
        assert document.endswith("> ```py\n> x = 1\n> ```\n> [a.py](file:///w/a.py) ok\n")
        assert [f.content for f in fences(document)] == ["x = 1\n"]


def test_an_empty_conversation() -> None:
    assert to_markdown([]) == "# Conversation\n\n*No messages.*\n"
    assert to_markdown([], title="# Fix *it*", agent="claude-agent-acp 0.5", cwd="/srv/x") == (
        "# \\# Fix \\*it\\*\n\n"
        "- **Agent:** claude-agent-acp 0.5\n"
        "- **Directory:** `/srv/x`\n\n"
        "*No messages.*\n"
    )


def test_the_plan_as_a_task_list() -> None:
    plan = [
        {"content": "Read `a.py`", "priority": "high", "status": "completed"},
        {"content": "Fix it", "priority": "low", "status": "in_progress"},
        {"content": "Test it", "priority": "low", "status": "pending"},
    ]
    document = to_markdown([{"kind": "plan", "entries": plan}], plan=plan)
    task_list = "- [x] Read \\`a.py\\`\n- [ ] Fix it *(in progress)*\n- [ ] Test it"
    assert document == (
        f"# Conversation\n\n**Plan**\n\n{task_list}\n\n---\n\n## Plan\n\n{task_list}\n"
    )


# -- files ----------------------------------------------------------------------------------------


def test_default_export_name() -> None:
    now = datetime(2026, 12, 1, 15, 30, 59)
    assert default_export_name("Fixing the greeting", now) == (
        "acp-tui-2026-12-01-1530-fixing-the-greeting.md"
    )
    assert default_export_name("Café: ünïcode / paths?!", now) == (
        "acp-tui-2026-12-01-1530-cafe-unicode-paths.md"
    )
    assert default_export_name(None, now) == "acp-tui-2026-12-01-1530.md"
    assert default_export_name("!!!", now) == "acp-tui-2026-12-01-1530.md"
    long = default_export_name("word " * 40, now)
    assert long.startswith("acp-tui-2026-12-01-1530-word-word-") and long.endswith("-word.md")
    assert len(long) <= len("acp-tui-2026-12-01-1530-.md") + 48


def test_write_markdown_replaces_atomically(tmp_path: Path) -> None:
    target = tmp_path / "out.md"
    assert write_markdown(target, "# One\n") == target
    assert target.read_text(encoding="utf-8") == "# One\n"
    target.chmod(0o640)
    write_markdown(str(target), "# Twö\n")
    assert target.read_bytes() == "# Twö\n".encode()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.md"]  # no temp file left


def test_write_markdown_refuses_clearly(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "out.md"
    with pytest.raises(ExportError, match="does not exist"):
        write_markdown(missing, "x")
    assert not missing.parent.exists()
    with pytest.raises(ExportError, match="is a directory"):
        write_markdown(tmp_path, "x")
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        try:
            with pytest.raises(ExportError, match="cannot export"):
                write_markdown(locked / "out.md", "x")
        finally:
            locked.chmod(0o700)
        assert list(locked.iterdir()) == []


def test_the_transcript_module_loads_no_ui() -> None:
    script = (
        "import sys, acp_tui.core.storage.transcript\n"
        "print(','.join(sorted(m for m in sys.modules"
        " if m.split('.')[0] in ('textual', 'rich') or m.startswith('acp_tui.ui'))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
