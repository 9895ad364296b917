"""Starting the agent: its connection, then a session to show.

At the first start the session is resumed when ``--resume``/``--continue``
asked for it (resume.py); after the agent died, the dead session is brought
back in the new process when the agent can (revive.py); otherwise, and when
those find nothing, a new session starts, after a sign-in when the agent
asks for one. The session is then followed from its snapshot on
(conversation.py) and its commands, files and plan are shown.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.core import HostError, failures, load_connection_modules
from acp_tui.ui.conversation import Conversation
from acp_tui.ui.help_topics import welcome
from acp_tui.ui.host_link import AgentInfo, HostLink, NoticeLevel
from acp_tui.ui.local_commands import with_local
from acp_tui.ui.pickers import SettingsPicker
from acp_tui.ui.resume import ResumeFlow
from acp_tui.ui.revive import Revived, revive

if TYPE_CHECKING:
    from acp_tui.core import AgentSpec
    from acp_tui.ui.surface import Surface


class AgentStart:
    def __init__(
        self,
        surface: Surface,
        link: HostLink,
        conversation: Conversation,
        settings: SettingsPicker,
        *,
        spec: AgentSpec,
        cwd: Path,
        resume: ResumeFlow | None,
        on_ready: Callable[[], None],
        fork: str | None = None,
        attach: str | None = None,
    ) -> None:
        self.surface = surface
        self.link = link
        self.conversation = conversation
        self.settings = settings
        self.spec = spec
        self.cwd = cwd
        #: Resume at the first start: LATEST, PICK or a session id (resume.py).
        self.resume = resume
        #: At the first start, a fork of this session (``/fork``) instead of a new one.
        self.fork = fork
        #: At the first start, a session the (background) host already holds.
        self.attach = attach
        self._on_ready = on_ready
        self.starting = False
        #: The last start (open, session/new) failed: the agent is not gone.
        self.failed = False
        #: The session whose agent died, to bring back at the next start.
        self._dead: str | None = None
        #: How it was brought back (handed from _first_session to _show).
        self._revived: Revived | None = None

    def notice(self, level: NoticeLevel, text: str) -> None:
        """A message from the app itself, in the log."""
        self.conversation.notice(level, text)
        self.surface.log_view.sync()

    def start(self) -> None:
        self.surface.in_background(self._start(), group="agent", exclusive=True)

    def restart(self) -> None:
        """The agent is gone: start it again, with the same session if it can."""
        gone = self.conversation.let_go()
        if gone is not None and gone.status == "closed":
            self._dead = gone.session_id
        self.start()

    async def _start(self) -> None:
        self.starting, self.failed = True, False
        self.surface.refresh_status()
        # What only a connection needs (the SDK's schema: ~0.5 s) is loaded
        # after the first frame, in a thread: typing works meanwhile.
        await self.surface.painted()
        await asyncio.to_thread(load_connection_modules)
        agent: AgentInfo | None = None
        shown: Revived | None = None
        try:
            session_id, resume = None, self.resume
            if self.attach is not None:  # only at the first start
                session_id, self.attach = self.attach, None
                agent = await self.link.adopt(session_id)
            else:
                agent = await self.link.open(self.spec, self.cwd)
                session_id = await self._first_session(agent, resume)
                shown, self._revived = self._revived, None
            resumed = session_id is not None
            if session_id is None:
                session_id = await self._create_session(agent)
            if resume is not None and not resumed:
                await self.link.restore_settings(session_id, resume.settings)
        except HostError as exc:
            self.starting, self.failed = False, True
            name = agent.name if agent else self.spec.display_name
            self.notice(
                "error",
                failures.describe(
                    f"Could not start {name}: {exc.message}",
                    error=exc,
                    stderr=self.link.stderr_tail(agent.connection_id) if agent else "",
                    log=agent.log_path if agent else None,
                ),
            )
            self.surface.refresh_status()
            return
        self.starting = False
        # Everything imported and built so far lives as long as the app: out of
        # the collector's way (a full collection walks every object, some
        # 0.25 s here, and would pause the screen and the keyboard).
        gc.freeze()
        self._show(session_id, agent, shown)
        self._on_ready()

    async def _first_session(self, agent: AgentInfo, resume: ResumeFlow | None) -> str | None:
        """The session to show other than a new one: the dead one brought back,
        a fork (``/fork``) or a resumed one (``--resume``); None: a new one."""
        if self._dead is not None:
            shown = await revive(self.link, agent, self._dead, self._create_session)
            self._dead = None
            self._revived = shown
            return shown.session_id
        if self.fork is not None:
            parent, self.fork = self.fork, None  # only at the first start
            return await self.link.fork_session(parent)
        if resume is not None:
            self.resume = None  # only at the first start
            return await resume.session(agent)
        return None

    def _show(self, session_id: str, agent: AgentInfo, shown: Revived | None) -> None:
        """Follow the session from its snapshot on (nothing may run between the
        two: the events after the snapshot are the ones the view applies)."""
        view = self.conversation.attach(
            self.link.snapshot(session_id),
            agent,
            skip=shown.skip if shown is not None else 0,
            replaces=shown.replaces if shown is not None else "",
        )
        surface = self.surface
        log = surface.log_view
        if shown is not None and shown.replaces:  # carried on: not shown twice
            log.reset()
        log.sync()
        surface.prompt.set_commands(with_local(view.commands))
        surface.prompt.set_file_root(view.cwd)
        surface.prompt.set_prompt_capabilities(agent.prompt_capabilities)
        surface.plan_panel.entries = list(view.plan)
        log.cwd = str(view.cwd)
        log.set_empty_message(welcome(self.spec, self.cwd, agent))
        surface.refresh_status()

    async def _create_session(self, agent: AgentInfo) -> str:
        """A new session; asks the user to sign in first when the agent requires it."""
        try:
            return await self.link.create_session(agent.connection_id, self.cwd)
        except HostError as exc:
            from acp_tui.core import is_auth_required  # (the SDK's code: loaded by now)

            if not is_auth_required(exc) or not agent.auth_methods:
                raise
            name = self.spec.display_name
            self.notice("warning", f"{name} asks you to sign in.")
            if not await self.settings.sign_in(agent, f"{name} asks you to sign in", self.spec):
                raise HostError(
                    "agent_error", "not signed in (send a message to try again)"
                ) from None
        return await self.link.create_session(agent.connection_id, self.cwd)
