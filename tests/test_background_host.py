"""The background host (acp-tui host): a real host process on a real Unix socket,
real agents, surfaces that come and go."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.background import HostProcess, SocketClient, background, runtime
from tests.fake_agents import agent_params
from tests.processes import MARKER_VAR, marked, new_marker
from tests.test_headless import rebuild_text
from tests.waiting import came_true, until

__all__ = ["background", "runtime"]  # fixtures

FLOOD = 20_000


async def open_session(client: SocketClient, cwd: Path, **env: str) -> str:
    opened = await client.result("connection.open", {"agent": agent_params(**env), "cwd": str(cwd)})
    created = await client.result(
        "session.create", {"connectionId": opened["connectionId"], "cwd": str(cwd)}
    )
    session_id: str = created["sessionId"]
    return session_id


def flood_text() -> str:
    return "".join(f"{n}\n" for n in range(FLOOD))


def turn_ended(session_id: str) -> Any:
    return lambda e: (
        e["type"] == "status-changed" and e.get("sessionId") == session_id and e["status"] == "idle"
    )


def last_cursor(client: SocketClient, session_id: str) -> int:
    return max(e["cursor"] for e in client.events if e.get("sessionId") == session_id)


async def test_detach_mid_turn_then_attach_again_replays_exactly_what_was_missed(
    background: HostProcess, tmp_path: Path
) -> None:
    background.start()
    first = await background.client()
    session_id = await open_session(first, tmp_path)
    first.send("session.prompt", {"sessionId": session_id, "text": f"flood {FLOOD}"})
    await first.wait_event(lambda e: "textDelta" in e.get("patch", {}))
    await first.drop()  # the terminal went away mid-turn
    seen = list(first.events)
    cursor = last_cursor(first, session_id)

    second = await background.client()
    answer = await second.result("session.attach", {"sessionId": session_id, "afterCursor": cursor})
    assert "snapshot" not in answer and answer["replayed"] >= 0
    await second.wait_event(turn_ended(session_id), timeout=60)
    events = seen + second.events
    assert rebuild_text(events, session_id) == flood_text(), "no gap, no duplicate"
    cursors = [e["cursor"] for e in events if e.get("sessionId") == session_id]
    assert cursors == sorted(set(cursors))

    # A third surface with no cursor gets the whole session as a snapshot.
    third = await background.client()
    answer = await third.result("session.attach", {"sessionId": session_id})
    text = "".join(
        chunk["text"]
        for entry in answer["snapshot"]["entries"]
        if entry["kind"] == "assistant"
        for chunk in entry["chunks"]
    )
    assert text == flood_text()
    assert answer["cursor"] == answer["snapshot"]["cursor"] == cursors[-1]


async def test_a_permission_asked_while_nobody_is_attached_waits_and_is_answered_later(
    background: HostProcess, tmp_path: Path
) -> None:
    background.start()
    first = await background.client()
    session_id = await open_session(first, tmp_path)
    first.send("session.prompt", {"sessionId": session_id, "text": "permission perm-1"})
    await first.wait_event(lambda e: e["type"] == "permission-requested")
    await first.drop()  # its prompt still waits for an answer: the surface is gone all the same

    ls = await background.client()

    async def state() -> tuple[str, int]:
        sessions = (await ls.result("host.sessions"))["sessions"]
        found = next(s for s in sessions if s["sessionId"] == session_id)
        return str(found["state"]), int(found["surfaces"])

    for _ in range(200):
        if await state() == ("needs-you", 0):
            break
        await asyncio.sleep(0.05)
    assert await state() == ("needs-you", 0)

    later = await background.client()
    answer = await later.result("session.attach", {"sessionId": session_id})
    tool = next(e for e in answer["snapshot"]["entries"] if e.get("toolCallId") == "perm-1")
    request_id = tool["permission"]["requestId"]
    option = tool["permission"]["options"][0]["optionId"]
    await later.result("permission.decide", {"requestId": request_id, "optionId": option})
    await later.wait_event(turn_ended(session_id))
    assert option in rebuild_text(later.events, session_id)
    assert await state() == ("idle", 1)


async def test_two_surfaces_see_one_question_and_the_first_answer_wins(
    background: HostProcess, tmp_path: Path
) -> None:
    background.start()
    one = await background.client()
    session_id = await open_session(one, tmp_path)
    two = await background.client()
    await two.result("session.attach", {"sessionId": session_id})
    one.send("session.prompt", {"sessionId": session_id, "text": "permission perm-2"})
    asked = [
        await client.wait_event(lambda e: e["type"] == "permission-requested")
        for client in (one, two)
    ]
    assert asked[0] == asked[1]
    request_id = asked[0]["requestId"]
    option = asked[0]["options"][0]["optionId"]
    await one.result("permission.decide", {"requestId": request_id, "optionId": option})
    late = await two.call("permission.decide", {"requestId": request_id, "optionId": option})
    assert late["error"]["code"] == "already_decided"
    for client in (one, two):
        await client.wait_event(lambda e: e["type"] == "permission-resolved")
        await client.wait_event(turn_ended(session_id))


async def test_host_sessions_lists_every_live_session(
    background: HostProcess, tmp_path: Path
) -> None:
    background.start()
    client = await background.client()
    session_id = await open_session(client, tmp_path)
    await client.result("session.prompt", {"sessionId": session_id, "text": "echo hello there"})
    sessions = (await client.result("host.sessions"))["sessions"]
    (only,) = sessions
    assert only["sessionId"] == session_id
    assert only["state"] == "idle"
    assert only["surfaces"] == 1
    assert only["agent"] == "scripted"
    assert only["cwd"] == str(tmp_path)
    assert only["lastActivity"] > 0
    listed = background.command("ls")
    assert session_id in listed.stdout and "idle" in listed.stdout
    as_json = background.command("ls", "--json")
    assert '"sessionId": "' + session_id in as_json.stdout


async def test_a_second_host_finds_the_first_and_leaves(background: HostProcess) -> None:
    first = background.start()
    second = background.command("host")
    assert second.returncode == 0
    assert f"already running (pid {first.pid})" in second.stderr
    client = await background.client()
    info = await client.result("host.info")
    assert info["pid"] == first.pid


async def test_the_host_ends_itself_when_idle_and_not_while_a_surface_is_attached(
    background: HostProcess,
) -> None:
    proc = background.start("--idle-timeout", "0.5")
    client = await background.client()
    await asyncio.sleep(1.5)
    assert proc.poll() is None, "a surface is attached"
    await client.drop()
    assert came_true(lambda: proc.poll() is not None, timeout=20), "it did not end when idle"
    assert proc.returncode == 0
    assert not background.socket.exists()


async def test_host_stop_ends_it_and_reaps_every_agent(
    background: HostProcess, tmp_path: Path
) -> None:
    marker = new_marker()
    background.env[MARKER_VAR] = marker
    proc = background.start()
    client = await background.client()
    await open_session(client, tmp_path)
    assert len(marked(marker)) >= 2  # the host, a supervisor, the agent
    stopped = background.command("host", "--stop")
    assert stopped.returncode == 0, stopped.stderr
    assert came_true(lambda: proc.poll() is not None, timeout=20)
    assert came_true(lambda: not marked(marker), timeout=20), marked(marker)
    again = background.command("host", "--stop")
    assert again.returncode == 1 and "no host is running" in again.stderr


async def test_a_sigkill_of_the_host_leaves_no_agent_behind(
    background: HostProcess, tmp_path: Path
) -> None:
    marker = new_marker()
    background.env[MARKER_VAR] = marker
    proc = background.start()
    client = await background.client()
    session_id = await open_session(client, tmp_path)
    client.send("session.prompt", {"sessionId": session_id, "text": "grandchild own-session"})
    await client.wait_event(lambda e: "pid=" in rebuild_text([e], session_id), timeout=20)
    child = int(rebuild_text(client.events, session_id).split("=")[1])
    assert child in marked(marker)  # in a session of its own, as Claude Code's Bash runs
    proc.kill()
    proc.wait()
    assert came_true(lambda: not marked(marker), timeout=20), marked(marker)


def connect_as(uid: int, path: Path) -> str:
    """What a process of user ``uid`` gets from the socket at ``path``: the
    first line the host sends, or the error connecting gave. (A forked child:
    it needs no program another user could not run.)"""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: become the other user, connect, report, leave
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(10)
                sock.connect(str(path))
                got = sock.makefile("rb").readline() or b"<closed>"
            os.write(write_end, got)
        except BaseException as exc:
            os.write(write_end, f"{type(exc).__name__}: {exc}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as answer:
        text = answer.read().decode()
    os.waitpid(pid, 0)
    return text


async def test_another_user_cannot_reach_the_socket_nor_talk_to_the_host(
    background: HostProcess,
) -> None:
    nobody = 65534
    background.start()
    # The directory (0700) and the socket (0600) keep another user out ...
    assert "PermissionError" in connect_as(nobody, background.socket)
    assert background.socket.stat().st_mode & 0o777 == 0o600
    # ... and when their modes were loosened, the host refuses the peer's uid.
    background.runtime.chmod(0o755)
    background.socket.parent.chmod(0o755)
    background.socket.chmod(0o666)
    refused = json.loads(connect_as(nobody, background.socket))
    assert refused["event"]["code"] == "forbidden"
    client = await background.client()  # its own user is served still
    assert (await client.result("host.info"))["surfaces"] == 1


async def test_headless_connect_bridges_stdio_and_starts_the_host_on_demand(
    runtime: Path, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "XDG_RUNTIME_DIR": str(runtime),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    socket = runtime / "acp-tui" / "host.sock"
    assert not socket.exists()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "acp_tui",
        "--headless",
        "--connect",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=env,
        limit=16 * 1024 * 1024,
    )
    client = _PipeClient(proc)
    try:
        opened = await client.result(
            "connection.open", {"agent": agent_params(), "cwd": str(tmp_path)}
        )
        created = await client.result(
            "session.create", {"connectionId": opened["connectionId"], "cwd": str(tmp_path)}
        )
        session_id = created["sessionId"]
        done = await client.result("session.prompt", {"sessionId": session_id, "text": "echo hi"})
        assert done["stopReason"] == "end_turn"
        assert rebuild_text(client.events, session_id).strip() == "hi"
        assert socket.exists(), "the host was started"
    finally:
        await client.close_stdin_and_wait()
    # The session outlived the bridge: another bridge sees it.
    listed = subprocess.run(
        [sys.executable, "-m", "acp_tui", "ls", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert session_id in listed.stdout
    stopped = subprocess.run(
        [sys.executable, "-m", "acp_tui", "host", "--stop"], env=env, timeout=30
    )
    assert stopped.returncode == 0
    assert came_true(lambda: not socket.exists(), timeout=20)


class _PipeClient(SocketClient):
    """``acp-tui --headless --connect`` as a process, driven like the others."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None and proc.stdin is not None
        self.pipe = proc
        super().__init__(proc.stdout, proc.stdin)  # type: ignore[arg-type]
        self.proc = proc

    async def drop(self) -> None:
        await self.kill()


