"""acp-tui's own help (F1, or ``?`` on an empty prompt): its keys and commands,
grouped, the agent's slash commands, and where its files are.

Esc, q, F1 or ``?`` close it; Up/Down/PgUp/PgDn scroll.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["KEY_GROUPS", "HelpScreen", "HelpTopics"]

#: (group, [(keys, what they do)]), in the order shown.
KEY_GROUPS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "Prompt",
        [
            ("Enter", "send (queued while a turn runs)"),
            ("Alt+Enter", "steer: cancel the turn, send this first"),
            ("Ctrl+J · Shift+Enter", "new line"),
            ("Up (empty prompt)", "edit the last queued prompt"),
            ("Up / Down", "earlier prompts (kept per project)"),
            ("Ctrl+R", "search earlier prompts"),
            ("Ctrl+G", "edit the prompt in $EDITOR"),
            ("Ctrl+F", "expand pasted-text chips in the prompt"),
            ("/", "commands (Tab completes, Enter runs)"),
            ("@", "attach a file of the project"),
            ("!command", "run it in your shell (the agent sees it next)"),
        ],
    ),
    (
        "Turn",
        [
            ("Esc · Ctrl+C", "cancel the running turn"),
            ("Ctrl+C", "clear the prompt; twice on an empty prompt: quit"),
            ("Shift+Tab", "next mode"),
            ("Esc Esc · /rewind", "(empty prompt) put the files back as before a turn"),
            ("/changes", "what each turn changed in the files"),
        ],
    ),
    (
        "Sessions",
        [
            ("Alt+1 … Alt+9", "switch to session N (the tabs at the top)"),
            ("Ctrl+O", "all sessions: filter, pick one"),
            ("Ctrl+N", "the session that has waited for you longest"),
            ("/new [agent] · /close", "open a session (this agent, or another) · close this one"),
            ("/resume · /fork", "an earlier session · this one forked, each in a new tab"),
        ],
    ),
    (
        "Conversation",
        [
            ("PgUp / PgDn", "scroll"),
            ("End (empty prompt) · Ctrl+End", "back to the newest output, and follow it"),
            ("Ctrl+Home", "the top"),
            ("Ctrl+L", "move into the log: j/k entries, Enter expands, c copies"),
            ("r · f · e · u", "on a changes entry: rewind, one file, edit; undo a rewind"),
            ("Ctrl+T", "fold or unfold the plan"),
        ],
    ),
    (
        "Permission dialog",
        [
            ("y · a · n", "allow once · always · reject (as offered)"),
            ("Up / Down, Enter", "choose"),
            ("PgUp / PgDn", "scroll the request"),
            ("Esc", "reject"),
        ],
    ),
    (
        "App",
        [
            ("Ctrl+P", "command palette: model, mode, theme, export…"),
            ("F1 · ? (empty prompt)", "this help"),
            ("Ctrl+Q", "quit"),
        ],
    ),
]


@dataclass(frozen=True)
class HelpTopics:
    """What the help shows beyond the keys."""

    #: (name, description) of every slash command, acp-tui's own included.
    commands: list[tuple[str, str]]
    #: (what, path) of acp-tui's files: the agent log, the config…
    files: list[tuple[str, str]]


#: The keys' column, as wide in every group so that they line up.
KEY_COLUMN = 30


def _table(rows: list[tuple[str, str]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True, min_width=KEY_COLUMN)
    table.add_column()
    for left, right in rows:
        table.add_row(Text(left), Text(right))
    return table


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
    }
    HelpScreen > #help-dialog {
        width: 90;
        max-width: 95%;
        height: auto;
        max-height: 90%;
        border: round $accent;
        background: $surface;
        padding: 0 1;
    }
    HelpScreen #help-body {
        height: auto;
        max-height: 100%;
    }
    HelpScreen .help-heading {
        color: $text-accent;
        text-style: bold;
        margin-top: 1;
    }
    HelpScreen #help-footer {
        color: $foreground-muted;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1,question_mark", "close", "Close", show=False),
        Binding("up,k", "scroll(-1)", show=False),
        Binding("down,j", "scroll(1)", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
    ]

    def __init__(self, topics: HelpTopics) -> None:
        super().__init__()
        self.topics = topics

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            with VerticalScroll(id="help-body", can_focus=False):
                for group, rows in KEY_GROUPS:
                    yield Static(group, classes="help-heading")
                    yield Static(_table(rows))
                if self.topics.commands:
                    yield Static("Commands", classes="help-heading")
                    rows = [(f"/{name}", text) for name, text in self.topics.commands]
                    yield Static(_table(rows))
                if self.topics.files:
                    yield Static("Files", classes="help-heading")
                    yield Static(_table(self.topics.files))
            yield Static("Esc closes · ↑↓ PgUp PgDn scroll", id="help-footer")

    def _body(self) -> VerticalScroll:
        return self.query_one("#help-body", VerticalScroll)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scroll(self, step: int) -> None:
        self._body().scroll_relative(y=step, animate=False)

    def action_page(self, step: int) -> None:
        body = self._body()
        if step < 0:
            body.scroll_page_up(animate=False)
        else:
            body.scroll_page_down(animate=False)
