"""Slash-command data, ranking, and the completion menu shown above the prompt.

The same menu lists either the agent's slash commands (``/``) or file paths
(``@`` mentions, from :class:`~acp_tui.core.prompting.file_index.FileIndex`). It never
takes focus: the prompt input keeps it and drives the menu (highlight, accept,
close). It is mounted on the screen as an overlay and placed by its owner, so
it floats above the transcript instead of pushing it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from rich.cells import cell_len
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from acp_tui.core import is_printable_name, one_line, visible_controls

if TYPE_CHECKING:
    # Loaded at the first ``@``: the first frame needs no file index.
    from acp_tui.core import FileIndex, PathMatch

#: Rows of commands shown at once; more scroll.
MAX_VISIBLE = 8
#: Path matches listed in the ``@`` menu (the rest of the best 50 scroll).
MAX_PATHS = 50

MenuKind = Literal["command", "path"]


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
        if not is_printable_name(name):  # it could not be typed, nor shown as it is
            continue
        seen.add(name)
        description = command.get("description")
        spec = command.get("input")
        hint = spec.get("hint") if isinstance(spec, Mapping) else None
        parsed.append(
            SlashCommand(
                name=name,
                description=one_line(description) if isinstance(description, str) else "",
                hint=one_line(hint) or None if isinstance(hint, str) else None,
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


class PathSource:
    """The ``@`` menu's paths: a :class:`FileIndex` of the current root, built off the UI.

    ``spawn`` runs a coroutine as a worker of the owner; ``on_built`` is called
    (on the event loop) after each build. The first build starts on the first
    query; a rebuild starts when the menu opens on a listing older than the
    index's ``max_age`` (and never more often than that).
    """

    def __init__(
        self,
        spawn: Callable[[Coroutine[Any, Any, None]], None],
        on_built: Callable[[], None],
    ) -> None:
        self._spawn = spawn
        self._on_built = on_built
        self.index: FileIndex | None = None
        self._started = 0.0

    def matches(self, root: Path, query: str, *, opening: bool) -> list[PathMatch]:
        """The best matches for ``query`` under ``root``; none until the first build is done.

        A file typed in full matches nothing, so that Enter sends the prompt.
        """
        from acp_tui.core import FileIndex

        index = self.index
        if index is None or index.root != root:
            if index is not None:
                index.cancel()
            index = self.index = FileIndex(root)
            self._started = 0.0
        if not index.ready or (opening and index.stale()):
            self._build(index)
        if not query.endswith("/") and index.contains(query):
            return []
        return index.search(query, MAX_PATHS)

    def _build(self, index: FileIndex) -> None:
        now = time.monotonic()
        if index.building or (self._started and now - self._started < index.max_age):
            return
        self._started = now
        self._spawn(self._run(index))

    async def _run(self, index: FileIndex) -> None:
        await asyncio.to_thread(index.build)
        if self.index is index:
            self._on_built()

    def close(self) -> None:
        """Stop any build (so that quitting never waits for a big tree's listing)."""
        if self.index is not None:
            self.index.cancel()
            self.index = None


def path_label(match: PathMatch, width: int = 0) -> Content:
    """One path row: the directory part muted, the matched characters accented.

    A path wider than ``width`` cells (when given) loses its start, not its
    name: ``…/deep/folder/name.py``.
    """
    path = visible_controls(match.path)  # a file's name may hold an ESC too
    cut = 0
    if width > 2 and cell_len(path) > width:
        cut = max(0, len(path) - width + 1)
        while cut < len(path) and cell_len(path[cut:]) > width - 1:
            cut += 1
    matched = set(match.positions)
    base = path.rfind("/", 0, len(path) - 1) + 1
    parts: list[str | tuple[str, str]] = ["…"] if cut else []
    run: list[str] = []
    run_style = ""
    for index in range(cut, len(path)):
        style = "$foreground-muted" if index < base else ""
        if index in matched:
            style = "bold $text-accent"
        if style != run_style and run:
            parts.append(("".join(run), run_style) if run_style else "".join(run))
            run = []
        run_style = style
        run.append(path[index])
    if run:
        parts.append(("".join(run), run_style) if run_style else "".join(run))
    return Content.assemble(*parts)


class CommandMenu(OptionList, can_focus=False):
    """The completion list (slash commands or paths). Owned and driven by a prompt input."""

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
        self.kind: MenuKind = "command"
        self.commands: list[SlashCommand] = []
        self.paths: list[PathMatch] = []

    def show_commands(self, commands: list[SlashCommand]) -> None:
        """Show ``commands``; a new list highlights its first (best) entry.

        An unchanged list keeps its highlight (the cursor moved, or the
        commands were re-sent) so that the user's choice is not lost.
        """
        if self.kind != "command":
            self.kind, self.paths, self.commands = "command", [], []
        if commands != self.commands:
            self.commands = list(commands)
            width = min(max((cell_len(c.name) + 1 for c in commands), default=0), 24)
            self.set_options(Option(command_label(command, width)) for command in commands)
            self.highlighted = 0 if commands else None
        elif self.highlighted is None and commands:
            self.highlighted = 0

    def show_paths(self, paths: list[PathMatch], width: int = 0) -> None:
        """Show path matches (``@`` completion); like :meth:`show_commands` for the highlight."""
        if self.kind != "path":
            self.kind, self.paths, self.commands = "path", [], []
        if [p.path for p in paths] != [p.path for p in self.paths]:
            self.paths = list(paths)
            self.set_options(Option(path_label(match, width)) for match in paths)
            self.highlighted = 0 if paths else None
        else:
            self.paths = list(paths)
            if self.highlighted is None and paths:
                self.highlighted = 0

    @property
    def highlighted_command(self) -> SlashCommand | None:
        index = self.highlighted
        if self.kind != "command" or index is None or not 0 <= index < len(self.commands):
            return None
        return self.commands[index]

    @property
    def highlighted_path(self) -> PathMatch | None:
        index = self.highlighted
        if self.kind != "path" or index is None or not 0 <= index < len(self.paths):
            return None
        return self.paths[index]

    def page_up(self) -> None:
        self.action_page_up()  # type: ignore[no-untyped-call]

    def page_down(self) -> None:
        self.action_page_down()  # type: ignore[no-untyped-call]

    @property
    def rows(self) -> int:
        """Height in rows, borders included, for the current entries."""
        count = len(self.commands) if self.kind == "command" else len(self.paths)
        return min(count, MAX_VISIBLE) + 2

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        # A click: hand it to the owner rather than bubbling to the screen.
        event.stop()
        self._on_pick(event.option_index)
