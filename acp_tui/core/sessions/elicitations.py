"""Questions from the agent (ACP ``elicitation/create``): kept, answered once,
never left open.

An agent asks in one of two modes:

* ``form``: a ``requestedSchema`` (core/model/elicitation_form.py) the user fills
  in; the answer is ``{"action": "accept", "content": {...}}``, ``decline`` or
  ``cancel``;
* ``url``: a web page the user must visit (to sign in, to pay) that the client
  must not see; ``accept`` means the user agreed to go there, and the agent
  says later that it is done (``elicitation/complete`` with its ``elicitationId``).

A question is scoped to a session (``sessionId``, maybe a ``toolCallId``) or to
one of our requests in progress (``requestId``): then it belongs to that
request's session, or to the connection alone when the request names none (a
question during ``session/new``). It is *tied* to a request of ours: the one it
names, or, for a session question, that session's ``session/prompt`` in
progress (the turn), if any.

It is a :class:`PendingElicitation` until the first of

* an answer from a front end (``elicitation.respond``, the TUI's form): the
  first answer wins, a later one is ``already_decided``; an ``accept`` whose
  content does not meet the schema is ``invalid_params`` and changes nothing;
* the agent withdrawing it (``$/cancel_request``) -> ``cancel``;
* ``elicitation/complete`` for it, before any answer -> ``accept``;
* the turn being cancelled, the request it is tied to ending (the turn's
  answer arriving), the session or the connection closing -> ``cancel``.

That answer goes to the agent and is published as ``elicitation-resolved``
(with the ``reason``). A url question a front end accepted then *waits*
(``waiting: true``) for the agent's ``elicitation/complete`` — or for the same
endings as above — and ends with ``elicitation-completed``. With no front end
attached a question simply stays open, like a permission: the host never
times one out.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from acp.schema import (
    CompleteElicitationNotification,
    CreateFormRequestElicitationRequest,
    CreateFormSessionElicitationRequest,
    CreateUrlRequestElicitationRequest,
    CreateUrlSessionElicitationRequest,
)
from pydantic import BaseModel, ValidationError

from acp_tui.core.errors import HostError
from acp_tui.core.model.elicitation_form import ElicitationForm, FormSchemaError
from acp_tui.core.model.events import Event
from acp_tui.core.model.validation import describe
from acp_tui.core.transport import acp_protocol as acp

__all__ = [
    "ACTIONS",
    "CLIENT_ELICITATION",
    "ElicitationBook",
    "ElicitationRequest",
    "PendingElicitation",
    "read_complete",
    "read_request",
]

#: What ``clientCapabilities.elicitation`` advertises: both modes work.
CLIENT_ELICITATION: dict[str, Any] = {"form": {}, "url": {}}
ACTIONS = ("accept", "decline", "cancel")
#: How many resolved request ids are remembered to answer ``already_decided``.
RESOLVED_MEMORY = 10_000
#: Past these a question is refused (no one can answer a form of 10,000 fields).
MAX_FIELDS = 100
MAX_MESSAGE = 20_000
MAX_URL = 8_192

Reason = Literal[
    "answered",
    "agent_cancelled",
    "agent_completed",
    "turn_cancelled",
    "turn_ended",
    "request_ended",
    "closed",
]
_CANCEL: dict[str, Any] = {"action": "cancel"}
_PROMPT = acp.SESSION_PROMPT
_MODELS: dict[tuple[str, str], type[BaseModel]] = {
    ("form", "session"): CreateFormSessionElicitationRequest,
    ("form", "request"): CreateFormRequestElicitationRequest,
    ("url", "session"): CreateUrlSessionElicitationRequest,
    ("url", "request"): CreateUrlRequestElicitationRequest,
}


class QuestionOwner(Protocol):
    """What a question needs from its session."""

    session_id: str

    def commit(self, event: Event) -> None: ...


@dataclass(frozen=True)
class ElicitationRequest:
    """An ``elicitation/create``'s params, checked."""

    mode: Literal["form", "url"]
    message: str
    #: The agent's session id (session scope), or the id of our request (request scope).
    session_id: str | None = None
    request_id: int | str | None = None
    tool_call_id: str | None = None
    schema: dict[str, Any] | None = None
    form: ElicitationForm | None = None
    url: str | None = None
    elicitation_id: str | None = None


