"""Markdown to lines, block by block, with a cache.

A streaming reply is re-rendered every animation frame. Rendering the
whole message each time would cost O(length) Markdown work per frame, so
the text is split into *blocks* at blank lines outside fenced code, each
block is rendered on its own and its lines are cached by (block text,
width, styles generation). While a reply streams only its last block
changes, so only that block is rendered again.

Splitting is conservative: a blank line followed by an indented line
(a list item's second paragraph, a nested list, indented code) does not
end a block, so such constructs are parsed whole.

What Rich cannot wrap in a frame's time is drawn as plain, lazily wrapped
text (long_text.py): a line over ``LONG_TEXT`` characters (one 16 MB chunk
without a line break), and a whole text over :data:`HUGE_TEXT`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import ClassVar

from markdown_it import MarkdownIt
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markdown import (
    CodeBlock,
    Heading,
    HorizontalRule,
    ListItem,
    Markdown,
    MarkdownElement,
)
from rich.rule import Rule
from rich.segment import Segment
from rich.text import Text

from acp_tui.ui.lru import LRU
from acp_tui.ui.render.code import HighlightedCode
from acp_tui.ui.render.layout import LONG_TEXT, Line, Painter, Rows, blank
from acp_tui.ui.render.long_text import LazyLines
from acp_tui.ui.render.styles import RenderStyles

#: Blocks longer than this are cut at line boundaries into pieces drawn one
#: under the other (a streaming reply without blank lines, a long code
#: block): a frame never re-renders more than one piece.
LONG_BLOCK = 4000
#: Blocks kept in the main cache (blocks that are complete).
BLOCK_CACHE_SIZE = 4096
#: Blocks kept in the tail cache: the last, still growing, block of each text.
TAIL_CACHE_SIZE = 64
#: A text longer than this (characters) is shown as plain text, lazily
#: wrapped: rendering its Markdown block by block would take seconds.
HUGE_TEXT = 1024 * 1024


def _fence_open(line: str) -> tuple[str, int] | None:
    """The fence (character, length) that ``line`` opens, if it opens one."""
    stripped = line.lstrip(" \t")
    if not stripped or stripped[0] not in "`~":
        return None
    char = stripped[0]
    length = len(stripped) - len(stripped.lstrip(char))
    if length < 3:
        return None
    if char == "`" and "`" in stripped[length:]:
        return None  # inline code such as ```x```, not a fence
    return char, length


def _fence_closes(line: str, fence: tuple[str, int]) -> bool:
    stripped = line.strip(" \t")
    char, length = fence
    return len(stripped) >= length and stripped == char * len(stripped)


def split_blocks(text: str) -> list[str]:
    """``text`` split at blank lines outside fenced code (an unclosed fence runs to the end)."""
    blocks: list[str] = []
    current: list[str] = []
    blank_run = 0
    fence: tuple[str, int] | None = None
    for line in text.split("\n"):
        if fence is not None:
            current.append(line)
            if _fence_closes(line, fence):
                fence = None
            continue
        if not line.strip():
            if current:
                blank_run += 1
            continue
        if blank_run:
            if line[0] in " \t":
                current.extend([""] * blank_run)  # continuation: same block
            else:
                blocks.append("\n".join(current))
                current = []
            blank_run = 0
        current.append(line)
        fence = _fence_open(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def split_long(block: str, limit: int = LONG_BLOCK) -> list[str]:
    """``block`` cut at line boundaries into pieces of at most ~``limit``
    characters; a fenced code block's pieces each get the fence again."""
    if len(block) <= limit:
        return [block]
    lines = block.split("\n")
    opening, closing = "", ""
    fence = _fence_open(lines[0])
    if fence is not None:
        opening = lines[0]
        lines = lines[1:]
        closed = bool(lines) and _fence_closes(lines[-1], fence)
        closing = lines.pop() if closed else fence[0] * fence[1]
    pieces: list[str] = []
    group: list[str] = []
    size = 0
    for line in lines:
        if group and size + len(line) > limit:
            pieces.append("\n".join(group))
            group, size = [], 0
        group.append(line)
        size += len(line) + 1
    if group:
        pieces.append("\n".join(group))
    if fence is not None:
        pieces = [f"{opening}\n{piece}\n{closing}" for piece in pieces]
    return pieces


