"""The agent's questions in the TUI: one modal at a time, in order.

The core owns each question (host.elicitations, sessions/elicitations.py);
this only decides which one a modal shows. A form question opens the form
(ui/screens/elicitation.py), a url question the page dialog
(ui/screens/elicitation_url.py). The answer goes through
``host.respond_elicitation`` — the path the headless server uses: for a url
question that is ``accept`` the moment the user opens or copies the URL, and
the dialog then stays, waiting, until the agent says it is done
(``elicitation/complete``). A question resolved elsewhere — withdrawn by the
agent, its turn ended or cancelled, answered by another front end — closes
its modal, with a word saying why.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from textual import events
from textual.screen import Screen
from textual.timer import Timer

from acp_tui.core import AgentSpec, Event, Host, HostError
from acp_tui.ui.screens.elicitation import ElicitationFormScreen
from acp_tui.ui.screens.elicitation_url import UrlElicitationScreen
from acp_tui.ui.widgets.prompt_input import PromptInput

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


class FlowApp(Protocol):
    """What the flow needs of the app (ui/app.py's AcpApp)."""

    host: Host
    spec: AgentSpec
    #: When the user last changed the draft.
    last_typed: float

    @property
    def prompt(self) -> PromptInput: ...

    def notify(self, message: str, *, severity: Any = ..., timeout: float | None = ...) -> None: ...

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], None]) -> Any: ...

    def set_timer(self, delay: float, callback: Callable[[], None]) -> Timer: ...


@dataclass
class Question:
    request_id: str
    data: dict[str, Any]

    @property
    def mode(self) -> str:
        return str(self.data.get("mode"))


class ElicitationFlow:
    def __init__(self, app: FlowApp) -> None:
        self.app = app
        self.queue: list[Question] = []
        self.showing: Question | None = None
        self._screen: ElicitationFormScreen | UrlElicitationScreen | None = None
        self._retry: Timer | None = None

    def on_event(self, event: Event) -> None:
        data = event.data
        request_id = str(data.get("requestId"))
        if event.type == "elicitation-requested":
            self.queue.append(Question(request_id, dict(data)))
            if self.showing is None:
                self._show_next()
            elif isinstance(self._screen, ElicitationFormScreen):
                self._screen.update_total(1 + len(self.queue))
        elif event.type == "elicitation-resolved":
            if not data.get("waiting"):
                self._closed(request_id, str(data.get("reason")))
        elif event.type == "elicitation-completed":
            self._closed(request_id, str(data.get("reason")))

    # -- closing from outside -----------------------------------------------------

    def _closed(self, request_id: str, reason: str) -> None:
        """The core closed ``request_id`` (answered here or elsewhere, or by itself)."""
        self.queue = [q for q in self.queue if q.request_id != request_id]
        if isinstance(self._screen, ElicitationFormScreen):
            self._screen.update_total(1 + len(self.queue))
        showing, screen = self.showing, self._screen
        if showing is None or showing.request_id != request_id or screen is None:
            return
        self.showing, self._screen = None, None
        if isinstance(screen, UrlElicitationScreen) and reason == "agent_completed":
            screen.complete()
        else:
            screen.withdraw()
        text = CLOSED_BECAUSE.get(reason)
        if text is not None:
            self.app.notify(text, timeout=5)
        self._show_next()

    # -- showing -------------------------------------------------------------------

    def _typing(self) -> bool:
        return time.monotonic() - self.app.last_typed < TYPING_WINDOW

    def _agent(self, question: Question) -> str:
        connection = self.app.host.connections.get(str(question.data.get("connectionId")))
        return connection.agent_name if connection is not None else self.app.spec.display_name

    def _show_next(self) -> None:
        book = self.app.host.elicitations
        while self.queue and self.showing is None:
            question = self.queue[0]
            if book.get(question.request_id) is None:
                self.queue.pop(0)  # closed while it waited
                continue
            if question.mode == "url" and self._typing():
                # Its Enter opens the page: not while the user is typing.
                if self._retry is None:
                    self._retry = self.app.set_timer(ARM_SECONDS, self._retry_show)
                return
            self.queue.pop(0)
            self.showing = question
            message = str(question.data.get("message", ""))
            if question.mode == "url":
                url_screen = UrlElicitationScreen(
                    message,
                    str(question.data.get("url", "")),
                    agent=self._agent(question),
                    on_consent=partial(self._consented, question.request_id),
                )
                self._screen = url_screen
                self.app.push_screen(url_screen, partial(self._url_closed, question.request_id))
                return
            form_screen = ElicitationFormScreen(
                message,
                question.data.get("requestedSchema") or {},
                agent=self._agent(question),
                total=1 + len(self.queue),
                arm_after=ARM_SECONDS if self._typing() else 0.0,
                on_early_key=self._early_key,
            )
            self._screen = form_screen
            self.app.push_screen(form_screen, partial(self._form_answered, question.request_id))
            return

    def _retry_show(self) -> None:
        self._retry = None
        self._show_next()

    def _early_key(self, event: events.Key) -> None:
        """A key typed while the form was not armed yet belongs to the draft."""
        if event.character:
            self.app.prompt.insert(event.character)

    # -- answers ---------------------------------------------------------------------

    def _respond(self, request_id: str, action: str, content: Any = None) -> None:
        pending = self.app.host.elicitations.get(request_id)
        if pending is None or pending.waiting:
            return  # closed meanwhile, or accepted already (a url page)
        try:
            self.app.host.respond_elicitation(request_id, action, content)
        except HostError as exc:
            if exc.code not in ("already_decided", "not_found"):
                self.app.notify(exc.message, severity="error")

    def _done_showing(self, request_id: str) -> None:
        self.app.prompt.mute_typing(KEY_REPEAT_GUARD)
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
