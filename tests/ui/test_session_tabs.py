"""Issue 15, many sessions in one window: tabs of one or two agents, each
with its own log, draft and dialogs; switching; /new and /close with reaping;
the quit question.

The real app on the real host core against the scripted agent (real
subprocesses, two agents under two names); the last test is the real program
on a real pty, where Alt+2 is ESC 2.
"""

from __future__ import annotations

from pathlib import Path

from acp_tui.core import AgentSpec, AssistantEntry, Host, UserEntry
from acp_tui.ui.app import AcpApp
from acp_tui.ui.screens.choice import ChoiceScreen
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.screens.session_switcher import SessionSwitcher
from acp_tui.ui.session_tab import SessionTab
from acp_tui.ui.widgets.session_bar import SessionBar
from tests.fake_agents import SCRIPTED_AGENT, agent_spec
from tests.processes import alive
from tests.ui.helpers import PtyApp, ready, screen_text, send, submit, until
from tests.ui.test_session_bar import tab_x


def window(cwd: Path) -> AcpApp:
    """An app on agent "alpha"; ``/new beta`` opens the same script as "beta",
    as another process (it offers ``session/close``); "stuck" never answers
    ``session/new``; "forky" offers ``session/fork``."""
    agents = {
        "alpha": agent_spec(name="alpha"),
        "beta": agent_spec(name="beta", ACP_FAKE_CLOSE="1"),
        "stuck": agent_spec(name="stuck", ACP_FAKE_HANG="session/new"),
        "forky": agent_spec(name="forky", ACP_FAKE_FORK="1"),
    }

    def resolve(name: str) -> AgentSpec:
        return agents[name]

    return AcpApp(agents["alpha"], cwd=cwd, host=Host(cancel_grace=2.0), resolve_agent=resolve)


def replies(tab: SessionTab) -> str:
    view = tab.conversation.current
    assert view is not None
    return "".join(
        "".join(c.text for c in e.chunks if c.type == "message")
        for e in view.entries
        if isinstance(e, AssistantEntry)
    )


def prompts(tab: SessionTab) -> list[str]:
    view = tab.conversation.current
    assert view is not None
    return [e.text for e in view.entries if isinstance(e, UserEntry)]


def tab_idle(tab: SessionTab) -> bool:
    view = tab.conversation.current
    return view is not None and view.status == "idle" and not tab.log.revealing


async def new_tab(pilot: object, app: AcpApp, agent: str = "") -> SessionTab:
    before = len(app.tabs)
    app.action_new_tab(agent)
    tab = app.tab
    assert len(app.tabs) == before + 1
    await until(pilot, lambda: tab.conversation.current is not None)  # type: ignore[arg-type]
    return tab