class _Heading(Heading):
    """Headings left-aligned at every level (Rich centres h1)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        text.justify = "left"
        yield text


class _ListItem(ListItem):
    """List items numbered ``1.`` rather than Rich's bare ``1``."""

    def render_number(
        self, console: Console, options: ConsoleOptions, number: int, last_number: int
    ) -> RenderResult:
        number_width = len(str(last_number)) + 3
        render_options = options.update(width=options.max_width - number_width)
        lines = console.render_lines(self.elements, render_options, style=self.style)
        number_style = console.get_style("markdown.item.number", default="none")
        numeral = Segment(f"{number}.".rjust(number_width - 1) + " ", number_style)
        padding = Segment(" " * number_width, number_style)
        new_line = Segment("\n")
        for index, line in enumerate(lines):
            yield numeral if index == 0 else padding
            yield from line
            yield new_line


class _HorizontalRule(HorizontalRule):
    """A thin line (Rich draws dashes and a blank line after)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Rule(style=console.get_style("markdown.hr", default="none"), characters="─")


class _CodeBlock(CodeBlock):
    """Code blocks through the fast highlighter (see code.py)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        background = console.get_style("markdown.code_block", default="none")
        yield HighlightedCode(str(self.text).rstrip(), self.lexer_name, self.theme, background)


class _Markdown(Markdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": _Heading,
        "list_item_open": _ListItem,
        "hr": _HorizontalRule,
        "fence": _CodeBlock,
        "code_block": _CodeBlock,
    }


_PARSER = MarkdownIt().enable("strikethrough").enable("table")


class _Parsed:
    """Parsed Markdown per (block, code theme), reused at every width.

    ``Markdown.__init__`` builds a new markdown-it parser (~0.3 ms) each
    time; copying a template and parsing with a shared parser avoids that,
    and keeping the parse means a resize only re-wraps.
    """

    SIZE = 1024

    def __init__(self) -> None:
        self._templates: dict[str, _Markdown] = {}
        self._parsed: LRU[tuple[str, str], _Markdown] = LRU(self.SIZE)

    def clear(self) -> None:
        self._parsed.clear()

    def get(self, markup: str, code_theme: str, *, keep: bool = True) -> _Markdown:
        """The parse of ``markup``; ``keep=False`` for a block still growing."""
        key = (markup, code_theme)
        markdown = self._parsed.get(key)
        if markdown is not None:
            return markdown
        template = self._templates.get(code_theme)
        if template is None:
            template = _Markdown("", code_theme=code_theme, hyperlinks=False)
            self._templates[code_theme] = template
        markdown = copy.copy(template)
        markdown.markup = markup
        markdown.parsed = _PARSER.parse(markup)
        if not keep:
            return markdown
        self._parsed.set(key, markdown)
        return markdown


# Characters that may start Markdown syntax inside a line (emphasis, code,
# links, HTML, entities, tables, strikethrough, escapes).
_SYNTAX = re.compile(r"[\\`*_\[\]<>|~&\t]")
_HEADING = re.compile(r"(#{1,6})[ ]+(.*?)(?:[ ]+#+)?[ ]*")
_LEADING_OK = frozenset("\"'(“‘«")


def simple_block(block: str) -> tuple[str, str] | None:
    """(style name, text) when ``block`` is a plain paragraph or heading.

    Such blocks (most prose) skip markdown-it and Rich's Markdown: they
    render as one ``Text`` exactly as Rich would render them.
    """
    if _SYNTAX.search(block):
        return None
    if block.startswith("#"):
        if "\n" in block:
            return None
        match = _HEADING.fullmatch(block)
        if match is None or not match.group(2).strip():
            return None
        return f"markdown.h{len(match.group(1))}", match.group(2).strip()
    parts: list[str] = []
    for line in block.split("\n"):
        first = line[:1]
        if not (first.isalpha() or first in _LEADING_OK) or line.endswith("  "):
            return None  # lists, quotes, setext underlines, indentation, hard breaks
        parts.append(line.rstrip())
    return "markdown.paragraph", " ".join(parts)


