"""The Textual front end: one screen over the host core.

The app embeds a :class:`~acp_tui.core.host.Host`, attaches one event
channel and renders what the core commits; everything it does to the agent
goes through the host's commands (the same ones the headless server uses).
It keeps presentation state only: the prompt draft, the queue of prompts
typed while a turn runs, which permission dialog is open.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver
from textual.notifications import SeverityLevel
from textual.widgets import TextArea

from acp_tui.core import failures
from acp_tui.core.agent_log import logs_dir
from acp_tui.core.agent_spec import AgentSpec
from acp_tui.core.budget import DEFAULT_BUDGET
from acp_tui.core.channel import ChannelClosed, EventChannel
from acp_tui.core.content_text import clean, one_line
from acp_tui.core.entries import Entry, NoticeEntry
from acp_tui.core.errors import HostError, is_auth_required
from acp_tui.core.events import Event
from acp_tui.core.history_store import HistoryStore
from acp_tui.core.host import Host, load_connection_modules
from acp_tui.core.mentions import PromptCapabilities, build_prompt
from acp_tui.core.timeouts import Timeouts
from acp_tui.ui.clipboard import copy_text
from acp_tui.ui.exit_guard import ExitGuard, run_guarded
from acp_tui.ui.export_command import EXPORT_COMMAND, export_conversation, parse_local_command
from acp_tui.ui.help_topics import help_topics, welcome
from acp_tui.ui.history import PromptHistory, history_path
from acp_tui.ui.log_source import LogSource, Tail
from acp_tui.ui.permission_flow import PermissionFlow
from acp_tui.ui.pickers import SessionCommands, SettingsPicker, session_status
from acp_tui.ui.resume import ResumeFlow, resume_hint
from acp_tui.ui.revive import Revived, revive
from acp_tui.ui.terminal_driver import SafeLinuxDriver
from acp_tui.ui.themes import DEFAULT_THEME, keep_picked_themes, register_themes
from acp_tui.ui.widgets import status_bar
from acp_tui.ui.widgets.entry_log import EntryLog
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.queue_line import QueueLine
from acp_tui.ui.widgets.status_bar import StatusBar, StatusInfo

if TYPE_CHECKING:
    from acp_tui.core.connection import AgentConnection
    from acp_tui.core.session import Session

#: Events handled per batch before the UI gets a turn (keeps it responsive under floods).
EVENT_BATCH = 256
DOUBLE_PRESS_SECONDS = 2.0
#: Below this many rows the plan panel starts folded to one line.
SHORT_SCREEN = 30


class AcpApp(App[int]):
    """acp-tui: a terminal client for one ACP agent."""

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
    ]

    def __init__(
        self,
        spec: AgentSpec,
        *,
        cwd: Path,
        host: Host | None = None,
        extra_roots: list[Path] | None = None,
        theme: str | None = None,
        resume: str | None = None,
        notices: list[str] | None = None,
        prompt_history: PromptHistory | None = None,
    ) -> None:
        super().__init__()
        #: What was sent in this project, kept across runs (ui/history.py).
        self.prompt_history = prompt_history or PromptHistory(path=history_path(cwd))
        #: Start-up warnings (the config file's problems), shown in the log.
        self._startup_notices = list(notices or ())
        #: Resume at start: LATEST, PICK or a session id (see ui/resume.py).
        self.resume = ResumeFlow(self, resume) if resume else None
        self.spec = spec
        self.cwd = cwd
        self.host = host if host is not None else Host(extra_roots=extra_roots or ())
        self.connection: AgentConnection | None = None
        self.session: Session | None = None
        self.source = LogSource()
        self.queued: list[str] = []
        self.permissions = PermissionFlow(self)
        self.settings = SettingsPicker(self)
        self._requested_theme = theme
        self._channel: EventChannel = self.host.attach()
        self._starts: dict[str, int] = {}
        #: Entries at the start of a session's thread that the log does not show.
        self._skips: dict[str, int] = {}
        #: The session whose agent died, to bring back at the next start.
        self._dead: Session | None = None
        #: The prompt handed to the session and not in its log yet.
        self._handing_over: str | None = None
        self._local: list[Entry] | None = None
        self._last_ctrl_c = 0.0
        self._turn_started: float | None = None
        self._starting = False
        #: The last start (open, session/new) failed: the agent is not gone.
        self._start_failed = False
        self._quitting = False
        #: When the user last changed the draft (a dialog opening then waits).
        self.last_typed = 0.0
        self._plan_folded_by_user: bool | None = None
        #: Bounds the quit and ends the process whatever happens (run_tui sets it).
        self.exit_guard: ExitGuard | None = None
        self._ui_loop: asyncio.AbstractEventLoop | None = None
        #: Set once the first frame is on the terminal (Textual's Ready).
        self._painted = asyncio.Event()

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
            self._ui_loop.call_soon_threadsafe(self.call_later, self.action_quit)

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
        yield EntryLog(self.source, id="log")
        yield PlanPanel(id="plan")
        yield QueueLine(id="queue", markup=False)
        yield PromptInput(id="prompt", history=self.prompt_history)
        yield StatusBar(id="status")

    @property
    def log_view(self) -> EntryLog:
        return self.query_one(EntryLog)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    def on_mount(self) -> None:
        names = register_themes(self)
        wanted = self._requested_theme or DEFAULT_THEME
        if wanted not in self.available_themes:
            self.notify(
                f"Unknown theme {wanted!r}; themes: {', '.join(sorted(self.available_themes))}",
                severity="warning",
            )
            wanted = DEFAULT_THEME if DEFAULT_THEME in names else "textual-dark"
        self.theme = wanted
        keep_picked_themes(self, wanted)
        self.prompt.focus()
        for text in self._startup_notices:
            self._notice("warning", text)
        self._ui_loop = asyncio.get_running_loop()
        self._pump_events()
        self._start_agent()
        self.refresh_status()

    def on_ready(self) -> None:
        self._painted.set()

    # -- the agent -----------------------------------------------------------------

    def _notice(self, level: str, text: str) -> None:
        """A message from the app itself (no session to own it)."""
        if self._local is None:
            self._local = []
            self.source.add(self._local)
        self._local.append(NoticeEntry(level=level, text=text))  # type: ignore[arg-type]
        self.log_view.sync()

    @work(exclusive=True, group="agent", exit_on_error=False)
    async def _start_agent(self) -> None:
        self._starting = True
        self._start_failed = False
        self.refresh_status()
        # What only the connection needs (the SDK's schema: ~0.5 s) is loaded
        # after the first frame, in a thread: typing works meanwhile.
        await self._painted.wait()
        await asyncio.to_thread(load_connection_modules)
        connection: AgentConnection | None = None
        try:
            connection, _ = await self.host.open_connection(self.spec, self.cwd)
            resumed, resume = None, self.resume
            shown: Revived | None = None
            if self._dead is not None:
                shown = await revive(self.host, connection, self._dead, self._create_session)
                self._dead = None
                resumed = shown.session
            elif resume is not None:
                self.resume = None  # only at the first start
                resumed = await resume.session(connection)
            session = resumed or await self._create_session(connection)
            if resume is not None and resumed is None:
                await self.host.restore_settings(session, resume.settings)
        except HostError as exc:
            self._starting = False
            self._start_failed = True
            name = connection.agent_name if connection else self.spec.display_name
            self._notice(
                "error",
                failures.describe(
                    f"Could not start {name}: {exc.message}",
                    error=exc,
                    stderr=connection.stderr_tail() if connection else "",
                    log=connection.log_path if connection else None,
                ),
            )
            self.refresh_status()
            return
        self._starting = False
        self.connection = connection
        self.session = session
        self._local = None
        skip = shown.skip if shown is not None else 0
        if shown is not None and shown.replaces is not None:  # carried on: not shown twice
            self.source.remove(shown.replaces.thread.entries)
            self.log_view.reset()
        start = self.source.add(Tail(session.thread.entries, skip))
        self._starts[session.session_id] = start - skip
        self._skips[session.session_id] = skip
        self.log_view.sync()
        self.prompt.set_commands([*session.commands, EXPORT_COMMAND])
        self.prompt.set_file_root(session.cwd)
        self.prompt.set_prompt_capabilities(
            PromptCapabilities.from_init_result(connection.init_result)
        )
        self.query_one(PlanPanel).entries = list(session.plan)
        self.log_view.cwd = str(session.cwd)
        self.log_view.set_empty_message(welcome(self, connection))
        self.refresh_status()
        self._send_next()

    async def _create_session(self, connection: AgentConnection) -> Session:
        """A new session; asks the user to sign in first when the agent requires it."""
        try:
            return await self.host.create_session(connection.connection_id, self.cwd)
        except HostError as exc:
            if not is_auth_required(exc) or not connection.auth_methods:
                raise
            self._notice("warning", f"{self.spec.display_name} asks you to sign in.")
            if not await self.settings.sign_in(connection):
                raise HostError(
                    "agent_error", "not signed in (send a message to try again)"
                ) from None
        return await self.host.create_session(connection.connection_id, self.cwd)

    # -- events from the core -----------------------------------------------------

    @work(group="events", exit_on_error=False)
    async def _pump_events(self) -> None:
        channel = self._channel
        while True:
            try:
                event = await channel.get()
            except ChannelClosed:
                return
            self._handle(event)
            for _ in range(EVENT_BATCH):
                more = channel.get_nowait()
                if more is None:
                    break
                self._handle(more)
            await asyncio.sleep(0)

    def _handle(self, event: Event) -> None:
        session = self.session
        if event.type == "error":
            self.notify(str(event.data.get("message", "error")), severity="error", timeout=8)
            return
        if session is None or event.session_id is None:
            return
        start = self._starts.get(event.session_id)
        if start is None:
            return
        log = self.log_view
        data = event.data
        if data.get("index", 1 << 62) < self._skips.get(event.session_id, 0):
            return  # a replay of what the log shows above
        if event.type == "entry-appended":
            log.sync()
            entry = data["entry"]
            if entry.get("kind") == "user" and self._handing_over is not None:
                self._handing_over = None
                self._show_queue()
            if entry.get("kind") == "assistant" and self._turn_running(event.session_id):
                log.stream(start + data["index"])
        elif event.type == "entry-updated":
            if "textDelta" in data["patch"] and self._turn_running(event.session_id):
                log.stream(start + data["index"])
            else:
                log.entry_changed(start + data["index"])
        elif event.type == "entries-removed":
            log.reset()
        elif event.type == "status-changed":
            self._status_changed(event.session_id, data)
        elif event.type == "permission-requested":
            self.permissions.requested(data["requestId"])
        elif event.type == "permission-resolved":
            self.permissions.resolved(data["requestId"])
        elif event.type == "plan-updated" and event.session_id == session.session_id:
            self.query_one(PlanPanel).entries = list(data.get("entries", []))
        elif event.type == "commands-updated" and event.session_id == session.session_id:
            self.prompt.set_commands([*data.get("availableCommands", []), EXPORT_COMMAND])
        elif event.type in ("mode-changed", "config-updated", "title-updated", "usage-updated"):
            self.refresh_status()

    def _turn_running(self, session_id: str) -> bool:
        return (
            self.session is not None
            and self.session.session_id == session_id
            and (self.session.status == "running")
        )

    def _status_changed(self, session_id: str, data: dict[str, Any]) -> None:
        status = data.get("status")
        if status == "running":
            self._turn_started = status_bar.now()
            # The plan of an earlier turn is not pinned through this one (a
            # plan-updated event of this turn shows it again).
            self.query_one(PlanPanel).entries = []
        else:
            self.log_view.flush_reveals()
            self._turn_started = None
        if status == "error" and data.get("message"):
            self.notify(str(data["message"]), severity="error", timeout=8)
        self.refresh_status()
        if status in ("idle", "error"):
            self._send_next()

    # -- status --------------------------------------------------------------------

    def refresh_status(self) -> None:
        session = self.session
        info = self.connection.init_result.get("agentInfo", {}) if self.connection else {}
        if session is None:
            status = "starting" if self._starting else "failed" if self._start_failed else "closed"
            self.query_one(StatusBar).info = StatusInfo(
                agent=self.spec.display_name, status=status, queued=len(self.queued)
            )
            self._show_queue()
            return
        self.query_one(StatusBar).info = session_status(
            session,
            agent=str(info.get("title") or info.get("name") or self.spec.display_name),
            version=str(info.get("version", "")),
            running_since=self._turn_started,
            queued=len(self.queued),
        )
        self._show_queue()

    def _show_queue(self) -> None:
        self.query_one(QueueLine).show(self.queued, self._handing_over)

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

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        argument = parse_local_command(message.text)
        if argument is not None:
            self.action_export(argument)
            return
        self.queued.append(message.text)
        self.log_view.action_scroll_end()  # sending always shows the newest output
        self.refresh_status()
        self._send_next()

    def _send_next(self) -> None:
        if not self.queued or self._starting:
            return
        session = self.session
        if session is None or session.status == "closed":
            self._restart()
            return
        if session.status == "running":
            return
        text = self.queued.pop(0)
        # Shown until the session takes it in (after a cancel, once the agent settled).
        self._handing_over = text if session.settling else None
        self.refresh_status()
        self._run_prompt(session, text)

    @work(group="prompt", exit_on_error=False)
    async def _run_prompt(self, session: Session, text: str) -> None:
        try:
            # Built here, synchronously: nothing may run between taking the prompt off
            # the queue and the turn starting (a second prompt would race this one).
            built = build_prompt(
                text,
                session.tools.fence,
                self.prompt.prompt_capabilities,
                images=self.prompt.image_attachments,
            )
            for note in built.notes:
                self.notify(note, severity="warning", timeout=8)
            await self.host.prompt(session.session_id, built.blocks)
        except HostError as exc:
            if exc.code not in ("agent_exited", "agent_error"):
                self.notify(exc.message, severity="error", timeout=8)
        finally:
            self._handing_over = None
            self.refresh_status()
            self._send_next()

    def _restart(self) -> None:
        """The agent is gone: start it again, with the same session if it can."""
        if self.session is not None and self.session.status == "closed":
            self._dead = self.session
        self.session = None
        self.connection = None
        self._start_agent()

    # -- actions -------------------------------------------------------------------

    #: Keys for the log that a dialog on top (the permission dialog, a picker,
    #: the help) keeps for itself: its PgUp/PgDn scroll what it shows.
    _LOG_ACTIONS = frozenset({"log_page", "log_home", "log_end", "cycle_mode"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self._LOG_ACTIONS and len(self.screen_stack) > 1:
            return False
        return super().check_action(action, parameters)

    async def action_quit(self) -> None:
        if self._quitting:
            return
        self._quitting = True
        if self.exit_guard is not None:
            self.exit_guard.trigger()  # bounds the quit
        # Nothing more to draw: the loop is free for the shutdown (a flood
        # would keep it rendering) and the agents are no longer held back.
        self.host.detach(self._channel)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.host.shutdown(), 5)
        self.exit(0)

    async def action_clear_or_quit(self) -> None:
        """Ctrl+C: clear the draft; else cancel the running turn; else, pressed
        twice on an idle, empty prompt, quit (never in the middle of a turn)."""
        now = time.monotonic()
        self._last_ctrl_c, last = 0.0, self._last_ctrl_c
        if self.prompt.text:
            self.prompt.clear_draft()
            return
        session = self.session
        if session is not None and session.status == "running":
            await self.action_cancel_turn()
            return
        if now - last < DOUBLE_PRESS_SECONDS:
            self.call_later(self.action_quit)
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl+C again to quit", timeout=DOUBLE_PRESS_SECONDS)

    async def action_cancel_turn(self) -> None:
        session = self.session
        if session is None or session.status != "running":
            return
        if session.turn is not None and session.turn.cancel_requested:
            return  # already cancelling
        self.notify("Cancelling the turn…", timeout=3)
        with contextlib.suppress(HostError):
            await self.host.cancel(session.session_id)

    async def action_cycle_mode(self) -> None:
        session = self.session
        if session is None or not session.modes:
            self.notify("This agent has no modes", severity="warning", timeout=3)
            return
        modes = [m.get("id") for m in session.modes.get("availableModes", [])]
        if not modes:
            return
        current = session.modes.get("currentModeId")
        following = modes[(modes.index(current) + 1) % len(modes)] if current in modes else modes[0]
        try:
            await self.host.set_mode(session.session_id, str(following))
        except HostError as exc:
            self.notify(exc.message, severity="error")
        self.refresh_status()

    def action_choose_config(self, config_id: str) -> None:
        """Pick a value of one of the agent's config options (the model…)."""
        self.settings.choose_config(config_id)

    def action_export(self, argument: str = "") -> None:
        """``/export [path]``: the conversation as a Markdown file."""
        export_conversation(self, argument)

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
        plan = self.query_one(PlanPanel)
        plan.folded = not plan.folded
        self._plan_folded_by_user = plan.folded

    def on_resize(self, event: events.Resize) -> None:
        # Short terminals keep the plan to one line unless the user unfolded it.
        if self._plan_folded_by_user is None:
            self.query_one(PlanPanel).folded = event.size.height < SHORT_SCREEN

    def action_focus_log(self) -> None:
        self.log_view.focus()

    def action_help(self) -> None:
        from acp_tui.ui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(help_topics(self)))

    def on_prompt_input_help_requested(self, message: PromptInput.HelpRequested) -> None:
        self.action_help()

    def on_prompt_input_follow_requested(self, message: PromptInput.FollowRequested) -> None:
        self.action_log_end()

    def on_entry_log_copy_requested(self, message: EntryLog.CopyRequested) -> None:
        where = copy_text(self, message.text)
        self.notify(f"Copied {message.what} to {where}", timeout=3)

    async def on_unmount(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.host.shutdown(), 5)


def run_tui(
    spec: AgentSpec,
    *,
    cwd: Path,
    extra_roots: list[Path],
    theme: str | None,
    resume: str | None = None,
    history: HistoryStore | None = None,
    notices: list[str] | None = None,
    timeouts: Timeouts | None = None,
    text_budget: int = DEFAULT_BUDGET,
) -> int:
    host = Host(
        extra_roots=extra_roots,
        history=history,
        timeouts=timeouts,
        text_budget=text_budget,
        logs=logs_dir(),
    )
    app = AcpApp(spec, cwd=cwd, host=host, theme=theme, resume=resume, notices=notices)
    code = run_guarded(app)
    # Only after a normal quit: after a signal or a lost terminal nobody may
    # be reading it (a write could block).
    hint = resume_hint(app.spec, app.session, cwd, app.connection) if code == 0 else None
    if hint:
        with contextlib.suppress(OSError):
            print(hint, flush=True)
    return code
