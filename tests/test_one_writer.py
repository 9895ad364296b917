"""One writer of session state (issue 14, point 2).

* Applying an agent update is a pure function of the model: thread + state +
  update in, events out, no session or host in sight.
* The thread is the only code that changes an entry: permissions and
  terminal output included (an AST check of the core, and the behaviour).
* "Running" is derived from the turn: at every ``status-changed`` the
  session's status is the event's, through a turn, a cancel, an error and
  the agent's death.
* Sessions have one registry, front ends report errors through the host.
"""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from typing import Any

import pytest

from acp_tui.core.host import Host
from acp_tui.core.model.budget import TextBudget
from acp_tui.core.model.events import Event
from acp_tui.core.model.session_state import SessionState
from acp_tui.core.model.thread import Thread
from acp_tui.core.model.updates import Target, apply_update
from tests.conftest import Recorder
from tests.fake_agents import agent_spec

CORE = Path(__file__).parent.parent / "acp_tui" / "core"


def target(terminals: dict[str, dict[str, Any]] | None = None) -> Target:
    known = terminals or {}
    return Target(Thread(), SessionState(), TextBudget(), known.get)


def chunk(text: str) -> dict[str, Any]:
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}


# -- the pure function ------------------------------------------------------------


def test_an_update_is_applied_without_a_session() -> None:
    applied = target()
    first = apply_update(applied, chunk("Hel"))
    second = apply_update(applied, chunk("lo"))
    assert [e.type for e in first + second] == ["entry-appended", "entry-updated"]
    assert second[0].data["patch"]["textDelta"]["text"] == "lo"
    assert applied.thread.entries[0].to_wire()["chunks"][0]["text"] == "Hello"
    # Nothing is stamped: numbering and publishing are the session's.
    assert all(e.session_id is None and e.cursor == 0 for e in first + second)


def test_state_changes_come_back_as_events_with_their_notes() -> None:
    applied = target()
    applied.state.modes = {
        "currentModeId": "ask",
        "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "plan", "name": "Plan"}],
    }
    out = apply_update(applied, {"sessionUpdate": "current_mode_update", "currentModeId": "plan"})
    assert [e.type for e in out] == ["mode-changed", "entry-appended"]
    assert out[1].data["entry"] == {"kind": "notice", "level": "info", "text": "Mode: Plan"}
    assert applied.state.current_mode == "plan"
    plan = {"sessionUpdate": "plan", "entries": [{"content": "a", "priority": "high"}]}
    (planned,) = apply_update(
        applied, {**plan, "entries": [{**plan["entries"][0], "status": "pending"}]}
    )
    assert planned.type == "plan-updated" and applied.state.plan == planned.data["entries"]


def test_a_bad_update_is_an_error_event_and_changes_nothing() -> None:
    applied = target()
    for bad, message in [
        (None, "without an update object"),
        ({"sessionUpdate": "nope"}, "unknown session update kind 'nope'"),
        ({"sessionUpdate": "tool_call"}, "malformed tool_call update"),
    ]:
        (error,) = apply_update(applied, bad)
        assert error.type == "error" and error.data["code"] == "protocol_error"
        assert message in error.data["message"]
    assert applied.thread.entries == [] and applied.state == SessionState()


