"""The TUI on the background host (--detachable, acp-tui attach): a real host
process on a real socket, real agents, the real TUI on a real pty."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from textual.pilot import Pilot

from acp_tui.ui.app import AcpApp
from acp_tui.ui.remote_host import RemoteHost
from acp_tui.ui.screens.choice import ChoiceScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.widgets.session_bar import SessionBar
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.background import HostProcess, background, runtime
from tests.fake_agents import agent_spec
from tests.processes import PtyTui, tui_command
from tests.test_background_host import open_session, turn_ended
from tests.ui.helpers import screen_text, until

__all__ = ["background", "runtime"]  # fixtures


def replies(snapshot: dict[str, object]) -> str:
    entries = snapshot["entries"]
    assert isinstance(entries, list)
    return "".join(
        chunk["text"] for e in entries if e["kind"] == "assistant" for chunk in e["chunks"]
    )


async def test_closing_the_terminal_of_a_detachable_tui_leaves_the_turn_running(
    background: HostProcess, tmp_path: Path
) -> None:
    background.start()
    tui = PtyTui(
        tui_command("--detachable", "--cwd", str(tmp_path)), cwd=tmp_path, env=background.env
    )
    try:
        tui.wait_ready()
        tui.type(b"slow 40 0.1\r")
        assert tui.wait_for(lambda: b"line 3" in tui.output), bytes(tui.output[-2000:])
        tui.close_master()  # the terminal goes away mid-turn
        assert tui.wait_exit(), "the TUI did not exit"
        assert not tui.leftovers(), "nothing of the TUI is left (the agent is the host's)"
    finally:
        tui.close()
    client = await background.client()
    (session,) = (await client.result("host.sessions"))["sessions"]
    answer = await client.result("session.attach", {"sessionId": session["sessionId"]})
    if answer["snapshot"]["status"] == "running":
        await client.wait_event(turn_ended(session["sessionId"]), timeout=30)
        answer = await client.result("session.attach", {"sessionId": session["sessionId"]})
    assert replies(answer["snapshot"]) == "".join(f"line {n}\n" for n in range(40))


async def test_attach_shows_the_scrollback_and_the_waiting_permission(
    background: HostProcess, tmp_path: Path
) -> None:
    background.start()
    client = await background.client()
    session_id = await open_session(client, tmp_path)
    await client.result("session.prompt", {"sessionId": session_id, "text": "echo earlier words"})
    client.send("session.prompt", {"sessionId": session_id, "text": "permission p9"})
    await client.wait_event(lambda e: e["type"] == "permission-requested")
    await client.drop()  # nobody attached: the question waits

    tui = PtyTui(
        [sys.executable, "-m", "acp_tui", "attach", session_id], cwd=tmp_path, env=background.env
    )
    try:
        assert tui.wait_for(lambda: tui.shows("earlier") and tui.shows("Permission requested")), (
            bytes(tui.output[-3000:])
        )
        tui.type(b"y")
        # The answer and the agent's reply may come before the watcher is
        # attached (then its snapshot holds them) or after (then events do).
        watcher = await background.client()
        answer = await watcher.result("session.attach", {"sessionId": session_id})
        if answer["snapshot"]["status"] == "running":
            await watcher.wait_event(turn_ended(session_id), timeout=30)
            answer = await watcher.result("session.attach", {"sessionId": session_id})
        assert '"allow"' in replies(answer["snapshot"])
    finally:
        tui.close()


async def ready(pilot: Pilot[int]) -> AcpApp:
    """Until the window shows its session (on a remote host: no host here)."""
    app = pilot.app
    assert isinstance(app, AcpApp)
    await until(pilot, lambda: app.conversation.current is not None)
    app.prompt.cursor_blink = False
    await pilot.pause()
    return app


def remote_app(background: HostProcess, tmp_path: Path, attach: str | None = None) -> AcpApp:
    link = RemoteHost(env=background.env)
    return AcpApp(agent_spec(), cwd=tmp_path, link=link, attach=attach)


async def test_a_decision_made_elsewhere_closes_the_dialog_by_itself(
    background: HostProcess, tmp_path: Path
) -> None:
    background.start()
    other = await background.client()
    session_id = await open_session(other, tmp_path)
    app = remote_app(background, tmp_path, attach=session_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        other.send("session.prompt", {"sessionId": session_id, "text": "permission p3"})
        asked = await other.wait_event(lambda e: e["type"] == "permission-requested")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        option = asked["options"][0]["optionId"]
        await other.result(
            "permission.decide", {"requestId": asked["requestId"], "optionId": option}
        )
        await until(pilot, lambda: not isinstance(app.screen, PermissionScreen))
        await other.wait_event(turn_ended(session_id))
        await until(pilot, lambda: '"allow"' in screen_text(app))


async def test_quitting_asks_to_detach_and_detaching_leaves_the_session(
    background: HostProcess, tmp_path: Path
) -> None:
    background.start()
    app = remote_app(background, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        session_id = app.tab.session_id
        (tab,) = app.query_one(SessionBar).tabs
        assert tab.background  # the bar marks it (∞): it outlives the terminal
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        question = app.screen
        assert isinstance(question, ChoiceScreen)
        assert question.title_text == "The session runs in the background host"
        assert [c.value for c in question.choices] == ["detach", "quit", "stay"]
        await pilot.press("enter")  # the first choice: detach
        await until(pilot, lambda: not app.is_running)
    client = await background.client()
    (session,) = (await client.result("host.sessions"))["sessions"]
    assert session["sessionId"] == session_id and session["surfaces"] == 0


async def test_the_host_going_away_is_said_and_the_scrollback_stays(
    background: HostProcess, tmp_path: Path
) -> None:
    proc = background.start()
    app = remote_app(background, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.tab.turns.submit("echo words before the crash")
        await until(pilot, lambda: "crash" in screen_text(app))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        await until(pilot, lambda: "background host went away" in screen_text(app))
        # What it showed stays, and the tab says its session is gone.
        assert "words before the crash" in screen_text(app)
        await until(pilot, lambda: app.query_one(StatusBar).info.status == "closed")


async def test_a_window_holds_sessions_of_this_process_and_of_the_background_host(
    background: HostProcess, tmp_path: Path
) -> None:
    """``[host] detach = ["beta"]``: /new beta runs in the background host, the
    first tab stays in this process; the bar marks which is which; quitting
    with "detach" ends this process's session and leaves the other."""
    background.start()
    app = AcpApp(
        agent_spec(name="alpha"),
        cwd=tmp_path,
        background=lambda: RemoteHost(env=background.env),
        detaches=lambda name: name == "beta",
        resolve_agent=lambda name: agent_spec(name=name),
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        first = app.tab
        app.action_new_tab("beta")
        second = app.tab
        await until(pilot, lambda: second.conversation.current is not None)
        assert not first.link.detachable and second.link.detachable
        assert [t.background for t in app.query_one(SessionBar).tabs] == [False, True]
        second.turns.submit("echo from the background")
        await until(pilot, lambda: "from the background" in screen_text(app))
        client = await background.client()
        listed = (await client.result("host.sessions"))["sessions"]
        assert [s["sessionId"] for s in listed] == [second.session_id]
        assert app.host is not None and first.session_id in app.host.sessions
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("enter")  # detach
        await until(pilot, lambda: not app.is_running)
    listed = (await client.result("host.sessions"))["sessions"]
    assert [s["sessionId"] for s in listed] == [second.session_id]


async def test_a_question_asked_while_detached_opens_when_a_window_attaches(
    background: HostProcess, tmp_path: Path
) -> None:
    from acp_tui.ui.screens.elicitation import ElicitationFormScreen
    from tests.fake_agents import AGENTS, agent_params

    background.start()
    client = await background.client()
    agent = agent_params(AGENTS / "elicitation_agent.py")
    opened = await client.result("connection.open", {"agent": agent, "cwd": str(tmp_path)})
    created = await client.result(
        "session.create", {"connectionId": opened["connectionId"], "cwd": str(tmp_path)}
    )
    session_id = created["sessionId"]
    client.send("session.prompt", {"sessionId": session_id, "text": "form"})
    await client.wait_event(lambda e: e["type"] == "elicitation-requested")
    await client.drop()  # nobody attached: the question waits

    app = remote_app(background, tmp_path, attach=session_id)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: isinstance(app.screen, ElicitationFormScreen))
