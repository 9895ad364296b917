"""Driving the real app (real host core, real agent subprocess) under Pilot."""

from __future__ import annotations

import asyncio
import os
import select
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ptyprocess import PtyProcess
from textual.pilot import Pilot

from acp_tui.core.connection import AgentSpec
from acp_tui.core.host import Host
from acp_tui.ui.app import AcpApp
from tests import waiting


def make_app(spec: AgentSpec, cwd: Path, theme: str | None = None) -> AcpApp:
    return AcpApp(spec, cwd=cwd, host=Host(cancel_grace=2.0), theme=theme)


async def until(
    pilot: Pilot[int],
    condition: Callable[[], bool],
    timeout: float = 20,
    what: waiting.What = "condition not reached",
) -> None:
    """Let the app run until ``condition()`` holds (a hang guard, not a timing claim)."""
    await waiting.until(condition, timeout, pause=pilot.pause, what=what)


def describe(app: AcpApp) -> str:
    """What :func:`idle` looks at, for a failed wait's message."""
    session = app.session
    status = session.status if session is not None else "no session"
    return f"status={status} queued={len(app.queued)} revealing={app.log_view.revealing}"


async def ready(pilot: Pilot[int]) -> AcpApp:
    app = pilot.app
    assert isinstance(app, AcpApp)
    await until(pilot, lambda: app.session is not None)
    app.prompt.cursor_blink = False
    await pilot.pause()
    return app


def idle(app: AcpApp) -> bool:
    session = app.session
    return (
        session is not None
        and session.status in ("idle", "error", "closed")
        and not app.queued
        and not app.log_view.revealing
    )


async def send(pilot: Pilot[int], text: str) -> None:
    """Put ``text`` in the prompt and press Enter.

    The text is inserted in one go (Pilot waits for the app to go idle after
    every key, which makes typing long commands slow); Enter is a real key
    press. Typing itself is covered by tests/ui/test_prompt_input.py."""
    app = pilot.app
    assert isinstance(app, AcpApp)
    app.prompt.focus()
    app.prompt.insert(text)
    await pilot.press("enter")


def submit(app: AcpApp, text: str) -> None:
    """Submit ``text`` as Enter would, without Pilot's wait for the app to go
    idle (which, while a reply is being revealed, can outlast the reveal)."""
    app.prompt.focus()
    app.prompt.insert(text)
    app.prompt.action_submit()


async def turn(pilot: Pilot[int], text: str, turns_before: int | None = None) -> AcpApp:
    """Send ``text`` and wait until that turn has ended and is fully shown."""
    app = pilot.app
    assert isinstance(app, AcpApp) and app.session is not None
    users = sum(1 for e in app.session.thread.entries if e.kind == "user")
    await send(pilot, text)
    await until(
        pilot,
        lambda: (
            app.session is not None
            and sum(1 for e in app.session.thread.entries if e.kind == "user") > users
            and idle(app)
        ),
    )
    await pilot.pause()
    return app


def screen_text(app: AcpApp) -> str:
    """What the log shows right now, as plain text."""
    log = app.log_view
    return "\n".join(log.render_line(y).text for y in range(log.size.height))


def screen_rows(app: AcpApp) -> list[str]:
    """Every row of the whole screen as composed (dialogs and toasts included),
    as the text that would be written between the styles."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return ["".join(segment.text for strip in line for segment in strip) for line in update.strips]


class PtyApp:
    """The real ``acp-tui`` program on a real pty, running ``agent`` (a script)."""

    def __init__(self, agent: Path, cwd: Path, rows: int = 40, columns: int = 120) -> None:
        self.output = bytearray()
        self.tui = PtyProcess.spawn(
            [sys.executable, "-m", "acp_tui", "--cwd", str(cwd), "--", sys.executable, str(agent)],
            env={**os.environ, "TERM": "xterm-256color"},
            dimensions=(rows, columns),
        )

    def read(self, seconds: float = 0.1) -> None:
        """Take what it wrote, for up to ``seconds`` (a full pty would block it)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if not select.select([self.tui.fd], [], [], left)[0]:
                return
            try:
                self.output += self.tui.read(65536)
            except EOFError:
                return

    def shows(self, needle: bytes) -> bool:
        """Whether ``needle`` was drawn, after reading for a moment."""
        self.read()
        return needle in self.output

    def wait_for(self, needle: bytes, timeout: float = 30) -> None:
        waiting.wait_until(
            lambda: self.shows(needle), timeout, poll=0, what=f"{needle!r} never shown"
        )

    def type(self, data: bytes) -> None:
        self.tui.write(data)

    def wait_gone(self, timeout: float = 30) -> bool:
        """Whether the program ended within ``timeout`` (its output still read)."""

        def ended() -> bool:
            self.read()
            return not self.tui.isalive()

        return waiting.came_true(ended, timeout, poll=0)

    def kill(self) -> None:
        if self.tui.isalive():
            self.tui.kill(signal.SIGKILL)


def painted(app: AcpApp) -> str:
    """What the terminal shows right now, dialogs included, one line per row."""
    # The compositor is private, but it is what gets painted: no markup, no SVG escapes.
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def steady(pilot: Pilot[int], timeout: float = 10) -> None:
    """Until two screens 0.2 s apart are the same (a loaded machine may still
    be drawing the last frame when the app goes idle)."""
    app = pilot.app
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last = app.export_screenshot()
    while loop.time() < deadline:
        await pilot.pause(0.2)
        now = app.export_screenshot()
        if now == last:
            return
        last = now