def read_request(params: Any) -> ElicitationRequest:
    """``params`` of ``elicitation/create`` checked with the SDK's models;
    raises ``RequestError`` (invalid params) saying what is wrong."""
    if not isinstance(params, dict):
        raise acp.invalid_params("elicitation/create needs params")
    mode = params.get("mode")
    if mode not in ("form", "url"):
        raise acp.invalid_params(f"unsupported elicitation mode {mode!r} (form and url are)")
    if "sessionId" in params:
        scope = "session"
    elif "requestId" in params:
        scope = "request"
    else:
        raise acp.invalid_params("an elicitation needs a sessionId or a requestId")
    try:
        model: Any = _MODELS[(mode, scope)].model_validate(params)
    except ValidationError as exc:
        raise acp.invalid_params(f"invalid elicitation ({describe(exc)})") from None
    if len(model.message) > MAX_MESSAGE:
        raise acp.invalid_params(f"the message is over {MAX_MESSAGE} characters")
    common: dict[str, Any] = {
        "mode": mode,
        "message": model.message,
        "session_id": getattr(model, "session_id", None),
        "request_id": getattr(model, "request_id", None),
        "tool_call_id": getattr(model, "tool_call_id", None),
    }
    if mode == "url":
        if len(params["url"]) > MAX_URL:
            raise acp.invalid_params(f"the url is over {MAX_URL} characters")
        return ElicitationRequest(
            url=str(params["url"]), elicitation_id=model.elicitation_id, **common
        )
    schema = params["requestedSchema"]
    try:
        form = ElicitationForm.parse(schema)
    except FormSchemaError as exc:
        raise acp.invalid_params(f"invalid requestedSchema: {exc}") from None
    if len(form.fields) > MAX_FIELDS:
        raise acp.invalid_params(f"the form has over {MAX_FIELDS} fields")
    return ElicitationRequest(schema=schema, form=form, **common)


def read_complete(params: Any) -> str | None:
    """The ``elicitationId`` of an ``elicitation/complete``, None when unusable."""
    try:
        return CompleteElicitationNotification.model_validate(params).elicitation_id
    except ValidationError:
        return None


@dataclass(eq=False)
class PendingElicitation:
    request_id: str
    connection_id: str
    owner: QuestionOwner | None
    request: ElicitationRequest
    future: asyncio.Future[dict[str, Any]] = field(repr=False)
    #: The id of the agent's ``elicitation/create`` request.
    agent_rpc_id: int | str | None = None
    #: Our request it is tied to (its end closes the question), if any.
    tied_to: int | None = None
    #: Who asks: the agent's name (front ends must say who asks).
    agent: str = ""
    #: A url question accepted: waiting for the agent's ``elicitation/complete``.
    waiting: bool = False

    @property
    def mode(self) -> str:
        return self.request.mode

    async def answer(self) -> dict[str, Any]:
        """What the agent's request answers (``CreateElicitationResponse``)."""
        return await asyncio.shield(self.future)

    def to_wire(self) -> dict[str, Any]:
        """The ``elicitation-requested`` payload (and a snapshot's entry)."""
        request = self.request
        wire: dict[str, Any] = {
            "requestId": self.request_id,
            "connectionId": self.connection_id,
            "agent": self.agent,
            "mode": request.mode,
            "message": request.message,
        }
        if request.mode == "form":
            wire["requestedSchema"] = request.schema
        else:
            wire["url"] = request.url
            wire["elicitationId"] = request.elicitation_id
        if request.tool_call_id is not None:
            wire["toolCallId"] = request.tool_call_id
        return wire


