"""The Textual front end: one screen over a host.

The app talks to the host through a :class:`~acp_tui.ui.host_link.HostLink`
(by default :class:`~acp_tui.ui.local_host.LocalHost`, over a host it embeds):
it attaches one event channel and renders its own view of each session,
built from a snapshot and the events after it (ui/conversation.py,
ui/event_dispatch.py); everything it does to the agent goes through the
link's commands (the ones the headless server uses). The flows live in
their own modules and see the app only as a :class:`~acp_tui.ui.surface.Surface`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, work
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import ContentSwitcher, TextArea

from acp_tui.agents import presets
from acp_tui.agents.config_notifications import NotificationSettings
from acp_tui.core import EventChannel, Host, SessionView, clean, one_line
from acp_tui.ui.attention import Attention
from acp_tui.ui.clipboard import copy_text
from acp_tui.ui.event_pump import pump_events
from acp_tui.ui.exit_guard import ExitGuard
from acp_tui.ui.export_command import export_conversation
from acp_tui.ui.help_topics import help_topics
from acp_tui.ui.history import PromptHistory, history_path
from acp_tui.ui.host_link import HostLink
from acp_tui.ui.input_first import InputFirstApp
from acp_tui.ui.local_commands import LocalCommands
from acp_tui.ui.local_host import LocalHost
from acp_tui.ui.log_source import LogSource
from acp_tui.ui.logout_command import log_out
from acp_tui.ui.mcp_command import show_mcp_servers
from acp_tui.ui.pickers import SessionCommands, session_status
from acp_tui.ui.render import ThemePalette
from acp_tui.ui.rewind_flow import run_editor
from acp_tui.ui.session_tab import SessionTab
from acp_tui.ui.tab_window import TAB_ACTIONS, TabWindow
from acp_tui.ui.tabs import Tabs
from acp_tui.ui.terminal_driver import SafeLinuxDriver
from acp_tui.ui.themes import keep_picked_themes, start_theme
from acp_tui.ui.widgets.entry_log import EntryLog
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.queue_line import QueueLine
from acp_tui.ui.widgets.session_bar import SessionBar
from acp_tui.ui.widgets.status_bar import StatusBar, StatusInfo

if TYPE_CHECKING:
    from acp_tui.core import AgentConnection, AgentSpec, Session

#: Events and characters of text queued for the screen before the agent waits.
EVENTS_QUEUED = 1024
TEXT_QUEUED = 64 * 1024
DOUBLE_PRESS_SECONDS = 2.0
#: Below this many rows the plan panel starts folded to one line.
SHORT_SCREEN = 30


class AcpApp(InputFirstApp, TabWindow):
    """acp-tui: a terminal client for ACP agents, several sessions in one window."""

    CSS_PATH = "app.tcss"
    TITLE = "acp-tui"
    ENABLE_COMMAND_PALETTE = True
    COMMANDS = App.COMMANDS | {SessionCommands}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+c", "clear_or_quit", "Clear / quit", priority=True, show=False),
        Binding("escape", "cancel_turn", "Cancel turn", show=False),
        Binding("shift+tab", "cycle_mode", "Next mode", priority=True, show=False),
        Binding("pageup", "log_page(-1)", "Page up", priority=True, show=False),
        Binding("pagedown", "log_page(1)", "Page down", priority=True, show=False),
        Binding("ctrl+home", "log_home", "Top", priority=True, show=False),
        Binding("ctrl+end", "log_end", "Bottom", priority=True, show=False),
        Binding("ctrl+t", "toggle_plan", "Plan", show=False),
        Binding("ctrl+l", "focus_log", "Log", show=False),
        Binding("f1", "help", "Help", priority=True, show=False),
        Binding("ctrl+o", "switcher", "Sessions", priority=True, show=False),
        Binding("ctrl+n", "next_needs_you", "Needs you", priority=True, show=False),
        *(
            Binding(f"alt+{n}", f"switch_tab({n})", f"Session {n}", priority=True, show=False)
            for n in range(1, 10)
        ),
    ]

    def __init__(
        self,
        spec: AgentSpec,
        *,
        cwd: Path,
        host: Host | None = None,
        link: HostLink | None = None,
        extra_roots: list[Path] | None = None,
        theme: str | None = None,
        resume: str | None = None,
        notices: list[str] | None = None,
        prompt_history: PromptHistory | None = None,
        notifications: NotificationSettings | None = None,
        resolve_agent: Callable[[str], AgentSpec] | None = None,
        attach: str | None = None,
        background: Callable[[], HostLink] | None = None,
        detaches: Callable[[str], bool] | None = None,
    ) -> None:
        super().__init__()
        #: What was sent in this project, kept across runs (ui/history.py).
        self.prompt_history = prompt_history or PromptHistory(path=history_path(cwd))
        #: Start-up warnings (the config file's problems), shown in the log.
        self._startup_notices = list(notices or ())
        self.spec = spec
        self.cwd = cwd
        if link is None:
            host = host if host is not None else Host(extra_roots=extra_roots or ())
            host.terminal_auth = True  # (the app can hand the terminal to a sign-in)
            link = LocalHost(host)
        #: The host in this process, when the app runs one (the exit hint and
        #: tests read its sessions; the screen never does).
        self.host = host
        self.link: HostLink = link
        #: Makes the link to the background host for tabs that run there in a
        #: window of this process (``[host] detach = ["claude"]``).
        self._background = background
        #: Whether an agent's sessions run in the background host (the config's).
        self.detaches = detaches or (lambda name: False)
        #: The window's other link (the background host's), with its channel.
        self._other: tuple[HostLink, EventChannel] | None = None
        #: The sessions of the window, one tab each (ui/tabs.py).
        self.tabs = Tabs()
        self.tabs.add(self.make_tab(spec, resume=resume, attach=attach))
        #: Finds the agent ``/new AGENT`` names (the config's, else a preset).
        self.resolve_agent = resolve_agent or presets.resolve
        self.local = LocalCommands(
            export=self.action_export,
            mcp=lambda: show_mcp_servers(
                self.tab.surface, self.tab.link, self.conversation.current
            ),
            logout=lambda: self.tab.surface.in_background(
                log_out(self.tab.surface, self.tab.link, self.conversation), "logout"
            ),
            checkpoints=lambda command: self.tab.rewind.command(command),
            shell=self._run_shell,
            new_tab=self.action_new_tab,
            resume_tab=self.action_resume_tab,
            fork_tab=self.action_fork_tab,
            close_tab=self.action_close_tab,
        )
        #: The bell, desktop notifications and the window title (ui/attention.py).
        self.attention = Attention(
            self._write_terminal,
            self.bell,
            queued=self._queued_in,
            settings=notifications,
        )
        #: A theme the user asked for that does not exist (shown once mounted).
        self._theme_warning = start_theme(self, theme)
        # What the screen is behind by is bounded: past it the core stops
        # reading the agent, rather than parsing a whole flood ahead of the screen.
        self._channel: EventChannel = link.attach(EVENTS_QUEUED, TEXT_QUEUED)
        self.input_first.add(self._channel)
        self._last_ctrl_c = 0.0
        self._last_escape_at = 0.0
        self._quitting = False
        #: When the user last changed the draft (a dialog opening then waits).
        self.last_typed = 0.0
        self._plan_folded_by_user: bool | None = None
        #: Bounds the quit and ends the process whatever happens (run_tui sets it).
        self.exit_guard: ExitGuard | None = None
        self._ui_loop: asyncio.AbstractEventLoop | None = None
        #: Set once the first frame is on the terminal (Textual's Ready).
        self._painted = asyncio.Event()

    def make_tab(
        self,
        spec: AgentSpec,
        *,
        resume: str | None = None,
        fork: str | None = None,
        attach: str | None = None,
        link: HostLink | None = None,
    ) -> SessionTab:
        return SessionTab(
            self,
            link or self.link,
            spec,
            self.cwd,
            resume=resume,
            fork=fork,
            attach=attach,
        )

    def link_for(self, detach: bool) -> HostLink:
        """The link a new tab's session goes through: the background host's
        when ``detach`` (made at the first such tab), else this window's."""
        if detach == self.link.detachable or self._background is None:
            return self.link
        if self._other is None:
            other = self._background()
            channel = other.attach(EVENTS_QUEUED, TEXT_QUEUED)
            self.input_first.add(channel)
            self._other = (other, channel)
            self._pump_events(channel, other)
        return self._other[0]

    @property
    def links(self) -> list[HostLink]:
        return [self.link] + ([self._other[0]] if self._other is not None else [])

    # -- what tests and the exit hint read -------------------------------------------

    @property
    def source(self) -> LogSource:
        return self.conversation.source

    @property
    def queued(self) -> list[str]:
        return self.turns.queued

    @property
    def view(self) -> SessionView | None:
        """The current session as the screen knows it."""
        return self.conversation.current

    @property
    def session(self) -> Session | None:
        """The host's record of the current session (tests, the exit hint)."""
        view = self.conversation.current
        return self.host.sessions.get(view.session_id) if view and self.host else None

    @property
    def connection(self) -> AgentConnection | None:
        """The host's connection to the current agent (tests)."""
        agent = self.conversation.agent
        return self.host.connections.get(agent.connection_id) if agent and self.host else None

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        return SafeLinuxDriver if driver is LinuxDriver else driver

    def terminal_lost(self) -> None:
        """The driver's output failed: the terminal is gone (any thread)."""
        if self.exit_guard is not None:
            self.exit_guard.terminal_lost()

    def quit_threadsafe(self) -> None:
        """Quit the normal way, from another thread (the exit guard's)."""
        if self._ui_loop is not None:
            self._ui_loop.call_soon_threadsafe(self.call_later, self.quit_now)

    def restore_terminal_now(self) -> None:
        if isinstance(self._driver, SafeLinuxDriver):
            self._driver.restore_now()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every toast, whatever asks for it: its text often quotes an agent
        (an error it answered), so it is cleaned and never read as markup."""
        super().notify(
            clean(message), title=one_line(title), severity=severity, timeout=timeout, markup=False
        )

    # -- layout ------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield SessionBar(id="sessions")
        first = self.tab.pane
        with ContentSwitcher(id="panes", initial=first.id):
            yield first
        yield PromptInput(id="prompt", history=self.prompt_history)
        yield StatusBar(id="status")

    @property
    def log_view(self) -> EntryLog:
        return self.tab.log

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def plan_panel(self) -> PlanPanel:
        return self.tab.plan

    @property
    def queue_line(self) -> QueueLine:
        return self.tab.queue

    def on_mount(self) -> None:
        if self._theme_warning:
            self.notify(self._theme_warning, severity="warning")
        keep_picked_themes(self, self.theme)
        self.prompt.focus()
        self.prompt.set_queue_recall(lambda: self.turns.take_last())
        for text in self._startup_notices:
            self.starter.notice("warning", text)
        self._ui_loop = asyncio.get_running_loop()
        self._pump_events(self._channel, self.link)
        self.tab.start()
        self.refresh_status()

    def on_ready(self) -> None:
        if not gc.isenabled():  # (off while the program started: cli.py)
            gc.freeze()
            gc.enable()
        self._painted.set()

    # -- the surface the flows use (ui/surface.py) ---------------------------------

    async def painted(self) -> None:
        await self._painted.wait()

    @property
    def palette(self) -> ThemePalette:
        return ThemePalette(self.theme_variables, self.current_theme.dark)

    @property
    def typed_at(self) -> float:
        return self.last_typed

    def toast(
        self, message: str, *, severity: SeverityLevel = "information", timeout: float | None = None
    ) -> None:
        self.notify(message, severity=severity, timeout=timeout)

    def open_dialog(self, screen: Screen[Any], on_close: Callable[[Any], None]) -> None:
        self.push_screen(screen, on_close)

    def close_dialog(self, screen: Screen[Any]) -> None:
        if screen.is_active or screen in self.screen_stack:
            screen.dismiss(None)

    async def ask(self, screen: Screen[Any]) -> Any:
        return await self.push_screen_wait(screen)

    def in_background(
        self, work: Coroutine[Any, Any, Any], group: str, *, exclusive: bool = False
    ) -> None:
        self.run_worker(work, group=group, exclusive=exclusive, exit_on_error=False)

    # -- events from the core -----------------------------------------------------

    @work(group="events", exit_on_error=False)
    async def _pump_events(self, channel: EventChannel, link: HostLink) -> None:
        await pump_events(
            channel, lambda event: self.route(event, link), input_first=self.input_first
        )

    def on_app_focus(self) -> None:
        self.attention.focus_changed(True)

    def on_app_blur(self) -> None:
        self.attention.focus_changed(False)

    def _write_terminal(self, sequence: str) -> None:
        """Write an escape sequence of acp-tui's own (never an agent's text)."""
        driver = self._driver
        if driver is not None and not self._quitting:
            driver.write(sequence)
            driver.flush()

    # -- status --------------------------------------------------------------------

    def refresh_status(self) -> None:
        view, agent = self.conversation.current, self.conversation.agent
        queued = len(self.turns.queued)
        if view is None or agent is None:
            starter = self.starter
            status = "starting" if starter.starting else "failed" if starter.failed else "closed"
            info = StatusInfo(agent=self.tab.spec.display_name, status=status, queued=queued)
        else:
            info = session_status(
                view,
                agent=agent.title(self.tab.spec.display_name),
                version=str(agent.info.get("version", "")),
                running_since=self.turns.started_at,
                queued=queued,
            )
        self.query_one(StatusBar).info = info
        self.turns.show_queue()
        self.refresh_bar()

    # -- prompts -------------------------------------------------------------------

    def on_text_area_changed(self, message: TextArea.Changed) -> None:
        if message.text_area is self.prompt:
            self.last_typed = time.monotonic()
            self._show_follow_key()

    def on_descendant_focus(self) -> None:
        self._show_follow_key()

    def _show_follow_key(self) -> None:
        """The "new output" hint names a key that works where the focus is."""
        log = self.log_view
        key = "End" if log.has_focus or not self.prompt.text else "Ctrl+End"
        if log.follow_key != key:
            log.follow_key = key
            log.refresh()

    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        if self.local.handle(message.text):
            return
        self.log_view.action_scroll_end()  # sending always shows the newest output
        if message.steer:
            await self.turns.steer(message.text)
        else:
            self.turns.submit(message.text)

    def _run_shell(self, command: str) -> None:
        self.log_view.action_scroll_end()
        self.shell.run(command)

    # -- actions -------------------------------------------------------------------

    #: Keys for the log that a dialog on top (the permission dialog, a picker,
    #: the help) keeps for itself: its PgUp/PgDn scroll what it shows.
    #: Nor does a tab switch happen under one: the dialog belongs to the tab shown.
    _LOG_ACTIONS = frozenset({"log_page", "log_home", "log_end", "cycle_mode", *TAB_ACTIONS})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self._LOG_ACTIONS and len(self.screen_stack) > 1:
            return False
        return super().check_action(action, parameters)

    async def action_quit(self) -> None:
        """Ctrl+Q: quit; with sessions of several tabs running, after asking once."""
        question = self.quit_question() if len(self.screen_stack) == 1 else None
        if question is None or self._quitting:
            await self.quit_now()
            return

        async def answered(value: str | None) -> None:
            if value == "quit":
                for link in self.links:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(link.end_sessions(), 10)
            if value in ("quit", "detach"):
                await self.quit_now()

        self.push_screen(question, answered)

    async def quit_now(self) -> None:
        if self._quitting:
            return
        self._quitting = True
        if self.exit_guard is not None:
            self.exit_guard.trigger()  # bounds the quit
        # Nothing more to draw: the loop is free for the shutdown (a flood
        # would keep it rendering) and the agents are no longer held back.
        self.link.detach(self._channel)
        if self._other is not None:
            self._other[0].detach(self._other[1])
        await self._shutdown_links()
        self.exit(0)

    async def _shutdown_links(self) -> None:
        for link in self.links:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(link.shutdown(), 5)

    async def action_clear_or_quit(self) -> None:
        """Ctrl+C: clear the draft; else cancel the running turn; else, pressed
        twice on an idle, empty prompt, quit (never in the middle of a turn)."""
        now = time.monotonic()
        self._last_ctrl_c, last = 0.0, self._last_ctrl_c
        if self.prompt.text:
            self.prompt.clear_draft()
            return
        if self.turns.running:
            await self.turns.cancel()
            return
        if await self.shell.stop():
            return
        if now - last < DOUBLE_PRESS_SECONDS:
            self.call_later(self.action_quit)
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl+C again to quit", timeout=DOUBLE_PRESS_SECONDS)

    async def action_cancel_turn(self) -> None:
        """Esc: cancel the running turn; pressed twice on an idle, empty
        prompt, rewind (as in Claude Code)."""
        if self.turns.running:
            await self.turns.cancel()
            return
        if await self.shell.stop():
            return
        now = time.monotonic()
        if not self.prompt.text and now - self._last_escape_at < DOUBLE_PRESS_SECONDS:
            self.rewind.command("rewind")
            now = 0.0
        self._last_escape_at = now

    def on_entry_log_entry_action(self, message: EntryLog.EntryAction) -> None:
        if message.action == "drop":
            self.shell.drop(message.entry)
        else:
            self.rewind.entry_action(message.index, message.entry, message.action)

    def run_outside(self, argv: list[str], env: dict[str, str] | None = None) -> int | None:
        try:
            with self.suspend():
                return run_editor(argv, env)
        except SuspendNotSupported:
            return None

    async def action_cycle_mode(self) -> None:
        await self.settings.cycle_mode()

    def action_choose_config(self, config_id: str) -> None:
        """Pick a value of one of the agent's config options (the model…)."""
        self.settings.choose_config(config_id)

    def action_export(self, argument: str = "") -> None:
        """``/export [path]``: the conversation as a Markdown file."""
        agent = self.conversation.agent
        shown = (agent.info or agent.name) if agent else self.spec.display_name
        export_conversation(self, self.conversation.current, shown, argument)

    def action_choose_mode(self) -> None:
        self.settings.choose_mode()

    def action_log_page(self, direction: int) -> None:
        log = self.log_view
        if direction < 0:
            log.action_page_up()
        else:
            log.action_page_down()

    def action_log_home(self) -> None:
        self.log_view.action_scroll_home()

    def action_log_end(self) -> None:
        self.log_view.action_scroll_end()

    def action_toggle_plan(self) -> None:
        folded = not self.plan_panel.folded
        for tab in self.tabs:
            tab.plan.folded = folded
        self._plan_folded_by_user = folded

    def on_resize(self, event: events.Resize) -> None:
        # Short terminals keep the plan to one line unless the user unfolded it.
        if self._plan_folded_by_user is None:
            for tab in self.tabs:
                tab.plan.folded = event.size.height < SHORT_SCREEN

    def action_focus_log(self) -> None:
        self.log_view.focus()

    def action_help(self) -> None:
        from acp_tui.ui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            topics = help_topics(
                self.prompt.commands, self.conversation.agent, self.link.history_root
            )
            self.push_screen(HelpScreen(topics))

    def on_prompt_input_help_requested(self, message: PromptInput.HelpRequested) -> None:
        self.action_help()

    def on_prompt_input_follow_requested(self, message: PromptInput.FollowRequested) -> None:
        self.action_log_end()

    def on_entry_log_copy_requested(self, message: EntryLog.CopyRequested) -> None:
        where = copy_text(self, message.text)
        self.notify(f"Copied {message.what} to {where}", timeout=3)

    async def on_unmount(self) -> None:
        await self._shutdown_links()

    def kill_agents_now(self) -> None:
        for link in self.links:
            link.kill_all_now()

    def agents_gone(self) -> bool:
        return all(link.agents_gone() for link in self.links)
