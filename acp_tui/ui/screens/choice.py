"""A small keyboard-first picker: choose one of a few values (a model, a
mode, a sign-in method).

The screen dismisses with the chosen :class:`Choice`'s ``value``, or ``None``
when the user presses Esc. Keys: Up/Down (or k/j) move, Enter chooses, a
digit ``1``-``9`` chooses at once, a click chooses. The current value is
marked and highlighted when the picker opens. Textual gives focus back to the
widget underneath (the prompt) when the screen is dismissed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.core import one_line

__all__ = ["Choice", "ChoiceScreen"]


@dataclass(frozen=True)
class Choice:
    value: str
    label: str
    description: str = ""


class ChoiceScreen(ModalScreen[str | None]):
    DEFAULT_CSS = """
    ChoiceScreen {
        align: center middle;
    }
    ChoiceScreen > #choice-dialog {
        width: 64;
        max-width: 90%;
        height: auto;
        max-height: 80%;
        border: round $accent;
        background: $surface;
        padding: 0 1;
    }
    ChoiceScreen #choice-title {
        text-style: bold;
        padding-bottom: 1;
    }
    ChoiceScreen OptionList, ChoiceScreen OptionList:focus {
        height: auto;
        max-height: 20;
        border: none;
        padding: 0;
        background: $surface;
    }
    ChoiceScreen #choice-help {
        color: $foreground-muted;
        padding-top: 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_none", "Close", show=False),
        Binding("j", "move(1)", show=False),
        Binding("k", "move(-1)", show=False),
        *(Binding(str(n), f"pick({n - 1})", show=False) for n in range(1, 10)),
    ]

    def __init__(self, title: str, choices: list[Choice], current: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.current = current

    def _options(self) -> Iterator[Option]:
        for n, choice in enumerate(self.choices, 1):
            key = f"{n} " if n <= 9 else "  "
            mark = "● " if choice.value == self.current else "  "
            # Labels and descriptions come from the agent (modes, models, sessions).
            label = Content.assemble((key, "dim"), mark, (one_line(choice.label), "bold"))
            if choice.description:
                label = Content.assemble(label, ("  " + one_line(choice.description), "dim"))
            yield Option(label, id=str(n - 1))

    def compose(self) -> ComposeResult:
        with Vertical(id="choice-dialog"):
            yield Static(one_line(self.title_text), id="choice-title", markup=False)
            yield OptionList(*self._options())
            yield Static("↑↓ move · Enter choose · 1-9 pick · Esc close", id="choice-help")

    def on_mount(self) -> None:
        option_list = self.query_one(OptionList)
        values = [c.value for c in self.choices]
        option_list.highlighted = values.index(self.current) if self.current in values else 0
        option_list.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_pick(int(event.option.id or 0))

    def action_pick(self, index: int) -> None:
        if 0 <= index < len(self.choices):
            self.dismiss(self.choices[index].value)

    def action_move(self, step: int) -> None:
        option_list = self.query_one(OptionList)
        if step > 0:
            option_list.action_cursor_down()
        else:
            option_list.action_cursor_up()

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
