"""Permission requests: state on their tool-call entry, resolved exactly once.

A ``session/request_permission`` becomes a :class:`PendingPermission`: the
tool call's entry shows ``waiting_for_confirmation`` with the options, and
the agent's request awaits a one-shot future. It is resolved by the first of

* a decision (``permission.decide``, a key in the TUI) -> ``selected``;
* the tool call being replaced, completed or failed by the agent, a newer
  request for the same tool call, the turn being cancelled or ending, the
  agent cancelling its request (``$/cancel_request``), the session or
  connection closing -> ``cancelled``.

Whichever comes first is recorded (entry and events) before the agent's
waiter wakes; everything later is an ``already_decided`` error or a no-op.
The host never times a permission out.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

from acp_tui.core.errors import HostError
from acp_tui.core.model.entries import ToolCallEntry, ToolStatus
from acp_tui.core.model.events import Event
from acp_tui.core.model.thread import Thread

#: How many resolved request ids are remembered to answer ``already_decided``.
RESOLVED_MEMORY = 10_000

CANCELLED: dict[str, Any] = {"outcome": "cancelled"}


class PermissionOwner(Protocol):
    """What a permission needs from its session."""

    session_id: str
    thread: Thread

    def commit(self, event: Event) -> None: ...


@dataclass(eq=False)
class PendingPermission:
    request_id: str
    owner: PermissionOwner
    tool_call_id: str
    options: list[dict[str, Any]]
    future: asyncio.Future[dict[str, Any]] = field(repr=False)

    async def outcome(self) -> dict[str, Any]:
        """What the agent's request answers: ``{"outcome": {...}}``."""
        return {"outcome": await asyncio.shield(self.future)}


class PermissionBook:
    """Every pending permission request of one host, by host-made request id."""

    def __init__(self) -> None:
        self._pending: dict[str, PendingPermission] = {}
        self._resolved: OrderedDict[str, None] = OrderedDict()
        self._ids = itertools.count(1)

    def __len__(self) -> int:
        return len(self._pending)

    def get(self, request_id: str) -> PendingPermission | None:
        return self._pending.get(request_id)

    def pending(self, owner: PermissionOwner | None = None) -> list[PendingPermission]:
        return [p for p in self._pending.values() if owner is None or p.owner is owner]

    def for_tool_call(self, owner: PermissionOwner, tool_call_id: str) -> PendingPermission | None:
        for p in self._pending.values():
            if p.owner is owner and p.tool_call_id == tool_call_id:
                return p
        return None

    def open(
        self, owner: PermissionOwner, entry: ToolCallEntry, options: list[dict[str, Any]]
    ) -> PendingPermission:
        """Register a request on ``entry`` (already in ``owner``'s thread)."""
        older = self.for_tool_call(owner, entry.tool_call_id)
        if older is not None:
            self._resolve(older, CANCELLED, status=None, touch=False)
        request_id = f"perm-{next(self._ids)}"
        pending = PendingPermission(
            request_id=request_id,
            owner=owner,
            tool_call_id=entry.tool_call_id,
            options=options,
            future=asyncio.get_running_loop().create_future(),
        )
        self._pending[request_id] = pending
        entry.permission = {"requestId": request_id, "options": options}
        owner.commit(owner.thread.touch(owner.thread.index_of(entry)))
        owner.commit(
            Event(
                "permission-requested",
                {
                    "requestId": request_id,
                    "toolCallId": entry.tool_call_id,
                    "title": entry.title,
                    "options": options,
                },
            )
        )
        return pending

    def decide(self, request_id: str, option_id: str) -> None:
        pending = self._require(request_id)
        option = next((o for o in pending.options if o.get("optionId") == option_id), None)
        if option is None:
            known = ", ".join(str(o.get("optionId")) for o in pending.options)
            raise HostError("invalid_params", f"unknown optionId {option_id!r} (one of: {known})")
        allowed = str(option.get("kind", "")).startswith("allow")
        self._resolve(
            pending,
            {"outcome": "selected", "optionId": option_id},
            status="in_progress" if allowed else "rejected",
            touch=True,
        )

    def cancel(self, request_id: str) -> None:
        """A cancellation by the user or the agent: the tool call shows ``canceled``."""
        self._resolve(self._require(request_id), CANCELLED, status="canceled", touch=True)

    def cancel_quietly(self, pending: PendingPermission, status: ToolStatus | None) -> None:
        """Resolve as cancelled because the entry changed under it.

        ``status`` replaces the tool call's status only if the entry is still
        waiting on this request; the caller publishes the entry itself."""
        if pending.request_id in self._pending:
            self._resolve(pending, CANCELLED, status=status, touch=False)

    def cancel_all(self, owner: PermissionOwner) -> None:
        for pending in self.pending(owner):
            self._resolve(pending, CANCELLED, status="canceled", touch=True)

    def _require(self, request_id: str) -> PendingPermission:
        pending = self._pending.get(request_id)
        if pending is not None:
            return pending
        if request_id in self._resolved:
            raise HostError(
                "already_decided", f"permission request {request_id} was already resolved"
            )
        raise HostError("not_found", f"no permission request {request_id}")

    def _resolve(
        self,
        pending: PendingPermission,
        outcome: dict[str, Any],
        *,
        status: ToolStatus | None,
        touch: bool,
    ) -> None:
        del self._pending[pending.request_id]
        self._resolved[pending.request_id] = None
        while len(self._resolved) > RESOLVED_MEMORY:
            self._resolved.popitem(last=False)
        owner = pending.owner
        found = owner.thread.tool_call(pending.tool_call_id)
        if found is not None:
            index, entry = found
            still_waiting = (
                entry.permission is not None
                and entry.permission.get("requestId") == pending.request_id
            )
            if still_waiting:
                entry.permission = None
                if status is not None:
                    entry.status = status
                if touch:
                    owner.commit(owner.thread.touch(index))
        owner.commit(
            Event("permission-resolved", {"requestId": pending.request_id, "outcome": outcome})
        )
        if not pending.future.done():
            pending.future.set_result(outcome)
