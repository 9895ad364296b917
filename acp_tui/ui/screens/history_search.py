"""Ctrl+R: search the prompts sent earlier in this project, newest first.

Type to filter (case-insensitive, anywhere in the prompt); Up/Down or Ctrl+R
move to the next older match; Enter puts the highlighted prompt in the input
(to edit or send); Esc leaves the draft as it was. Dismisses with the chosen
prompt or None.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.ui.history import PromptHistory
from acp_tui.ui.screens.filter_picker import FilterPicker

#: Matches listed at most.
SHOWN = 50


class HistorySearchScreen(FilterPicker[str]):
    DEFAULT_CSS = """
    HistorySearchScreen {
        align: center bottom;
    }
    HistorySearchScreen > #search-dialog {
        width: 100%;
        height: auto;
        max-height: 60%;
        border: round $accent;
        background: $surface;
        padding: 0 1;
    }
    HistorySearchScreen Input {
        border: none;
        height: 1;
        padding: 0;
        background: $surface;
    }
    HistorySearchScreen OptionList, HistorySearchScreen OptionList:focus {
        height: auto;
        max-height: 16;
        border: none;
        padding: 0;
        background: $surface;
    }
    HistorySearchScreen #search-help {
        color: $foreground-muted;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "move(1)", show=False, priority=True),
    ]
    CLOSE_WHEN_EMPTY = True

    def __init__(self, history: PromptHistory, query: str = "") -> None:
        super().__init__()
        self.history = history
        self.query_text = query
        self.matches: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="search-dialog"):
            yield Input(self.query_text, placeholder="search earlier prompts", id="search")
            yield OptionList(id="matches")
            yield Static("↑↓ Ctrl+R older · Enter use · Esc close", id="search-help")

    def on_mount(self) -> None:
        self._filter(self.query_text)
        self.query_one(Input).focus()

    def _filter(self, query: str) -> None:
        self.matches = self.history.search(query)[:SHOWN]
        options = self.query_one(OptionList)
        options.clear_options()
        for text in self.matches:
            first, *rest = text.splitlines() or [""]
            more = f"  (+{len(rest)} lines)" if rest else ""
            options.add_option(Option(Content.assemble(first[:200], (more, "dim"))))
        if self.matches:
            options.highlighted = 0

    def _listed(self) -> list[str]:
        return self.matches
