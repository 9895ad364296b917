"""One thread entry to a list of Strips at a given width.

Layout of every entry: a one-cell gutter (the selection marker when the
entry has the log's cursor), then the entry's lines; symbols sit in the
first column after the gutter and text starts two cells further, so user
prompts, replies, tool calls and notices line up. A blank separator line
ends every entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from acp_tui.core import (
    AssistantEntry,
    ChangesEntry,
    Entry,
    NoticeEntry,
    RewindEntry,
    ToolCallEntry,
    UserEntry,
    clean,
    read_markup,
)
from acp_tui.ui.render.layout import (
    Line,
    Painter,
    Rows,
    blank,
    block_label,
    indent,
    prefixed,
)
from acp_tui.ui.render.long_text import LazyRows
from acp_tui.ui.render.options import RenderOptions
from acp_tui.ui.render.styles import RenderStyles
from acp_tui.ui.render.tools import ToolCallRenderer

if TYPE_CHECKING:
    from acp_tui.ui.render.changes import CheckpointRenderer
    from acp_tui.ui.render.markdown import MarkdownRenderer
    from acp_tui.ui.render.reply import ReplyRenderer

#: Entries are laid out at least this wide, then cropped to the real width.
MIN_LAYOUT_WIDTH = 12
GUTTER = 1
SELECTED_MARKER = "▌"
USER_MARKER = "❯ "
NOTICE_ICONS = {"info": "ℹ", "warning": "⚠", "error": "✗"}
#: A prompt longer than this many lines (a paste) is folded to the first
#: USER_SHOWN_LINES unless expanded.
USER_FOLD_LINES = 20
USER_SHOWN_LINES = 8


class EntryRenderer:
    """Owns a Rich Console used only for rendering, and the Markdown block cache.

    Not thread-safe: use it from one thread (the UI's).
    """

    def __init__(self) -> None:
        self._painter = Painter()
        # Made for the first entry that needs them: Markdown (markdown_it,
        # Rich's Markdown, Pygments) is loaded after the first frame.
        self._markdown_renderer: MarkdownRenderer | None = None
        self._tool_renderer: ToolCallRenderer | None = None
        self._reply_renderer: ReplyRenderer | None = None
        self._checkpoint_renderer: CheckpointRenderer | None = None
        self._theme_generation: int | None = None

    @property
    def _markdown(self) -> MarkdownRenderer:
        if self._markdown_renderer is None:
            from acp_tui.ui.render.markdown import MarkdownRenderer

            self._markdown_renderer = MarkdownRenderer(self._painter)
        return self._markdown_renderer

    @property
    def _tools(self) -> ToolCallRenderer:
        if self._tool_renderer is None:
            self._tool_renderer = ToolCallRenderer(self._painter, self._markdown)
        return self._tool_renderer

    @property
    def _checkpoints(self) -> CheckpointRenderer:
        if self._checkpoint_renderer is None:
            from acp_tui.ui.render.changes import CheckpointRenderer

            self._checkpoint_renderer = CheckpointRenderer(self._painter, self._tools)
        return self._checkpoint_renderer

    @property
    def _replies(self) -> ReplyRenderer:
        if self._reply_renderer is None:
            from acp_tui.ui.render.reply import ReplyRenderer

            self._reply_renderer = ReplyRenderer(self._painter, self._markdown)
        return self._reply_renderer

    @property
    def markdown_renders(self) -> int:
        """How many Markdown blocks were actually rendered (block cache misses)."""
        return self._markdown_renderer.renders if self._markdown_renderer is not None else 0

    def clear(self) -> None:
        """Drop every cache (the theme changed)."""
        if self._markdown_renderer is not None:
            self._markdown_renderer.clear()
        if self._tool_renderer is not None:
            self._tool_renderer.clear()
        if self._reply_renderer is not None:
            self._reply_renderer.clear()

    def render(
        self,
        entry: Entry,
        options: RenderOptions,
        base: Style | None = None,
        deadline: float | None = None,
    ) -> Sequence[Strip]:
        """``entry``'s rows; ``base`` (the log's background) beneath every cell.

        ``deadline``: a growing reply renders what it can by then (the rows of
        the rest come at later calls; see ``StripRows.complete``)."""
        styles = options.styles
        self._use_theme(styles)
        width = max(1, options.width)
        inner = max(width, MIN_LAYOUT_WIDTH) - GUTTER
        background: Style | None = None
        if isinstance(entry, AssistantEntry):
            make, end = self._maker(width, options, None, base)
            key = (width, styles.generation, options.expanded, options.selected, base)
            rows = self._replies.strips(
                entry,
                key,
                styles,
                inner,
                expanded=options.expanded,
                reveal=options.reveal,
                make=make,
                end=end,
                deadline=deadline,
            )
            if rows is not None:
                return rows
        if isinstance(entry, UserEntry):
            lines = self._user(entry, options, inner)
            background = styles.user_background
        elif isinstance(entry, AssistantEntry):
            lines = self._replies.whole(
                entry, styles, inner, expanded=options.expanded, reveal=options.reveal
            )
        elif isinstance(entry, ToolCallEntry):
            lines = self._tools.render(entry, options, inner)
        elif isinstance(entry, ChangesEntry):
            lines = self._checkpoints.changes(entry, options, inner)
        elif isinstance(entry, RewindEntry):
            lines = self._checkpoints.rewind(entry, options, inner)
        else:
            lines = self._notice(entry, styles, inner)
        if not lines:
            lines = [blank(inner, styles.text)]
        rendered = self._finish(lines, width, options, background)
        if base is None:
            return rendered
        if isinstance(rendered, LazyRows):  # a long text: rows made as they are drawn
            return rendered.styled(base)
        return [strip.apply_style(base) for strip in rendered]

    def _use_theme(self, styles: RenderStyles) -> None:
        if self._theme_generation == styles.generation:
            return
        console = self._painter.console
        if self._theme_generation is not None:
            console.pop_theme()
        console.push_theme(styles.rich_theme)
        self._theme_generation = styles.generation

    @staticmethod
    def _maker(
        width: int, options: RenderOptions, background: Style | None, base: Style | None
    ) -> tuple[Callable[[Line], Strip], Strip]:
        """How a line becomes a row (the gutter before it, the background
        under it), and the blank row that ends the entry."""
        styles = options.styles
        if options.selected:
            gutter = Segment(SELECTED_MARKER, styles.text + styles.selection_marker)
            background = background or styles.selection
        else:
            gutter = Segment(" ", styles.text)
        # Lines are made exactly as wide as asked (tests check the sums), so
        # the width is passed to Strip rather than measured again; below the
        # minimum layout width they are cropped.
        exact = width >= MIN_LAYOUT_WIDTH
        # One style applied once, rather than the background and then the base.
        under = background if base is None else base if background is None else base + background

        def make(line: Line) -> Strip:
            if exact:
                strip = Strip([gutter, *line], width)
            else:
                strip = Strip([gutter, *line]).crop_extend(0, width, styles.text)
            return strip.apply_style(under) if under is not None else strip

        end = Strip.blank(width, styles.text)
        return make, end.apply_style(base) if base is not None else end

    def _finish(
        self, lines: Rows, width: int, options: RenderOptions, background: Style | None
    ) -> Sequence[Strip]:
        make, end = self._maker(width, options, background, None)
        # A long text's rows (LazyLines) are made only when they are drawn.
        return LazyRows.build(lines, make, tail=[end])

    # -- user -------------------------------------------------------------------------

    def _user(self, entry: UserEntry, options: RenderOptions, width: int) -> Rows:
        """The prompt's text; what was attached (files, images) on a line below
        it, so an ``@path`` typed in the text is not shown twice. Claude Code's
        markup in a replayed prompt becomes compact notes; a long prompt (a
        paste) is folded unless expanded."""
        styles = options.styles
        written = "".join(
            str(b.get("text") or "") for b in entry.content if b.get("type") == "text"
        )
        read = read_markup(written)
        shown = read.text.rstrip()
        rows = shown.split("\n")
        folded = 0
        if not options.expanded and len(rows) > USER_FOLD_LINES:
            folded = len(rows) - USER_SHOWN_LINES
            shown = "\n".join(rows[:USER_SHOWN_LINES])
        text = Text(clean(shown), styles.user_text, end="")
        if folded:
            text.append(f"\n… {folded} more lines (expand to see all)", styles.muted)
        for note in read.notes:
            if text.plain:
                text.append("\n")
            text.append(clean(note), styles.muted)
        attached = Text(end="")
        for block in entry.content:
            if block.get("type") != "text":
                attached.append("  " if attached.plain else "↳ ", styles.text)
                attached.append(block_label(block).removeprefix("@"), styles.chip)
        text.rstrip()
        if attached.plain:
            if text.plain:
                text.append("\n")
            text.append_text(attached)
        marker = Segment(USER_MARKER, styles.text + styles.user_marker)
        body = self._painter.text(text, max(1, width - 2), styles.user_text)
        return prefixed(body, [marker], [Segment("  ", styles.text)])

    # -- notice ---------------------------------------------------------------------------

    def _notice(self, entry: NoticeEntry, styles: RenderStyles, width: int) -> Rows:
        level_styles = {
            "info": styles.notice_info,
            "warning": styles.notice_warning,
            "error": styles.notice_error,
        }
        style = level_styles.get(entry.level, styles.notice_info)
        head, _, tail = entry.text.strip("\n").partition("\n")
        icon = Segment(NOTICE_ICONS.get(entry.level, "ℹ") + " ", styles.text + style)
        body = self._painter.text(
            Text(clean(head).rstrip()), max(1, width - 2), styles.text + style
        )
        lines = prefixed(body, [icon], [Segment("  ", styles.text)])
        tail = clean(tail).rstrip()
        if tail.strip():
            rest = self._painter.text(Text(tail), max(1, width - 4), styles.muted)
            lines += indent(rest, 4, styles.text)
        return lines
