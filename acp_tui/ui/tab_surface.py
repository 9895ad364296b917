"""The surface one session's flows see, in a window of several sessions.

Each session tab (session_tab.py) gives its flows a :class:`TabSurface`: the
log, plan and queue line are the tab's own widgets, so a background session
draws only into its own (hidden) pane. What is shared is handled here:

- the prompt: :class:`TabPrompt` keeps the session's commands, file root and
  capabilities and the draft, and hands them to the one prompt widget while
  the tab is current (and again when it becomes current);
- dialogs: one a background session opens (a permission, a question, a
  sign-in it asks for) waits, unseen and never taking a key, until its tab is
  switched to; the agent waits meanwhile. One closed before that (resolved
  elsewhere) answers None;
- background work runs in groups of the tab's own (an exclusive start of one
  session never cancels another's);
- a change of state shows in the session bar, and in the status line when
  the tab is current.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual.notifications import SeverityLevel

if TYPE_CHECKING:
    from textual.screen import Screen

    from acp_tui.core import PromptCapabilities
    from acp_tui.ui.input_first import InputFirst
    from acp_tui.ui.render import ThemePalette
    from acp_tui.ui.widgets.entry_log import EntryLog
    from acp_tui.ui.widgets.plan_panel import PlanPanel
    from acp_tui.ui.widgets.prompt_input import PromptInput
    from acp_tui.ui.widgets.queue_line import QueueLine


class Window(Protocol):
    """What a tab's surface asks of the app around it."""

    @property
    def prompt(self) -> PromptInput: ...

    @property
    def palette(self) -> ThemePalette: ...

    @property
    def typed_at(self) -> float: ...

    @property
    def input_first(self) -> InputFirst: ...

    def toast(
        self, message: str, *, severity: SeverityLevel = "information", timeout: float | None = None
    ) -> None: ...

    def open_dialog(self, screen: Screen[Any], on_close: Callable[[Any], None]) -> None: ...

    def close_dialog(self, screen: Screen[Any]) -> None: ...

    async def ask(self, screen: Screen[Any]) -> Any: ...

    def in_background(
        self, work: Coroutine[Any, Any, Any], group: str, *, exclusive: bool = False
    ) -> None: ...

    def run_outside(self, argv: list[str], env: dict[str, str] | None = None) -> int | None: ...

    async def painted(self) -> None: ...

    def tab_changed(self, key: str) -> None:
        """The tab ``key``'s state changed (its bar tab, its status line)."""

    def is_current(self, key: str) -> bool: ...


@dataclass
class Draft:
    """What the user had typed in a tab they switched away from."""

    text: str = ""
    cursor: tuple[int, int] = (0, 0)


@dataclass
class TabPrompt:
    """One session's share of the prompt widget (see the module)."""

    window: Window
    key: str
    commands: list[dict[str, Any]] = field(default_factory=list)
    file_root: Path | None = None
    capabilities: PromptCapabilities | None = None
    draft: Draft = field(default_factory=Draft)

    def _live(self) -> PromptInput | None:
        return self.window.prompt if self.window.is_current(self.key) else None

    def set_commands(self, commands: list[dict[str, Any]]) -> None:
        self.commands = list(commands)
        if (prompt := self._live()) is not None:
            prompt.set_commands(self.commands)

    def set_file_root(self, root: Path | None) -> None:
        self.file_root = root
        if (prompt := self._live()) is not None:
            prompt.set_file_root(root)

    def set_prompt_capabilities(self, capabilities: PromptCapabilities | None) -> None:
        self.capabilities = capabilities
        if (prompt := self._live()) is not None:
            prompt.set_prompt_capabilities(capabilities)

    @property
    def image_attachments(self) -> dict[str, Path]:
        prompt = self._live()
        return prompt.image_attachments if prompt is not None else {}

    def insert(self, text: str) -> object:
        """A key a dialog of this tab got early (its tab is current then)."""
        prompt = self._live()
        return prompt.insert(text) if prompt is not None else None

    def mute_typing(self, seconds: float) -> None:
        if (prompt := self._live()) is not None:
            prompt.mute_typing(seconds)

    # -- switching ------------------------------------------------------------------

    def leave(self, prompt: PromptInput) -> None:
        """The tab is no longer current: keep what the user typed."""
        self.draft = Draft(prompt.text, prompt.cursor_location)

    def enter(self, prompt: PromptInput) -> None:
        """The tab is current: the prompt shows its draft, commands and files."""
        prompt.set_commands(self.commands)
        prompt.set_file_root(self.file_root)
        prompt.set_prompt_capabilities(self.capabilities)
        prompt.show_draft(self.draft.text, self.draft.cursor)
        self.draft = Draft()