class ElicitationBook:
    """Every open question of one host, by host-made request id (``elic-N``)."""

    def __init__(self, publish: Callable[[Event], None]) -> None:
        #: Where a question without a session publishes (the host's hub).
        self._publish_loose = publish
        self._pending: dict[str, PendingElicitation] = {}
        self._resolved: OrderedDict[str, None] = OrderedDict()
        self._ids = itertools.count(1)

    def __len__(self) -> int:
        return len(self._pending)

    def get(self, request_id: str) -> PendingElicitation | None:
        return self._pending.get(request_id)

    def pending(self, owner: QuestionOwner | None = None) -> list[PendingElicitation]:
        return [p for p in self._pending.values() if owner is None or p.owner is owner]

    # -- the agent asks --------------------------------------------------------

    def ask(
        self,
        connection_id: str,
        agent_rpc_id: int | str,
        params: Any,
        route: Callable[[str], Any],
        calls: Mapping[int, tuple[str, Any]],
        *,
        agent: str = "",
    ) -> PendingElicitation:
        """An agent's ``elicitation/create`` (``params``), kept until answered;
        raises ``RequestError`` (invalid params) for one that cannot be asked.
        ``route``: the connection's session for an agent's session id; ``calls``:
        our requests in progress, (method, params) by id (see :func:`question_scope`)."""
        request = read_request(params)
        owner, tied_to = question_scope(request, route, calls)
        pending = self.open(
            connection_id, owner, request, tied_to=tied_to, agent_rpc_id=agent_rpc_id, agent=agent
        )
        late = _late(owner, calls.get(tied_to) if tied_to is not None else None)
        if late is not None:
            self._close(pending, late)  # its turn is over for the user already
        return pending

    def open(
        self,
        connection_id: str,
        owner: QuestionOwner | None,
        request: ElicitationRequest,
        *,
        tied_to: int | None = None,
        agent_rpc_id: int | str | None = None,
        agent: str = "",
    ) -> PendingElicitation:
        pending = PendingElicitation(
            request_id=f"elic-{next(self._ids)}",
            connection_id=connection_id,
            owner=owner,
            request=request,
            future=asyncio.get_running_loop().create_future(),
            agent_rpc_id=agent_rpc_id,
            tied_to=tied_to,
            agent=agent,
        )
        self._pending[pending.request_id] = pending
        self._publish(pending, Event("elicitation-requested", pending.to_wire()))
        return pending

    def withdraw(self, connection_id: str, agent_rpc_id: int | str) -> bool:
        """The agent cancelled its ``elicitation/create`` (``$/cancel_request``):
        False when that request is no open question."""
        for pending in self._of(
            lambda p: p.connection_id == connection_id and p.agent_rpc_id == agent_rpc_id
        ):
            if not pending.waiting:
                self._resolve(pending, _CANCEL, "agent_cancelled")
                return True
        return False

    def complete_from(self, connection_id: str, params: Any) -> str | None:
        """An ``elicitation/complete`` notification; what is wrong with it, if anything."""
        elicitation_id = read_complete(params)
        if elicitation_id is None:
            return "elicitation/complete without an elicitationId"
        self.agent_completed(connection_id, elicitation_id)
        return None

    def agent_completed(self, connection_id: str, elicitation_id: str) -> bool:
        """``elicitation/complete``: ends the url questions with that id (an
        unknown or finished id is ignored, as ACP asks)."""
        found = False
        for pending in self._of(lambda p: p.connection_id == connection_id):
            if pending.request.elicitation_id != elicitation_id:
                continue
            found = True
            if pending.waiting:
                self._finish_waiting(pending, "agent_completed")
            else:
                self._resolve(pending, {"action": "accept"}, "agent_completed")
        return found

    # -- a front end answers ----------------------------------------------------

    def respond(
        self,
        request_id: str,
        action: str,
        content: Any = None,
        *,
        session_id: str | None = None,
    ) -> None:
        """The user's answer; raises HostError (and changes nothing) when it
        cannot be taken."""
        pending = self._require(request_id, session_id)
        if action not in ACTIONS:
            raise HostError("invalid_params", "action must be accept, decline or cancel")
        if pending.waiting:
            raise HostError(
                "already_decided",
                f"question {request_id} was already accepted; it waits for the agent to finish",
            )
        form = pending.request.form
        if content is not None and (action != "accept" or form is None):
            raise HostError("invalid_params", "content goes only with accept, in form mode")
        answer: dict[str, Any] = {"action": action}
        if action == "accept" and form is not None:
            content = {} if content is None else content
            errors = form.validate(content)
            if errors:
                text = "; ".join(
                    f"{name}: {message}" if name else message for name, message in errors.items()
                )
                raise HostError(
                    "invalid_params", f"content does not fit the form ({text})", {"fields": errors}
                )
            answer["content"] = content
        self._resolve(pending, answer, "answered")

    # -- questions closing by themselves ------------------------------------------

    def close_owner(self, owner: QuestionOwner, reason: Reason) -> None:
        """Every question of a session (its turn was cancelled, it closed)."""
        for pending in self._of(lambda p: p.owner is owner):
            self._close(pending, reason)

    def close_connection(self, connection_id: str) -> None:
        for pending in self._of(lambda p: p.connection_id == connection_id):
            self._close(pending, "closed")

    def request_ended(self, connection_id: str, rpc_id: int, method: str, params: Any) -> None:
        """One of our requests got its answer (or failed): its questions close."""
        reason: Reason = "turn_ended" if method == _PROMPT else "request_ended"
        for pending in self._of(lambda p: p.connection_id == connection_id and p.tied_to == rpc_id):
            self._close(pending, reason)

    # -- inside ----------------------------------------------------------------------

    def _of(self, predicate: Callable[[PendingElicitation], bool]) -> list[PendingElicitation]:
        return [p for p in self._pending.values() if predicate(p)]

    def _require(self, request_id: str, session_id: str | None) -> PendingElicitation:
        pending = self._pending.get(request_id)
        if pending is not None:
            owner_id = pending.owner.session_id if pending.owner is not None else None
            if session_id is not None and session_id != owner_id:
                raise HostError("not_found", f"no question {request_id} in session {session_id}")
            return pending
        if request_id in self._resolved:
            raise HostError("already_decided", f"question {request_id} was already resolved")
        raise HostError("not_found", f"no question {request_id}")

    def _publish(self, pending: PendingElicitation, event: Event) -> None:
        if pending.owner is not None:
            pending.owner.commit(event)
        else:
            event.data.setdefault("connectionId", pending.connection_id)
            self._publish_loose(event)

    def _forget(self, pending: PendingElicitation) -> None:
        self._pending.pop(pending.request_id, None)
        self._resolved[pending.request_id] = None
        while len(self._resolved) > RESOLVED_MEMORY:
            self._resolved.popitem(last=False)

    def _close(self, pending: PendingElicitation, reason: Reason) -> None:
        if pending.waiting:
            self._finish_waiting(pending, reason)
        else:
            self._resolve(pending, _CANCEL, reason)

    def _resolve(self, pending: PendingElicitation, answer: dict[str, Any], reason: Reason) -> None:
        """Answer the agent; recorded (an event) before its waiter wakes."""
        waits = pending.mode == "url" and answer["action"] == "accept" and reason == "answered"
        data: dict[str, Any] = {"requestId": pending.request_id, **answer, "reason": reason}
        if waits:
            pending.waiting = True
            data["waiting"] = True
        else:
            self._forget(pending)
        self._publish(pending, Event("elicitation-resolved", data))
        if not pending.future.done():
            pending.future.set_result(answer)

    def _finish_waiting(self, pending: PendingElicitation, reason: Reason) -> None:
        self._forget(pending)
        data = {
            "requestId": pending.request_id,
            "elicitationId": pending.request.elicitation_id,
            "reason": reason,
        }
        self._publish(pending, Event("elicitation-completed", data))


