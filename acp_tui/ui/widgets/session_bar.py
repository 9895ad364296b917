"""STUB (replaced by the helper's widget on merge)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget


@dataclass(frozen=True)
class TabInfo:
    number: int
    agent: str
    title: str
    state: str
    unread: bool = False
    current: bool = False
    cwd: str = ""
    usage: str = ""


class SessionBar(Widget):
    DEFAULT_CSS = "SessionBar { height: 1; }"
    tabs: reactive[tuple[TabInfo, ...]] = reactive(())

    class Clicked(Message):
        def __init__(self, number: int, button: int) -> None:
            super().__init__()
            self.number = number
            self.button = button

    def render(self) -> Text:
        return Text(
            " ".join(
                f"[{t.number} {t.agent} {t.title[:10]} {t.state}{'*' if t.current else ''}]"
                for t in self.tabs
            )
        )