async def test_two_agents_stream_at_once_each_into_its_own_tab(tmp_path: Path) -> None:
    app = window(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        first = app.tab
        second = await new_tab(pilot, app, "beta")
        assert second.agent_name == "beta" and first.agent_name == "alpha"
        a_words = " ".join(f"a{n}" for n in range(1500))
        submit(app, "slow 150 0.02")  # tab 2 streams on while tab 1 streams
        await until(pilot, lambda: "line 1" in replies(second))
        await pilot.press("alt+1")
        assert app.tab is first
        await send(pilot, f"echo {a_words}")
        await until(pilot, lambda: tab_idle(first) and tab_idle(second))
        assert replies(first).split() == a_words.split()
        assert replies(second) == "".join(f"line {n}\n" for n in range(150))
        assert prompts(first) == [f"echo {a_words}"] and prompts(second) == ["slow 150 0.02"]
        shown = screen_text(app)
        assert "a1499" in shown and "line 149" not in shown
        assert second.unread  # it streamed while tab 1 was shown
        await pilot.press("alt+2")
        assert app.tab is second and not second.unread
        await pilot.pause()
        assert "line 149" in screen_text(app)


async def test_a_background_permission_waits_for_its_tab_and_takes_no_key(
    tmp_path: Path,
) -> None:
    app = window(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        first = app.tab
        second = await new_tab(pilot, app)
        gate = tmp_path / "gate"
        submit(app, f"permission-when {gate}")
        await until(pilot, lambda: "working 0" in replies(second))
        await pilot.press("alt+1")
        gate.touch()  # the agent asks now, tab 1 shown
        await until(pilot, lambda: second.state == "needs-you")
        assert app.screen_stack[-1] is app.screen and not isinstance(app.screen, PermissionScreen)
        await pilot.press("y", "e", "s")  # into tab 1's draft, answering nothing
        assert app.prompt.text == "yes"
        assert second.conversation.current is not None
        assert second.conversation.current.permissions  # still waiting
        await pilot.press("ctrl+n")  # the session that needs you
        assert app.tab is second
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await until(pilot, lambda: app.screen.armed)  # type: ignore[attr-defined]
        assert app.prompt.text == ""  # tab 2's own draft
        await pilot.press("y")
        await until(pilot, lambda: tab_idle(second) and "selected" in replies(second))
        assert second.state == "idle"
        await pilot.press("alt+1")
        assert app.tab is first and app.prompt.text == "yes"  # the draft kept


async def test_alt_n_switches_and_ignores_a_number_with_no_tab(tmp_path: Path) -> None:
    app = window(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        first = app.tab
        second = await new_tab(pilot, app)
        third = await new_tab(pilot, app, "beta")
        assert all(tab.plan.folded for tab in app.tabs)  # 24 rows: every plan to one line
        for key, tab in (("alt+1", first), ("alt+3", third), ("alt+2", second)):
            await pilot.press(key)
            assert app.tab is tab
        await pilot.press("alt+9")
        assert app.tab is second
        await pilot.press("ctrl+n")
        assert app.tab is second  # nobody waits


async def test_new_and_close_end_the_agent_with_its_last_session(tmp_path: Path) -> None:
    app = window(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        host = app.host
        assert host is not None
        first = app.tab
        alpha = first.conversation.agent
        same = await new_tab(pilot, app)  # the same agent: its process serves both
        assert same.conversation.agent is not None and alpha is not None
        assert same.conversation.agent.connection_id == alpha.connection_id
        beta_tab = await new_tab(pilot, app, "beta")
        beta = beta_tab.conversation.agent
        assert beta is not None and beta.connection_id != alpha.connection_id
        beta_pid = host.connections[beta.connection_id].process.pid
        assert beta_pid is not None and alive(beta_pid)
        await send(pilot, "/close")
        assert app.tab is same and len(app.tabs) == 2
        await until(pilot, lambda: beta.connection_id not in host.connections)
        await until(pilot, lambda: not alive(beta_pid))
        closed_id = same.session_id
        assert closed_id is not None
        await pilot.press("alt+2")
        await send(pilot, "/close")
        assert app.tab is first and len(app.tabs) == 1
        await until(
            pilot, lambda: host.sessions.get(closed_id) is None or host.session(closed_id).closed
        )
        assert not host.connections[alpha.connection_id].closed  # tab 1 still uses it
        await send(pilot, "/close")  # the last one stays
        assert len(app.tabs) == 1
        await send(pilot, "/new gamma")  # no such agent: said, nothing opened
        assert len(app.tabs) == 1


async def test_quitting_with_sessions_running_asks_once_and_names_them(tmp_path: Path) -> None:
    app = window(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await new_tab(pilot, app, "beta")
        await send(pilot, "hang")
        await until(pilot, lambda: app.tab.running)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        question = app.screen
        assert isinstance(question, ChoiceScreen)
        assert question.title_text == "A session is running: 2 beta (hang)"
        await pilot.press("escape")  # stay
        await until(pilot, lambda: not isinstance(app.screen, ChoiceScreen))
        assert app.is_running
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("1")  # quit, stopping them
        await until(pilot, lambda: not app.is_running)


def test_esc_digit_from_a_real_terminal_switches_tabs(tmp_path: Path) -> None:
    """A terminal sends Alt+2 as ESC 2 (Textual alone reads it as "™")."""
    term = PtyApp(SCRIPTED_AGENT, tmp_path, rows=24, columns=80)
    try:
        term.wait_for(b"is ready")
        term.type(b"echo in the first tab\r")
        term.wait_for(b"in the first tab")
        term.output.clear()
        term.type(b"/new\x1b")  # Esc closes the completion menu
        term.type(b"\r")
        term.wait_for(b"is ready")  # the new tab's welcome
        term.output.clear()
        term.type(b"echo second tab says hi\r")
        term.wait_for(b"second tab says hi")
        term.wait_for("○ ready".encode())  # its turn has ended (else Ctrl+Q would ask)
        term.output.clear()
        term.type(b"\x1b1")
        term.wait_for(b"in the first tab")
        term.type(b"\x11")  # Ctrl+Q: nothing runs, no question
        assert term.wait_gone()
    finally:
        term.kill()


async def test_ctrl_o_filters_the_sessions_and_switches(tmp_path: Path) -> None:
    app = window(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        first = app.tab
        beta = await new_tab(pilot, app, "beta")
        await send(pilot, "echo the beta one")
        await pilot.press("alt+1")
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, SessionSwitcher))
        await pilot.press(*"beta")
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, SessionSwitcher))
        assert app.tab is beta
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, SessionSwitcher))
        await pilot.press("alt+1")  # no switching under a dialog
        assert app.tab is beta
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, SessionSwitcher))
        assert app.tab is beta and first is not beta


