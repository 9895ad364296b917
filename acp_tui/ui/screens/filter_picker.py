"""A filter over a list, to pick one item: the keys and the answer.

The base of the prompt-history search (Ctrl+R) and the session switcher
(Ctrl+O). A subclass composes an ``Input`` and an ``OptionList``, fills the
list in :meth:`FilterPicker._filter` (called at the open and as the filter
changes) and says what each row answers in :meth:`FilterPicker._listed`.
Up/Down move, Enter (or a click) answers the highlighted row's item, Esc None.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Generic, TypeVar

from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList

T = TypeVar("T")


class FilterPicker(ModalScreen[T | None], Generic[T]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", show=False),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("enter", "choose", show=False, priority=True),
    ]
    #: Enter with nothing listed closes the picker (answering None), else it does nothing.
    CLOSE_WHEN_EMPTY: ClassVar[bool] = False

    def _filter(self, query: str) -> None:
        """List the items ``query`` matches."""
        raise NotImplementedError

    def _listed(self) -> Sequence[T]:
        """What each row of the list answers, in the list's order."""
        raise NotImplementedError

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._filter(event.value)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if step > 0:
            options.action_cursor_down()
        else:
            options.action_cursor_up()

    def action_choose(self) -> None:
        index = self.query_one(OptionList).highlighted
        listed = self._listed()
        if index is not None and listed:
            self.dismiss(listed[index])
        elif self.CLOSE_WHEN_EMPTY:
            self.dismiss(None)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self._listed()[event.option_index])

    def action_close(self) -> None:
        self.dismiss(None)
