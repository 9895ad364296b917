"""Checkpoint entries: what a turn changed in the session's folders
(``changes``), and files put back as they were (``rewind``).

A changes entry is compact: one line per file with its +/− line counts,
marked when someone other than the agent's tools most likely wrote it.
Expanded, it shows each file's diff with the tool calls' diff renderer (the
diffs come from the host when the entry is expanded: ``options.details``).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from acp_tui.core import ChangesEntry, RewindEntry, one_line
from acp_tui.ui.render.layout import Painter, Rows, assemble, indent, shorten_left
from acp_tui.ui.render.options import RenderOptions
from acp_tui.ui.render.tools import ToolCallRenderer

CHANGES_ICON = "±"
REWIND_ICON = "↶"
#: Files listed before "… N more" (unless expanded).
FILE_LIMIT = 12
CHANGE_LETTERS = {"added": "A", "modified": "M", "deleted": "D"}
ACTION_WORDS = {"restore": "restored", "recreate": "brought back", "remove": "removed"}
SKIP_REASONS = {
    "too-large": "over the size limit",
    "symlink-outside": "a link out of the folders",
    "nested-repository": "another git repository",
    "unreadable": "unreadable",
    "special": "not a regular file",
}
CHANGES_KEYS = "Enter diffs · e edit · f restore a file · r rewind this turn"
REWIND_KEYS = "u undo this rewind"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def rewind_title(entry: RewindEntry) -> str:
    """What a rewind did, in a few words."""
    turn = f"turn {entry.turn}" if entry.turn is not None else "a turn"
    return {
        "before-turn": f"Files restored to before {turn}",
        "after-turn": f"Files restored to after {turn}",
        "before-restore": "A rewind undone: files back as they were before it",
        "after-restore": "Files restored to after an earlier rewind",
    }.get(entry.label, "Files restored to an earlier checkpoint")


class CheckpointRenderer:
    """``changes`` and ``rewind`` entries."""

    def __init__(self, painter: Painter, tools: ToolCallRenderer) -> None:
        self._painter = painter
        self._tools = tools

    def changes(self, entry: ChangesEntry, options: RenderOptions, width: int) -> Rows:
        styles = options.styles
        body_width = max(1, width - 2)
        added = sum(int(f.get("added") or 0) for f in entry.files)
        removed = sum(int(f.get("removed") or 0) for f in entry.files)
        which = f"Turn {entry.turn}" if entry.turn is not None else "The turn"
        head = assemble(
            (CHANGES_ICON + " ", styles.tool_kind_icon),
            (f"{which} changed {plural(len(entry.files), 'file')}", styles.tool_title),
        )
        if added:
            head.append(f"  +{added}", styles.status_done)
        if removed:
            head.append(f" −{removed}", styles.status_failed)
        lines: Rows = [self._painter.truncated(head, width, styles.text)]
        body: Rows = []
        if options.expanded:
            body += self._diffs(entry, options, body_width)
        else:
            body += self._files(entry.files, options, body_width)
        for item in entry.skipped[: FILE_LIMIT if not options.expanded else None]:
            reason = SKIP_REASONS.get(str(item.get("reason")), one_line(str(item.get("reason"))))
            name = one_line(str(item.get("display") or item.get("path") or ""))
            text = Text(f"not recorded: {name} ({reason})")
            body.append(self._painter.truncated(text, body_width, styles.muted))
        if options.selected:
            body.append(self._painter.truncated(Text(CHANGES_KEYS), body_width, styles.faint))
        return lines + indent(body, 2, styles.text)

    def _files(self, files: list[dict[str, Any]], options: RenderOptions, width: int) -> Rows:
        styles = options.styles
        shown = files if options.expanded else files[:FILE_LIMIT]
        name_width = min(max((len(str(f.get("display", ""))) for f in shown), default=0), 48)
        lines: Rows = []
        for item in shown:
            change = str(item.get("change"))
            letter_style = {
                "added": styles.status_done,
                "deleted": styles.status_failed,
            }.get(change, styles.status_running)
            name = one_line(str(item.get("display") or item.get("path") or ""))
            stats = Text(end="")
            if item.get("binary"):
                stats.append("  binary", styles.muted)
            else:
                counts = [(f"+{item['added']}", styles.status_done)] if item.get("added") else []
                if item.get("removed"):
                    counts.append((f"−{item['removed']}", styles.status_failed))
                for n, (count, style) in enumerate(counts):
                    stats.append(("  " if n == 0 else " ") + count, style)
            if item.get("outside"):
                stats.append("  ⚠ edited outside the agent's tools", styles.status_waiting)
            room = max(1, width - 2 - stats.cell_len)
            name = shorten_left(name, room).ljust(min(name_width, room))
            line = assemble((CHANGE_LETTERS.get(change, "?") + " ", letter_style), name, stats)
            lines.append(self._painter.truncated(line, width, styles.text))
        if len(shown) < len(files):
            more = Text(f"… {len(files) - len(shown)} more (expand to see all)")
            lines.append(self._painter.truncated(more, width, styles.muted))
        return lines

    def _diffs(self, entry: ChangesEntry, options: RenderOptions, width: int) -> Rows:
        styles = options.styles
        if options.details is None:
            lines = self._files(entry.files, options, width)
            loading = Text("loading the diffs…")
            return [*lines, self._painter.truncated(loading, width, styles.muted)]
        lines = []
        outside = {str(f.get("path")) for f in entry.files if f.get("outside")}
        for item in options.details:
            shown = {**item, "path": item.get("display") or item.get("path")}
            if item.get("binary"):
                label = Text(f"{one_line(str(shown['path']))}  binary file {item.get('change')}")
                lines.append(self._painter.truncated(label, width, styles.diff_file))
            else:
                if item.get("change") == "deleted":
                    shown["newText"] = ""  # a deleted file: every line removed
                lines += self._tools.diff(shown, options, width)
            if str(item.get("path")) in outside:
                note = Text("⚠ most likely edited outside the agent's tools")
                lines.append(self._painter.truncated(note, width, styles.status_waiting))
        if not options.details:
            lines.append(self._painter.truncated(Text("no differences"), width, styles.muted))
        return lines

    def rewind(self, entry: RewindEntry, options: RenderOptions, width: int) -> Rows:
        styles = options.styles
        body_width = max(1, width - 2)
        head = assemble(
            (REWIND_ICON + " ", styles.tool_kind_icon),
            (rewind_title(entry), styles.tool_title),
            (f"  {plural(len(entry.files), 'file')}", styles.muted),
        )
        lines: Rows = [self._painter.truncated(head, width, styles.text)]
        body: Rows = []
        shown = entry.files if options.expanded else entry.files[:FILE_LIMIT]
        name_width = min(max((len(str(f.get("display", ""))) for f in shown), default=0), 48)
        for item in shown:
            name = one_line(str(item.get("display") or item.get("path") or ""))
            word = ACTION_WORDS.get(str(item.get("action")), one_line(str(item.get("action"))))
            line = assemble(name.ljust(name_width), (f"  {word}", styles.muted))
            body.append(self._painter.truncated(line, body_width, styles.text))
        if len(shown) < len(entry.files):
            more = Text(f"… {len(entry.files) - len(shown)} more")
            body.append(self._painter.truncated(more, body_width, styles.muted))
        told = (
            "The agent is told with your next prompt."
            if entry.agent_told
            else "The agent is not told: it may still expect its edits."
        )
        memo = Text(f"The conversation is unchanged (the agent's memory cannot be rewound). {told}")
        body += self._painter.text(memo, body_width, styles.muted)
        if options.selected:
            body.append(self._painter.truncated(Text(REWIND_KEYS), body_width, styles.faint))
        return lines + indent(body, 2, styles.text)
