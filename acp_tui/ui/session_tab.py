"""One session in the window: its own view, flows, widgets and draft.

Every session tab has what one conversation needs: the app's view of it
(conversation.py), its prompts (turns.py), its agent's start, permissions,
questions, pickers, rewind and ``!`` commands, and a pane of its own with
its log, plan and queue line (shown while the tab is current, kept with
their scroll position and follow state while it is not). The flows see the
tab's surface (tab_surface.py), never the app. Tabs are numbered by their
place in the bar (tabs.py); their ``key`` never changes.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from textual.containers import Vertical

from acp_tui.core import Event, HostError, UserEntry, one_line
from acp_tui.ui.agent_start import AgentStart
from acp_tui.ui.conversation import Conversation
from acp_tui.ui.elicitation_flow import ElicitationFlow
from acp_tui.ui.event_dispatch import EventDispatch
from acp_tui.ui.permission_flow import PermissionFlow
from acp_tui.ui.pickers import SettingsPicker
from acp_tui.ui.resume import ResumeFlow
from acp_tui.ui.rewind_flow import RewindFlow
from acp_tui.ui.shell_flow import ShellFlow
from acp_tui.ui.tab_surface import TabSurface, Window
from acp_tui.ui.turns import Turns
from acp_tui.ui.widgets.entry_log import EntryLog
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.queue_line import QueueLine

if TYPE_CHECKING:
    from acp_tui.core import AgentSpec, Event
    from acp_tui.ui.host_link import HostLink

TabState = Literal["starting", "running", "idle", "needs-you", "error", "closed"]

_keys = itertools.count(1)


#: After a key, how long the user counts as typing (the log then yields frames).
TYPING_SECONDS = 1.0


class SessionTab:
    def __init__(
        self,
        window: Window,
        link: HostLink,
        spec: AgentSpec,
        cwd: Path,
        *,
        resume: str | None = None,
        fork: str | None = None,
        attach: str | None = None,
    ) -> None:
        self.key = f"t{next(_keys)}"
        self.spec = spec
        self.cwd = cwd
        self.link = link
        #: Output arrived since the user last looked at the tab.
        self.unread = False
        #: Permissions and questions waiting, as the host's needs-you summary says.
        self.waiting = 0
        self.conversation = Conversation()
        self.log = EntryLog(self.conversation.source, id=f"log-{self.key}")
        # (A prompt just sent and cleared is no draft being typed.)
        self.log.typing = lambda: (
            time.monotonic() - window.typed_at < TYPING_SECONDS and bool(window.prompt.text)
        )
        self.log.input_first = window.input_first
        self.plan = PlanPanel(classes="plan")
        self.queue = QueueLine(classes="queue", markup=False)
        self.pane = Vertical(self.log, self.plan, self.queue, id=f"pane-{self.key}", classes="pane")
        surface = TabSurface(window, self.key, log=self.log, plan=self.plan, queue=self.queue)
        self.surface = surface
        self.turns = Turns(
            surface,
            link,
            self.conversation,
            restart=self._restart,
            starting=lambda: self.starter.starting,
            sign_in=self._sign_in_again,
        )
        self.permissions = PermissionFlow(surface, link)
        self.elicitations = ElicitationFlow(surface, link)
        self.settings = SettingsPicker(surface, link, self.conversation)
        self.rewind = RewindFlow(surface, link, self.conversation, self.turns)
        self.shell = ShellFlow(surface, link, self.conversation)
        flow = None
        if resume:
            flow = ResumeFlow(surface, link, self.conversation, cwd, spec.display_name, resume)
        self.starter = AgentStart(
            surface,
            link,
            self.conversation,
            self.settings,
            spec=spec,
            cwd=cwd,
            resume=flow,
            on_ready=self._ready,
            fork=fork,
            attach=attach,
        )
        self.events = EventDispatch(
            self.conversation, surface, self.turns, self.permissions, self.elicitations
        )

    # -- what the bar and the switcher show --------------------------------------------

    @property
    def session_id(self) -> str | None:
        view = self.conversation.current
        return view.session_id if view is not None else None

    @property
    def agent_name(self) -> str:
        """The name the user knows the agent by: the preset's or the config's,
        else (a bare command) the agent's own name."""
        agent = self.conversation.agent
        if self.spec.name or agent is None:
            return one_line(self.spec.display_name)
        return one_line(agent.title(self.spec.display_name))

    @property
    def title(self) -> str:
        """The session's title, else its first prompt."""
        view = self.conversation.current
        if view is None:
            return ""
        if view.title:
            return one_line(view.title)
        for entry in view.entries:
            if isinstance(entry, UserEntry):
                return one_line(entry.text)
        return ""

    @property
    def state(self) -> TabState:
        view = self.conversation.current
        if self.needs_you:
            return "needs-you"
        if self.starter.starting:
            return "starting"
        if view is None:
            return "error" if self.starter.failed else "closed"
        if view.running or self.shell.running > 0:
            return "running"
        if view.status == "error":
            return "error"
        return "closed" if view.status == "closed" else "idle"

    @property
    def needs_you(self) -> bool:
        surface = self.surface
        return bool(self.waiting or surface.waiting or surface.asking or self.permissions.showing)

    @property
    def running(self) -> bool:
        return self.turns.running or self.shell.running > 0

    def holds(self, session_id: str) -> bool:
        return session_id in self.conversation.views

    # -- events --------------------------------------------------------------------------

    def handle(self, event: Event, *, current: bool) -> None:
        """An event of this tab's session (or a question before it exists)."""
        if not current and event.type in ("entry-appended", "entry-updated"):
            self.unread = True
        self.events.handle(event)

    # -- the agent -----------------------------------------------------------------------

    def start(self) -> None:
        self.starter.start()

    def _restart(self) -> None:
        self.starter.restart()

    def _ready(self) -> None:
        """The session is shown: what waits for the user in it (a session
        attached to on a background host may hold some) asks, then the
        queued prompts go."""
        view = self.conversation.current
        if view is not None:
            for request_id in list(view.permissions):
                self.permissions.requested(view, request_id)
            try:
                questions = self.link.snapshot(view.session_id).get("elicitations") or []
            except HostError:  # (gone meanwhile)
                questions = []
            for question in questions:
                if isinstance(question, dict):
                    event = Event("elicitation-requested", dict(question), view.session_id)
                    self.elicitations.on_event(event)
        self.turns.send_next()

    async def _sign_in_again(self) -> bool:
        agent = self.conversation.agent
        if agent is None or not agent.auth_methods:
            self.surface.toast(
                "The agent asks you to sign in, and offers no way to", severity="error"
            )
            return False
        title = f"{agent.name} asks you to sign in again"
        return await self.settings.sign_in(agent, title, self.spec)
