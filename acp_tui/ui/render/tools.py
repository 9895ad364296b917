"""Tool calls: header with icon, title and status badge; locations, the calls made
under it (a subagent's: nested_calls.py), content, raw I/O (raw I/O only when
expanded, or when the tool call has no other content)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.highlighter import JSONHighlighter
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from acp_tui.core import (
    KIND_ICONS,
    ToolCallEntry,
    clean,
    diff_lines,
    exit_label,
    kind_icon,
    one_line,
    terminal_ansi,
)
from acp_tui.ui.lru import LRU
from acp_tui.ui.render.layout import (
    Line,
    Painter,
    Rows,
    assemble,
    block_label,
    fit,
    indent,
    prefixed,
    shorten_left,
)
from acp_tui.ui.render.nested_calls import nested_rows
from acp_tui.ui.render.options import RenderOptions
from acp_tui.ui.render.styles import RenderStyles

if TYPE_CHECKING:
    from acp_tui.ui.render.markdown import MarkdownRenderer

SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
#: Diff lines shown before "… N more lines" (unless expanded).
DIFF_LIMIT = 40
#: Terminal output lines shown (the last ones) unless expanded.
TERMINAL_TAIL = 12
#: Locations listed before "… N more" (unless expanded).
LOCATION_LIMIT = 5
BODY_INDENT = 2
WAITING_TEXT = "⚠ Waiting for your decision — answer in the dialog"


def spinner(frame: int) -> str:
    return SPINNER_FRAMES[frame % len(SPINNER_FRAMES)]


def status_badge(status: str, styles: RenderStyles, frame: int) -> Text:
    """The status of a tool call as a short coloured label."""
    labels: dict[str, tuple[str, Style]] = {
        "pending": ("○ pending", styles.status_pending),
        "in_progress": (f"{spinner(frame)} running", styles.status_running),
        "completed": ("✓ done", styles.status_done),
        "failed": ("✗ failed", styles.status_failed),
        "canceled": ("⊘ canceled", styles.status_canceled),
        "rejected": ("✗ rejected", styles.status_rejected),
        "waiting_for_confirmation": (" ? waiting for you ", styles.waiting_badge),
    }
    label, style = labels.get(status, (one_line(status), styles.muted))
    return Text(label, style=style, end="")


def display_path(path: str, cwd: str | None) -> str:
    """``path`` relative to ``cwd`` when it lies inside it, else as given."""
    if cwd:
        prefix = cwd.rstrip("/\\") + ("\\" if "\\" in cwd and "/" not in cwd else "/")
        if path.startswith(prefix) and len(path) > len(prefix):
            return path[len(prefix) :]
    return path


#: Diffs kept (by old and new text).
DIFF_CACHE = 128


class ToolCallRenderer:
    def __init__(self, painter: Painter, markdown: MarkdownRenderer) -> None:
        self._painter = painter
        self._markdown = markdown
        self._diffs: LRU[tuple[str | None, str], tuple[str, ...]] = LRU(DIFF_CACHE)

    def clear(self) -> None:
        self._diffs.clear()

    def render(self, entry: ToolCallEntry, options: RenderOptions, width: int) -> Rows:
        styles = options.styles
        body_width = max(1, width - BODY_INDENT)
        lines, title_cut = self._header(entry, options, width)
        body: Rows = []
        if title_cut and options.expanded:
            body += self._painter.text(Text(clean(entry.title).strip()), body_width, styles.text)
        body += self._locations(entry.locations, options, body_width)
        if options.children:
            body += nested_rows(options.children, options, body_width, self._painter, self.render)
        for item in entry.content:
            if isinstance(item, dict):
                body += self._content_item(item, options, body_width)
        # The raw JSON repeats the diff or output shown above: folded away
        # unless expanded, or unless it is all there is to show.
        raw_shown = options.expanded or not entry.content
        if entry.raw_input is not None and raw_shown:
            body += self._raw("input", entry.raw_input, options, body_width)
        if entry.raw_output is not None and raw_shown:
            body += self._raw("output", entry.raw_output, options, body_width)
        if entry.permission is not None:
            body += self._painter.text(Text(WAITING_TEXT), body_width, styles.status_waiting)
        return lines + indent(body, BODY_INDENT, styles.text)

    # -- header ---------------------------------------------------------------------

    def _header(
        self, entry: ToolCallEntry, options: RenderOptions, width: int
    ) -> tuple[list[Line], bool]:
        styles = options.styles
        kind = entry.tool_kind if entry.tool_kind in KIND_ICONS else "other"
        icon = Text(kind_icon(kind) + " ", style=styles.tool_kind_icon, end="")
        title = one_line(entry.title) or kind.replace("_", " ")
        badge = status_badge(entry.shown_status, styles, options.spinner_frame)
        room = width - icon.cell_len - 2 - badge.cell_len
        title_text = Text(title, style=styles.tool_title, end="")
        if room >= min(title_text.cell_len, 8):
            cut = title_text.cell_len > room
            header = assemble(icon, self._cut(title_text, room), "  ", badge)
            return [self._painter.truncated(header, width, styles.text)], cut
        room = width - icon.cell_len
        header = assemble(icon, self._cut(title_text, room))
        return [
            self._painter.truncated(header, width, styles.text),
            self._painter.truncated(assemble("  ", badge), width, styles.text),
        ], title_text.cell_len > room

    @staticmethod
    def _cut(text: Text, width: int) -> Text:
        if text.cell_len <= width:
            return text
        text = text.copy()
        text.truncate(max(1, width), overflow="ellipsis")
        return text

    def _locations(self, locations: Sequence[Any], options: RenderOptions, width: int) -> Rows:
        styles = options.styles
        shown = [loc for loc in locations if isinstance(loc, dict) and loc.get("path")]
        hidden = 0
        if not options.expanded and len(shown) > LOCATION_LIMIT:
            hidden = len(shown) - LOCATION_LIMIT
            shown = shown[:LOCATION_LIMIT]
        lines: Rows = []
        for location in shown:
            line_no = location.get("line")
            suffix = f":{line_no}" if isinstance(line_no, int) else ""
            shown_path = display_path(str(location["path"]), options.cwd)
            path = shorten_left(one_line(shown_path), max(1, width - len(suffix)))
            lines.append(self._painter.truncated(Text(path + suffix), width, styles.muted))
        if hidden:
            more = Text(f"… {hidden} more location{'s' if hidden > 1 else ''}")
            lines.append(self._painter.truncated(more, width, styles.muted))
        return lines

    # -- content ----------------------------------------------------------------------

    def _content_item(self, item: dict[str, Any], options: RenderOptions, width: int) -> Rows:
        item_type = item.get("type")
        styles = options.styles
        if item_type == "content":
            block = item.get("content")
            if not isinstance(block, dict):
                return []
            if block.get("type") == "text":
                return self._markdown.render(clean(str(block.get("text") or "")), width, styles)
            return [self._painter.truncated(Text(block_label(block)), width, styles.chip)]
        if item_type == "diff":
            return self.diff(item, options, width)
        if item_type == "terminal":
            return self._terminal(item, options, width)
        label = Text(f"[{one_line(str(item_type or 'content'))}]")
        return [self._painter.truncated(label, width, styles.muted)]

    def diff(self, item: dict[str, Any], options: RenderOptions, width: int) -> Rows:
        """An ACP ``diff`` content item: the path with +/− counts, then the lines."""
        styles = options.styles
        old = item.get("oldText")
        new = item.get("newText")
        new_text = new if isinstance(new, str) else ""
        old_text = old if isinstance(old, str) else None
        diff = self._diff_lines(old_text, new_text)
        adds = sum(1 for line in diff if line[:1] == "+")
        removes = sum(1 for line in diff if line[:1] == "-")
        stats = Text(end="")
        if not isinstance(old, str):
            stats.append(" new file", styles.muted)
        if adds:
            stats.append(f" +{adds}", styles.status_done)
        if removes:
            stats.append(f" −{removes}", styles.status_failed)
        if not diff:
            stats.append(" no changes", styles.muted)
        path = one_line(display_path(str(item.get("path") or ""), options.cwd)) or "(no path)"
        path = shorten_left(path, max(1, width - stats.cell_len))
        header = assemble((path, styles.diff_file), stats)
        lines: Rows = [self._painter.truncated(header, width, styles.text)]
        shown = diff if options.expanded else diff[:DIFF_LIMIT]
        line_styles = {
            "+": styles.diff_add,
            "-": styles.diff_remove,
            "@": styles.diff_hunk,
            "\\": styles.muted,
        }
        for line in shown:
            style = line_styles.get(line[:1])
            if style is None:
                lines += fit(line, width, styles.diff_context, styles.text, self._painter)
            elif style.bgcolor is not None:  # added/removed: the background spans the width
                lines += fit(line, width, None, styles.text + style, self._painter)
            else:
                lines += fit(line, width, style, styles.text, self._painter)
        if len(shown) < len(diff):
            more = Text(f"… {len(diff) - len(shown)} more lines (expand to see all)")
            lines.append(self._painter.truncated(more, width, styles.muted))
        return lines

    def _diff_lines(self, old: str | None, new: str) -> tuple[str, ...]:
        key = (old, new)
        cached = self._diffs.get(key)
        if cached is not None:
            return cached
        result = tuple(line.removesuffix("\n") for line in diff_lines(old, new))
        self._diffs.set(key, result)
        return result

    def _terminal(self, item: dict[str, Any], options: RenderOptions, width: int) -> Rows:
        styles = options.styles
        terminal_id = one_line(str(item.get("terminalId") or "?"))
        if "output" not in item:
            note = Text(f"terminal {terminal_id}: output not available")
            return self._painter.text(note, width, styles.muted)
        output = str(item.get("output") or "")
        if output.endswith("\n"):
            output = output[:-1]
        total = output.count("\n") + 1 if output else 0
        if options.expanded or total <= TERMINAL_TAIL:
            raw_lines = output.split("\n") if output else []
        else:
            raw_lines = output.rsplit("\n", TERMINAL_TAIL)[1:]
        inner = max(1, width - 2)
        border = [Segment("│ ", styles.text + styles.terminal_border)]
        lines: Rows = []
        if len(raw_lines) < total:
            more = Text(f"… {total - len(raw_lines)} more lines")
            lines.append(self._painter.truncated(more, inner, styles.terminal_meta))
        if raw_lines:
            lines += self._painter.text(_from_ansi(raw_lines), inner, styles.text)
        out = prefixed(lines, border)
        status = self._exit_status(item, options)
        if item.get("truncated"):
            status.append(" (output truncated)", styles.terminal_meta)
        corner = Text("╰ " if out else "", style=styles.terminal_border, end="")
        out.append(self._painter.truncated(assemble(corner, status), width, styles.text))
        return out

    @staticmethod
    def _exit_status(item: dict[str, Any], options: RenderOptions) -> Text:
        styles = options.styles
        exit_status = item.get("exitStatus")
        if not isinstance(exit_status, dict):
            return Text(f"{spinner(options.spinner_frame)} running…", styles.status_running, end="")
        code = exit_status.get("exitCode")
        if exit_status.get("signal") or (isinstance(code, int) and code != 0):
            style = styles.status_failed
        elif isinstance(code, int):
            style = styles.status_done
        else:
            style = styles.terminal_meta
        return Text(exit_label(exit_status), style, end="")

    # -- raw input / output -----------------------------------------------------------

    def _raw(self, label: str, value: Any, options: RenderOptions, width: int) -> Rows:
        styles = options.styles
        if not options.expanded:
            if isinstance(value, str):
                compact = value[: width * 4]
            else:
                compact = json.dumps(value, ensure_ascii=False, default=str)
            head = assemble((f"▸ {label}: ", styles.muted), (one_line(compact), styles.faint))
            return [self._painter.truncated(head, width, styles.text)]
        head = Text(f"▾ {label}:", style=styles.muted)
        lines = [self._painter.truncated(head, width, styles.text)]
        if isinstance(value, str):
            body = Text(clean(value).rstrip(), style=styles.text)
        else:
            pretty = json.dumps(value, ensure_ascii=False, indent=2, default=str)
            body = JSONHighlighter()(Text(clean(pretty)))
        return lines + indent(
            self._painter.text(body, max(1, width - 2), styles.text), 2, styles.text
        )


def _from_ansi(lines: list[str]) -> Text:
    """Terminal output lines as Text: colours kept, other escapes and controls dropped."""
    return Text.from_ansi(terminal_ansi("\n".join(lines)), end="")
