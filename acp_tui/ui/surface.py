"""What the TUI's flows ask of the screen: the narrow interface they depend on.

The flows (the conversation's event handling, turns, the start of an agent,
permissions, pickers, resume, export) never see the App class: they get a
:class:`Surface` (the app is one) and a
:class:`~acp_tui.ui.host_link.HostLink`.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from textual.notifications import SeverityLevel

if TYPE_CHECKING:
    from pathlib import Path

    from textual.screen import Screen

    from acp_tui.core import PromptCapabilities
    from acp_tui.ui.render import ThemePalette
    from acp_tui.ui.widgets.entry_log import EntryLog
    from acp_tui.ui.widgets.plan_panel import PlanPanel
    from acp_tui.ui.widgets.queue_line import QueueLine


class PromptTarget(Protocol):
    """What the flows do to the prompt: the session's commands, files and
    capabilities, and the keys a dialog got before it was armed. (In a window
    of several sessions a background session's go to its own record, shown
    when it is switched to: ui/tab_surface.py.)"""

    def set_commands(self, commands: list[dict[str, Any]]) -> None: ...

    def set_file_root(self, root: Path | None) -> None: ...

    def set_prompt_capabilities(self, capabilities: PromptCapabilities | None) -> None: ...

    @property
    def image_attachments(self) -> dict[str, Path]: ...

    def insert(self, text: str) -> object: ...

    def mute_typing(self, seconds: float) -> None: ...


class Surface(Protocol):
    @property
    def log_view(self) -> EntryLog: ...

    @property
    def prompt(self) -> PromptTarget: ...

    @property
    def plan_panel(self) -> PlanPanel: ...

    @property
    def queue_line(self) -> QueueLine: ...

    @property
    def palette(self) -> ThemePalette:
        """The theme's colours (for what is rendered outside the log)."""

    @property
    def typed_at(self) -> float:
        """When the user last changed the draft (``time.monotonic``)."""

    def toast(
        self, message: str, *, severity: SeverityLevel = "information", timeout: float | None = None
    ) -> None: ...

    def open_dialog(self, screen: Screen[Any], on_close: Callable[[Any], None]) -> None: ...

    def close_dialog(self, screen: Screen[Any]) -> None:
        """Close ``screen`` if it is still open (answering None)."""

    async def ask(self, screen: Screen[Any]) -> Any:
        """Open ``screen`` and wait for its answer."""

    def in_background(
        self, work: Coroutine[Any, Any, Any], group: str, *, exclusive: bool = False
    ) -> None:
        """Run ``work`` beside the UI (``exclusive``: cancelling the group's
        earlier work)."""

    def run_outside(self, argv: list[str], env: dict[str, str] | None = None) -> int | None:
        """Hand the terminal to a program (an editor) until it ends: its exit
        status, or None when the terminal cannot be handed over."""

    async def painted(self) -> None:
        """Return once the first frame is on the terminal (Textual's Ready)."""

    def refresh_status(self) -> None:
        """Show the session's state in the status line again."""
