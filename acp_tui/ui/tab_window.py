"""The app as a window of several sessions: tabs, switching, opening and closing.

A mixin of :class:`~acp_tui.ui.app.AcpApp`. Every session has a tab
(session_tab.py) in the bar at the top (widgets/session_bar.py) and a pane
of its own; the prompt and the status line are shared and show the current
tab's. What the flows and the tests called "the" conversation, turns,
starter… is the current tab's.

Keys: Alt+1…Alt+9 switch to tab N, Ctrl+O opens the switcher, Ctrl+N goes
to the session that has waited for you longest. Switching happens within
the key's handler, so the next key already lands in the new tab's draft;
it shows a pane that is already laid out (one frame, whatever its length).
A background session's dialogs wait until their tab is shown
(tab_surface.py). ``/new [AGENT]`` opens a tab, ``/resume [ID]`` opens an
earlier session in one, ``/close`` closes one: the
host closes the session (``session/close`` when the agent has it, else its
turn is cancelled) and reaps the agent when no tab uses it any more.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.widgets import ContentSwitcher

from acp_tui.core import HostError, can_fork
from acp_tui.ui.attention import EVENTS as ATTENTION_EVENTS
from acp_tui.ui.resume import PICK
from acp_tui.ui.session_tab import SessionTab
from acp_tui.ui.tabs import Tabs
from acp_tui.ui.widgets.session_bar import SessionBar

if TYPE_CHECKING:
    from pathlib import Path

    from acp_tui.core import AgentSpec, Event
    from acp_tui.ui.agent_start import AgentStart
    from acp_tui.ui.attention import Attention
    from acp_tui.ui.conversation import Conversation
    from acp_tui.ui.elicitation_flow import ElicitationFlow
    from acp_tui.ui.event_dispatch import EventDispatch
    from acp_tui.ui.host_link import HostLink
    from acp_tui.ui.permission_flow import PermissionFlow
    from acp_tui.ui.pickers import SettingsPicker
    from acp_tui.ui.rewind_flow import RewindFlow
    from acp_tui.ui.shell_flow import ShellFlow
    from acp_tui.ui.turns import Turns
    from acp_tui.ui.widgets.prompt_input import PromptInput

#: Actions that switch tabs: not while a dialog is open (it belongs to the tab shown).
TAB_ACTIONS = frozenset({"switch_tab", "switcher", "next_needs_you"})


class TabWindow(App[int]):
    tabs: Tabs
    link: HostLink
    cwd: Path
    attention: Attention
    resolve_agent: Callable[[str], AgentSpec]
    detaches: Callable[[str], bool]

    @property
    def prompt(self) -> PromptInput:
        raise NotImplementedError

    def refresh_status(self) -> None:
        raise NotImplementedError

    # -- the current tab's parts (what the app's flows and the tests use) ---------------

    @property
    def tab(self) -> SessionTab:
        return self.tabs.current

    @property
    def conversation(self) -> Conversation:
        return self.tab.conversation

    @property
    def turns(self) -> Turns:
        return self.tab.turns

    @property
    def starter(self) -> AgentStart:
        return self.tab.starter

    @property
    def permissions(self) -> PermissionFlow:
        return self.tab.permissions

    @property
    def elicitations(self) -> ElicitationFlow:
        return self.tab.elicitations

    @property
    def settings(self) -> SettingsPicker:
        return self.tab.settings

    @property
    def rewind(self) -> RewindFlow:
        return self.tab.rewind

    @property
    def shell(self) -> ShellFlow:
        return self.tab.shell

    @property
    def events(self) -> EventDispatch:
        return self.tab.events

    # -- what a tab's surface asks (tab_surface.Window) ---------------------------------

    def is_current(self, key: str) -> bool:
        return self.tabs.current.key == key

    def tab_changed(self, key: str) -> None:
        if self.is_current(key):
            self.refresh_status()  # (the bar too)
        else:
            self.refresh_bar()

    def refresh_bar(self) -> None:
        with contextlib.suppress(Exception):  # (not composed yet, or torn down)
            self.query_one(SessionBar).tabs = self.tabs.infos()

    # -- events -----------------------------------------------------------------------------

    def route(self, event: Event, link: HostLink | None = None) -> None:
        """``event`` (of ``link``'s host) to the tab it belongs to (host-wide
        ones: the window's)."""
        if event.type == "needs-you":
            self.tabs.needs_you(event.data, link)
            self.refresh_bar()
            return
        if event.type == "error" and event.session_id is None:
            self.tab.handle(event, current=True)  # a toast
            return
        tab = self.tabs.owner(event, link)
        if tab is None:
            return
        current = tab is self.tabs.current
        if event.type in ATTENTION_EVENTS:  # (not per chunk: the agent's name is cleaned)
            self.attention.on_event(event, tab.agent_name, background=not current)
        unread = tab.unread
        tab.handle(event, current=current)
        if tab.unread != unread:
            self.refresh_bar()

    def _queued_in(self, session_id: str) -> bool:
        """Whether a prompt of ``session_id``'s tab waits to be sent."""
        return any(tab.holds(session_id) and tab.turns.queued for tab in self.tabs)

    # -- switching ---------------------------------------------------------------------------

    def select_tab(self, tab: SessionTab) -> None:
        """Show ``tab``: its pane, its draft, its status, its waiting dialogs."""
        old = self.tabs.current
        if tab is not old:
            old.surface.prompt.leave(self.prompt)
            self.tabs.select(tab)
            self.query_one("#panes", ContentSwitcher).current = tab.pane.id
            tab.surface.prompt.enter(self.prompt)
            tab.log.refresh()
        tab.unread = False
        self.refresh_status()
        self.prompt.focus()
        tab.surface.open_waiting()

    def action_switch_tab(self, number: int) -> None:
        tab = self.tabs.by_number(number)
        if tab is not None:
            self.select_tab(tab)

    def action_next_needs_you(self) -> None:
        tab = self.tabs.next_needing_you()
        if tab is None:
            self.notify("No other session needs you", timeout=3)
        else:
            self.select_tab(tab)

    def action_switcher(self) -> None:
        from acp_tui.ui.screens.session_switcher import SessionSwitcher

        def chosen(number: int | None) -> None:
            if number is not None:
                self.action_switch_tab(number)

        self.push_screen(SessionSwitcher(self.tabs.infos()), chosen)

    def on_session_bar_clicked(self, message: SessionBar.Clicked) -> None:
        tab = self.tabs.by_number(message.number)
        if tab is None:
            return
        if message.button == 2:
            self.close_tab(tab, confirm=True)
        else:
            self.select_tab(tab)

    # -- opening and closing ------------------------------------------------------------------

    def make_tab(
        self,
        spec: AgentSpec,
        *,
        resume: str | None = None,
        fork: str | None = None,
        attach: str | None = None,
        link: HostLink | None = None,
    ) -> SessionTab:
        raise NotImplementedError

    def link_for(self, detach: bool) -> HostLink:
        raise NotImplementedError

    def open_tab(
        self,
        spec: AgentSpec,
        *,
        resume: str | None = None,
        fork: str | None = None,
        link: HostLink | None = None,
    ) -> SessionTab:
        tab = self.make_tab(spec, resume=resume, fork=fork, link=link)
        tab.plan.folded = self.tab.plan.folded  # (folded on short screens, or as the user chose)
        self.tabs.add(tab)
        self.query_one("#panes", ContentSwitcher).mount(tab.pane)
        tab.start()
        self.select_tab(tab)
        return tab

    def action_new_tab(self, agent: str = "") -> None:
        """``/new [AGENT]``: a new session of AGENT (default: the current tab's)."""
        spec = self.tab.spec
        if agent:
            try:
                spec = self.resolve_agent(agent)
            except Exception as exc:  # KeyError (no such agent), AgentNotFound
                message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
                self.notify(f"/new: {message}", severity="error", timeout=8)
                return
        # In the background host when this window's sessions are, or the
        # config says so for that agent (a window may hold both kinds).
        detach = self.link.detachable or self.detaches(agent or self.tab.spec.name)
        self.open_tab(spec, link=self.link_for(detach) if agent else self.tab.link)

    def action_resume_tab(self, session_id: str = "") -> None:
        """``/resume [ID]``: an earlier session of this tab's agent, in a new
        tab (chosen from the agent's list when no id is given)."""
        self.open_tab(self.tab.spec, resume=session_id or PICK, link=self.tab.link)

    def action_fork_tab(self) -> None:
        """``/fork``: this session forked (``session/fork``), in a new tab that
        starts from its conversation; the agent must offer it."""
        tab = self.tab
        agent = tab.conversation.agent
        if tab.session_id is None or agent is None:
            self.notify("/fork: no session to fork yet", severity="warning", timeout=4)
            return
        if not can_fork(agent.capabilities):
            self.notify(f"/fork: {agent.name} cannot fork sessions", severity="warning", timeout=6)
            return
        self.open_tab(tab.spec, fork=tab.session_id, link=tab.link)  # the same host

    def action_close_tab(self) -> None:
        self.close_tab(self.tab, confirm=False)

    def close_tab(self, tab: SessionTab, *, confirm: bool) -> None:
        if len(self.tabs) == 1:
            self.notify("The last session: Ctrl+Q quits", timeout=4)
            return
        if confirm and tab.running:
            from acp_tui.ui.screens.choice import Choice, ChoiceScreen

            def answered(value: str | None) -> None:
                if value == "close":
                    self.close_tab(tab, confirm=False)

            choices = [Choice("close", "Close it, stopping the turn"), Choice("keep", "Keep it")]
            title = f"Session {self.tabs.number(tab)} ({tab.agent_name}) is running"
            self.push_screen(ChoiceScreen(title, choices), answered)
            return
        # A start still on its way stops here: no session opens for a closed tab.
        self.workers.cancel_group(self, f"agent-{tab.key}")
        if tab is self.tabs.current:
            self.select_tab(self.tabs.neighbour(tab))
        self.tabs.remove(tab)
        tab.surface.close_waiting()
        tab.pane.remove()
        self.refresh_bar()
        self.run_worker(self._end_session(tab), group="close", exit_on_error=False)

    async def _end_session(self, tab: SessionTab) -> None:
        session_id = tab.session_id
        if session_id is not None:
            with contextlib.suppress(HostError):
                await tab.link.close_session(session_id)

    # -- quitting -------------------------------------------------------------------------------

    def running_tabs(self) -> list[SessionTab]:
        return [tab for tab in self.tabs if tab.running]

    def quit_question(self) -> Any:
        """The question "quit with sessions running?" (None: none runs); on a
        background host, "detach or end them?" whenever a session is open."""
        from acp_tui.ui.screens.choice import Choice, ChoiceScreen

        held = [t for t in self.tabs if t.link.detachable and t.session_id is not None]
        if held:
            count = f"{len(held)} sessions run" if len(held) > 1 else "The session runs"
            return ChoiceScreen(
                f"{count} in the background host",
                [
                    Choice("detach", "Detach: they go on (acp-tui attach comes back)"),
                    Choice("quit", "Quit, ending them"),
                    Choice("stay", "Stay"),
                ],
            )
        running = self.running_tabs()
        if len(self.tabs) < 2 or not running:
            return None

        names = ", ".join(
            f"{self.tabs.number(tab)} {tab.agent_name}"
            + (f" ({tab.title[:30]})" if tab.title else "")
            for tab in running
        )
        choices = [Choice("quit", "Quit, stopping them"), Choice("stay", "Stay")]
        count = f"{len(running)} sessions are" if len(running) > 1 else "A session is"
        return ChoiceScreen(f"{count} running: {names}", choices)
