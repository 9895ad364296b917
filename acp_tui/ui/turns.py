"""The prompts the user sends: queued while a turn runs, sent one at a time.

Whether a turn runs is what the current session's view says (the status
events handled so far); what is on its way is known here: the prompt handed
to the host and not in the log yet. After a cancel the host holds a prompt
back until the agent has settled (``status-changed: running`` then comes
before its user entry): the queue line says so until the entry shows.

Steering (Alt+Enter) puts a prompt at the head of the queue and cancels the
running turn: the host settles the cancelled turn, then this prompt is the
next one sent; what was queued before it follows. Up on an empty prompt
takes the last queued prompt back into the draft (:meth:`Turns.take_last`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from acp_tui.core import HostError
from acp_tui.ui.conversation import Conversation
from acp_tui.ui.host_link import HostLink
from acp_tui.ui.widgets import status_bar

if TYPE_CHECKING:
    from acp_tui.ui.surface import Surface


class Turns:
    def __init__(
        self,
        surface: Surface,
        link: HostLink,
        conversation: Conversation,
        *,
        restart: Callable[[], None],
        starting: Callable[[], bool],
        sign_in: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        self.surface = surface
        #: Asks the user to sign in (an agent that answers a prompt with
        #: "authentication required"): True once signed in.
        self._sign_in = sign_in
        self.link = link
        self.conversation = conversation
        self._restart = restart
        self._starting = starting
        #: Prompts typed while a turn runs, oldest first.
        self.queued: list[str] = []
        #: The prompt the host holds back until the agent has settled.
        self.handing_over: str | None = None
        #: When the running turn started (for the status line's clock).
        self.started_at: float | None = None
        #: The prompt handed to the host whose user entry has not shown yet.
        self._sent: str | None = None
        #: A prompt is on its way to the host (its command has not returned).
        self._sending = False
        #: A cancel of the running turn was asked for.
        self.cancelling = False
        #: A steer came while a prompt was on its way: cancel its turn once it runs.
        self._cancel_when_running = False

    @property
    def running(self) -> bool:
        view = self.conversation.current
        return view is not None and view.running

    def submit(self, text: str) -> None:
        self.queued.append(text)
        self.surface.refresh_status()
        self.send_next()

    async def steer(self, text: str) -> None:
        """Send ``text`` next, ahead of the queue, cancelling the running turn
        (idle: as :meth:`submit`, but still ahead of anything queued)."""
        self.queued.insert(0, text)
        self.surface.refresh_status()
        if self.running:
            await self.cancel()
        elif self._sending:
            # Handed to the host, not running yet: its turn is the one to cancel.
            self._cancel_when_running = True
        self.send_next()

    def take_last(self) -> str | None:
        """The last queued prompt, out of the queue (Up on an empty prompt)."""
        if not self.queued:
            return None
        text = self.queued.pop()
        self.surface.refresh_status()
        return text

    def send_next(self) -> None:
        if not self.queued or self._starting() or self._sending:
            return
        view = self.conversation.current
        if view is None or view.status == "closed":
            self._restart()
            return
        if view.running:
            return
        text = self.queued.pop(0)
        self._sent, self._sending, self.handing_over = text, True, None
        self.surface.refresh_status()
        self.surface.in_background(self._run(view.session_id, text), group="prompt")

    async def _run(self, session_id: str, text: str) -> None:
        prompt = self.surface.prompt
        try:
            blocks, notes = self.link.build_prompt(session_id, text, prompt.image_attachments)
            for note in notes:
                self.surface.toast(note, severity="warning", timeout=8)
            await self.link.prompt(session_id, blocks)
        except HostError as exc:
            from acp_tui.core import is_auth_required

            if is_auth_required(exc) and self._sign_in is not None:
                if await self._sign_in():
                    self.queued.insert(0, text)  # sent again, signed in
            elif exc.code not in ("agent_exited", "agent_error"):
                self.surface.toast(exc.message, severity="error", timeout=8)
        finally:
            self._sending, self._sent, self.handing_over = False, None, None
            self._cancel_when_running = False
            self.surface.refresh_status()
            self.send_next()

    # -- what the events say --------------------------------------------------------

    def user_entry_shown(self) -> None:
        """A user entry appeared in the current session: the prompt is in."""
        self._sent = None
        if self.handing_over is not None:
            self.handing_over = None
            self.show_queue()

    def status_changed(self, status: str) -> None:
        """The current session's status changed (the view has it already)."""
        self.cancelling = False
        if status == "running":
            self.started_at = status_bar.now()
            # The plan of an earlier turn is not pinned through this one (a
            # plan-updated event of this turn shows it again).
            self.surface.plan_panel.entries = []
            # Running before its user entry: the host waits for the agent to settle.
            self.handing_over = self._sent
            if self._cancel_when_running:
                self._cancel_when_running = False
                self.surface.in_background(self.cancel(), group="cancel")
        else:
            # A reply still being revealed goes on, smoothly like the rest,
            # but ends within a few frames: the agent is done, its last
            # words are not kept back (scrolling away shows them whole).
            self.started_at = None
            self.surface.log_view.finish_reveals()

    def show_queue(self) -> None:
        self.surface.queue_line.show(self.queued, self.handing_over)

    # -- cancelling -----------------------------------------------------------------

    async def cancel(self) -> None:
        view = self.conversation.current
        if view is None or not view.running or self.cancelling:
            return
        self.cancelling = True
        self.surface.toast("Cancelling the turn…", timeout=3)
        with contextlib.suppress(HostError):
            await self.link.cancel(view.session_id)