async def test_a_click_switches_a_middle_click_closes_after_asking_if_it_runs(
    tmp_path: Path,
) -> None:
    app = window(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        first = app.tab
        second = await new_tab(pilot, app, "beta")
        submit(app, "hang")
        await until(pilot, lambda: second.running)
        bar = app.query_one(SessionBar)
        await pilot.click(SessionBar, offset=(tab_x(bar, 1) + 1, 0))
        assert app.tab is first
        await pilot.click(SessionBar, offset=(tab_x(bar, 2) + 1, 0), button=2)
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("2")  # keep it
        await until(pilot, lambda: not isinstance(app.screen, ChoiceScreen))
        assert len(app.tabs) == 2 and second.running
        await pilot.click(SessionBar, offset=(tab_x(bar, 2) + 1, 0), button=2)
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("1")  # close it, stopping the turn
        await until(pilot, lambda: len(app.tabs) == 1)
        assert app.tab is first


async def test_keys_typed_right_after_a_switch_land_in_the_new_tab(tmp_path: Path) -> None:
    app = window(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await new_tab(pilot, app)
        await pilot.press(*"two")
        await pilot.press("alt+1", *"one", "alt+2", *" more", "alt+1", "!")
        assert app.prompt.text == "one!"
        await pilot.press("alt+2")
        assert app.prompt.text == "two more"


async def test_closing_a_tab_whose_agent_still_starts_stops_the_start(tmp_path: Path) -> None:
    app = window(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        first = app.tab
        app.action_new_tab("stuck")  # session/new is never answered
        stuck = app.tab
        await until(pilot, lambda: stuck.starter.starting)
        group = f"agent-{stuck.key}"
        assert any(w.group == group and not w.is_finished for w in app.workers)
        await send(pilot, "/close")
        assert app.tab is first and len(app.tabs) == 1
        await until(pilot, lambda: all(w.is_finished for w in app.workers if w.group == group))
        await send(pilot, "echo still here")
        await until(pilot, lambda: "still here" in replies(first))


async def test_fork_opens_the_conversation_in_a_new_tab_that_goes_its_own_way(
    tmp_path: Path,
) -> None:
    app = window(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/fork")  # alpha cannot: said, nothing opened
        assert len(app.tabs) == 1
        parent = await new_tab(pilot, app, "forky")
        await send(pilot, "echo said before the fork")
        await until(pilot, lambda: tab_idle(parent) and "before the fork" in replies(parent))
        await send(pilot, "/fork")
        fork = app.tab
        assert fork is not parent and len(app.tabs) == 3
        await until(pilot, lambda: fork.conversation.current is not None)
        assert prompts(fork) == ["echo said before the fork"]
        await until(pilot, lambda: "said before the fork" in screen_text(app))
        await send(pilot, "heard")
        await until(pilot, lambda: tab_idle(fork) and "[" in replies(fork).split("fork ")[-1])
        assert replies(fork).endswith('["echo said before the fork"]')
        assert prompts(parent) == ["echo said before the fork"]