def question_scope(
    request: ElicitationRequest,
    route: Callable[[str], Any],
    calls: Mapping[int, tuple[str, Any]],
) -> tuple[Any, int | None]:
    """(the session it belongs to or None, the id of our request it is tied to).

    ``route``: the connection's session for an agent's session id (or None);
    ``calls``: our requests in progress (method, params) by id."""
    if request.session_id is not None:
        session = route(request.session_id)
        if session is None or session.closed:
            raise acp.invalid_params(f"unknown session {request.session_id!r}")
        turn = next(
            (
                rpc_id
                for rpc_id, (method, params) in calls.items()
                if method == _PROMPT
                and isinstance(params, dict)
                and params.get("sessionId") == request.session_id
            ),
            None,
        )
        return session, turn
    tied = request.request_id
    call = calls.get(tied) if type(tied) is int else None
    if call is None or type(tied) is not int:
        raise acp.invalid_params(f"requestId {tied!r} is no request of ours in progress")
    params = call[1]
    named = params.get("sessionId") if isinstance(params, dict) else None
    session = route(named) if isinstance(named, str) else None
    return (session if session is not None and not session.closed else None), tied


def _late(session: Any, call: tuple[str, Any] | None) -> Reason | None:
    """Why a question tied to ``call`` is closed as it comes: its turn was
    cancelled, or ended for the user (the agent did not answer the cancel in
    time, so its prompt is still in progress); None when it is not."""
    if session is None or call is None or call[0] != _PROMPT:
        return None
    turn = getattr(session, "turn", None)
    if turn is None:
        return "turn_ended"
    return "turn_cancelled" if getattr(turn, "cancel_requested", False) else None
