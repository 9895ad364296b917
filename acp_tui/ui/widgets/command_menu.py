"""Slash-command data, ranking, and the completion menu shown above the prompt.

The menu never takes focus: the prompt input keeps it and drives the menu
(highlight, accept, close). It is mounted on the screen as an overlay and
placed by its owner, so it floats above the transcript instead of pushing it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.cells import cell_len
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

#: Rows of commands shown at once; more scroll.
MAX_VISIBLE = 8


@dataclass(frozen=True)
class SlashCommand:
    """One ACP ``available_commands`` entry, reduced to what the menu needs."""

    name: str
    description: str = ""
    hint: str | None = None
    takes_input: bool = False


def parse_commands(commands: Iterable[Any]) -> list[SlashCommand]:
    """Turn ACP ``availableCommands`` dicts into :class:`SlashCommand` values.

    Tolerant of what agents really send: a leading ``/`` on the name is
    dropped, entries without a usable name are skipped, a repeated name keeps
    its first entry, and any non-null ``input`` (not only ``{"hint": ...}``)
    means the command takes input.
    """
    parsed: list[SlashCommand] = []
    seen: set[str] = set()
    for command in commands:
        if not isinstance(command, Mapping):
            continue
        raw_name = command.get("name")
        if not isinstance(raw_name, str):
            continue
        name = raw_name.strip().lstrip("/")
        if not name or any(ch.isspace() for ch in name) or name in seen:
            continue
        seen.add(name)
        description = command.get("description")
        spec = command.get("input")
        hint = spec.get("hint") if isinstance(spec, Mapping) else None
        parsed.append(
            SlashCommand(
                name=name,
                description=description.strip() if isinstance(description, str) else "",
                hint=hint.strip() or None if isinstance(hint, str) else None,
                takes_input=spec is not None,
            )
        )
    return parsed


def _is_subsequence(needle: str, haystack: str) -> bool:
    it = iter(haystack)
    return all(ch in it for ch in needle)


def rank_commands(commands: Iterable[SlashCommand], query: str) -> list[SlashCommand]:
    """Commands matching ``query`` (the word after ``/``), best first.

    Order: the exact name, then names starting with the query, then names
    containing it, then names containing its letters in order (fuzzy). Within
    each group the agent's own order is kept. Case-insensitive. An empty
    query matches everything.
    """
    needle = query.casefold()
    groups: tuple[list[SlashCommand], ...] = ([], [], [], [])
    for command in commands:
        name = command.name.casefold()
        if name == needle:
            groups[0].append(command)
        elif name.startswith(needle):
            groups[1].append(command)
        elif needle in name:
            groups[2].append(command)
        elif _is_subsequence(needle, name):
            groups[3].append(command)
    return [command for group in groups for command in group]


def command_label(command: SlashCommand, name_width: int = 0) -> Content:
    """One menu row: ``/name  description  ‹hint›`` (agent text is never markup).

    ``name_width`` pads the name so that descriptions line up in a column.
    """
    name = f"/{command.name}"
    parts: list[str | tuple[str, str]] = [(name, "bold")]
    if command.description:
        padding = " " * max(0, name_width - cell_len(name))
        # $foreground-muted, not $text-muted: the latter is an "auto" colour,
        # which renders as plain white inside an OptionList prompt.
        parts += [padding + "  ", (command.description, "$foreground-muted")]
    if command.hint:
        parts += ["  ", (f"‹{command.hint}›", "italic $text-secondary")]
    return Content.assemble(*parts)


class CommandMenu(OptionList, can_focus=False):
    """The slash-command completion list. Owned and driven by a prompt input."""

    DEFAULT_CSS = """
    CommandMenu {
        overlay: screen;
        position: absolute;
        height: auto;
        max-height: 10;
        border: round $primary;
        padding: 0;
        background: $surface;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        display: none;
        & > .option-list--option {
            padding: 0 1;
        }
        & > .option-list--option-highlighted {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
    }
    """

    ALLOW_MAXIMIZE: ClassVar[bool] = False

    def __init__(self, on_pick: Callable[[int], None], *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, markup=False)
        self._on_pick = on_pick
        self.commands: list[SlashCommand] = []

    def show_commands(self, commands: list[SlashCommand]) -> None:
        """Show ``commands``; a new list highlights its first (best) entry.

        An unchanged list keeps its highlight (the cursor moved, or the
        commands were re-sent) so that the user's choice is not lost.
        """
        if commands != self.commands:
            self.commands = list(commands)
            width = min(max((cell_len(c.name) + 1 for c in commands), default=0), 24)
            self.set_options(Option(command_label(command, width)) for command in commands)
            self.highlighted = 0 if commands else None
        elif self.highlighted is None and commands:
            self.highlighted = 0

    @property
    def highlighted_command(self) -> SlashCommand | None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self.commands):
            return None
        return self.commands[index]

    def page_up(self) -> None:
        self.action_page_up()  # type: ignore[no-untyped-call]

    def page_down(self) -> None:
        self.action_page_down()  # type: ignore[no-untyped-call]

    @property
    def rows(self) -> int:
        """Height in rows, borders included, for the current commands."""
        return min(len(self.commands), MAX_VISIBLE) + 2

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        # A click: hand it to the owner rather than bubbling to the screen.
        event.stop()
        self._on_pick(event.option_index)
