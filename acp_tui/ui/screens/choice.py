"""A small keyboard-first picker: choose one of a few values (a model, a
mode, a sign-in method).

The screen dismisses with the chosen :class:`Choice`'s ``value``, or ``None``
when the user presses Esc. Keys: Up/Down (or k/j) move, Enter chooses, a
digit ``1``-``9`` chooses at once, a click chooses. The current value is
marked and highlighted when the picker opens. Textual gives focus back to the
widget underneath (the prompt) when the screen is dismissed.

With ``delete`` (the resume picker's), Ctrl+D (or Delete) hands the
highlighted choice's value to it; it asks and deletes, and the picker then
shows the choices it answers (closing when none is left; None: nothing changed).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
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

__all__ = ["Choice", "ChoiceScreen", "Deleter"]


@dataclass(frozen=True)
class Choice:
    value: str
    label: str
    description: str = ""


#: Deletes the choice of this value (after asking): the choices left, or None.
Deleter = Callable[[str], Awaitable["list[Choice] | None"]]


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
        Binding("ctrl+d", "delete", show=False),
        Binding("delete", "delete", show=False),
    ]

    def __init__(
        self,
        title: str,
        choices: list[Choice],
        current: str | None = None,
        *,
        delete: Deleter | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.current = current
        self.deleter = delete

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
            keys = "↑↓ move · Enter choose · 1-9 pick"
            if self.deleter is not None:
                keys = "↑↓ · Enter choose · 1-9 pick · Ctrl+D delete"
            yield Static(f"{keys} · Esc close", id="choice-help")

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.deleter is not None if action == "delete" else True

    def action_delete(self) -> None:
        index = self.query_one(OptionList).highlighted
        if self.deleter is not None and index is not None and 0 <= index < len(self.choices):
            work = self._delete(self.deleter, self.choices[index].value, index)
            self.run_worker(work, group="delete", exclusive=True, exit_on_error=False)

    async def _delete(self, delete: Deleter, value: str, index: int) -> None:
        left = await delete(value)
        if left is None:
            return
        if not left:
            self.dismiss(None)
            return
        self.choices = left
        option_list = self.query_one(OptionList)
        option_list.clear_options()
        option_list.add_options(list(self._options()))
        option_list.highlighted = min(index, len(left) - 1)
        option_list.focus()
