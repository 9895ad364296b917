"""The agent's questions in the TUI: one modal at a time, in order.

The core owns each question (sessions/elicitations.py); the flow knows them
from the event stream alone (``elicitation-requested`` / ``-resolved`` /
``-completed``) and only decides which one a modal shows. A form question
opens the form (ui/screens/elicitation.py), a url question the page dialog
(ui/screens/elicitation_url.py). The answer goes through the host link's
``respond_elicitation`` — the path the headless server uses: for a url
question that is ``accept`` the moment the user opens or copies the URL, and
the dialog then stays, waiting, until the agent says it is done
(``elicitation/complete``). A question resolved elsewhere — withdrawn by the
agent, its turn ended or cancelled, answered by another front end — closes
its modal, with a word saying why.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeGuard

from textual import events

from acp_tui.core import Event, HostError
from acp_tui.ui.host_link import HostLink

if TYPE_CHECKING:
    from acp_tui.ui.screens.elicitation import ElicitationFormScreen
    from acp_tui.ui.screens.elicitation_url import UrlElicitationScreen
    from acp_tui.ui.surface import Surface

#: The core's events about questions (docs/acp-host-jsonl-v1.md).
ELICITATION_EVENTS = frozenset(
    {"elicitation-requested", "elicitation-resolved", "elicitation-completed"}
)
#: As for permission dialogs (permission_flow.py): a modal opening while the
#: user types takes no key until they pause; after it closes, typed keys are
#: ignored a moment.
TYPING_WINDOW = 1.0
ARM_SECONDS = 0.6
KEY_REPEAT_GUARD = 0.3
#: Why a question closed by itself, as the toast says it.
CLOSED_BECAUSE = {
    "agent_cancelled": "The agent withdrew its question.",
    "turn_ended": "The question closed: the agent ended its turn.",
    "turn_cancelled": "The question closed: the turn was cancelled.",
    "request_ended": "The question closed: the agent no longer needs the answer.",
    "closed": "The question closed: the session ended.",
    "agent_completed": "The agent says it is done.",
}


@dataclass
class Question:
    request_id: str
    data: dict[str, Any]
    #: A url question accepted: the agent has yet to say it is done.
    waiting: bool = False

    @property
    def mode(self) -> str:
        return str(self.data.get("mode"))

    @property
    def agent(self) -> str:
        return str(self.data.get("agent") or "")


class ElicitationFlow:
    def __init__(self, surface: Surface, link: HostLink) -> None:
        self.surface = surface
        self.link = link
        #: Every open question (the events say which), by request id.
        self.open: dict[str, Question] = {}
        #: Those not shown yet, in the order they were asked.
        self.queue: list[Question] = []
        self.showing: Question | None = None
        self._screen: ElicitationFormScreen | UrlElicitationScreen | None = None
        self._retry: asyncio.TimerHandle | None = None

    def on_event(self, event: Event) -> None:
        data = event.data
        request_id = str(data.get("requestId"))
        if event.type == "elicitation-requested":
            if request_id in self.open:
                return
            question = Question(request_id, dict(data))
            self.open[request_id] = question
            self.queue.append(question)
            if self.showing is None:
                self._show_next()
            elif _is_form(self._screen):
                self._screen.update_total(1 + len(self.queue))
        elif event.type == "elicitation-resolved":
            if data.get("waiting") and request_id in self.open:
                self.open[request_id].waiting = True
            else:
                self._closed(request_id, str(data.get("reason")))
        elif event.type == "elicitation-completed":
            self._closed(request_id, str(data.get("reason")))

    # -- closing from outside -----------------------------------------------------

    def _closed(self, request_id: str, reason: str) -> None:
        """The core closed ``request_id`` (answered here or elsewhere, or by itself)."""
        self.open.pop(request_id, None)
        self.queue = [q for q in self.queue if q.request_id != request_id]
        if _is_form(self._screen):
            self._screen.update_total(1 + len(self.queue))
        showing, screen = self.showing, self._screen
        if showing is None or showing.request_id != request_id or screen is None:
            return
        self.showing, self._screen = None, None
        if _is_url(screen) and reason == "agent_completed":
            screen.complete()
        else:
            screen.withdraw()
        text = CLOSED_BECAUSE.get(reason)
        if text is not None:
            self.surface.toast(text, timeout=5)
        self._show_next()

    # -- showing -------------------------------------------------------------------

    def _typing(self) -> bool:
        return time.monotonic() - self.surface.typed_at < TYPING_WINDOW

    def _show_next(self) -> None:
        while self.queue and self.showing is None:
            question = self.queue[0]
            if question.mode == "url" and self._typing():
                # Its Enter opens the page: not while the user is typing.
                if self._retry is None:
                    loop = asyncio.get_running_loop()
                    self._retry = loop.call_later(ARM_SECONDS, self._retry_show)
                return
            self.queue.pop(0)
            self.showing = question
            message = str(question.data.get("message", ""))
            if question.mode == "url":
                from acp_tui.ui.screens.elicitation_url import UrlElicitationScreen

                url_screen = UrlElicitationScreen(
                    message,
                    str(question.data.get("url", "")),
                    agent=question.agent,
                    on_consent=partial(self._consented, question.request_id),
                )
                self._screen = url_screen
                self.surface.open_dialog(url_screen, partial(self._url_closed, question.request_id))
                return
            from acp_tui.ui.screens.elicitation import ElicitationFormScreen

            form_screen = ElicitationFormScreen(
                message,
                question.data.get("requestedSchema") or {},
                agent=question.agent,
                total=1 + len(self.queue),
                arm_after=ARM_SECONDS if self._typing() else 0.0,
                on_early_key=self._early_key,
            )
            self._screen = form_screen
            self.surface.open_dialog(form_screen, partial(self._form_answered, question.request_id))
            return

    def _retry_show(self) -> None:
        self._retry = None
        self._show_next()

    def _early_key(self, event: events.Key) -> None:
        """A key typed while the form was not armed yet belongs to the draft."""
        if event.character:
            self.surface.prompt.insert(event.character)

    # -- answers ---------------------------------------------------------------------

    def _respond(self, request_id: str, action: str, content: Any = None) -> None:
        question = self.open.get(request_id)
        if question is None or question.waiting:
            return  # closed meanwhile, or accepted already (a url page)
        try:
            self.link.respond_elicitation(request_id, action, content)
        except HostError as exc:
            if exc.code not in ("already_decided", "not_found"):
                self.surface.toast(exc.message, severity="error")

    def _done_showing(self, request_id: str) -> None:
        self.surface.prompt.mute_typing(KEY_REPEAT_GUARD)
        if self.showing is not None and self.showing.request_id == request_id:
            self.showing, self._screen = None, None
            self._show_next()

    def _form_answered(self, request_id: str, answer: dict[str, Any] | None) -> None:
        if answer is not None:  # None: withdrawn, nothing to send
            self._respond(request_id, str(answer["action"]), answer.get("content"))
        self._done_showing(request_id)

    def _consented(self, request_id: str) -> None:
        """The user opened or copied the URL: the agent hears ``accept`` now."""
        self._respond(request_id, "accept")

    def _url_closed(self, request_id: str, result: dict[str, Any] | None) -> None:
        if result is not None and result.get("action") in ("decline", "cancel"):
            self._respond(request_id, str(result["action"]))
        self._done_showing(request_id)


# The dialogs' modules are loaded with the first question, not before the
# first frame: a screen of theirs exists only once they are.
def _is_form(screen: object) -> TypeGuard[ElicitationFormScreen]:
    from acp_tui.ui.screens.elicitation import ElicitationFormScreen

    return isinstance(screen, ElicitationFormScreen)


def _is_url(screen: object) -> TypeGuard[UrlElicitationScreen]:
    from acp_tui.ui.screens.elicitation_url import UrlElicitationScreen

    return isinstance(screen, UrlElicitationScreen)