def _is_padding(line: Line | LazyLines) -> bool:
    """A line with no text at all (blank, or a code block's padding)."""
    return not isinstance(line, LazyLines) and all(not segment.text.strip() for segment in line)


def _is_blank(line: Line | LazyLines) -> bool:
    return not isinstance(line, LazyLines) and all(
        not segment.text.strip() and not (segment.style and segment.style.bgcolor)
        for segment in line
    )


class MarkdownRenderer:
    """Markdown text to lines, with the block cache."""

    def __init__(self, painter: Painter) -> None:
        self._painter = painter
        self._parsed = _Parsed()
        self._blocks: LRU[tuple[str, int, int], Rows] = LRU(BLOCK_CACHE_SIZE)
        self._tails: LRU[tuple[str, int, int], Rows] = LRU(TAIL_CACHE_SIZE)
        #: How many blocks were actually rendered (cache misses).
        self.renders = 0

    def clear(self) -> None:
        self._blocks.clear()
        self._tails.clear()
        self._parsed.clear()

    def render(self, text: str, width: int, styles: RenderStyles) -> Rows:
        """``text`` (Markdown) as lines ``width`` wide; no lines for blank text."""
        if len(text) > HUGE_TEXT:
            # Not cached here: a growing reply would leave a copy per frame in
            # the tail cache (the log caches the entry's rows anyway).
            return self._render_block(text.strip("\n"), width, styles)
        blocks = split_blocks(text)
        out: Rows = []
        last = len(blocks) - 1
        for index, block in enumerate(blocks):
            pieces = split_long(block)
            for number, piece in enumerate(pieces):
                tail = index == last and number == len(pieces) - 1
                lines = self.block(piece, width, styles, tail=tail)
                if not lines:
                    continue
                if number:
                    # A piece of a cut block: drawn right under the one before,
                    # without the padding a code block has at both ends.
                    if out and _is_padding(out[-1]) and _is_padding(lines[0]):
                        out.pop()
                        lines = lines[1:]
                elif out:
                    out.append(blank(width, styles.text))
                out.extend(lines)
        return out

    def block(self, block: str, width: int, styles: RenderStyles, *, tail: bool) -> Rows:
        """One block (or piece) as lines, cached; ``tail``: it may still grow."""
        key = (block, width, styles.generation)
        lines = self._blocks.get(key)
        if lines is not None:
            return lines
        lines = self._tails.get(key)
        if lines is not None:
            if tail:
                return lines
            self._tails.discard(key)  # the block is complete now: promote it
        else:
            lines = self._render_block(block, width, styles, tail=tail)
            if tail and len(block) > LONG_TEXT:
                return lines  # a long growing piece: one copy per frame would pile up
        (self._tails if tail else self._blocks).set(key, lines)
        return lines

    def _render_block(
        self, block: str, width: int, styles: RenderStyles, *, tail: bool = False
    ) -> Rows:
        self.renders += 1
        if len(block) > HUGE_TEXT or max(map(len, block.split("\n"))) > LONG_TEXT:
            style = self._painter.console.get_style("markdown.paragraph", default="none")
            return [LazyLines(block, width, styles.text + style)]
        simple = simple_block(block)
        renderable: RenderableType
        if simple is not None:
            style_name, content = simple
            style = self._painter.console.get_style(style_name, default="none")
            renderable = Text(justify="left", end="").append(content, style)
        else:
            renderable = self._parsed.get(block, styles.code_theme, keep=not tail)
        lines: Rows = [*self._painter.lines(renderable, width, styles.text)]
        return list(_trim(lines))


def _trim(lines: Rows) -> Iterator[Line | LazyLines]:
    """``lines`` without blank lines at either end."""
    start, end = 0, len(lines)
    while start < end and _is_blank(lines[start]):
        start += 1
    while end > start and _is_blank(lines[end - 1]):
        end -= 1
    return iter(lines[start:end])
