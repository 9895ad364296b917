"""The prompt input alone in a tiny app, driven through the keyboard.

    async with prompt_app(commands=COMMANDS) as (app, pilot):
        await type_text(pilot, "/r")
        ...

The app docks the real :class:`PromptInput` at the bottom, focuses it, and
records what reached the app: submitted prompts and the app bindings that
fired (so a test sees which keys the input let through).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.pilot import Pilot
from textual.widgets import Button

from acp_tui.ui.history import PromptHistory
from acp_tui.ui.widgets.prompt_input import PromptInput

COMMANDS: list[dict[str, Any]] = [
    {"name": "tour", "description": "Everything at once", "input": None},
    {"name": "read", "description": "Read a file", "input": None},
    {"name": "run", "description": "Run a shell command", "input": {"hint": "a shell command"}},
]


class PromptApp(App[None]):
    """The widget docked at the bottom, plus app bindings that record what reached the app."""

    CSS = "#prompt { dock: bottom; }"

    BINDINGS: ClassVar[list[BindingType]] = [
        # Not priority: the input must let Escape through when its menu is closed.
        Binding("escape", "record('escape')", "Cancel turn"),
        # Priority, as the real app must declare it (the Screen binds shift+tab).
        Binding("shift+tab", "record('shift+tab')", "Next mode", priority=True),
        # Not priority: proves the input itself does not swallow these.
        Binding("ctrl+c", "record('ctrl+c')", "Clear / quit"),
        Binding("ctrl+q", "record('ctrl+q')", "Quit"),
    ]

    def __init__(self, history: PromptHistory | None = None, with_button: bool = False) -> None:
        super().__init__()
        self.history = history
        self.with_button = with_button
        self.submitted: list[PromptInput.Submitted] = []
        self.calls: list[str] = []

    def compose(self) -> ComposeResult:
        if self.with_button:
            yield Button("other", id="other")
        yield PromptInput(history=self.history, id="prompt")

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        self.submitted.append(message)

    def action_record(self, name: str) -> None:
        self.calls.append(name)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def texts(self) -> list[str]:
        return [message.text for message in self.submitted]


@asynccontextmanager
async def prompt_app(
    *,
    history: PromptHistory | None = None,
    commands: list[dict[str, Any]] | None = None,
    with_button: bool = False,
    size: tuple[int, int] | None = None,
    app: PromptApp | None = None,
) -> AsyncIterator[tuple[PromptApp, Pilot[None]]]:
    """A running :class:`PromptApp` (or ``app``) and its pilot, the prompt focused
    and given ``commands`` (the agent's slash commands), if any."""
    if app is None:
        app = PromptApp(history=history, with_button=with_button)
    async with app.run_test(size=size) as pilot:
        if commands is not None:
            app.prompt.set_commands(commands)
        yield app, pilot


def is_open(prompt: PromptInput) -> bool:
    """``completion_open`` behind a call, so that mypy does not narrow it between steps."""
    return prompt.completion_open


async def type_text(pilot: Pilot[Any], text: str) -> None:
    """Type ``text`` key by key, then let the app settle."""
    keys = ["space" if ch == " " else ch for ch in text]
    await pilot.press(*keys)
    await pilot.pause()