def test_a_replaced_tool_call_cancels_the_request_waiting_on_it_first() -> None:
    applied = target()
    thread = applied.thread
    announce = {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Edit"}
    apply_update(applied, announce)
    requested = thread.request_permission(
        "t1", "perm-x", [{"optionId": "ok", "kind": "allow_once"}]
    )
    assert [e.type for e in requested] == ["entry-updated", "permission-requested"]
    assert thread.entries[0].to_wire()["status"] == "waiting_for_confirmation"
    out = apply_update(applied, {**announce, "title": "Edit again"})
    assert [e.type for e in out] == ["permission-resolved", "entry-updated"]
    assert out[0].data == {"requestId": "perm-x", "outcome": {"outcome": "cancelled"}}
    assert thread.pending_requests() == [] and thread.was_resolved("perm-x")
    assert "permission" not in out[1].data["patch"]["entry"]


def test_terminal_output_reaches_its_tool_calls_through_the_thread() -> None:
    output = {"output": "hi\n", "truncated": False}
    applied = target({"term-1": output})
    update = {
        "sessionUpdate": "tool_call",
        "toolCallId": "t1",
        "title": "Run",
        "content": [{"type": "terminal", "terminalId": "term-1"}],
    }
    (event,) = apply_update(applied, update)
    assert event.data["entry"]["content"] == [
        {"type": "terminal", "terminalId": "term-1", **output}
    ]
    done = {"output": "hi\nbye\n", "truncated": False, "exitStatus": {"exitCode": 0}}
    (shown,) = applied.thread.show_terminal("term-1", done)
    assert shown.data["patch"]["entry"]["content"][0]["exitStatus"] == {"exitCode": 0}
    assert applied.thread.show_terminal("term-1", done) == []  # unchanged: no event
    assert applied.thread.show_terminal("term-unknown", done) == []


# -- the thread is the only writer --------------------------------------------------

#: Attributes of entries (and of their chunks' lists) only the thread may change.
ENTRY_FIELDS = {
    "permission",
    "status",
    "content",
    "locations",
    "raw_input",
    "raw_output",
    "title",
    "tool_kind",
    "version",
    "chunks",
}


def _entry_writes(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target_node in targets:
            while isinstance(target_node, ast.Subscript):
                target_node = target_node.value
            if (
                isinstance(target_node, ast.Attribute)
                and target_node.attr in ENTRY_FIELDS
                and not (isinstance(target_node.value, ast.Name) and target_node.value.id == "self")
            ):
                found.append(f"{ast.unparse(target_node)} (line {node.lineno})")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("append", "extend", "insert")
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr in ("content", "chunks", "locations")
        ):
            found.append(f"{ast.unparse(node.func)} (line {node.lineno})")
    return found


def test_no_module_of_the_core_but_the_thread_changes_an_entry() -> None:
    """Outside the model (whose thread is the writer, and whose views keep
    their own copies), nothing in the core assigns to an entry's fields."""
    offenders = {}
    for path in sorted(CORE.rglob("*.py")):
        if "model" in path.relative_to(CORE).parts:
            continue
        writes = _entry_writes(ast.parse(path.read_text(), str(path)))
        if writes:
            offenders[str(path.relative_to(CORE))] = writes
    assert offenders == {}


def test_the_check_sees_an_entry_write() -> None:
    code = "def f(entry):\n    entry.permission = None\n    entry.content.append(1)\n"
    assert _entry_writes(ast.parse(code)) == [
        "entry.permission (line 2)",
        "entry.content.append (line 3)",
    ]


# -- running is derived from the turn -------------------------------------------------


async def test_the_status_is_the_events_at_every_change(host: Host, tmp_path: Path) -> None:
    seen: list[tuple[str, str]] = []

    def check(event: Event) -> None:
        if event.type == "status-changed" and event.session_id is not None:
            seen.append((event.data["status"], host.session(event.session_id).status))

    host.hub.subscribe(check)
    connection, _ = await host.open_connection(agent_spec(), tmp_path)
    session = await host.create_session(connection.connection_id, tmp_path)
    assert await host.prompt(session.session_id, [{"type": "text", "text": "echo a"}]) == "end_turn"
    hanging = asyncio.ensure_future(
        host.prompt(session.session_id, [{"type": "text", "text": "hang"}])
    )
    await asyncio.sleep(0.2)
    assert session.status == "running" and session.turn is not None
    await host.cancel(session.session_id)
    assert await asyncio.wait_for(hanging, 10) == "cancelled"
    failing = [{"type": "text", "text": "fail no luck"}]
    with pytest.raises(Exception, match="error"):
        await host.prompt(session.session_id, failing)
    assert session.status == "error" and session.turn is None
    dying = asyncio.ensure_future(
        host.prompt(session.session_id, [{"type": "text", "text": "die"}])
    )
    with pytest.raises(Exception, match="exit"):
        await asyncio.wait_for(dying, 10)
    statuses = [status for status, _ in seen]
    assert statuses == [
        "running",
        "idle",
        "running",
        "idle",
        "running",
        "error",
        "running",
        "error",
        "closed",
    ]
    assert all(announced == held for announced, held in seen), seen


# -- one registry, errors through the host ----------------------------------------------


async def test_two_agents_with_one_session_id_are_told_apart_by_the_one_registry(
    host: Host, recorder: Recorder, tmp_path: Path
) -> None:
    first_dir, second_dir = tmp_path / "a", tmp_path / "b"
    first_dir.mkdir()
    second_dir.mkdir()
    first, _ = await host.open_connection(agent_spec(), first_dir)
    second, _ = await host.open_connection(agent_spec(), second_dir)
    one = await host.create_session(first.connection_id, first_dir)
    two = await host.create_session(second.connection_id, second_dir)
    assert one.agent_session_id == two.agent_session_id == "s1"
    assert one.session_id != two.session_id
    assert not hasattr(first, "sessions")  # the host's registry is the only one
    await host.prompt(two.session_id, [{"type": "text", "text": "echo second"}])
    await host.prompt(one.session_id, [{"type": "text", "text": "echo first"}])
    assert host.sessions.routed(second.connection_id, "s1") is two
    assert [e.kind for e in one.thread.entries] == ["user", "assistant"]
    assert "first" in one.thread.entries[1].to_wire()["chunks"][0]["text"]
    assert "second" in two.thread.entries[1].to_wire()["chunks"][0]["text"]


async def test_a_front_end_reports_errors_through_the_host(host: Host, recorder: Recorder) -> None:
    for n in range(25):
        host.report_error("protocol_error", f"bad line {n}")
    await recorder.wait_for(lambda e: e.type == "error" and e.data.get("repeated") == 15, 5)
    errors = recorder.of_type("error")
    assert [e.data["message"] for e in errors[:10]] == [f"bad line {n}" for n in range(10)]
    assert len(errors) == 11 and errors[-1].data["message"].startswith("… and 15 more")


async def test_a_front_end_adds_a_notice_through_the_host(host: Host, tmp_path: Path) -> None:
    connection, _ = await host.open_connection(agent_spec(), tmp_path)
    session = await host.create_session(connection.connection_id, tmp_path)
    host.add_notice(session.session_id, "warning", "restarted")
    (entry,) = session.thread.entries
    assert entry.to_wire() == {"kind": "notice", "level": "warning", "text": "restarted"}