class TabSurface:
    """A :class:`~acp_tui.ui.surface.Surface` for one tab's flows."""

    def __init__(
        self,
        window: Window,
        key: str,
        *,
        log: EntryLog,
        plan: PlanPanel,
        queue: QueueLine,
    ) -> None:
        self.window = window
        self.key = key
        self._log, self._plan, self._queue = log, plan, queue
        self._prompt = TabPrompt(window, key)
        #: Dialogs opened while the tab was in the background, oldest first.
        self.waiting: list[tuple[Screen[Any], Callable[[Any], None]]] = []
        #: Set when the tab is next shown (what a question asked in the background awaits).
        self._shown = asyncio.Event()
        #: Questions (``ask``) waiting for the tab to be shown.
        self.asking = 0

    @property
    def log_view(self) -> EntryLog:
        return self._log

    @property
    def prompt(self) -> TabPrompt:
        return self._prompt

    @property
    def plan_panel(self) -> PlanPanel:
        return self._plan

    @property
    def queue_line(self) -> QueueLine:
        return self._queue

    @property
    def palette(self) -> ThemePalette:
        return self.window.palette

    @property
    def typed_at(self) -> float:
        return self.window.typed_at

    @property
    def current(self) -> bool:
        return self.window.is_current(self.key)

    def toast(
        self, message: str, *, severity: SeverityLevel = "information", timeout: float | None = None
    ) -> None:
        self.window.toast(message, severity=severity, timeout=timeout)

    def open_dialog(self, screen: Screen[Any], on_close: Callable[[Any], None]) -> None:
        if self.current:
            self.window.open_dialog(screen, on_close)
        else:
            self.waiting.append((screen, on_close))
            self.window.tab_changed(self.key)

    def close_dialog(self, screen: Screen[Any]) -> None:
        for index, (waiting, on_close) in enumerate(self.waiting):
            if waiting is screen:
                del self.waiting[index]
                on_close(None)
                self.window.tab_changed(self.key)
                return
        self.window.close_dialog(screen)

    def open_waiting(self) -> None:
        """The tab became current: the dialogs that waited open, in order."""
        waiting, self.waiting = self.waiting, []
        for screen, on_close in waiting:
            self.window.open_dialog(screen, on_close)
        shown, self._shown = self._shown, asyncio.Event()
        shown.set()

    def close_waiting(self) -> None:
        """The tab closes: the dialogs that waited answer None."""
        waiting, self.waiting = self.waiting, []
        for _screen, on_close in waiting:
            on_close(None)

    async def ask(self, screen: Screen[Any]) -> Any:
        if not self.current:
            self.asking += 1
            self.window.tab_changed(self.key)
            try:
                while not self.current:
                    await self._shown.wait()
            finally:
                self.asking -= 1
        return await self.window.ask(screen)

    def in_background(
        self, work: Coroutine[Any, Any, Any], group: str, *, exclusive: bool = False
    ) -> None:
        self.window.in_background(work, f"{group}-{self.key}", exclusive=exclusive)

    def run_outside(self, argv: list[str], env: dict[str, str] | None = None) -> int | None:
        return self.window.run_outside(argv, env)

    async def painted(self) -> None:
        await self.window.painted()

    def refresh_status(self) -> None:
        self.window.tab_changed(self.key)
