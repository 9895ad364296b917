"""An agent's permission requests: the answer each one waits for.

A ``session/request_permission`` is state on its tool call's entry (the
thread's ``request_permission``: the entry shows ``waiting_for_confirmation``
with the options) and nowhere else. What is left here is the agent's side:
its request awaits a one-shot future, settled by the ``permission-resolved``
event the thread returned when it resolved the request, whichever came
first of

* a decision (``permission.decide``, a key in the TUI) -> ``selected``;
* the tool call being replaced, completed or failed by the agent, a newer
  request for the same tool call, the turn being cancelled or ending, the
  agent cancelling its request (``$/cancel_request``), the session or
  connection closing -> ``cancelled``.

The entry and the events are committed before the agent's waiter wakes;
everything later is an ``already_decided`` error or a no-op. The host never
times a permission out.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from acp_tui.core.model.events import Event

_ids = itertools.count(1)


def new_request_id() -> str:
    """A request id unique in this process (``perm-1``, ``perm-2``, …)."""
    return f"perm-{next(_ids)}"


class PermissionWaiters:
    """The agent's permission requests of one session still waiting for an answer."""

    def __init__(self) -> None:
        self._futures: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def __len__(self) -> int:
        return len(self._futures)

    def open(self, request_id: str) -> asyncio.Future[dict[str, Any]]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._futures[request_id] = future
        return future

    def settle(self, event: Event) -> None:
        """Wake the request a ``permission-resolved`` event resolves."""
        if event.type != "permission-resolved":
            return
        future = self._futures.pop(str(event.data["requestId"]), None)
        if future is not None and not future.done():
            future.set_result(event.data["outcome"])


async def answer(future: asyncio.Future[dict[str, Any]]) -> dict[str, Any]:
    """What the agent's request answers: ``{"outcome": {...}}``."""
    return {"outcome": await asyncio.shield(future)}
