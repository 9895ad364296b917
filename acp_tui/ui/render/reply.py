"""An assistant entry (thoughts and Markdown text) to lines, and to Strips as it grows.

:meth:`ReplyRenderer.lines` renders a reply whole. :meth:`ReplyRenderer.strips`
gives the same rows for a reply whose last chunk is Markdown text, built in
proportion to what changed since the last call: the chunks before the last
are rendered once, the last one goes through a
:class:`~acp_tui.ui.render.streaming.MarkdownStream`, and only its open
piece becomes Strips again (once per call, not once per line of the reply).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from rich.segment import Segment
from rich.text import Text
from textual.cache import LRUCache
from textual.strip import Strip

from acp_tui.core import AssistantEntry, Chunk, clean
from acp_tui.ui.render.layout import Line, Painter, Rows, assemble, blank, indent
from acp_tui.ui.render.long_text import LazyLines, StripRows
from acp_tui.ui.render.markdown import MarkdownRenderer
from acp_tui.ui.render.streaming import MarkdownStream
from acp_tui.ui.render.styles import RenderStyles

THOUGHT_ICON = "∴"
#: Growing replies whose rows are kept (the streaming one, and a few before).
STREAMS = 16

Make = Callable[[Line], Strip]


@dataclass
class _Growing:
    """What is kept of one reply between calls."""

    key: tuple[object, ...]
    chunk: Chunk
    prefix: tuple[int, ...]
    prefix_strips: list[Strip]
    separator: list[Strip]
    stream: MarkdownStream
    done: list[Strip] = field(default_factory=list)


class ReplyRenderer:
    def __init__(self, painter: Painter, markdown: MarkdownRenderer) -> None:
        self._painter = painter
        self._markdown = markdown
        self._growing: LRUCache[AssistantEntry, _Growing] = LRUCache(STREAMS)

    def clear(self) -> None:
        self._growing.clear()

    @staticmethod
    def _shown(
        chunks: Sequence[Chunk], reveal: Mapping[int, int] | None
    ) -> list[tuple[Chunk, int]]:
        out = []
        for index, chunk in enumerate(chunks):
            text = chunk.text
            count = len(text)
            if reveal is not None and index in reveal:
                count = min(reveal[index], count)
            out.append((chunk, count))
        return out

    def lines(
        self,
        chunks: Sequence[tuple[Chunk, int]],
        styles: RenderStyles,
        width: int,
        *,
        expanded: bool,
    ) -> Rows:
        """The reply's chunks (each with the characters shown of it) as lines."""
        out: Rows = []
        for chunk, count in chunks:
            if count <= 0:
                continue
            text = chunk.text[:count]
            if not text.strip():
                continue
            if chunk.type == "thought":
                lines = self._thought(clean(text), styles, width, expanded=expanded)
            else:
                body = self._markdown.render(clean(text), max(1, width - 2), styles)
                lines = indent(body, 2, styles.text)
            if not lines:
                continue
            if out:
                out.append(blank(width, styles.text))
            out.extend(lines)
        return out

    def whole(
        self,
        entry: AssistantEntry,
        styles: RenderStyles,
        width: int,
        *,
        expanded: bool,
        reveal: Mapping[int, int] | None,
    ) -> Rows:
        return self.lines(self._shown(entry.chunks, reveal), styles, width, expanded=expanded)

    def strips(
        self,
        entry: AssistantEntry,
        key: tuple[object, ...],
        styles: RenderStyles,
        width: int,
        *,
        expanded: bool,
        reveal: Mapping[int, int] | None,
        make: Make,
        end: Strip,
        deadline: float | None = None,
    ) -> StripRows | None:
        """The reply's rows, ``end`` (its blank separator) last, or None when it
        is not a growing Markdown text (it is rendered whole then).

        ``key`` names everything else the rows depend on (width, styles,
        selection): a different one starts over. With a ``deadline``, only
        what can be made by then is (the rows say whether that is all)."""
        chunks = entry.chunks
        if not chunks or chunks[-1].type != "message":
            return None
        shown = self._shown(chunks, reveal)
        before, (last, count) = shown[:-1], shown[-1]
        prefix = tuple(number for _, number in before)
        growing = self._growing.get(entry)
        if (
            growing is None
            or growing.key != key
            or growing.chunk is not last
            or growing.prefix != prefix
            or count < growing.stream.taken
        ):
            growing = self._start(entry, key, before, styles, width, expanded, make)
            if growing is None:
                return None
        stream = growing.stream
        rows = stream.update(last.text, count, deadline) if not stream.lazy else []
        if stream.lazy:
            return None
        pad = [Segment("  ", styles.text)]
        done = growing.done
        for line in stream.take_done():
            done.append(make([*pad, *line]))  # type: ignore[misc]
        tail = [make([*pad, *line]) for line in rows]  # type: ignore[misc]
        body = len(done) + len(tail)
        ahead = len(growing.prefix_strips)
        separator = 1 if (body and ahead) or not (body or ahead) else 0
        return StripRows(
            [
                (growing.prefix_strips, ahead),
                (growing.separator, separator),
                (done, len(done)),
                (tail, len(tail)),
                ([end], 1),
            ],
            complete=not stream.behind,
        )

    def _start(
        self,
        entry: AssistantEntry,
        key: tuple[object, ...],
        before: list[tuple[Chunk, int]],
        styles: RenderStyles,
        width: int,
        expanded: bool,
        make: Make,
    ) -> _Growing | None:
        # The chunks before the last are whole (a new chunk ends the ones before).
        lines = self.lines(before, styles, width, expanded=expanded)
        if any(isinstance(line, LazyLines) for line in lines):
            return None
        growing = _Growing(
            key=key,
            chunk=entry.chunks[-1],
            prefix=tuple(count for _, count in before),
            prefix_strips=[make(line) for line in lines],  # type: ignore[arg-type]
            separator=[make(blank(width, styles.text))],
            stream=MarkdownStream(self._markdown, max(1, width - 2), styles),
        )
        self._growing.set(entry, growing)
        return growing

    def _thought(self, text: str, styles: RenderStyles, width: int, *, expanded: bool) -> Rows:
        icon = (f"{THOUGHT_ICON} ", styles.thought)
        if expanded:
            head = self._painter.truncated(
                assemble(icon, ("Thinking", styles.thought)), width, None
            )
            body = self._painter.text(Text(text.strip()), max(1, width - 2), styles.thought)
            return [head, *indent(body, 2, styles.text)]
        rows = [row.strip() for row in text.strip().split("\n") if row.strip()]
        hint = Text(f"  (+{len(rows) - 1} lines)" if len(rows) > 1 else "", styles.muted, end="")
        prefix = assemble(icon, ("Thinking · ", styles.thought))
        first = Text(rows[0][: width * 2] if rows else "", styles.thought, end="")
        room = max(1, width - prefix.cell_len - hint.cell_len)
        if first.cell_len > room:
            first.truncate(room, overflow="ellipsis")
        return [self._painter.truncated(assemble(prefix, first, hint), width, styles.text)]
