"""How one entry is to be rendered: width, theme and the log's state of it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from acp_tui.core import ToolCallEntry
from acp_tui.ui.render.styles import RenderStyles


@dataclass(frozen=True)
class NestedCall:
    """A tool call shown inside its parent's row (a subagent's), with its own."""

    entry: ToolCallEntry
    children: tuple[NestedCall, ...] = ()


@dataclass(frozen=True)
class RenderOptions:
    width: int
    styles: RenderStyles
    #: The user expanded this entry: thoughts in full, raw input/output,
    #: whole diffs and terminal output.
    expanded: bool = False
    #: Animation frame for running tool calls.
    spinner_frame: int = 0
    #: Assistant entries: chunk index -> code points of that chunk revealed
    #: so far (None: everything; a chunk not in the mapping is fully shown).
    reveal: Mapping[int, int] | None = None
    #: The entry has the log's cursor.
    selected: bool = False
    #: The session's working directory: paths inside it are shown relative.
    cwd: str | None = None
    #: A changes entry, expanded: its files' diffs (ACP ``diff`` content items,
    #: fetched from the host when it was expanded; None: not here yet).
    details: Sequence[dict[str, Any]] | None = None
    #: A tool call: the tool calls made under it (a subagent's), shown folded
    #: to a summary line unless it is expanded.
    children: tuple[NestedCall, ...] = ()
    #: A tool call shown inside its parent's expanded row: its own children
    #: are shown too (its own content stays folded).
    unfold_children: bool = False
