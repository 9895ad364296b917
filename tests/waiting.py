"""Waiting until what a test drove has happened: the one polling helper.

    assert came_true(lambda: not tui.proc.isalive(), 10), "still running"
    wait_until(lambda: path.exists(), what="the agent never wrote it")
    await until(lambda: session.status == "idle")
    await until(lambda: app.session is not None, pause=pilot.pause)

Every wait has a deadline: it keeps a broken run from hanging, and makes no
claim about how long anything takes (timing belongs in bench/).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

#: Seconds between two looks.
POLL = 0.02
#: Seconds after which a wait gives up.
TIMEOUT = 20.0

Condition = Callable[[], object]
What = str | Callable[[], str]


def came_true(condition: Condition, timeout: float = TIMEOUT, *, poll: float = POLL) -> bool:
    """Whether ``condition()`` came true within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(poll)


def wait_until(
    condition: Condition,
    timeout: float = TIMEOUT,
    *,
    poll: float = POLL,
    what: What = "condition not reached",
) -> None:
    """Until ``condition()`` is true; an AssertionError saying ``what`` after ``timeout``."""
    if not came_true(condition, timeout, poll=poll):
        raise AssertionError(what() if callable(what) else what)


async def until(
    condition: Condition,
    timeout: float = TIMEOUT,
    *,
    poll: float = POLL,
    pause: Callable[[float], Awaitable[object]] | None = None,
    what: What = "condition not reached",
) -> None:
    """:func:`wait_until` in a coroutine: the event loop runs meanwhile (through
    ``pause``, e.g. a Textual Pilot's, else ``asyncio.sleep``)."""
    sleep = pause if pause is not None else asyncio.sleep
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(what() if callable(what) else what)
        await sleep(poll)