async def test_a_slow_surface_never_slows_the_agent_or_another_surface(tmp_path: Path) -> None:
    """In one process, with small surface limits: a surface that reads
    nothing while the agent floods falls behind, is told to resync after the
    cursor it holds, and attaching again after it gives it the rest exactly;
    meanwhile the turn ends for the surface that reads."""
    from acp_tui.core import Host
    from acp_tui.server.background import BackgroundHost
    from tests.background import short_runtime

    runtime = short_runtime()
    host = Host()
    background = BackgroundHost(
        host, directory=runtime / "acp-tui", surface_capacity=64, surface_text_budget=4096
    )
    (runtime / "acp-tui").mkdir(mode=0o700)
    background.lock()
    served = asyncio.ensure_future(background.run())
    await until(lambda: background.socket_path.exists())
    fast = await SocketClient.open(runtime)
    # (A small read buffer: the stream reader would take megabytes in unread.)
    slow = await SocketClient.open(runtime, reading=False, limit=32 * 1024)
    try:
        session_id = await open_session(fast, tmp_path)
        slow.send("session.attach", {"sessionId": session_id})
        prompt = {"sessionId": session_id, "text": f"flood {FLOOD} EVERY 100"}
        started = time.monotonic()
        answer = await asyncio.wait_for(fast.send("session.prompt", prompt), 120)
        print(f"the turn took {time.monotonic() - started:.1f} s")
        assert answer["result"]["stopReason"] == "end_turn"
        assert rebuild_text(fast.events, session_id) == flood_text()

        slow.resume_reading()
        resync = await slow.wait_event(lambda e: e["type"] == "resync")
        assert resync["sessionId"] == session_id and resync["reason"] == "lagged"
        held = [e for e in slow.events if e.get("sessionId") == session_id and "cursor" in e]
        snapshot = next(f["result"]["snapshot"] for f in slow.frames if "result" in f)
        assert resync["afterCursor"] == (held[-1]["cursor"] if held else snapshot["cursor"])
        # (Again as a new connection: the snapshot's line is longer than the small
        # buffer the slow one reads with.)
        await slow.drop()
        slow = await SocketClient.open(runtime)
        again = await slow.result(
            "session.attach", {"sessionId": session_id, "afterCursor": resync["afterCursor"]}
        )
        # What it missed is more than half its limits: a snapshot catches it up
        # (a replay that big would lag at once, and again after each resync).
        assert again["cursorTooOld"] is True
        text = "".join(
            chunk["text"]
            for entry in again["snapshot"]["entries"]
            if entry["kind"] == "assistant"
            for chunk in entry["chunks"]
        )
        assert text == flood_text()
        # A small gap is replayed: detach, let one turn pass, attach after the cursor.
        await slow.result("session.detach", {"sessionId": session_id})
        await fast.result("session.prompt", {"sessionId": session_id, "text": "echo one more"})
        seen = len(slow.events)
        small = await slow.result(
            "session.attach", {"sessionId": session_id, "afterCursor": again["cursor"]}
        )
        assert "snapshot" not in small and small["replayed"] > 0
        assert "one more" in rebuild_text(slow.events[seen:], session_id)
    finally:
        await fast.drop()
        await slow.drop()
        background.stop()
        await served


def test_attach_picks_the_named_the_waiting_or_the_most_recent_session() -> None:
    from acp_tui.host_cli import _choose

    sessions = [
        {"sessionId": "s3", "state": "running"},
        {"sessionId": "s2", "state": "needs-you"},
        {"sessionId": "s1", "state": "idle"},
    ]
    assert _choose(sessions, "s1") == sessions[2]
    assert _choose(sessions, None) == sessions[1], "the one that waits for you"
    assert _choose(sessions[:1] + sessions[2:], None) == sessions[0], "else the most recent"
    assert _choose(sessions, "s") is None, "more than one matches"
    assert _choose(sessions, "x") is None


async def test_attach_and_stop_without_a_host_say_so(background: HostProcess) -> None:
    attach = background.command("attach")
    assert attach.returncode == 1 and "no host is running" in attach.stderr
    listed = background.command("ls")
    assert listed.returncode == 0 and "no host is running" in listed.stdout
    assert background.command("ls", "--json").stdout.strip() == "[]"
